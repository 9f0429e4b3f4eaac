//! An HTTP service whose rows have flake ID keys, with its node ID leased
//! from its own database: start as many replicas as you like against one
//! PostgreSQL or MySQL/MariaDB database (or one SQLite file on one machine)
//! and each issues IDs under a node of its own.
//!
//! ```text
//! cargo run -p flakeid-service
//! ```
//!
//! (a SQLite file `./flakeid-service.db`, port 3000; set `DATABASE_URL` to a
//! `postgres://…` or `mysql://…` URL for a shared database.)
//!
//! Environment: `DATABASE_URL` (default `sqlite://flakeid-service.db?mode=rwc`),
//! `HOST` (default `0.0.0.0`), `PORT` (default 3000; 0 picks a free one),
//! `FLAKEID_SPACE` (the lease space, default `service`), `FLAKEID_NODES`
//! (the node IDs to lease, `first-last`; default all 1,024), `RUST_LOG`
//! (default `info`).
//!
//! Start-up: listen (a port in use stops it before it touches the
//! database), connect (the cause of a database that cannot be reached is
//! reported within [`CONNECT_TIMEOUT`]), create the tables (any number of
//! replicas at once), claim a node (waiting up to 30 s while all are held,
//! as in a rolling deploy), serve. A start-up step that fails after the
//! claim releases the node. On SIGTERM or SIGINT: stop accepting
//! connections, finish the requests in flight, release the node (the next
//! holder starts right after this process's last ID), exit 0.
//!
//! `GET /metrics` serves flakeid's metrics (IDs issued, generator waits by
//! cause, lease renewals and their failures, fences, node moves) in
//! Prometheus's text format ([`metrics`]).

pub mod api;
pub mod config;
pub mod connection;
pub mod error;
pub mod extract;
pub mod metrics;
pub mod schema;

use std::net::SocketAddr;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use flakeid_core::layout::presets;
use flakeid_core::{ConfigError as GeneratorConfigError, global};
use flakeid_lease::{LeaseError, LeaseOptions, LeaseStatus};
use sea_orm::{ConnectOptions, Database, DatabaseConnection, DbErr};

use crate::config::{Config, ConfigError};

/// How long connecting to the database may take before start-up stops
/// with the reason (a refused connection stops it at once).
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);

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
    #[error("cannot connect to the database {url}: no answer within {timeout:?}")]
    ConnectTimeout { url: String, timeout: Duration },
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
    #[error("cannot install the metrics recorder: {0}")]
    Metrics(#[from] metrics_exporter_prometheus::BuildError),
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

    // Listening first: a second instance on a port in use stops here,
    // before it connects or claims a node.
    let addr = SocketAddr::new(config.host, config.port);
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServiceError::Listen { addr, source })?;
    let local = listener
        .local_addr()
        .map_err(|source| ServiceError::Listen { addr, source })?;

    // Before the lease and the generator: they register their metrics when built.
    metrics::install()?;
    check_reachable(&config.database_url).await?;
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
    let generator = match global::init(lease.generator_builder()) {
        Ok(generator) => generator,
        Err(e) => {
            // Nothing was issued: the node is free again at once, not after
            // the lease's TTL.
            if let Err(release) = lease.release_unused().await {
                tracing::warn!(error = %release, "cannot release the node lease");
            }
            return Err(e.into());
        }
    };
    tracing::info!(
        space = %config.space,
        node = lease.node(),
        fence = lease.fence(),
        resume_after_ms = lease.resume_after_millis(),
        "node leased"
    );
    tokio::spawn(log_lease_changes(lease.watch()));
    let lease_state = lease.watch();
    let lease = Arc::new(RwLock::new(Some(lease)));
    tracing::info!(addr = %local, "listening");

    let app = api::router(api::AppState {
        db: db.clone(),
        lease: lease.clone(),
        lease_state,
        space: config.space.clone().into(),
    });
    axum::serve(connection::JsonRefusals(listener), app)
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

/// The service's router on `db`, for driving it within a process (the
/// fuzz targets do): the tables are created, `/health` reports node `node`
/// held, and there is no listener and no lease. IDs come from the
/// process-wide generator, which the caller installs
/// ([`global::init`]); `/metrics` serves the recorder of
/// [`metrics::install`] if the caller installed one.
///
/// # Errors
/// [`ServiceError::Schema`] when the tables cannot be created.
pub async fn in_process_router(
    db: DatabaseConnection,
    node: u64,
) -> Result<axum::Router, ServiceError> {
    schema::create_tables(&db)
        .await
        .map_err(|source| ServiceError::Schema {
            what: "tables teams and players",
            source,
        })?;
    let held = LeaseStatus::Held {
        node,
        fence: 1,
        ceiling_millis: u64::MAX,
    };
    // The sender goes: the state stays as it was last told.
    let (_, lease_state) = tokio::sync::watch::channel(held);
    Ok(api::router(api::AppState {
        db,
        lease: Arc::new(RwLock::new(None)),
        lease_state,
        space: "in-process".into(),
    }))
}

/// Connections of the pool that serves requests.
const POOL_SIZE: u32 = 10;

/// How long a starting replica waits for a node while all are held.
const WAIT_FOR_NODE: Duration = Duration::from_secs(30);

/// Logs each change of the lease's state as the lease tells it (the
/// lease's own events say why); ends when the lease is gone.
async fn log_lease_changes(mut state: tokio::sync::watch::Receiver<LeaseStatus>) {
    while state.changed().await.is_ok() {
        let status = state.borrow_and_update().clone();
        tracing::info!(state = %status, issuing = status.is_issuing(), "node lease state changed");
    }
}

/// Opens one connection to `url` and closes it again, so that a database
/// that cannot be reached stops start-up with the reason: a pool retries a
/// refused connection until its acquire timeout and then reports only that
/// it timed out.
async fn check_reachable(url: &str) -> Result<(), ServiceError> {
    use sea_orm::sqlx::{MySqlConnection, PgConnection, SqliteConnection};

    async fn once<C: sea_orm::sqlx::Connection>(url: &str) -> Result<(), sea_orm::sqlx::Error> {
        C::connect(url).await?.close().await
    }
    let attempt = async {
        match url.split(':').next().unwrap_or_default() {
            "postgres" | "postgresql" => once::<PgConnection>(url).await,
            "mysql" | "mariadb" => once::<MySqlConnection>(url).await,
            _ => once::<SqliteConnection>(url).await,
        }
    };
    match tokio::time::timeout(CONNECT_TIMEOUT, attempt).await {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(ServiceError::Connect {
            url: redact(url),
            source: DbErr::Conn(sea_orm::RuntimeErr::SqlxError(e.into())),
        }),
        Err(_) => Err(ServiceError::ConnectTimeout {
            url: redact(url),
            timeout: CONNECT_TIMEOUT,
        }),
    }
}

/// A pool of at most `max` connections to `url`.
async fn connect(url: &str, max: u32) -> Result<DatabaseConnection, ServiceError> {
    let mut options = ConnectOptions::new(url.to_owned());
    options
        .sqlx_logging(false)
        .max_connections(max)
        .connect_timeout(CONNECT_TIMEOUT)
        .acquire_timeout(CONNECT_TIMEOUT);
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
