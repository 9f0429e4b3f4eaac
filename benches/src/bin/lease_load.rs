//! 1,024 node-lease holders starting at once against one PostgreSQL, in
//! one process: each holder a tokio task running the real claim (through
//! `flakeid-seaorm`'s store) and its renewal a task of its own, all sharing
//! one connection pool. Prints, with and without spreading the claims over
//! the nodes, the time until every holder has a node, the claim
//! compare-and-sets per second and how many failed per claim, then what the
//! renewals cost the database while they run.
//!
//! ```text
//! cargo run --release -p flakeid-benches --bin lease_load -- --url URL [options]
//!   --url URL            PostgreSQL (the lease table is created if missing)
//!   --holders N          holders and nodes (1024)
//!   --pool N             connections shared by the holders (200)
//!   --ttl-secs S         lease TTL (15)
//!   --renew-secs S       renewal interval (3)
//!   --renew-for-secs S   how long to measure the renewals (30)
//!   --spread on|off|both claim order (both)
//!   --pg-container NAME  also measure the server's CPU time (the container's
//!                        processes, read from /proc)
//! ```

use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use flakeid_benches::BenchError;
use flakeid_benches::lease_load::{self, LoadConfig, LoadReport, StoreStats, quantile_ms};
use flakeid_benches::report::{Machine, load_average};
use flakeid_core::runtime::TokioSleep;
use flakeid_lease::SqlLeaseStore;
use flakeid_seaorm::SeaOrmExecutor;
use sea_orm::{ConnectOptions, ConnectionTrait, Database, DatabaseConnection, Statement};

#[derive(Debug, Clone)]
struct Args {
    url: String,
    holders: u64,
    pool: u32,
    ttl: Duration,
    renew: Duration,
    renew_for: Duration,
    spread: Vec<bool>,
    container: Option<String>,
}

fn args() -> Result<Args, BenchError> {
    let mut a = Args {
        url: String::new(),
        holders: 1024,
        pool: 200,
        ttl: Duration::from_secs(15),
        renew: Duration::from_secs(3),
        renew_for: Duration::from_secs(30),
        spread: vec![true, false],
        container: None,
    };
    let mut it = std::env::args().skip(1);
    let bad = |flag: &str, v: &str| BenchError::Argument(format!("{flag}: cannot parse {v:?}"));
    while let Some(flag) = it.next() {
        let v = it
            .next()
            .ok_or_else(|| BenchError::Argument(format!("{flag} needs a value")))?;
        let secs = |v: &str| {
            v.parse::<f64>()
                .ok()
                .and_then(|s| Duration::try_from_secs_f64(s).ok())
                .ok_or_else(|| bad(&flag, v))
        };
        match flag.as_str() {
            "--url" => a.url = v,
            "--holders" => a.holders = v.parse().map_err(|_| bad(&flag, &v))?,
            "--pool" => a.pool = v.parse().map_err(|_| bad(&flag, &v))?,
            "--ttl-secs" => a.ttl = secs(&v)?,
            "--renew-secs" => a.renew = secs(&v)?,
            "--renew-for-secs" => a.renew_for = secs(&v)?,
            "--spread" => {
                a.spread = match v.as_str() {
                    "on" => vec![true],
                    "off" => vec![false],
                    "both" => vec![true, false],
                    _ => return Err(bad(&flag, &v)),
                }
            }
            "--pg-container" => a.container = Some(v),
            other => return Err(BenchError::Argument(format!("unknown option {other:?}"))),
        }
    }
    if a.url.is_empty() {
        return Err(BenchError::Argument("--url is required".into()));
    }
    Ok(a)
}

fn db_error(e: impl std::fmt::Display) -> BenchError {
    BenchError::Argument(format!("database: {e}"))
}

