//! Load and checks for `scripts/chaos.sh`: drives replicas of
//! `flakeid-service` with writes while the script kills, stops and restarts
//! them and pauses the database, then checks what the database stored.
//!
//! ```text
//! flakeid-service-load wait-db DATABASE_URL
//! flakeid-service-load run --targets URL,URL… --journal FILE --stop-file FILE [--threads N]
//! flakeid-service-load verify --database-url URL --journal FILE --runs FILE --phases FILE [--metrics DIR]
//! ```
//!
//! `run` writes one journal line per request (tab-separated: start ms, end
//! ms, target index, operation, HTTP status or 0, microseconds, transport
//! error or `-`, the IDs an acknowledged write returned) until the stop file
//! exists. `verify` reads the journal, the replicas' runs (`replica run pid
//! log start_ms end_ms` per line), their logs and the phases (`name
//! start_ms end_ms`), prints requests per second, p50/p99 latency and
//! errors by status per phase, then checks with plain SQL: no key twice,
//! every acknowledged write stored, and every key's node held by the
//! replica that returned it at the time the key was stamped. With
//! `--metrics`, it adds up the replicas' saved `/metrics` pages
//! (`metrics-*.txt` in DIR), prints every counter's total and checks that
//! IDs were counted and lease renewals timed. Exit status 1 if a check
//! fails.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead as _, BufReader, BufWriter, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use sea_orm::{ConnectionTrait, Database, DbBackend, Statement};
use serde_json::{Value, json};

/// Twitter's epoch (Unix ms): an ID's time is its top 41 bits after it.
const TWITTER_EPOCH_MS: i64 = 1_288_834_974_657;
/// How far before its lease's `claimed` log line a key's stamp may lie
/// (the log line is written just after the claim, from the same clock).
const CLAIM_SLACK_MS: i64 = 5;

#[derive(Debug, thiserror::Error)]
enum LoadError {
    #[error("usage: {0}")]
    Usage(String),
    #[error("{path}: {source}")]
    File {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} line {line}: {what}")]
    Parse {
        path: PathBuf,
        line: usize,
        what: String,
    },
    #[error("database: {0}")]
    Db(#[from] sea_orm::DbErr),
    #[error("{0} check(s) failed")]
    Failed(usize),
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("wait-db") => wait_db(&args[1..]),
        Some("run") => run(&args[1..]),
        Some("verify") => verify(&args[1..]),
        _ => Err(LoadError::Usage(
            "flakeid-service-load wait-db|run|verify … (see the source's docs)".into(),
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("flakeid-service-load: {e}");
            ExitCode::FAILURE
        }
    }
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// `--name value` options.
fn options(args: &[String]) -> Result<HashMap<String, String>, LoadError> {
    let mut out = HashMap::new();
    let mut it = args.iter();
    while let Some(name) = it.next() {
        let key = name
            .strip_prefix("--")
            .ok_or_else(|| LoadError::Usage(format!("expected --option, got {name:?}")))?;
        let value = it
            .next()
            .ok_or_else(|| LoadError::Usage(format!("--{key} needs a value")))?;
        out.insert(key.to_owned(), value.clone());
    }
    Ok(out)
}

fn required<'a>(opts: &'a HashMap<String, String>, key: &str) -> Result<&'a str, LoadError> {
    opts.get(key)
        .map(String::as_str)
        .ok_or_else(|| LoadError::Usage(format!("--{key} is required")))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("a tokio runtime: {e}"))
}

/// Waits up to 120 s until the database accepts a connection and a query.
fn wait_db(args: &[String]) -> Result<(), LoadError> {
    let url = args
        .first()
        .ok_or_else(|| LoadError::Usage("wait-db DATABASE_URL".into()))?;
    let rt = runtime();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let attempt = rt.block_on(async {
            let db = Database::connect(url.as_str()).await?;
            db.execute_unprepared("SELECT 1").await?;
            db.close().await
        });
        match attempt {
            Ok(()) => return Ok(()),
            Err(e) if Instant::now() > deadline => return Err(e.into()),
            Err(_) => std::thread::sleep(Duration::from_millis(200)),
        }
    }
}

