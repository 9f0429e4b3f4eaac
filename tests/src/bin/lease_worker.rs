//! A writer process for the lease tests: takes a node ID (leased through
//! SeaORM or Diesel, from a high-water file, or fixed), issues IDs and
//! inserts them into one table with a primary key.
//!
//! ```text
//! lease_worker --url URL --worker TAG [options]
//!   --source lease|file:PATH:NODE|fixed:NODE   where the node ID comes from (lease)
//!   --orm seaorm|diesel|etcd lease store (seaorm); etcd needs
//!   --etcd URL               the etcd server's client URL (IDs still go to --url)
//!   --space S --nodes N      lease space and its node IDs 0..N (ids, 4)
//!   --ttl-ms --renew-ms --lead-ms   lease timing (1500, 300, = ttl)
//!   --wait-for-node-ms MS    keep trying when every node is held (0)
//!   --ids N --pace-us US     IDs to issue, pause between them (1000, 0)
//!   --clock monotonic|manual:MS   generator clock (monotonic); a manual
//!                            clock moves when the generator waits, and
//!   --step-ms-per-id MS      by MS after every ID (0)
//!   (--lead-ms and --renew-ms also set a high-water file's lead and interval)
//!   --regression-wait-ms MS  ClockRegression::Wait max (1000)
//!   --ceiling-wait-ms MS     CeilingWait::Wait max; 0 = Fail (200)
//!   --hold-file PATH         after issuing, wait for PATH before releasing
//!   --no-release             exit without releasing (as a crash would)
//! ```
//!
//! Rows: `lease_ids(id BIGINT PRIMARY KEY, node, fence, worker, issued_ms)`,
//! `issued_ms` the wall clock just before the call that issued the ID. Duplicates are
//! inserted with `ON CONFLICT DO NOTHING` / `INSERT IGNORE` and counted.
//!
//! Output lines (stdout): `READY node=.. fence=.. resume_after=.. pid=..`,
//! `FENCED <error>` (first refusal of an episode), `LOST <error>`,
//! `NO_NODE <error>`, `ERROR <error>`, and last
//! `DONE issued=.. inserted=.. duplicates=.. fenced=.. lost=0|1 clock=..`
//! (the generator clock's reading at the end).

use std::io::Write as _;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use flakeid_core::layout::presets;
use flakeid_core::node::{
    CeilingWait, FenceReason, Fenced, HighWaterFileOptions, LeaseError, LeaseOptions,
};
use flakeid_core::{Clock, ClockRegression, GenerateError, Generator, ManualClock, MonotonicClock};
use sea_orm::{ConnectionTrait, Database, DatabaseConnection, DbBackend, Statement};

#[derive(Debug, Clone)]
struct Args {
    url: String,
    worker: String,
    source: String,
    orm: String,
    etcd: String,
    space: String,
    nodes: u64,
    ttl: Duration,
    renew: Duration,
    lead: Option<Duration>,
    wait_for_node: Duration,
    ids: u64,
    pace: Duration,
    clock: String,
    regression_wait: Duration,
    ceiling_wait: Duration,
    hold_file: Option<String>,
    release: bool,
    step_per_id: Duration,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        url: String::new(),
        worker: format!("w{}", std::process::id()),
        source: "lease".into(),
        orm: "seaorm".into(),
        etcd: String::new(),
        space: "ids".into(),
        nodes: 4,
        ttl: Duration::from_millis(1500),
        renew: Duration::from_millis(300),
        lead: None,
        wait_for_node: Duration::ZERO,
        ids: 1000,
        pace: Duration::ZERO,
        clock: "monotonic".into(),
        regression_wait: Duration::from_secs(1),
        ceiling_wait: Duration::from_millis(200),
        hold_file: None,
        release: true,
        step_per_id: Duration::ZERO,
    };
    let mut it = std::env::args().skip(1);
    let ms = |v: String| -> Result<Duration, String> {
        v.parse()
            .map(Duration::from_millis)
            .map_err(|_| format!("not milliseconds: {v}"))
    };
    while let Some(flag) = it.next() {
        if flag == "--no-release" {
            a.release = false;
            continue;
        }
        let v = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--url" => a.url = v,
            "--worker" => a.worker = v,
            "--source" => a.source = v,
            "--orm" => a.orm = v,
            "--etcd" => a.etcd = v,
            "--space" => a.space = v,
            "--nodes" => a.nodes = v.parse().map_err(|_| format!("--nodes {v}"))?,
            "--ttl-ms" => a.ttl = ms(v)?,
            "--renew-ms" => a.renew = ms(v)?,
            "--lead-ms" => a.lead = Some(ms(v)?),
            "--wait-for-node-ms" => a.wait_for_node = ms(v)?,
            "--ids" => a.ids = v.parse().map_err(|_| format!("--ids {v}"))?,
            "--pace-us" => {
                a.pace = Duration::from_micros(v.parse().map_err(|_| format!("--pace-us {v}"))?)
            }
            "--clock" => a.clock = v,
            "--regression-wait-ms" => a.regression_wait = ms(v)?,
            "--ceiling-wait-ms" => a.ceiling_wait = ms(v)?,
            "--hold-file" => a.hold_file = Some(v),
            "--step-ms-per-id" => a.step_per_id = ms(v)?,
            other => return Err(format!("unknown option {other}")),
        }
    }
    if a.url.is_empty() {
        return Err("--url is required".into());
    }
    Ok(a)
}

fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn wall_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// The generator clock: the process-wide monotonic clock, or a manual
/// clock starting at a given Unix millisecond (moved only by waiting).
#[derive(Debug, Clone)]
enum WorkerClock {
    Monotonic(MonotonicClock),
    Manual(Arc<ManualClock>),
}

impl Clock for WorkerClock {
    fn now_millis(&self) -> u64 {
        match self {
            WorkerClock::Monotonic(c) => c.now_millis(),
            WorkerClock::Manual(c) => c.now_millis(),
        }
    }
    fn wait_until(&self, target_millis: u64) {
        match self {
            WorkerClock::Monotonic(c) => c.wait_until(target_millis),
            WorkerClock::Manual(c) => c.wait_until(target_millis),
        }
    }
}

type Gen = Generator<flakeid_core::layout::BitLayout, WorkerClock>;

/// What holds the node until the end.
enum Holder {
    SeaOrm(flakeid_seaorm::lease::NodeLease<flakeid_core::layout::BitLayout, WorkerClock>),
    Diesel(flakeid_core::node::NodeLease<flakeid_core::layout::BitLayout, WorkerClock>),
    Etcd(flakeid_etcd::NodeLease<flakeid_core::layout::BitLayout, WorkerClock>),
    File(flakeid_core::node::HighWaterFile<flakeid_core::layout::BitLayout, WorkerClock>),
    Fixed,
}

fn diesel_claim(
    url: &str,
    options: LeaseOptions<flakeid_core::layout::BitLayout, WorkerClock>,
) -> Result<flakeid_core::node::NodeLease<flakeid_core::layout::BitLayout, WorkerClock>, LeaseError>
{
    use diesel::Connection as _;
    let url = url.to_owned();
    if url.starts_with("postgres") {
        flakeid_diesel::lease::claim(move || diesel::PgConnection::establish(&url), options)
    } else if url.starts_with("mysql") {
        flakeid_diesel::lease::claim(move || diesel::MysqlConnection::establish(&url), options)
    } else {
        flakeid_diesel::lease::claim(move || diesel::SqliteConnection::establish(&url), options)
    }
}

