//! MySQL and MariaDB: container settings and administrative SQL.

use flakeid_sql::Dialect;
use testcontainers::{ContainerRequest, GenericImage, ImageExt as _};

use super::container;

/// Image used when `FLAKEID_TEST_MYSQL_IMAGE` is not set.
pub(crate) const DEFAULT_IMAGE: &str = "mysql:8.4";

pub(crate) const IMAGE_VAR: &str = "FLAKEID_TEST_MYSQL_IMAGE";

pub(crate) const URL_VAR: &str = "FLAKEID_TEST_MYSQL_URL";

pub(crate) const PORT: u16 = 3306;

/// The container of `image`, with server `settings` (`--name=value`).
/// The official images take the root password from the environment; the
/// local image has it built in.
pub(crate) fn container(image: &str, settings: &[(&str, &str)]) -> ContainerRequest<GenericImage> {
    let local = container::is_local(image);
    // Only the official images' final server listens on the port; their
    // temporary set-up server logs "port: 0".
    let ready = if local {
        "ready for connections"
    } else {
        "port: 3306"
    };
    let request = container::request(image, PORT, ready)
        .with_env_var("MYSQL_ROOT_PASSWORD", "flakeid")
        .with_env_var("MARIADB_ROOT_PASSWORD", "flakeid");
    if settings.is_empty() {
        // The image's own command.
        return request;
    }
    // The official images' entrypoints start the server with arguments
    // that begin with `-`; the local start script passes them on.
    let start = local.then(|| LOCAL_START.to_owned());
    let settings = settings
        .iter()
        .map(|(name, value)| format!("--{name}={value}"));
    request.with_cmd(start.into_iter().chain(settings))
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
