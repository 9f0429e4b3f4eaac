//! PostgreSQL: container settings and administrative SQL.

use flakeid_sql::Dialect;
use sqlx::postgres::PgPool;
use testcontainers::{ContainerRequest, GenericImage, ImageExt as _};

use super::{admin, container};

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

/// The container of `image`, with server `settings` (`-c name=value`).
/// The password is what the official image requires; the local image trusts
/// every connection and ignores it.
pub(crate) fn container(image: &str, settings: &[(&str, &str)]) -> ContainerRequest<GenericImage> {
    // The official image's temporary set-up server logs this on stdout;
    // only the final server logs it on stderr.
    let request = container::request(
        image,
        PORT,
        "database system is ready to accept connections",
    )
    .with_env_var("POSTGRES_PASSWORD", "flakeid");
    if settings.is_empty() {
        // The image's own command.
        return request;
    }
    // Both start the server with the arguments that follow.
    let start = if container::is_local(image) {
        LOCAL_START
    } else {
        "postgres"
    };
    let settings = settings
        .iter()
        .flat_map(|(name, value)| ["-c".to_owned(), format!("{name}={value}")]);
    request.with_cmd(std::iter::once(start.to_owned()).chain(settings))
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