async fn run(a: Args) -> Result<i32, String> {
    let db = Database::connect(&a.url)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    let start = |ms: &str| -> Result<u64, String> {
        ms.parse().map_err(|_| format!("--clock {}", a.clock))
    };
    let clock = if let Some(ms) = a.clock.strip_prefix("manual:") {
        WorkerClock::Manual(Arc::new(ManualClock::new(start(ms)?)))
    } else {
        WorkerClock::Monotonic(MonotonicClock::new())
    };
    let at_ceiling = if a.ceiling_wait.is_zero() {
        CeilingWait::Fail
    } else {
        CeilingWait::Wait {
            max: a.ceiling_wait,
        }
    };
    let layout = presets::twitter();
    let (holder, builder, fence) = if a.source == "lease" {
        let mut options = LeaseOptions::new(a.space.clone(), layout.clone())
            .clock(clock.clone())
            .nodes(0..=a.nodes.saturating_sub(1))
            .ttl(a.ttl)
            .renew_every(a.renew)
            .wait_for_node(a.wait_for_node)
            .at_ceiling(at_ceiling)
            .holder(format!("{}/{}", a.worker, std::process::id()));
        if let Some(lead) = a.lead {
            options = options.ceiling_lead(lead);
        }
        let claimed = if a.orm == "diesel" {
            let url = a.url.clone();
            tokio::task::spawn_blocking(move || diesel_claim(&url, options))
                .await
                .map_err(|e| e.to_string())?
                .map(|l| {
                    (
                        l.generator_builder(),
                        l.fence(),
                        l.resume_after_millis(),
                        l.node(),
                        Holder::Diesel(l),
                    )
                })
        } else if a.orm == "etcd" {
            let client = flakeid_etcd::etcd_client::Client::connect([a.etcd.as_str()], None)
                .await
                .map_err(|e| format!("connect to etcd at {:?}: {e}", a.etcd))?;
            flakeid_etcd::claim(&client, options).await.map(|l| {
                (
                    l.generator_builder(),
                    l.fence(),
                    l.resume_after_millis(),
                    l.node(),
                    Holder::Etcd(l),
                )
            })
        } else {
            flakeid_seaorm::lease::claim(&db, options).await.map(|l| {
                (
                    l.generator_builder(),
                    l.fence(),
                    l.resume_after_millis(),
                    l.node(),
                    Holder::SeaOrm(l),
                )
            })
        };
        match claimed {
            Ok((builder, fence, resume, node, holder)) => {
                say(&format!(
                    "READY node={node} fence={fence} resume_after={resume} pid={}",
                    std::process::id()
                ));
                (holder, builder, fence)
            }
            Err(e @ LeaseError::AllTaken { .. }) => {
                say(&format!("NO_NODE {e}"));
                return Ok(4);
            }
            Err(e) => return Err(format!("claim: {e}")),
        }
    } else if let Some(rest) = a.source.strip_prefix("file:") {
        let (path, node) = rest.rsplit_once(':').ok_or("--source file:PATH:NODE")?;
        let node: u64 = node.parse().map_err(|_| format!("node {node}"))?;
        let mut options = HighWaterFileOptions::new(path)
            .clock(clock.clone())
            .at_ceiling(at_ceiling)
            .every(a.renew);
        if let Some(lead) = a.lead {
            options = options.lead(lead);
        }
        let file = options.open(layout, node).map_err(|e| e.to_string())?;
        say(&format!(
            "READY node={node} fence=0 resume_after={} pid={}",
            file.resume_after_millis(),
            std::process::id()
        ));
        let builder = file.generator_builder();
        (Holder::File(file), builder, 0)
    } else if let Some(node) = a.source.strip_prefix("fixed:") {
        let node: u64 = node.parse().map_err(|_| format!("node {node}"))?;
        say(&format!(
            "READY node={node} fence=0 resume_after=0 pid={}",
            std::process::id()
        ));
        (
            Holder::Fixed,
            Generator::builder(layout, node).clock(clock.clone()),
            0,
        )
    } else {
        return Err(format!("unknown --source {}", a.source));
    };
    let g: Gen = builder
        .clock_regression(ClockRegression::Wait {
            max: a.regression_wait,
        })
        .build()
        .map_err(|e| format!("build: {e}"))?;
    let g = Arc::new(g);

    // Issue on a thread of its own: inserts may hang (a paused database)
    // while the generator meets its ceiling.
    let (tx, rx) = mpsc::channel::<(u64, i64)>();
    let issuer = {
        let g = g.clone();
        let a = a.clone();
        std::thread::spawn(move || issue(&g, &a, &tx))
    };
    let (inserted, duplicates) = insert_all(&db, &a, g.node(), fence, rx).await?;
    let (issued, fenced, lost) = issuer.join().map_err(|_| "issuer panicked")?;

    if let Some(path) = &a.hold_file {
        while !std::path::Path::new(path).exists() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    if a.release {
        let released = match holder {
            Holder::SeaOrm(l) => l.release(&g).await.map_err(|e| e.to_string()),
            Holder::Etcd(l) => l.release(&g).await.map_err(|e| e.to_string()),
            Holder::Diesel(l) => {
                let g = g.clone();
                tokio::task::spawn_blocking(move || l.release(&g).map_err(|e| e.to_string()))
                    .await
                    .map_err(|e| e.to_string())?
            }
            Holder::File(f) => f.release(&g).map_err(|e| e.to_string()),
            Holder::Fixed => Ok(0),
        };
        if let Err(e) = released {
            say(&format!("RELEASE_FAILED {e}"));
        }
    } else {
        // As a crash would: nothing released, nothing renewed any more.
        std::mem::forget(holder);
    }
    say(&format!(
        "DONE issued={issued} inserted={inserted} duplicates={duplicates} fenced={fenced} lost={} clock={}",
        u8::from(lost),
        g.clock().now_millis()
    ));
    Ok(0)
}

/// Issues the IDs; `(issued, fence episodes, lost)`.
fn issue(g: &Gen, a: &Args, tx: &mpsc::Sender<(u64, i64)>) -> (u64, u64, bool) {
    let (mut issued, mut fenced, mut in_episode) = (0, 0, false);
    while issued < a.ids {
        // Read before the call: a process stopped between the call and the
        // reading must not look as if it issued the ID after it resumed.
        let at = wall_ms();
        match g.next_id() {
            Ok(id) => {
                in_episode = false;
                issued += 1;
                if tx.send((id, at)).is_err() {
                    break;
                }
                if !a.pace.is_zero() {
                    std::thread::sleep(a.pace);
                }
                if let WorkerClock::Manual(c) = g.clock()
                    && !a.step_per_id.is_zero()
                {
                    c.advance(a.step_per_id);
                }
            }
            Err(GenerateError::Fenced(
                e @ Fenced {
                    reason: FenceReason::NotRenewed { .. },
                    ..
                },
            )) => {
                if !in_episode {
                    fenced += 1;
                    in_episode = true;
                    say(&format!("FENCED {e}"));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(GenerateError::Fenced(e)) => {
                say(&format!("LOST {e}"));
                return (issued, fenced, true);
            }
            Err(e) => {
                say(&format!("ERROR {e}"));
                return (issued, fenced, false);
            }
        }
    }
    (issued, fenced, false)
}

/// Inserts what the issuer sends, in batches; `(inserted, duplicates)`.
async fn insert_all(
    db: &DatabaseConnection,
    a: &Args,
    node: u64,
    fence: u64,
    rx: mpsc::Receiver<(u64, i64)>,
) -> Result<(u64, u64), String> {
    let rx = Arc::new(std::sync::Mutex::new(rx));
    let (mut inserted, mut duplicates) = (0u64, 0u64);
    loop {
        let rx2 = rx.clone();
        let batch = tokio::task::spawn_blocking(move || {
            let rx = rx2
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let mut batch = Vec::new();
            match rx.recv() {
                Ok(first) => batch.push(first),
                Err(_) => return batch,
            }
            while batch.len() < 200 {
                match rx.try_recv() {
                    Ok(v) => batch.push(v),
                    Err(_) => break,
                }
            }
            batch
        })
        .await
        .map_err(|e| e.to_string())?;
        if batch.is_empty() {
            return Ok((inserted, duplicates));
        }
        let backend = db.get_database_backend();
        let rows: Vec<String> = batch
            .iter()
            .map(|(id, at)| format!("({id}, {node}, {fence}, '{}', {at})", a.worker))
            .collect();
        let sql = match backend {
            DbBackend::MySql => format!(
                "INSERT IGNORE INTO lease_ids (id, node, fence, worker, issued_ms) VALUES {}",
                rows.join(", ")
            ),
            _ => format!(
                "INSERT INTO lease_ids (id, node, fence, worker, issued_ms) VALUES {} ON CONFLICT (id) DO NOTHING",
                rows.join(", ")
            ),
        };
        // Retried until it goes through: the database may be paused.
        let n = loop {
            match db
                .execute_raw(Statement::from_string(backend, sql.clone()))
                .await
            {
                Ok(r) => break r.rows_affected(),
                Err(e) => {
                    say(&format!("INSERT_RETRY {e}"));
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
        };
        let len = batch.len() as u64;
        inserted += n;
        duplicates += len - n.min(len);
    }
}

fn main() {
    let a = match args() {
        Ok(a) => a,
        Err(e) => {
            say(&format!("ERROR {e}"));
            std::process::exit(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            say(&format!("ERROR runtime: {e}"));
            std::process::exit(2);
        }
    };
    match rt.block_on(run(a)) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            say(&format!("ERROR {e}"));
            std::process::exit(3);
        }
    }
}
