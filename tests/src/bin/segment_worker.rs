//! A writer process for the segment tests: draws values from one segment
//! row (through SeaORM or Diesel) and inserts what it makes of them into a
//! table with a primary key.
//!
//! ```text
//! segment_worker --url URL --worker TAG --name ROW [options]
//!   --mode dense|shortkeys|decimal   what the values become (dense)
//!   --orm seaorm|diesel      segment store (seaorm)
//!   --ids N                  values to use (1000); shortkeys: at most
//!   --step S --max-step M    the source's step and cap (100, = step)
//!   --pace-us US             pause between values (0)
//!   --no-drain               exit without serving the source's rest
//!   shortkeys: --alphabet A --length L [--k K]   the key space
//!   decimal:   --max-counter C                   IDs per generator ID
//! ```
//!
//! Tables (created by the test): `segment_ids(id BIGINT PRIMARY KEY,
//! worker)`, `segment_keys(k VARCHAR(32) PRIMARY KEY, idx BIGINT, worker)`,
//! `segment_decimal(id BIGINT PRIMARY KEY, generator_id BIGINT, worker)`.
//! Duplicates are inserted with `ON CONFLICT DO NOTHING` / `INSERT IGNORE`
//! and counted. After `--ids` values (dense) the worker stops its source
//! and drains it, so that it leaves no gap in the row's values.
//!
//! Output lines (stdout): `READY pid=..`, `ERROR <error>`, and last
//! `DONE issued=.. inserted=.. duplicates=..`.

use std::time::Duration;

use flakeid_schemes::{DecimalIdGenerator, DecimalIdParts};
use flakeid_segment::{AllocError, Alphabet, ShortKeyConfig, ShortKeyError, ShortKeys};
use flakeid_segment::{SegmentError, SegmentIds, SegmentOptions};
use flakeid_tests::worker::start_diesel_segment;
use sea_orm::{ConnectionTrait, Database, DatabaseConnection, DbBackend, Statement, Value};