/// CPU seconds used so far by the container's processes (the server and
/// its backends), read from /proc; `None` without `--pg-container`.
fn server_cpu_secs(container: Option<&str>) -> Option<f64> {
    let name = container?;
    let out = Command::new("docker")
        .args(["inspect", "-f", "{{.State.Pid}}", name])
        .output()
        .ok()?;
    let root: u32 = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
    let tck = Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stdout)
                .trim()
                .parse::<f64>()
                .ok()
        })
        .unwrap_or(100.0);
    // (pid, ppid, utime + stime) of every process; sum the tree under `root`.
    let mut procs = Vec::new();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // Fields after the command name, which is in parentheses.
        let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        let num = |i: usize| f.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
        procs.push((pid, num(1) as u32, num(11) + num(12)));
    }
    let mut tree = vec![root];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(procs.iter().filter(|p| p.1 == parent).map(|p| p.0));
        i += 1;
    }
    let ticks: u64 = procs
        .iter()
        .filter(|p| tree.contains(&p.0))
        .map(|p| p.2)
        .sum();
    Some(ticks as f64 / tck)
}

/// `SELECT 1` every 50 ms until `stop`: the latencies (µs), sorted.
async fn probe(db: DatabaseConnection, stop: Arc<tokio::sync::Notify>) -> Vec<u32> {
    let mut v = Vec::new();
    loop {
        let t = Instant::now();
        let _ = db.execute_unprepared("SELECT 1").await;
        v.push(u32::try_from(t.elapsed().as_micros()).unwrap_or(u32::MAX));
        tokio::select! {
            () = stop.notified() => break,
            () = tokio::time::sleep(Duration::from_millis(50)) => {}
        }
    }
    v.sort_unstable();
    v
}

struct Run {
    spread: bool,
    report: LoadReport,
    claim_cpu: Option<f64>,
    renew_cpu: Option<f64>,
    probe: Vec<u32>,
}

async fn one_run(db: &DatabaseConnection, a: &Args, spread: bool) -> Result<Run, BenchError> {
    let stamp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    let cfg = LoadConfig {
        space: format!(
            "load-{}-{}-{stamp}",
            if spread { "spread" } else { "dense" },
            std::process::id()
        ),
        holders: a.holders,
        spread,
        ttl: a.ttl,
        renew_every: a.renew,
        renew_for: a.renew_for,
    };
    let store = SqlLeaseStore::new_async(SeaOrmExecutor::new(db.clone()));
    let stats = Arc::new(StoreStats::default());
    let cpu0 = server_cpu_secs(a.container.as_deref());
    // The renewal window starts when the last claim is in: sample the
    // server then, from a task watching the claims.
    let watch = {
        let (db, stats, holders) = (db.clone(), stats.clone(), a.holders);
        let container = a.container.clone();
        let renew_for = a.renew_for;
        tokio::spawn(async move {
            while stats.claim.won() < holders {
                tokio::time::sleep(Duration::from_millis(2)).await;
            }
            let cpu1 = server_cpu_secs(container.as_deref());
            let stop = Arc::new(tokio::sync::Notify::new());
            let prober = tokio::spawn(probe(db.clone(), stop.clone()));
            tokio::time::sleep(renew_for).await;
            stop.notify_one();
            let cpu2 = server_cpu_secs(container.as_deref());
            let probe = prober.await.map_err(|_| BenchError::ThreadPanicked)?;
            Ok::<_, BenchError>((cpu1, cpu2, probe))
        })
    };
    let report = lease_load::run(store, TokioSleep, stats, &cfg).await?;
    let (cpu1, cpu2, probe) = watch.await.map_err(|_| BenchError::ThreadPanicked)??;
    let diff = |a: Option<f64>, b: Option<f64>| a.zip(b).map(|(a, b)| b - a);
    Ok(Run {
        spread,
        report,
        claim_cpu: diff(cpu0, cpu1),
        renew_cpu: diff(cpu1, cpu2),
        probe,
    })
}

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| "—".to_owned(), f)
}

