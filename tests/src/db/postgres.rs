//! PostgreSQL: container settings and administrative SQL.

use flakeid_sql::Dialect;
use sqlx::postgres::PgPool;

use super::admin;
use super::container::{ContainerSpec, ImageKind, kind_of};

/// Image used when `FLAKEID_TEST_POSTGRES_IMAGE` is not set.
pub(crate) const DEFAULT_IMAGE: &str = "postgres:17";

pub(crate) const IMAGE_VAR: &str = "FLAKEID_TEST_POSTGRES_IMAGE";

pub(crate) const URL_VAR: &str = "FLAKEID_TEST_POSTGRES_URL";

/// The second PostgreSQL server: 18 or later (native `uuidv7()`).
pub(crate) const DEFAULT_IMAGE_18: &str = "postgres:18";

pub(crate) const IMAGE_VAR_18: &str = "FLAKEID_TEST_POSTGRES18_IMAGE";

pub(crate) const URL_VAR_18: &str = "FLAKEID_TEST_POSTGRES18_URL";

/// `server_version_num` of PostgreSQL 18.0.
pub(crate) const VERSION_NUM_18: i64 = 180_000;

pub(crate) const PORT: u16 = 5432;

/// Container settings for `image`, with server `settings` (`-c name=value`).
/// The password is what the official image requires; the local image trusts
/// every connection and ignores it.
pub(crate) fn container_spec(image: String, settings: &[(&str, &str)]) -> ContainerSpec {
    let kind = kind_of(&image);
    let mut cmd = Vec::new();
    if !settings.is_empty() {
        // Both start the server with the arguments that follow.
        cmd.push(
            if kind == ImageKind::Local {
                LOCAL_START
            } else {
                "postgres"
            }
            .to_owned(),
        );
        for (name, value) in settings {
            cmd.push("-c".to_owned());
            cmd.push(format!("{name}={value}"));
        }
    }
    ContainerSpec {
        image,
        kind: if kind == ImageKind::Local {
            kind
        } else {
            ImageKind::OfficialPostgres
        },
        port: PORT,
        env: vec![("POSTGRES_PASSWORD", "flakeid")],
        cmd,
        tmpfs: Vec::new(),
        // The official image's temporary set-up server logs this on stdout;
        // only the final server logs it on stderr.
        ready_message: "database system is ready to accept connections",
    }
}

/// Admin URL of a container reachable at `host:port`.
pub(crate) fn admin_url(host: &str, port: u16) -> String {
    format!("postgres://postgres:flakeid@{host}:{port}/postgres")
}

/// The server's version, selected.
pub(crate) const VERSION: &str = "SELECT version()";

/// `server_version_num`, e.g. 180006 for 18.6.
pub(crate) async fn version_num(pool: &PgPool) -> Result<i64, String> {
    let text = admin::text(pool, "SHOW server_version_num").await?;
    text.trim()
        .parse()
        .map_err(|e| format!("server_version_num {text:?} is not a number: {e}"))
}

/// The statement creating the database `name`.
pub(crate) fn create_database(name: &str) -> String {
    format!("CREATE DATABASE {}", Dialect::Postgres.quote(name))
}

/// The statement dropping the database `name`.
pub(crate) fn drop_database(name: &str) -> String {
    // FORCE (PostgreSQL 13+) closes connections a test left open.
    format!(
        "DROP DATABASE IF EXISTS {} WITH (FORCE)",
        Dialect::Postgres.quote(name)
    )
}

/// Where the local images (`scripts/images/postgres*/`) keep their start script.
const LOCAL_START: &str = "/usr/local/bin/flakeid-start-postgres";
