//! MySQL and MariaDB: container settings and administrative SQL.

use flakeid_sql::Dialect;

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

/// The server's version, selected.
pub(crate) const VERSION: &str = "SELECT VERSION()";

/// The statement creating the database `name`.
pub(crate) fn create_database(name: &str) -> String {
    format!(
        "CREATE DATABASE {} CHARACTER SET utf8mb4",
        Dialect::MySql.quote(name)
    )
}

/// The statement dropping the database `name`.
pub(crate) fn drop_database(name: &str) -> String {
    format!("DROP DATABASE IF EXISTS {}", Dialect::MySql.quote(name))
}

/// Where the local image (`scripts/images/mariadb/`) keeps its start script.
const LOCAL_START: &str = "/usr/local/bin/flakeid-start-mariadb";
