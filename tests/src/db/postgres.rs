//! PostgreSQL: container settings and administrative SQL.

use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::{AssertSqlSafe, Executor as _};

use super::container::{ContainerSpec, ImageKind, kind_of};

/// Image used when `FLAKEID_TEST_POSTGRES_IMAGE` is not set.
pub(crate) const DEFAULT_IMAGE: &str = "postgres:17";
pub(crate) const IMAGE_VAR: &str = "FLAKEID_TEST_POSTGRES_IMAGE";
pub(crate) const URL_VAR: &str = "FLAKEID_TEST_POSTGRES_URL";
pub(crate) const PORT: u16 = 5432;

/// Container settings for `image`. The password is what the official image
/// requires; the local image trusts every connection and ignores it.
pub(crate) fn container_spec(image: String) -> ContainerSpec {
    let kind = kind_of(&image);
    ContainerSpec {
        image,
        kind: if kind == ImageKind::Local {
            kind
        } else {
            ImageKind::OfficialPostgres
        },
        port: PORT,
        env: vec![("POSTGRES_PASSWORD", "flakeid")],
        // The official image's temporary set-up server logs this on stdout;
        // only the final server logs it on stderr.
        ready_message: "database system is ready to accept connections",
        cmd: Vec::new(),
    }
}

/// Admin URL of a container reachable at `host:port`.
pub(crate) fn admin_url(host: &str, port: u16) -> String {
    format!("postgres://postgres:flakeid@{host}:{port}/postgres")
}

pub(crate) async fn connect_admin(url: &str) -> Result<PgPool, String> {
    PgPoolOptions::new()
        .max_connections(4)
        .connect(url)
        .await
        .map_err(|e| e.to_string())
}

pub(crate) async fn version(pool: &PgPool) -> Result<String, String> {
    sqlx::query_scalar::<_, String>("SELECT version()")
        .fetch_one(pool)
        .await
        .map_err(|e| e.to_string())
}

/// `name` as a PostgreSQL identifier. The fixture's names are lowercase
/// ASCII letters, digits and `_` within 63 bytes (see `database_name`), but
/// are quoted all the same.
fn quoted(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

pub(crate) async fn create_database(pool: &PgPool, name: &str) -> Result<(), String> {
    let sql = format!("CREATE DATABASE {}", quoted(name));
    pool.execute(AssertSqlSafe(sql))
        .await
        .map(drop)
        .map_err(|e| e.to_string())
}

pub(crate) async fn drop_database(pool: &PgPool, name: &str) -> Result<(), String> {
    // FORCE (PostgreSQL 13+) closes connections a test left open.
    let sql = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", quoted(name));
    pool.execute(AssertSqlSafe(sql))
        .await
        .map(drop)
        .map_err(|e| e.to_string())
}