/// One request's outcome, as a journal line.
struct Record {
    start_ms: i64,
    end_ms: i64,
    target: usize,
    op: &'static str,
    status: u16,
    micros: u128,
    error: String,
    ids: Vec<String>,
}

impl Record {
    fn line(&self) -> String {
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            self.start_ms,
            self.end_ms,
            self.target,
            self.op,
            self.status,
            self.micros,
            if self.error.is_empty() {
                "-"
            } else {
                &self.error
            },
            self.ids.join(",")
        )
    }
}

/// Sends requests until the stop file exists.
fn run(args: &[String]) -> Result<(), LoadError> {
    let opts = options(args)?;
    let targets: Vec<String> = required(&opts, "targets")?
        .split(',')
        .map(str::to_owned)
        .collect();
    let journal_path = PathBuf::from(required(&opts, "journal")?);
    let stop = PathBuf::from(required(&opts, "stop-file")?);
    let threads: usize = opts
        .get("threads")
        .map_or(Ok(16), |t| t.parse())
        .map_err(|_| LoadError::Usage("--threads N".into()))?;
    let file = File::create(&journal_path).map_err(|source| LoadError::File {
        path: journal_path.clone(),
        source,
    })?;
    let journal = Arc::new(Mutex::new(BufWriter::new(file)));
    let counter = Arc::new(AtomicU64::new(0));
    let workers: Vec<_> = (0..threads)
        .map(|w| {
            let targets = targets.clone();
            let journal = journal.clone();
            let stop = stop.clone();
            let counter = counter.clone();
            std::thread::spawn(move || worker(w, &targets, &journal, &stop, &counter))
        })
        .collect();
    for w in workers {
        let _ = w.join();
    }
    let mut journal = journal
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    journal.flush().map_err(|source| LoadError::File {
        path: journal_path,
        source,
    })?;
    eprintln!(
        "flakeid-service-load: {} requests",
        counter.load(Ordering::Relaxed)
    );
    Ok(())
}

