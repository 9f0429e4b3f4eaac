//! MySQL and MariaDB: container settings and administrative SQL.

use sqlx::mysql::{MySqlPool, MySqlPoolOptions};
use sqlx::{AssertSqlSafe, Executor as _};

use super::container::{ContainerSpec, ImageKind, kind_of};

/// Image used when `FLAKEID_TEST_MYSQL_IMAGE` is not set.
pub(crate) const DEFAULT_IMAGE: &str = "mysql:8.4";

pub(crate) const IMAGE_VAR: &str = "FLAKEID_TEST_MYSQL_IMAGE";

pub(crate) const URL_VAR: &str = "FLAKEID_TEST_MYSQL_URL";

pub(crate) const PORT: u16 = 3306;

/// Container settings for `image`, with server `settings` (`--name=value`).
/// The official images take the root password from the environment; the
/// local image has it built in.
pub(crate) fn container_spec(image: String, settings: &[(&str, &str)]) -> ContainerSpec {
    let kind = kind_of(&image);
    let mut cmd = Vec::new();
    if !settings.is_empty() {
        // The official images' entrypoints start the server with arguments
        // that begin with `-`; the local start script passes them on.
        if kind == ImageKind::Local {
            cmd.push(LOCAL_START.to_owned());
        }
        cmd.extend(
            settings
                .iter()
                .map(|(name, value)| format!("--{name}={value}")),
        );
    }
    let ready_message = match kind {
        ImageKind::Local => "ready for connections",
        // Only the final server listens on the port; the temporary set-up
        // server logs "port: 0".
        _ => "port: 3306",
    };
    ContainerSpec {
        image,
        kind,
        port: PORT,
        env: vec![
            ("MYSQL_ROOT_PASSWORD", "flakeid"),
            ("MARIADB_ROOT_PASSWORD", "flakeid"),
        ],
        cmd,
        tmpfs: Vec::new(),
        ready_message,
    }
}

/// Admin URL of a container reachable at `host:port`.
pub(crate) fn admin_url(host: &str, port: u16) -> String {
    format!("mysql://root:flakeid@{host}:{port}/mysql")
}

pub(crate) async fn connect_admin(url: &str) -> Result<MySqlPool, String> {
    MySqlPoolOptions::new()
        .max_connections(4)
        .connect(url)
        .await
        .map_err(|e| e.to_string())
}

pub(crate) async fn version(pool: &MySqlPool) -> Result<String, String> {
    sqlx::query_scalar::<_, String>("SELECT VERSION()")
        .fetch_one(pool)
        .await
        .map_err(|e| e.to_string())
}

pub(crate) async fn create_database(pool: &MySqlPool, name: &str) -> Result<(), String> {
    let sql = format!("CREATE DATABASE {} CHARACTER SET utf8mb4", quoted(name));
    pool.execute(AssertSqlSafe(sql))
        .await
        .map(drop)
        .map_err(|e| e.to_string())
}

pub(crate) async fn drop_database(pool: &MySqlPool, name: &str) -> Result<(), String> {
    let sql = format!("DROP DATABASE IF EXISTS {}", quoted(name));
    pool.execute(AssertSqlSafe(sql))
        .await
        .map(drop)
        .map_err(|e| e.to_string())
}

/// Where the local image (`scripts/images/mariadb/`) keeps its start script.
const LOCAL_START: &str = "/usr/local/bin/flakeid-start-mariadb";

/// `name` as a MySQL identifier. The fixture's names are lowercase ASCII
/// letters, digits and `_` (see `database_name`), but are quoted all the same.
fn quoted(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}