async fn run() -> Result<(), BenchError> {
    let a = args()?;
    let machine = Machine::detect();
    if machine.debug {
        eprintln!(
            "warning: built without optimisations; run with --release for meaningful numbers"
        );
    }
    let mut options = ConnectOptions::new(a.url.clone());
    options
        .max_connections(a.pool)
        .min_connections(a.pool)
        .acquire_timeout(Duration::from_secs(120))
        .sqlx_logging(false);
    let db = Database::connect(options).await.map_err(db_error)?;
    flakeid_seaorm::lease::create_table(&db)
        .await
        .map_err(db_error)?;
    // Open every pooled connection before the start: the claims are measured, not the log-ins.
    let warm: Vec<_> = (0..a.pool)
        .map(|_| {
            let db = db.clone();
            tokio::spawn(async move { db.execute_unprepared("SELECT pg_sleep(0.2)").await })
        })
        .collect();
    for w in warm {
        w.await
            .map_err(|_| BenchError::ThreadPanicked)?
            .map_err(db_error)?;
    }
    let version = db
        .query_one_raw(Statement::from_string(
            db.get_database_backend(),
            "SELECT version() AS v",
        ))
        .await
        .map_err(db_error)?
        .and_then(|r| r.try_get::<String>("", "v").ok())
        .unwrap_or_default();
    let load_before = load_average();
    let mut runs = Vec::new();
    for &spread in &a.spread {
        eprintln!("run: {} holders, spread {spread}", a.holders);
        runs.push(one_run(&db, &a, spread).await?);
    }
    println!(
        "Machine: {} ({} logical CPUs); {}; load average {load_before} before, {} after",
        machine.cpu,
        machine.cpus,
        version.split(" on ").next().unwrap_or(&version),
        load_average()
    );
    println!(
        "Settings: {} holders and nodes, {} pooled connections, TTL {:?}, renewal every {:?}, renewals measured for {:?}",
        a.holders, a.pool, a.ttl, a.renew, a.renew_for
    );
    println!();
    println!(
        "| claim order | time until all {} hold a node | median holder | claim CAS | CAS/s | failed CAS per claim | claim CAS p50 / p99 ms | node-row reads (`ensure_nodes`, `list`) | server CPU s |",
        a.holders
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in &runs {
        let p = &r.report;
        println!(
            "| {} | {:.2} s | {:.2} s | {} | {:.0} | {:.2} | {:.1} / {:.1} | {} + {} | {} |",
            if r.spread {
                "spread (random start)"
            } else {
                "dense (from node 0)"
            },
            p.all_claimed.as_secs_f64(),
            p.median_claimed.as_secs_f64(),
            p.claim_phase.claims,
            p.claims_per_sec(),
            p.failed_cas_per_claim(),
            p.claim_latency.quantile_ms(0.5),
            p.claim_latency.quantile_ms(0.99),
            p.claim_phase.ensure,
            p.claim_phase.lists,
            opt(r.claim_cpu, |c| format!("{c:.1}")),
        );
    }
    println!();
    println!(
        "| claim order | renewals/s | lost / failed | renewal p50 / p99 / max ms | server CPU (% of one core) | `SELECT 1` p50 / p99 ms meanwhile |"
    );
    println!("|---|---:|---:|---:|---:|---:|");
    for r in &runs {
        let p = &r.report;
        let secs = p.window.as_secs_f64();
        let m = &p.renew_micros;
        println!(
            "| {} | {:.0} | {} / {} | {:.1} / {:.1} / {:.1} | {} | {:.1} / {:.1} |",
            if r.spread { "spread" } else { "dense" },
            p.renewals_per_sec(),
            p.renewals.1,
            p.renewals.2,
            quantile_ms(m, 0.5),
            quantile_ms(m, 0.99),
            quantile_ms(m, 1.0),
            opt(r.renew_cpu, |c| format!("{:.1} %", 100.0 * c / secs)),
            quantile_ms(&r.probe, 0.5),
            quantile_ms(&r.probe, 0.99),
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    flakeid_benches::exit_status_on_tokio(None, run())
}