fn worker(
    w: usize,
    targets: &[String],
    journal: &Mutex<BufWriter<File>>,
    stop: &Path,
    counter: &AtomicU64,
) {
    // A request to a stopped replica or paused database hangs: give up
    // after 5 s and count it as a timeout.
    let agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(5)))
        .build()
        .new_agent();
    let mut target = w % targets.len();
    let mut last_team: Option<String> = None;
    let mut n: u64 = 0;
    let mut buffer = String::new();
    while !stop.exists() {
        n += 1;
        let op = match n % 10 {
            0 => "list",
            1 | 5 if last_team.is_some() => "bulk",
            _ => "team",
        };
        let base = &targets[target];
        let started = Instant::now();
        let start_ms = now_ms();
        let response = match op {
            "list" => agent.get(format!("{base}/teams?limit=20")).call(),
            "bulk" => agent
                .post(format!("{base}/players/bulk"))
                .header("content-type", "application/json")
                .send(
                    json!({"team_id": last_team, "names": ["b0", "b1", "b2", "b3", "b4"]})
                        .to_string(),
                ),
            _ => agent
                .post(format!("{base}/teams"))
                .header("content-type", "application/json")
                .send(
                    json!({
                        "name": format!("w{w} n{n}"),
                        "players": [{"name": "p0"}, {"name": "p1"}, {"name": "p2"}],
                        "captain": 1,
                    })
                    .to_string(),
                ),
        };
        let (status, error, body) = match response {
            Ok(mut r) => {
                let status = r.status().as_u16();
                match r.body_mut().read_to_string() {
                    Ok(text) => (status, String::new(), text),
                    Err(e) => (0, format!("body: {e}"), String::new()),
                }
            }
            Err(ureq::Error::Timeout(_)) => (0, "timeout".into(), String::new()),
            Err(ureq::Error::Io(e)) => (0, format!("io:{:?}", e.kind()), String::new()),
            Err(e) => (0, format!("{e}").replace(['\t', '\n'], " "), String::new()),
        };
        let end_ms = now_ms();
        let mut ids = Vec::new();
        if status == 201 {
            let json: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            match op {
                "team" => {
                    if let Some(id) = json["id"].as_str() {
                        ids.push(id.to_owned());
                        last_team = Some(id.to_owned());
                    }
                    for p in json["players"].as_array().into_iter().flatten() {
                        ids.extend(p["id"].as_str().map(str::to_owned));
                    }
                }
                _ => {
                    for p in json.as_array().into_iter().flatten() {
                        ids.extend(p["id"].as_str().map(str::to_owned));
                    }
                }
            }
        }
        let record = Record {
            start_ms,
            end_ms,
            target,
            op,
            status,
            micros: started.elapsed().as_micros(),
            error,
            ids,
        };
        buffer.push_str(&record.line());
        counter.fetch_add(1, Ordering::Relaxed);
        // A load balancer's behaviour: after a failure, the next replica.
        if status == 0 || status >= 500 {
            target = (target + 1) % targets.len();
            if status == 0 {
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        if buffer.len() > 64 * 1024 {
            write_out(journal, &mut buffer);
        }
    }
    write_out(journal, &mut buffer);
}

fn write_out(journal: &Mutex<BufWriter<File>>, buffer: &mut String) {
    let mut j = journal
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Err(e) = j.write_all(buffer.as_bytes()) {
        eprintln!("flakeid-service-load: writing the journal: {e}");
    }
    buffer.clear();
}

fn read_lines(path: &Path) -> Result<Vec<String>, LoadError> {
    let file = File::open(path).map_err(|source| LoadError::File {
        path: path.to_owned(),
        source,
    })?;
    BufReader::new(file)
        .lines()
        .collect::<Result<_, _>>()
        .map_err(|source| LoadError::File {
            path: path.to_owned(),
            source,
        })
}

fn parse<T: std::str::FromStr>(path: &Path, line: usize, text: &str) -> Result<T, LoadError> {
    text.parse().map_err(|_| LoadError::Parse {
        path: path.to_owned(),
        line,
        what: format!("cannot read {text:?}"),
    })
}

struct Phase {
    name: String,
    start_ms: i64,
    end_ms: i64,
}

struct Run {
    replica: usize,
    label: String,
    start_ms: i64,
    end_ms: i64,
    /// (node, from ms, to ms) the run held.
    holdings: Vec<(u64, i64, i64)>,
}

/// `2026-11-25T07:04:02.701356Z` → Unix ms.
fn log_time_ms(text: &str) -> Option<i64> {
    let (date, time) = text.strip_suffix('Z')?.split_once('T')?;
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let (hms, frac) = time.split_once('.').unwrap_or((time, "0"));
    let mut t = hms.split(':').map(|p| p.parse::<i64>().ok());
    let (hh, mm, ss) = (t.next()??, t.next()??, t.next()??);
    let millis: i64 = format!("{frac:0<3}")[..3].parse().ok()?;
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + hh) * 60 + mm) * 60_000 + ss * 1000 + millis)
}

fn field(line: &str, key: &str) -> Option<u64> {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(key)?.strip_prefix('='))
        .and_then(|v| v.parse().ok())
}

/// The nodes a run held and when, from its log's lease events.
fn holdings(log: &Path, end_ms: i64) -> Result<Vec<(u64, i64, i64)>, LoadError> {
    let mut out = Vec::new();
    let mut open: Option<(u64, i64)> = None;
    for line in read_lines(log)? {
        let Some(at) = line.split_whitespace().next().and_then(log_time_ms) else {
            continue;
        };
        let close = |open: &mut Option<(u64, i64)>, out: &mut Vec<_>| {
            if let Some((node, from)) = open.take() {
                out.push((node, from, at));
            }
        };
        if line.contains("node lease claimed") || line.contains("node lease re-claimed") {
            close(&mut open, &mut out);
            if let Some(node) = field(&line, "node") {
                open = Some((node, at));
            }
        } else if line.contains("node lease lost")
            || line.contains("node lease released")
            || line.contains("node lease dropped without release")
        {
            close(&mut open, &mut out);
        }
    }
    if let Some((node, from)) = open {
        out.push((node, from, end_ms));
    }
    Ok(out)
}

