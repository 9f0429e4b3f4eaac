//! `flakeid nodes`: the lease table of a database, listed by
//! `flakeid_core`'s lease store on a SeaORM connection.

use std::str::FromStr as _;
use std::time::{Duration, UNIX_EPOCH};

use flakeid_core::encoding::format_rfc3339;
use flakeid_core::node::{AsyncLeaseStore as _, NodeRow, NodeTable, SqlLeaseStore};
use flakeid_core::sql::Dialect;
use flakeid_seaorm::SeaOrmExecutor;
use sea_orm::Database;

use crate::args::CliError;

pub(crate) fn run(url: &str, space: Option<&str>, table: &str, json: bool) -> Result<(), CliError> {
    let (dialect, url) = parse_url(url)?;
    // A name the database would not keep is refused before connecting.
    flakeid_core::node::LeaseSql::with_table(dialect, table)
        .map_err(|e| CliError::usage("--table", e))?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| CliError::failed(format!("cannot start the async runtime: {e}")))?;
    let tables = runtime.block_on(read(&url, dialect, table, space))?;
    if json {
        let out: Vec<serde_json::Value> = tables.iter().map(table_json).collect();
        println!("{}", serde_json::Value::Array(out));
    } else {
        for t in &tables {
            print_table(t);
        }
        if tables.is_empty() {
            println!("no spaces in the lease table");
        }
    }
    Ok(())
}

/// The dialect of `url`, and the URL to connect to.
fn parse_url(url: &str) -> Result<(Dialect, String), CliError> {
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
fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.to_string()
        }
        _ => url.to_owned(),
    }
}

/// The node tables of `space`, or of every space in the table.
async fn read(
    url: &str,
    dialect: Dialect,
    table: &str,
    space: Option<&str>,
) -> Result<Vec<NodeTable>, CliError> {
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
    let db = Database::connect(options)
        .await
        .map_err(|e| CliError::failed(format!("cannot connect to {}: {e}", redact(url))))?;
    let failed = |e: &dyn std::fmt::Display| {
        CliError::failed(format!(
            "cannot read the lease table {table:?} from {}: {e}",
            redact(url)
        ))
    };
    let store = SqlLeaseStore::with_table_async(SeaOrmExecutor::new(db.clone()), table)
        .map_err(|e| CliError::usage("--table", e))?;
    let names = match space {
        Some(s) => vec![s.to_owned()],
        None => store.spaces_async().await.map_err(|e| failed(&e))?,
    };
    let mut tables = Vec::new();
    for name in names {
        tables.push(store.list(&name).await.map_err(|e| failed(&e))?);
    }
    let _ = db.close().await;
    Ok(tables)
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

/// `held`, `reserved`, `expired` or `free`.
fn state(row: &NodeRow, now: i64) -> &'static str {
    if row.is_reserved() {
        "reserved"
    } else if row.is_held(now) {
        "held"
    } else if row.owner.is_some() {
        "expired"
    } else {
        "free"
    }
}

fn time(millis: u64) -> String {
    format_rfc3339(UNIX_EPOCH + Duration::from_millis(millis))
}

fn lease_time(millis: i64) -> String {
    u64::try_from(millis).map_or_else(|_| format!("{millis} ms"), time)
}

fn expiry(row: &NodeRow, now: i64) -> String {
    match state(row, now) {
        "reserved" => "never".to_owned(),
        "free" => "-".to_owned(),
        _ => {
            let left = row.lease_until_millis.saturating_sub(now);
            let when = if left >= 0 {
                format!("in {:.1} s", left as f64 / 1000.0)
            } else {
                format!("{:.1} s ago", -(left as f64) / 1000.0)
            };
            format!("{} ({when})", lease_time(row.lease_until_millis))
        }
    }
}

fn high_water(row: &NodeRow) -> Option<String> {
    (row.high_water_millis != 0).then(|| time(row.high_water_millis))
}

/// How far a node that nobody holds has its mark ahead of the database's
/// clock: left by a holder whose clock ran ahead, it holds every later
/// holder back until then (claims skip such nodes).
fn ahead_millis(row: &NodeRow, now: i64) -> u64 {
    match state(row, now) {
        "free" | "expired" => row.high_water_ahead_millis(now),
        _ => 0,
    }
}

fn high_water_column(row: &NodeRow, now: i64) -> String {
    let mark = high_water(row).unwrap_or_else(|| "-".to_owned());
    match ahead_millis(row, now) {
        0 => mark,
        ahead => format!(
            "{mark} ({:.1} s ahead of the database clock: unusable until then)",
            ahead as f64 / 1000.0
        ),
    }
}

fn print_table(t: &NodeTable) {
    let now = t.now_millis.unwrap_or(0);
    let clock = t.now_millis.map_or_else(|| "-".to_owned(), lease_time);
    let held = t
        .rows
        .iter()
        .filter(|r| matches!(state(r, now), "held" | "reserved"))
        .count();
    println!(
        "space {:?}: {held} of {} nodes held (database clock {clock})",
        t.space,
        t.rows.len()
    );
    println!(
        "{:>6}  {:<8}  {:<30}  {:>5}  {:<40}  HIGH WATER",
        "NODE", "STATE", "HOLDER", "FENCE", "LEASE EXPIRES"
    );
    for r in &t.rows {
        println!(
            "{:>6}  {:<8}  {:<30}  {:>5}  {:<40}  {}",
            r.node,
            state(r, now),
            r.holder.as_deref().unwrap_or("-"),
            r.fence,
            expiry(r, now),
            high_water_column(r, now)
        );
    }
}

fn table_json(t: &NodeTable) -> serde_json::Value {
    let now = t.now_millis.unwrap_or(0);
    let rows: Vec<serde_json::Value> = t
        .rows
        .iter()
        .map(|r| {
            let state = state(r, now);
            serde_json::json!({
                "node": r.node,
                "state": state,
                "holder": r.holder,
                "fence": r.fence,
                "lease_until_ms": r.lease_until_millis,
                "lease_expires": match state {
                    "reserved" | "free" => None,
                    _ => Some(lease_time(r.lease_until_millis)),
                },
                "high_water_ms": r.high_water_millis,
                "high_water": high_water(r),
                "high_water_ahead_ms": ahead_millis(r, now),
            })
        })
        .collect();
    serde_json::json!({
        "space": t.space,
        "database_clock_ms": t.now_millis,
        "nodes": rows,
    })
}