#[derive(Debug, Clone)]
struct Args {
    url: String,
    worker: String,
    name: String,
    mode: String,
    orm: String,
    ids: u64,
    step: u64,
    max_step: Option<u64>,
    pace: Duration,
    drain: bool,
    alphabet: String,
    length: u32,
    k: Option<u64>,
    max_counter: u64,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        url: String::new(),
        worker: String::new(),
        name: String::new(),
        mode: "dense".into(),
        orm: "seaorm".into(),
        ids: 1_000,
        step: 100,
        max_step: None,
        pace: Duration::ZERO,
        drain: true,
        alphabet: "0123456789".into(),
        length: 6,
        k: None,
        max_counter: 10,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if flag == "--no-drain" {
            a.drain = false;
            continue;
        }
        let v = it.next().ok_or(format!("{flag} needs a value"))?;
        let num = |v: &str| v.parse::<u64>().map_err(|e| format!("{flag} {v}: {e}"));
        match flag.as_str() {
            "--url" => a.url = v,
            "--worker" => a.worker = v,
            "--name" => a.name = v,
            "--mode" => a.mode = v,
            "--orm" => a.orm = v,
            "--ids" => a.ids = num(&v)?,
            "--step" => a.step = num(&v)?,
            "--max-step" => a.max_step = Some(num(&v)?),
            "--pace-us" => a.pace = Duration::from_micros(num(&v)?),
            "--alphabet" => a.alphabet = v,
            "--length" => a.length = u32::try_from(num(&v)?).map_err(|e| e.to_string())?,
            "--k" => a.k = Some(num(&v)?),
            "--max-counter" => a.max_counter = num(&v)?,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if a.url.is_empty() || a.worker.is_empty() || a.name.is_empty() {
        return Err("--url, --worker and --name are required".into());
    }
    Ok(a)
}

async fn start(a: &Args, db: &DatabaseConnection) -> Result<SegmentIds, SegmentError> {
    let options = SegmentOptions::new(a.name.clone())
        .step(a.step)
        .max_step(a.max_step.unwrap_or(a.step))
        // Other tests may pause the server: wait for it rather than fail.
        .wait(Duration::from_secs(120));
    match a.orm.as_str() {
        "seaorm" => flakeid_seaorm::segment::start(db, options).await,
        "diesel" => {
            let url = a.url.clone();
            tokio::task::spawn_blocking(move || start_diesel_segment(url, options))
                .await
                .expect("the start task")
        }
        other => panic!("unknown --orm {other}"),
    }
}

struct Sink {
    db: DatabaseConnection,
    worker: String,
    inserted: u64,
    duplicates: u64,
}

impl Sink {
    /// Inserts one row; whether it was new.
    async fn insert(&mut self, table: &str, columns: &str, values: Vec<Value>) -> bool {
        let backend = self.db.get_database_backend();
        let n = values.len() + 1;
        let marks: Vec<String> = (1..=n)
            .map(|i| {
                if backend == DbBackend::Postgres {
                    format!("${i}")
                } else {
                    "?".into()
                }
            })
            .collect();
        let (head, tail) = if backend == DbBackend::Postgres {
            ("INSERT", " ON CONFLICT DO NOTHING")
        } else {
            ("INSERT IGNORE", "")
        };
        let sql = format!(
            "{head} INTO {table} ({columns}, worker) VALUES ({}){tail}",
            marks.join(", ")
        );
        let mut values = values;
        values.push(self.worker.clone().into());
        let done = self
            .db
            .execute_raw(Statement::from_sql_and_values(backend, sql, values))
            .await
            .unwrap_or_else(|e| fail(&format!("insert into {table}: {e}")));
        if done.rows_affected() == 1 {
            self.inserted += 1;
            true
        } else {
            self.duplicates += 1;
            false
        }
    }
}

fn fail(e: &str) -> ! {
    println!("ERROR {e}");
    std::process::exit(1)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let a = args().unwrap_or_else(|e| fail(&e));
    let db = Database::connect(&a.url)
        .await
        .unwrap_or_else(|e| fail(&format!("connect: {e}")));
    let ids = start(&a, &db)
        .await
        .unwrap_or_else(|e| fail(&e.to_string()));
    println!("READY pid={}", std::process::id());
    let mut sink = Sink {
        db,
        worker: a.worker.clone(),
        inserted: 0,
        duplicates: 0,
    };
    let mut issued = 0u64;
    match a.mode.as_str() {
        "dense" => {
            let next = |ids: &SegmentIds| match ids.next_value() {
                Ok(v) => Some(v),
                Err(SegmentError::Stopped { .. }) => None,
                Err(e) => fail(&e.to_string()),
            };
            while issued < a.ids {
                let v = next(&ids).unwrap_or_else(|| fail("stopped"));
                issued += 1;
                sink.insert("segment_ids", "id", vec![to_i64(v).into()])
                    .await;
                if !a.pace.is_zero() {
                    tokio::time::sleep(a.pace).await;
                }
            }
            if a.drain {
                ids.stop();
                while let Some(v) = next(&ids) {
                    issued += 1;
                    sink.insert("segment_ids", "id", vec![to_i64(v).into()])
                        .await;
                }
            }
        }
        "shortkeys" => {
            let alphabet = Alphabet::new(&a.alphabet).unwrap_or_else(|e| fail(&e.to_string()));
            let mut config =
                ShortKeyConfig::new(alphabet, a.length).unwrap_or_else(|e| fail(&e.to_string()));
            if let Some(k) = a.k {
                config = config.with_step(k).unwrap_or_else(|e| fail(&e.to_string()));
            }
            let keys = ShortKeys::with_source(config.clone(), ids);
            while issued < a.ids {
                let index = match keys.next_index() {
                    Ok(i) => i,
                    Err(AllocError::Key(ShortKeyError::Exhausted { .. })) => break,
                    Err(e) => fail(&e.to_string()),
                };
                let key = config
                    .key_at(index)
                    .and_then(|k| config.encode(k))
                    .unwrap_or_else(|e| fail(&e.to_string()));
                issued += 1;
                sink.insert(
                    "segment_keys",
                    "k, idx",
                    vec![key.into(), to_i64(index).into()],
                )
                .await;
                if !a.pace.is_zero() {
                    tokio::time::sleep(a.pace).await;
                }
            }
        }
        "decimal" => {
            let generator = tokio::task::block_in_place(|| {
                DecimalIdGenerator::builder(65, ids)
                    .max_counter(a.max_counter)
                    .build()
            })
            .unwrap_or_else(|e| fail(&e.to_string()));
            while issued < a.ids {
                let id = tokio::task::block_in_place(|| generator.next_id())
                    .unwrap_or_else(|e| fail(&e.to_string()));
                let parts = DecimalIdParts::decompose(id).unwrap_or_else(|e| fail(&e.to_string()));
                issued += 1;
                sink.insert(
                    "segment_decimal",
                    "id, generator_id",
                    vec![to_i64(id).into(), i64::from(parts.generator_id).into()],
                )
                .await;
                if !a.pace.is_zero() {
                    tokio::time::sleep(a.pace).await;
                }
            }
        }
        other => fail(&format!("unknown --mode {other}")),
    }
    println!(
        "DONE issued={issued} inserted={} duplicates={}",
        sink.inserted, sink.duplicates
    );
}

fn to_i64(v: u64) -> i64 {
    i64::try_from(v).unwrap_or_else(|_| fail(&format!("{v} is not a BIGINT")))
}