/// The totals over every replica's saved `/metrics` page (`metrics-*.txt`
/// in `dir`) of flakeid's counters and histogram counts, summed over their
/// labels: printed, then checked to have moved. The number of failed checks.
fn check_metrics(dir: &Path) -> Result<usize, LoadError> {
    let file_error = |source| LoadError::File {
        path: dir.to_owned(),
        source,
    };
    let mut totals: BTreeMap<String, f64> = BTreeMap::new();
    let mut pages = 0;
    for entry in std::fs::read_dir(dir).map_err(file_error)? {
        let path = entry.map_err(file_error)?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !(name.starts_with("metrics-") && name.ends_with(".txt")) {
            continue;
        }
        pages += 1;
        for (i, line) in read_lines(&path)?.iter().enumerate() {
            if line.starts_with('#') || line.is_empty() {
                continue;
            }
            let metric = line.split(['{', ' ']).next().unwrap_or("");
            if !(metric.starts_with("flakeid_")
                && (metric.ends_with("_total") || metric.ends_with("_count")))
            {
                continue;
            }
            let value = line.rsplit(' ').next().unwrap_or("");
            *totals.entry(metric.to_owned()).or_default() += parse::<f64>(&path, i + 1, value)?;
        }
    }
    println!();
    println!("metrics over {pages} saved /metrics page(s):");
    for (name, total) in &totals {
        println!("  {name}: {total}");
    }
    let mut failed = 0;
    for must_move in [
        "flakeid_ids_issued_total",
        "flakeid_lease_renewal_duration_seconds_count",
    ] {
        let total = totals.get(must_move).copied().unwrap_or(0.0);
        if total <= 0.0 {
            println!("metric {must_move} never moved");
            failed += 1;
        }
    }
    Ok(failed)
}

fn percentile(sorted: &[u128], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64 / 1000.0
}

/// What [`ownership`] found.
struct Ownership {
    /// Keys whose replica's run did not hold the key's node at its stamp.
    wrong: Vec<String>,
    /// Nodes on which two runs' stamps interleave.
    overlaps: Vec<String>,
    /// Nodes that more than one run stamped keys with.
    shared: usize,
}

