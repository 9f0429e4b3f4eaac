//! A writer: one OS process per writer, like one instance of a service,
//! with its own flakeid node ID.
//!
//! The coordinator ([`super::run`]) starts `db worker <args>` and talks to
//! it through lines on stdin/stdout:
//!
//! ```text
//! worker → ready                      connected, waiting
//! coordinator → go <t0 µs since the Unix epoch>
//! worker → done <rows> <µs after t0 at which each batch was committed, comma-separated>
//! ```
//!
//! Errors go to stderr and the exit status is non-zero.

use std::io::{BufRead as _, Write as _};
use std::time::{SystemTime, UNIX_EPOCH};

use flakeid_core::layout::presets;
use flakeid_core::{Generator, global};

use super::DbBenchError;
use super::config::{Key, Path, Server};
use super::insert::Inserter;
use super::keys::{KeyMaker, Row};

/// What one writer does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerArgs {
    /// The server (for SQL dialect and column types).
    pub server: Server,
    /// The key.
    pub key: Key,
    /// The insert path.
    pub path: Path,
    /// The database URL.
    pub url: String,
    /// This writer's number, 0-based; its flakeid node ID is `writer + 1`.
    pub writer: usize,
    /// How many writers run at once.
    pub writers: usize,
    /// Rows this writer inserts.
    pub rows: u64,
    /// Rows per `INSERT`.
    pub batch: usize,
    /// Rows created per millisecond by all writers together.
    pub creation_rate: u64,
    /// Write a batch only once its last row's creation time has come.
    pub paced: bool,
}

impl WorkerArgs {
    /// The arguments after `db worker`.
    pub fn to_args(&self) -> Vec<String> {
        vec![
            self.server.name().to_owned(),
            self.key.name().to_owned(),
            self.path.name().to_owned(),
            self.url.clone(),
            self.writer.to_string(),
            self.writers.to_string(),
            self.rows.to_string(),
            self.batch.to_string(),
            self.creation_rate.to_string(),
            if self.paced { "paced" } else { "flat-out" }.to_owned(),
        ]
    }

    /// Parses what [`to_args`](Self::to_args) wrote.
    ///
    /// # Errors
    /// [`DbBenchError::Argument`] for a missing or unparsable argument.
    pub fn from_args(args: &[String]) -> Result<WorkerArgs, DbBenchError> {
        let get = |i: usize| {
            args.get(i).map(String::as_str).ok_or_else(|| {
                DbBenchError::Argument(format!(
                    "worker: expected 10 arguments (server key path url writer writers rows batch rate pacing), got {}",
                    args.len()
                ))
            })
        };
        let num = |i: usize| -> Result<u64, DbBenchError> {
            let s = get(i)?;
            s.parse().map_err(|_| {
                DbBenchError::Argument(format!("worker: argument {i} {s:?} is not a number"))
            })
        };
        let pick = |i: usize, what: &str, names: &[&str]| -> Result<usize, DbBenchError> {
            let s = get(i)?;
            names
                .iter()
                .position(|n| *n == s)
                .ok_or_else(|| DbBenchError::Argument(format!("worker: unknown {what} {s:?}")))
        };
        let server = Server::ALL[pick(0, "server", &Server::ALL.map(Server::name))?];
        let key = Key::ALL[pick(1, "key", &Key::ALL.map(Key::name))?];
        let path = Path::ALL[pick(2, "path", &Path::ALL.map(Path::name))?];
        Ok(WorkerArgs {
            server,
            key,
            path,
            url: get(3)?.to_owned(),
            writer: num(4)? as usize,
            writers: num(5)? as usize,
            rows: num(6)?,
            batch: num(7)? as usize,
            creation_rate: num(8)?,
            paced: pick(9, "pacing", &["flat-out", "paced"])? == 1,
        })
    }
}

/// The sizes of the batches writer `writer` (of `writers`) writes `rows`
/// rows in. The writers' batch boundaries are staggered, as in a service
/// whose instances did not start in the same instant: writer `w`'s first
/// batch holds `batch - w · batch / writers` rows, later ones `batch`
/// (the last one what is left).
pub fn batch_sizes(rows: u64, batch: usize, writer: usize, writers: usize) -> Vec<u64> {
    let batch = batch as u64;
    let first = batch - (writer as u64 * batch / writers.max(1) as u64);
    let mut sizes = Vec::with_capacity(rows.div_ceil(batch) as usize + 1);
    let mut left = rows;
    let mut next = first.max(1);
    while left > 0 {
        let n = next.min(left);
        sizes.push(n);
        left -= n;
        next = batch;
    }
    sizes
}

