//! An HTTP service whose rows have flake ID keys, with its node ID leased
//! from its own database: start as many replicas as you like against one
//! PostgreSQL or MySQL/MariaDB database (or one SQLite file on one machine)
//! and each issues IDs under a node of its own.
//!
//! ```text
//! cargo run -p flakeid-service                        # SQLite file ./flakeid-service.db, port 3000
//! DATABASE_URL=postgres://… PORT=8080 cargo run -p flakeid-service
//! ```
//!
//! Environment: `DATABASE_URL` (default `sqlite://flakeid-service.db?mode=rwc`),
//! `HOST` (default `0.0.0.0`), `PORT` (default 3000; 0 picks a free one),
//! `FLAKEID_SPACE` (the lease space, default `service`), `FLAKEID_NODES`
//! (the node IDs to lease, `first-last`; default all 1,024), `RUST_LOG`
//! (default `info`).
//!
//! Start-up: connect, create the tables (any number of replicas at once),
//! claim a node (waiting up to 30 s while all are held, as in a rolling
//! deploy), serve. On SIGTERM or SIGINT: stop accepting connections, finish
//! the requests in flight, release the node (the next holder starts right
//! after this process's last ID), exit 0.

pub mod api;
pub mod config;
pub mod error;
pub mod extract;
pub mod schema;

use std::net::SocketAddr;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use flakeid_core::layout::presets;
use flakeid_core::node::{LeaseError, LeaseOptions};
use flakeid_core::{ConfigError as GeneratorConfigError, global};
use sea_orm::{ConnectOptions, Database, DatabaseConnection, DbErr};

use crate::config::{Config, ConfigError};

/// Connections of the pool that serves requests.
const POOL_SIZE: u32 = 10;

/// How long a starting replica waits for a node while all are held.
const WAIT_FOR_NODE: Duration = Duration::from_secs(30);

/// Why the service did not start or did not stop cleanly.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error("configuration: {0}")]
    Config(#[from] ConfigError),
    #[error("cannot connect to the database {url}: {source}")]
    Connect {
        url: String,
        #[source]
        source: DbErr,
    },
    #[error("cannot create the {what}: {source}")]
    Schema {
        what: &'static str,
        #[source]
        source: DbErr,
    },
    #[error("cannot lease a node of space {space:?}: {source}")]
    Lease {
        space: String,
        #[source]
        source: LeaseError,
    },
    #[error("cannot install the ID generator: {0}")]
    Generator(#[from] GeneratorConfigError),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("the server failed: {0}")]
    Serve(#[source] std::io::Error),
    #[error("cannot release the node lease: {0}")]
    Release(#[source] LeaseError),
    #[error("the node lease was taken out before the server stopped")]
    LeaseGone,
}

/// Runs the service until SIGTERM or SIGINT, configured from the
/// environment (see the crate docs).
///
/// # Errors
/// [`ServiceError`]: what failed at start-up, while serving, or at release.
pub async fn run() -> Result<(), ServiceError> {
    let config = Config::from_env()?;

    let db = connect(&config.database_url, POOL_SIZE).await?;
    // The lease is renewed on a pool of its own: behind a pool busy with
    // requests (a burst, slow queries) renewals would wait for a connection
    // and could miss the lease's TTL.
    let lease_db = connect(&config.database_url, 2).await?;
    tracing::info!(database = %redact(&config.database_url), "connected");

    flakeid_seaorm::lease::create_table(&lease_db)
        .await
        .map_err(|source| ServiceError::Schema {
            what: "lease table",
            source,
        })?;
    schema::create_tables(&db)
        .await
        .map_err(|source| ServiceError::Schema {
            what: "tables teams and players",
            source,
        })?;

    let mut options =
        LeaseOptions::new(config.space.clone(), presets::twitter()).wait_for_node(WAIT_FOR_NODE);
    if let Some(nodes) = config.nodes.clone() {
        options = options.nodes(nodes);
    }
    let lease = flakeid_seaorm::lease::claim(&lease_db, options)
        .await
        .map_err(|source| ServiceError::Lease {
            space: config.space.clone(),
            source,
        })?;
    // `TeamId::generate()` and the rest now stamp the leased node; when the
    // lease is lost the generator moves to a free node by itself.
    let generator = global::init(lease.generator_builder())?;
    tracing::info!(
        space = %config.space,
        node = lease.node(),
        fence = lease.fence(),
        resume_after_ms = lease.resume_after_millis(),
        "node leased"
    );
    let lease = Arc::new(RwLock::new(Some(lease)));

    let addr = SocketAddr::new(config.host, config.port);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServiceError::Listen { addr, source })?;
    let local = listener
        .local_addr()
        .map_err(|source| ServiceError::Listen { addr, source })?;
    tracing::info!(addr = %local, "listening");

    let app = api::router(api::AppState {
        db: db.clone(),
        lease: lease.clone(),
    });
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown_signal())
        .await
        .map_err(ServiceError::Serve)?;
    tracing::info!("server stopped; releasing the node lease");

    let lease = lease
        .write()
        .unwrap_or_else(PoisonError::into_inner)
        .take()
        .ok_or(ServiceError::LeaseGone)?;
    let node = lease.node();
    let mark = lease
        .release(generator)
        .await
        .map_err(ServiceError::Release)?;
    tracing::info!(node, high_water_ms = mark, "node lease released");
    for pool in [db, lease_db] {
        if let Err(e) = pool.close().await {
            tracing::warn!(error = %e, "closing the database connections");
        }
    }
    Ok(())
}

/// A pool of at most `max` connections to `url`.
async fn connect(url: &str, max: u32) -> Result<DatabaseConnection, ServiceError> {
    let mut options = ConnectOptions::new(url.to_owned());
    options.sqlx_logging(false).max_connections(max);
    Database::connect(options)
        .await
        .map_err(|source| ServiceError::Connect {
            url: redact(url),
            source,
        })
}

/// Resolves at the first SIGTERM (what container runtimes and systemd
/// send) or SIGINT (Ctrl-C).
async fn shutdown_signal() {
    let interrupt = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::error!(error = %e, "cannot listen for SIGINT");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(e) => {
                tracing::error!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => tracing::info!("SIGINT: shutting down"),
        () = terminate => tracing::info!("SIGTERM: shutting down"),
    }
}

/// The URL without its password, for logs and errors.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let userinfo = &url[scheme_end + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme_end + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn passwords_stay_out_of_logs() {
        assert_eq!(
            redact("postgres://app:s3cr@t@db:5432/app"),
            "postgres://app:***@db:5432/app"
        );
        assert_eq!(redact("postgres://db/app"), "postgres://db/app");
        assert_eq!(
            redact("sqlite://flakeid-service.db?mode=rwc"),
            "sqlite://flakeid-service.db?mode=rwc"
        );
    }
}