/// Checks each acknowledged key `(id, replica, request start ms, response
/// end ms)`: a run of that replica alive during the request held the key's
/// node at the key's stamp; and per node, the stamps of different runs do
/// not interleave (one holder at a time). A run's recorded life (from its
/// start by the script to the script seeing it exit) and a request's (from
/// before it was sent to after its response was read) both contain the
/// real ones, so the serving run is among those whose life overlaps the
/// request's, however late a busy machine reads a response.
fn ownership(acked: &[(i64, usize, i64, i64)], runs: &[Run]) -> Ownership {
    let mut wrong = Vec::new();
    let mut by_node_run: BTreeMap<u64, BTreeMap<usize, (i64, i64)>> = BTreeMap::new();
    for &(id, target, start_ms, end_ms) in acked {
        let node = (id.unsigned_abs() >> 12) & 0x3ff;
        let stamp = (id >> 22) + TWITTER_EPOCH_MS;
        let alive: Vec<usize> = (0..runs.len())
            .filter(|&r| {
                runs[r].replica == target
                    && runs[r].start_ms <= end_ms
                    && start_ms <= runs[r].end_ms
            })
            .collect();
        let holder = alive.iter().copied().find(|&r| {
            runs[r]
                .holdings
                .iter()
                .any(|&(n, from, to)| n == node && from - CLAIM_SLACK_MS <= stamp && stamp <= to)
        });
        if holder.is_none() {
            let runs_alive = if alive.is_empty() {
                "no run of it was alive".to_owned()
            } else {
                alive
                    .iter()
                    .map(|&r| runs[r].label.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            wrong.push(format!(
                "key {id} (node {node}, stamped {stamp}) from replica {target} between \
                 {start_ms} and {end_ms}: {runs_alive}"
            ));
        }
        let run = holder.or_else(|| alive.first().copied());
        if let Some(r) = run {
            let e = by_node_run
                .entry(node)
                .or_default()
                .entry(r)
                .or_insert((stamp, stamp));
            e.0 = e.0.min(stamp);
            e.1 = e.1.max(stamp);
        }
    }
    let mut overlaps = Vec::new();
    for (node, per_run) in &by_node_run {
        let mut spans: Vec<(i64, i64, usize)> =
            per_run.iter().map(|(&r, &(a, b))| (a, b, r)).collect();
        spans.sort_unstable();
        for w in spans.windows(2) {
            if w[1].0 <= w[0].1 {
                overlaps.push(format!(
                    "node {node}: {} stamped {}..={} and {} stamped {}..={}",
                    runs[w[0].2].label, w[0].0, w[0].1, runs[w[1].2].label, w[1].0, w[1].1
                ));
            }
        }
    }
    let shared = by_node_run.values().filter(|m| m.len() > 1).count();
    Ownership {
        wrong,
        overlaps,
        shared,
    }
}

/// Prints the per-phase table and runs the checks.
fn verify(args: &[String]) -> Result<(), LoadError> {
    let opts = options(args)?;
    let url = required(&opts, "database-url")?;
    let journal_path = PathBuf::from(required(&opts, "journal")?);
    let runs_path = PathBuf::from(required(&opts, "runs")?);
    let phases_path = PathBuf::from(required(&opts, "phases")?);

    let mut phases = Vec::new();
    for (i, line) in read_lines(&phases_path)?.iter().enumerate() {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 3 {
            continue;
        }
        phases.push(Phase {
            name: f[0].to_owned(),
            start_ms: parse(&phases_path, i + 1, f[1])?,
            end_ms: parse(&phases_path, i + 1, f[2])?,
        });
    }
    let mut runs = Vec::new();
    for (i, line) in read_lines(&runs_path)?.iter().enumerate() {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 6 {
            continue;
        }
        let end_ms: i64 = parse(&runs_path, i + 1, f[5])?;
        runs.push(Run {
            replica: parse(&runs_path, i + 1, f[0])?,
            label: format!("replica {} run {} (pid {})", f[0], f[1], f[2]),
            start_ms: parse(&runs_path, i + 1, f[4])?,
            end_ms,
            holdings: holdings(Path::new(f[3]), end_ms)?,
        });
    }

    // Per phase: requests/s, latency, outcomes.
    struct Stats {
        latencies: Vec<u128>,
        by_status: BTreeMap<String, u64>,
        /// When the fleet acknowledged writes (response end, ms).
        writes: Vec<i64>,
    }
    let mut stats: Vec<Stats> = phases
        .iter()
        .map(|_| Stats {
            latencies: Vec::new(),
            by_status: BTreeMap::new(),
            writes: Vec::new(),
        })
        .collect();
    // (id, target, request start ms, response end ms)
    let mut acked: Vec<(i64, usize, i64, i64)> = Vec::new();
    let mut requests = 0u64;
    for (i, line) in read_lines(&journal_path)?.iter().enumerate() {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() != 8 {
            return Err(LoadError::Parse {
                path: journal_path.clone(),
                line: i + 1,
                what: format!("{} fields", f.len()),
            });
        }
        requests += 1;
        let start_ms: i64 = parse(&journal_path, i + 1, f[0])?;
        let end_ms: i64 = parse(&journal_path, i + 1, f[1])?;
        let target: usize = parse(&journal_path, i + 1, f[2])?;
        let status = f[4];
        let micros: u128 = parse(&journal_path, i + 1, f[5])?;
        let outcome = if status == "0" {
            format!("0 {}", f[6])
        } else {
            status.to_owned()
        };
        if let Some(p) = phases
            .iter()
            .position(|p| p.start_ms <= end_ms && end_ms < p.end_ms)
        {
            stats[p].latencies.push(micros);
            *stats[p].by_status.entry(outcome).or_default() += 1;
            if status == "201" {
                stats[p].writes.push(end_ms);
            }
        }
        if status == "201" {
            for id in f[7].split(',').filter(|s| !s.is_empty()) {
                acked.push((parse(&journal_path, i + 1, id)?, target, start_ms, end_ms));
            }
        }
    }
    println!("{requests} requests; {} acknowledged keys", acked.len());
    println!();
    // "No writes for": the longest stretch of the phase (its start and end
    // included) in which the fleet acknowledged no write: how long it took
    // to serve writes again after what the phase did.
    println!(
        "| phase | seconds | requests | requests/s | p50 ms | p99 ms | no writes for ms | outcomes |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---|");
    for (p, s) in phases.iter().zip(&mut stats) {
        s.latencies.sort_unstable();
        s.writes.sort_unstable();
        let mut marks = vec![p.start_ms];
        marks.extend(&s.writes);
        marks.push(p.end_ms);
        let no_writes = marks.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
        let secs = (p.end_ms - p.start_ms) as f64 / 1000.0;
        let outcomes: Vec<String> = s
            .by_status
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        println!(
            "| {} | {:.1} | {} | {:.0} | {:.1} | {:.1} | {} | {} |",
            p.name,
            secs,
            s.latencies.len(),
            s.latencies.len() as f64 / secs.max(0.001),
            percentile(&s.latencies, 0.50),
            percentile(&s.latencies, 0.99),
            no_writes,
            outcomes.join(", ")
        );
    }
    println!();
    for r in &runs {
        let held: Vec<String> = r
            .holdings
            .iter()
            .map(|(n, a, b)| format!("node {n} for {:.1} s", (b - a) as f64 / 1000.0))
            .collect();
        println!("{}: {}", r.label, held.join(", "));
    }
    println!();

    // Plain SQL.
    let rt = runtime();
    let stored: Vec<i64> = rt.block_on(async {
        let db = Database::connect(url).await?;
        let rows = db
            .query_all_raw(Statement::from_string(
                DbBackend::Postgres,
                "SELECT id FROM teams UNION ALL SELECT id FROM players",
            ))
            .await?;
        let ids = rows
            .iter()
            .map(|r| r.try_get_by_index::<i64>(0))
            .collect::<Result<Vec<_>, _>>()?;
        db.close().await?;
        Ok::<_, sea_orm::DbErr>(ids)
    })?;
    let mut failed = 0;
    let distinct: HashSet<i64> = stored.iter().copied().collect();
    let duplicates = stored.len() - distinct.len();
    println!(
        "keys stored: {} in teams and players, {} distinct: {duplicates} duplicate(s)",
        stored.len(),
        distinct.len()
    );
    failed += usize::from(duplicates > 0);

    let missing: Vec<i64> = acked
        .iter()
        .map(|a| a.0)
        .filter(|id| !distinct.contains(id))
        .collect();
    println!(
        "acknowledged keys missing from the database: {} of {}",
        missing.len(),
        acked.len()
    );
    if !missing.is_empty() {
        println!("  e.g. {:?}", &missing[..missing.len().min(10)]);
        failed += 1;
    }

    let Ownership {
        wrong,
        overlaps,
        shared,
    } = ownership(&acked, &runs);
    println!(
        "acknowledged keys whose node its replica did not hold at the key's time: {}",
        wrong.len()
    );
    failed += show_first_ten(&wrong);
    println!(
        "nodes used by more than one run: {shared}; runs whose stamps on one node interleave: {}",
        overlaps.len()
    );
    failed += show_first_ten(&overlaps);

    if let Some(dir) = opts.get("metrics") {
        failed += check_metrics(Path::new(dir))?;
    }

    if failed > 0 {
        return Err(LoadError::Failed(failed));
    }
    println!("all checks passed");
    Ok(())
}

/// Prints the first ten of what a check found, indented, one a line; 1 (a
/// failed check) if it found anything, else 0.
fn show_first_ten(found: &[String]) -> usize {
    for f in found.iter().take(10) {
        println!("  {f}");
    }
    usize::from(!found.is_empty())
}

#[cfg(test)]
mod tests {
    use super::{Run, TWITTER_EPOCH_MS, log_time_ms, ownership};

    /// A Twitter-layout key stamped at `ms` on `node`.
    fn key(ms: i64, node: i64, seq: i64) -> i64 {
        ((ms - TWITTER_EPOCH_MS) << 22) | (node << 12) | seq
    }

    fn run(replica: usize, start_ms: i64, end_ms: i64, holdings: Vec<(u64, i64, i64)>) -> Run {
        Run {
            replica,
            label: format!("replica {replica} from {start_ms}"),
            start_ms,
            end_ms,
            holdings,
        }
    }

    const T: i64 = 1_800_000_000_000;

    #[test]
    fn keys_of_the_holder_pass() {
        let runs = [
            run(0, T, T + 100, vec![(3, T + 1, T + 100)]),
            run(
                1,
                T,
                T + 300,
                vec![(4, T + 1, T + 150), (3, T + 160, T + 300)],
            ),
        ];
        let acked = [
            (key(T + 10, 3, 0), 0, T + 9, T + 11),
            (key(T + 20, 4, 0), 1, T + 19, T + 21),
            (key(T + 170, 3, 0), 1, T + 169, T + 171),
        ];
        let o = ownership(&acked, &runs);
        assert!(
            o.wrong.is_empty() && o.overlaps.is_empty(),
            "{:?} {:?}",
            o.wrong,
            o.overlaps
        );
        assert_eq!(o.shared, 1);
    }

    #[test]
    fn a_key_of_a_node_its_replica_did_not_hold_fails() {
        let runs = [
            run(0, T, T + 100, vec![(3, T + 1, T + 100)]),
            run(1, T, T + 100, vec![(4, T + 1, T + 100)]),
        ];
        // Replica 1 returned a key of node 3, held by replica 0.
        let o = ownership(&[(key(T + 10, 3, 0), 1, T + 9, T + 11)], &runs);
        assert_eq!(o.wrong.len(), 1, "{:?}", o.wrong);
        // Stamped after the replica's lease on the node ended.
        let o = ownership(&[(key(T + 150, 3, 0), 0, T + 98, T + 99)], &runs);
        assert_eq!(o.wrong.len(), 1, "{:?}", o.wrong);
        // No run of the replica alive during the request.
        let o = ownership(&[(key(T + 10, 3, 0), 0, T + 499, T + 500)], &runs);
        assert_eq!(o.wrong.len(), 1, "{:?}", o.wrong);
    }

    #[test]
    fn a_response_read_after_its_run_ended_is_checked_against_that_run() {
        // Run 1 served the key and exited (recorded at T + 100); the load
        // generator read the response only after that, once run 2 was up
        // (a busy machine). Run 1 held node 3 when it stamped the key.
        let runs = [
            run(0, T, T + 100, vec![(3, T + 1, T + 100)]),
            run(0, T + 110, T + 300, vec![(5, T + 111, T + 300)]),
        ];
        let o = ownership(&[(key(T + 95, 3, 0), 0, T + 94, T + 105)], &runs);
        assert!(o.wrong.is_empty(), "{:?}", o.wrong);
        let o = ownership(&[(key(T + 95, 3, 0), 0, T + 94, T + 112)], &runs);
        assert!(o.wrong.is_empty(), "{:?}", o.wrong);
        // But not a key of a node neither run held then.
        let o = ownership(&[(key(T + 95, 4, 0), 0, T + 94, T + 112)], &runs);
        assert_eq!(o.wrong.len(), 1, "{:?}", o.wrong);
    }

    #[test]
    fn two_runs_stamping_one_node_at_once_fail() {
        // Both runs' logs claim node 3 over the same time (a broken lease).
        let runs = [
            run(0, T, T + 100, vec![(3, T, T + 100)]),
            run(1, T, T + 100, vec![(3, T, T + 100)]),
        ];
        let acked = [
            (key(T + 10, 3, 0), 0, T + 9, T + 11),
            (key(T + 12, 3, 0), 1, T + 11, T + 13),
            (key(T + 14, 3, 1), 0, T + 13, T + 15),
        ];
        let o = ownership(&acked, &runs);
        assert!(o.wrong.is_empty());
        assert_eq!(o.overlaps.len(), 1, "{:?}", o.overlaps);
    }

    #[test]
    fn log_times() {
        assert_eq!(log_time_ms("1970-01-01T00:00:00.000000Z"), Some(0));
        assert_eq!(
            log_time_ms("2026-11-25T07:04:02.701356Z"),
            Some(1_795_590_242_701)
        );
        assert_eq!(log_time_ms("INFO"), None);
    }
}
