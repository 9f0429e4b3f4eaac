//! IDs from a segment source against a database round trip per ID, on
//! the same server: PostgreSQL `nextval` or MySQL/MariaDB
//! `AUTO_INCREMENT`, through Diesel.
//!
//! ```text
//! cargo run --release -p flakeid-benches --bin segments -- --url URL [options]
//!   --url URL        postgres://… or mysql://… (a database you may create tables in)
//!   --ids N          IDs taken from each segment source (1000000)
//!   --per-row N      IDs taken one round trip each (20000)
//! ```
//!
//! Rows: the segment source with its defaults (step 1,000 adapting up to
//! 1,000,000), with a fixed step of 1,000, and the round trip per ID.
//! "Round trips" counts the statements sent to the server (on MySQL, an
//! advance is the `UPDATE` and `SELECT LAST_INSERT_ID()`: two).

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use diesel::connection::{Connection, LoadConnection};
use diesel::{MysqlConnection, PgConnection, RunQueryDsl};
use flakeid_diesel::{DieselBackend, DieselExecutor};
use flakeid_segment::SegmentOptions;
use flakeid_segment::{SegmentSql, SqlSegmentStore};
use flakeid_sql::{Dialect, SqlStatement};
use flakeid_sql::{Executed, SqlExecutor, SqlRow};

/// Counts the statements an executor sends.
struct Counting<X> {
    inner: X,
    trips: Arc<AtomicU64>,
}

impl<X: SqlExecutor> SqlExecutor for Counting<X> {
    type Error = X::Error;

    fn dialect(&self) -> Dialect {
        self.inner.dialect()
    }

    fn execute(&mut self, s: &SqlStatement) -> Result<Executed, X::Error> {
        // Diesel on MySQL: the UPDATE, then SELECT LAST_INSERT_ID().
        let trips = if s.reads_insert_id { 2 } else { 1 };
        self.trips.fetch_add(trips, Ordering::Relaxed);
        self.inner.execute(s)
    }

    fn query(&mut self, s: &SqlStatement) -> Result<Vec<SqlRow>, X::Error> {
        self.trips.fetch_add(1, Ordering::Relaxed);
        self.inner.query(s)
    }
}

struct Row {
    source: String,
    ids: u64,
    secs: f64,
    trips: u64,
}

fn segment_row<C>(
    url: &str,
    label: &str,
    options: SegmentOptions,
    ids: u64,
) -> Result<Row, Box<dyn std::error::Error>>
where
    C: Connection + LoadConnection + Send + 'static,
    C::Backend: DieselBackend,
{
    let trips = Arc::new(AtomicU64::new(0));
    let connect_url = url.to_owned();
    let executor = Counting {
        inner: DieselExecutor::new(move || C::establish(&connect_url)),
        trips: trips.clone(),
    };
    let t0 = Instant::now();
    let source = options.start(SqlSegmentStore::new(executor))?;
    let mut last = 0;
    for _ in 0..ids {
        let v = source.next_value()?;
        assert!(v > last, "segment values ascend");
        last = v;
    }
    let secs = t0.elapsed().as_secs_f64();
    drop(source);
    Ok(Row {
        source: label.to_owned(),
        ids,
        secs,
        trips: trips.load(Ordering::Relaxed),
    })
}

#[derive(diesel::QueryableByName)]
struct Id {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    id: i64,
}

fn per_row_pg(url: &str, ids: u64) -> Result<Row, Box<dyn std::error::Error>> {
    let mut conn = PgConnection::establish(url)?;
    diesel::sql_query("CREATE SEQUENCE IF NOT EXISTS flakeid_bench_seq").execute(&mut conn)?;
    per_row("`SELECT nextval(…)` per ID", ids, 1, || {
        let rows: Vec<Id> =
            diesel::sql_query("SELECT nextval('flakeid_bench_seq') AS id").load(&mut conn)?;
        Ok(rows[0].id)
    })
}

fn per_row_mysql(url: &str, ids: u64) -> Result<Row, Box<dyn std::error::Error>> {
    let mut conn = MysqlConnection::establish(url)?;
    diesel::sql_query(
        "CREATE TABLE IF NOT EXISTS flakeid_bench_auto (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY)",
    )
    .execute(&mut conn)?;
    per_row(
        "`AUTO_INCREMENT` insert + `LAST_INSERT_ID()` per ID",
        ids,
        2,
        || {
            diesel::sql_query("INSERT INTO flakeid_bench_auto () VALUES ()").execute(&mut conn)?;
            let rows: Vec<Id> = diesel::sql_query("SELECT CAST(LAST_INSERT_ID() AS SIGNED) AS id")
                .load(&mut conn)?;
            Ok(rows[0].id)
        },
    )
}

/// Times `ids` calls of `next_id`, each `trips` round trips, checking that
/// the IDs increase.
fn per_row(
    source: &str,
    ids: u64,
    trips: u64,
    mut next_id: impl FnMut() -> Result<i64, Box<dyn std::error::Error>>,
) -> Result<Row, Box<dyn std::error::Error>> {
    let t0 = Instant::now();
    let mut last = 0;
    for _ in 0..ids {
        let id = next_id()?;
        assert!(id > last);
        last = id;
    }
    Ok(Row {
        source: source.into(),
        ids,
        secs: t0.elapsed().as_secs_f64(),
        trips: trips * ids,
    })
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut url = None;
    let mut ids = 1_000_000u64;
    let mut per_row = 20_000u64;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let v = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--url" => url = Some(v),
            "--ids" => ids = v.parse()?,
            "--per-row" => per_row = v.parse()?,
            _ => return Err(format!("unknown flag {flag}").into()),
        }
    }
    let url = url.ok_or("--url is required")?;
    let pg = url.starts_with("postgres");
    let dialect = if pg {
        Dialect::Postgres
    } else {
        Dialect::MySql
    };
    let create = SegmentSql::new(dialect).create_table();
    let stamp = std::process::id();
    let defaults = format!("bench-default-{stamp}");
    let fixed = format!("bench-fixed-{stamp}");
    let configs = [
        (
            "segment source, defaults (step 1,000 adapting to 1,000,000)",
            SegmentOptions::new(defaults),
        ),
        (
            "segment source, fixed step 1,000",
            SegmentOptions::new(fixed).step(1_000).max_step(1_000),
        ),
    ];
    let mut rows = Vec::new();
    if pg {
        diesel::sql_query(&create).execute(&mut PgConnection::establish(&url)?)?;
        for (label, options) in configs {
            rows.push(segment_row::<PgConnection>(&url, label, options, ids)?);
        }
        rows.push(per_row_pg(&url, per_row)?);
    } else {
        diesel::sql_query(&create).execute(&mut MysqlConnection::establish(&url)?)?;
        for (label, options) in configs {
            rows.push(segment_row::<MysqlConnection>(&url, label, options, ids)?);
        }
        rows.push(per_row_mysql(&url, per_row)?);
    }
    println!("| source | IDs | seconds | IDs/s | round trips | round trips per 1M IDs |");
    println!("|---|---:|---:|---:|---:|---:|");
    for r in rows {
        println!(
            "| {} | {} | {:.3} | {:.0} | {} | {:.0} |",
            r.source,
            r.ids,
            r.secs,
            r.ids as f64 / r.secs,
            r.trips,
            r.trips as f64 * 1e6 / r.ids as f64
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    flakeid_benches::exit_status(run())
}
