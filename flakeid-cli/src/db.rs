//! Connections to the database a subcommand reads (`nodes`, `sql adopt`):
//! its URL checked by the driver, one plain connection first so that a
//! failure says why, then a SeaORM pool of one connection.

use std::str::FromStr as _;
use std::time::Duration;

use flakeid_sql::Dialect;
use sea_orm::{Database, DatabaseConnection};

use crate::args::CliError;

/// The dialect of `url`, and the URL to connect to.
pub(crate) fn parse_url(url: &str) -> Result<(Dialect, String), CliError> {
    let bad = |reason: String| CliError::usage("<URL>", format!("{}: {reason}", redact(url)));
    let Some((scheme, rest)) = url.split_once(':') else {
        return Err(bad(
            "not a database URL; use postgres://…, mysql://… (or mariadb://…) or sqlite://PATH"
                .into(),
        ));
    };
    let (dialect, url) = match scheme.to_ascii_lowercase().as_str() {
        "postgres" | "postgresql" => (Dialect::Postgres, url.to_owned()),
        "mysql" => (Dialect::MySql, url.to_owned()),
        "mariadb" => (Dialect::MySql, format!("mysql:{rest}")),
        "sqlite" => (Dialect::Sqlite, url.to_owned()),
        other => {
            return Err(bad(format!(
                "unknown scheme {other:?}; use postgres://…, mysql://… (or mariadb://…) or sqlite://PATH"
            )));
        }
    };
    // The driver's own parsing, so that a malformed URL is an argument error.
    use sea_orm::sqlx;
    let parsed = match dialect {
        Dialect::Postgres => sqlx::postgres::PgConnectOptions::from_str(&url).map(drop),
        Dialect::MySql => sqlx::mysql::MySqlConnectOptions::from_str(&url).map(drop),
        _ => sqlx::sqlite::SqliteConnectOptions::from_str(&url).map(drop),
    };
    parsed.map_err(|e| bad(e.to_string()))?;
    Ok((dialect, url))
}

/// `url` without its password, for messages.
pub(crate) fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.to_string()
        }
        _ => url.to_owned(),
    }
}

/// A pool of one connection to `url`.
pub(crate) async fn connect(url: &str, dialect: Dialect) -> Result<DatabaseConnection, CliError> {
    // One plain connection first: a pool that cannot connect reports only
    // its own timeout, the driver says why (refused, bad password, …).
    probe(url, dialect)
        .await
        .map_err(|e| CliError::failed(format!("cannot connect to {}: {e}", redact(url))))?;
    let mut options = sea_orm::ConnectOptions::new(url);
    options
        .max_connections(1)
        .connect_timeout(Duration::from_secs(10))
        .sqlx_logging(false);
    Database::connect(options)
        .await
        .map_err(|e| CliError::failed(format!("cannot connect to {}: {e}", redact(url))))
}

/// A runtime for the subcommand's async work, on this thread.
pub(crate) fn runtime() -> Result<tokio::runtime::Runtime, CliError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::failed(format!("cannot start the async runtime: {e}")))
}

/// Opens and closes one connection to `url`.
async fn probe(url: &str, dialect: Dialect) -> Result<(), sea_orm::sqlx::Error> {
    use sea_orm::sqlx::{self, Connection as _};
    match dialect {
        Dialect::Postgres => sqlx::PgConnection::connect(url).await?.close().await,
        Dialect::MySql => sqlx::MySqlConnection::connect(url).await?.close().await,
        _ => sqlx::SqliteConnection::connect(url).await?.close().await,
    }
}