/// Runs one writer: connect, say `ready`, wait for `go`, insert, report.
///
/// # Errors
/// Any failure; the coordinator then fails the run.
pub fn run_worker(args: &WorkerArgs) -> Result<(), DbBenchError> {
    let node = args.writer as u64 + 1;
    let mut inserter = Inserter::connect(args.server, args.key, args.path, &args.url)?;
    if args.path == Path::SeaOrmWithIds {
        // insert_many_with_ids draws from the process-wide generator.
        global::init(Generator::builder(presets::twitter(), node))?;
    }
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "ready")
        .and_then(|()| stdout.flush())
        .map_err(|e| DbBenchError::io("writing to the coordinator", e))?;

    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| DbBenchError::io("reading from the coordinator", e))?;
    let t0_micros: u64 = line
        .trim()
        .strip_prefix("go ")
        .and_then(|t| t.parse().ok())
        .ok_or_else(|| {
            DbBenchError::Argument(format!("worker: expected `go <t0>`, got {line:?}"))
        })?;

    let mut keys = KeyMaker::new(
        args.key,
        node,
        args.writers,
        args.creation_rate,
        t0_micros / 1000,
    )?;
    let writer = i32::try_from(args.writer)
        .map_err(|_| DbBenchError::Argument(format!("writer {} too large", args.writer)))?;
    let sizes = batch_sizes(args.rows, args.batch, args.writer, args.writers);
    let mut times = Vec::with_capacity(sizes.len());
    let mut seq = 0u64;
    for n in sizes {
        let mut rows = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let mut row = Row::new(writer, seq as i64);
            row.key = keys.on_create(seq)?;
            rows.push(row);
            seq += 1;
        }
        if args.paced {
            // The batch is complete when its last row has been created.
            wait_until_micros(keys.created_at_micros(seq - 1));
        }
        if args.path != Path::SeaOrmWithIds {
            keys.on_write(&mut rows)?;
        }
        let inserted = inserter.insert(&rows)?;
        if inserted != n {
            return Err(DbBenchError::Writer {
                writer: args.writer,
                message: format!("the server reports {inserted} rows inserted, not {n}"),
            });
        }
        times.push(micros_since(t0_micros));
    }
    let times: Vec<String> = times.iter().map(u64::to_string).collect();
    writeln!(stdout, "done {} {}", args.rows, times.join(","))
        .and_then(|()| stdout.flush())
        .map_err(|e| DbBenchError::io("writing to the coordinator", e))
}

/// Microseconds since the Unix epoch.
pub fn now_micros() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
}

fn wait_until_micros(target: u64) {
    let now = now_micros();
    if target > now {
        std::thread::sleep(std::time::Duration::from_micros(target - now));
    }
}

fn micros_since(t0: u64) -> u64 {
    now_micros().saturating_sub(t0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_boundaries_are_staggered_between_writers() {
        assert_eq!(batch_sizes(2500, 1000, 0, 4), [1000, 1000, 500]);
        assert_eq!(batch_sizes(2500, 1000, 1, 4), [750, 1000, 750]);
        assert_eq!(batch_sizes(2500, 1000, 3, 4), [250, 1000, 1000, 250]);
        assert_eq!(batch_sizes(100, 1000, 2, 4), [100]);
        assert_eq!(batch_sizes(3, 1, 0, 1), [1, 1, 1]);
        for w in 0..4 {
            assert_eq!(
                batch_sizes(1_250_000, 1000, w, 4).iter().sum::<u64>(),
                1_250_000
            );
        }
    }

    #[test]
    fn worker_arguments_round_trip() {
        let args = WorkerArgs {
            server: Server::Postgres18,
            key: Key::PgUuidV7,
            path: Path::SeaOrmWithIds,
            url: "postgres://postgres:x@127.0.0.1:5432/b".to_owned(),
            writer: 3,
            writers: 4,
            rows: 1_250_000,
            batch: 1000,
            creation_rate: 250,
            paced: true,
        };
        assert_eq!(WorkerArgs::from_args(&args.to_args()).unwrap(), args);
        let mut bad = args.to_args();
        bad[1] = "uuid9".to_owned();
        assert!(
            WorkerArgs::from_args(&bad)
                .unwrap_err()
                .to_string()
                .contains("\"uuid9\"")
        );
        assert!(WorkerArgs::from_args(&bad[..3]).is_err());
    }
}
