//! `flakeid nodes`: the lease table of a database, listed by
//! `flakeid_core`'s lease store on a SeaORM connection.

use std::time::{Duration, UNIX_EPOCH};

use flakeid_core::encoding::format_rfc3339;
use flakeid_lease::{AsyncLeaseStore as _, NodeRow, NodeTable, SqlLeaseStore};
use flakeid_seaorm::SeaOrmExecutor;
use flakeid_sql::Dialect;

use crate::args::CliError;
use crate::db;

pub(crate) fn run(url: &str, space: Option<&str>, table: &str, json: bool) -> Result<(), CliError> {
    let (dialect, url) = db::parse_url(url)?;
    // A name the database would not keep is refused before connecting.
    flakeid_lease::LeaseSql::with_table(dialect, table)
        .map_err(|e| CliError::usage("--table", e))?;
    let tables = db::runtime()?.block_on(read(&url, dialect, table, space))?;
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

/// The node tables of `space`, or of every space in the table.
async fn read(
    url: &str,
    dialect: Dialect,
    table: &str,
    space: Option<&str>,
) -> Result<Vec<NodeTable>, CliError> {
    let conn = db::connect(url, dialect).await?;
    let failed = |e: &dyn std::fmt::Display| {
        CliError::failed(format!(
            "cannot read the lease table {table:?} from {}: {e}",
            db::redact(url)
        ))
    };
    let store = SqlLeaseStore::with_table_async(SeaOrmExecutor::new(conn.clone()), table)
        .map_err(|e| CliError::usage("--table", e))?;
    let names = match space {
        Some(s) => vec![s.to_owned()],
        None => store.spaces_async().await.map_err(|e| failed(&e))?,
    };
    let mut tables = Vec::new();
    for name in names {
        tables.push(store.list(&name).await.map_err(|e| failed(&e))?);
    }
    let _ = conn.close().await;
    Ok(tables)
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
