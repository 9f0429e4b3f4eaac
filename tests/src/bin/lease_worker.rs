//! A writer process for the lease tests: takes a node ID (leased through
//! SeaORM or Diesel, from a high-water file, or fixed), issues IDs and
//! inserts them into one table with a primary key.
//!
//! ```text
//! lease_worker --url URL --worker TAG [options]
//!   --source lease|file:PATH:NODE|fixed:NODE   where the node ID comes from (lease)
//!   --orm seaorm|diesel|diesel-async|etcd   lease store (seaorm); etcd needs
//!   --etcd URL               the etcd server's client URL (IDs still go to --url)
//!   --space S --nodes N      lease space and its node IDs 0..N (ids, 4)
//!   --node-range LO-HI       lease only node IDs LO..=HI instead
//!   --process-wide           issue through the process-wide generator
//!                            (`global::init`), which a lost lease moves to
//!                            a free node; prints `MOVED from=.. node=.. fence=.. at=..`
//!   --max-clock-skew-ms MS   LeaseOptions::max_clock_skew (5000)
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
//!   --create-tables          first create the segment and lease tables
//!                            through --orm's entry points (as a service's
//!                            start-up does); prints `TABLES_FAILED <error>`
//!                            and exits 6 if that fails
//!   --start-at-ms MS         sleep until the wall clock reads MS (Unix ms)
//!                            before anything else, so that processes
//!                            started one by one act at the same moment
//! ```
//!
//! A `sqlite://PATH?…` URL serves SeaORM as it is and Diesel as `PATH`.
//!
//! Rows: `lease_ids(id BIGINT PRIMARY KEY, node, fence, worker, issued_ms)`,
//! `issued_ms` the wall clock just before the call that issued the ID. Duplicates are
//! inserted with `ON CONFLICT DO NOTHING` / `INSERT IGNORE` and counted.
//!
//! Output lines (stdout): `READY node=.. fence=.. resume_after=.. pid=..`,
//! `FENCED <error>` (first refusal of an episode), `LOST <error>`,
//! `NO_NODE <error>`, `CLOCK_AHEAD <error>` (exit code 5), `ERROR <error>`,
//! `EVENT <level> "<message>" key=value…` (each `flakeid` tracing event),
//! `RELEASED in_ms=.. mark=..` / `RELEASE_FAILED in_ms=.. <error>`, and last
//! `DONE issued=.. inserted=.. duplicates=.. fenced=.. lost=0|1 clock=..`
//! (the generator clock's reading at the end).

use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use flakeid_core::layout::presets;
use flakeid_core::{
    CeilingWait, Clock, ClockRegression, FenceReason, Fenced, GenerateError, Generator,
    ManualClock, MonotonicClock, global,
};
use flakeid_lease::HighWaterFileOptions;
use flakeid_lease::{LeaseError, LeaseOptions};
use flakeid_tests::worker::{say, sqlite_path, start_at, wall_ms};
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
    node_range: Option<(u64, u64)>,
    process_wide: bool,
    max_clock_skew: Duration,
    create_tables: bool,
    start_at_ms: Option<u64>,
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
        node_range: None,
        process_wide: false,
        max_clock_skew: LeaseOptions::DEFAULT_MAX_CLOCK_SKEW,
        create_tables: false,
        start_at_ms: None,
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
        if flag == "--process-wide" {
            a.process_wide = true;
            continue;
        }
        if flag == "--create-tables" {
            a.create_tables = true;
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
            "--max-clock-skew-ms" => a.max_clock_skew = ms(v)?,
            "--start-at-ms" => {
                a.start_at_ms = Some(v.parse().map_err(|_| format!("--start-at-ms {v}"))?)
            }
            "--node-range" => {
                let (lo, hi) = v.split_once('-').ok_or(format!("--node-range {v}"))?;
                let n = |x: &str| x.parse::<u64>().map_err(|_| format!("--node-range {v}"));
                a.node_range = Some((n(lo)?, n(hi)?));
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    if a.url.is_empty() {
        return Err("--url is required".into());
    }
    Ok(a)
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
type Layout = flakeid_core::layout::BitLayout;

/// What holds the node until the end.
enum Holder {
    SeaOrm(flakeid_seaorm::lease::NodeLease<Layout, WorkerClock>),
    Diesel(flakeid_lease::NodeLease<Layout, WorkerClock>),
    DieselAsyncPg(
        flakeid_diesel::lease_async::NodeLease<
            diesel_async::AsyncPgConnection,
            Layout,
            WorkerClock,
        >,
    ),
    DieselAsyncMy(
        flakeid_diesel::lease_async::NodeLease<
            diesel_async::AsyncMysqlConnection,
            Layout,
            WorkerClock,
        >,
    ),
    Etcd(flakeid_etcd::NodeLease<Layout, WorkerClock>),
    File(flakeid_lease::HighWaterFile<Layout, WorkerClock>),
    Fixed,
}

impl Holder {
    /// The node and fence the lease holds now.
    fn holding(&self) -> Option<(u64, u64)> {
        match self {
            Holder::SeaOrm(l) => Some((l.node(), l.fence())),
            Holder::Diesel(l) => Some((l.node(), l.fence())),
            Holder::DieselAsyncPg(l) => Some((l.node(), l.fence())),
            Holder::DieselAsyncMy(l) => Some((l.node(), l.fence())),
            Holder::Etcd(l) => Some((l.node(), l.fence())),
            Holder::File(_) | Holder::Fixed => None,
        }
    }
}

/// Where the IDs come from: a generator of the worker's own, or the
/// process-wide one.
#[derive(Clone)]
enum Ids {
    Own(Arc<Gen>),
    Process(&'static global::ProcessGenerator),
}

impl Ids {
    fn next_id(&self) -> Result<u64, GenerateError> {
        match self {
            Ids::Own(g) => g.next_id(),
            Ids::Process(g) => g.next_id(),
        }
    }

    fn moves(&self) -> u64 {
        match self {
            Ids::Own(_) => 0,
            Ids::Process(g) => g.moves(),
        }
    }
}

fn diesel_claim(
    url: &str,
    options: LeaseOptions<Layout, WorkerClock>,
) -> Result<flakeid_lease::NodeLease<Layout, WorkerClock>, LeaseError> {
    use diesel::Connection as _;
    let url = url.to_owned();
    if url.starts_with("postgres") {
        flakeid_diesel::lease::claim(move || diesel::PgConnection::establish(&url), options)
    } else if url.starts_with("mysql") {
        flakeid_diesel::lease::claim(move || diesel::MysqlConnection::establish(&url), options)
    } else {
        let path = sqlite_path(&url);
        flakeid_diesel::lease::claim(move || diesel::SqliteConnection::establish(&path), options)
    }
}

/// The file of a `sqlite://PATH?…` URL, for Diesel.
/// Creates the segment table, then the lease table, through `orm`'s entry
/// points, as a service's start-up does.
async fn create_tables(db: &DatabaseConnection, a: &Args) -> Result<(), String> {
    match a.orm.as_str() {
        "diesel" => {
            let url = a.url.clone();
            tokio::task::spawn_blocking(move || diesel_create_tables(&url))
                .await
                .map_err(|e| e.to_string())?
        }
        "diesel-async" => {
            use diesel_async::AsyncConnection as _;
            if a.url.starts_with("postgres") {
                let mut conn = diesel_async::AsyncPgConnection::establish(&a.url)
                    .await
                    .map_err(|e| format!("connect: {e}"))?;
                flakeid_diesel::lease_async::create_table(&mut conn).await
            } else {
                let mut conn = diesel_async::AsyncMysqlConnection::establish(&a.url)
                    .await
                    .map_err(|e| format!("connect: {e}"))?;
                flakeid_diesel::lease_async::create_table(&mut conn).await
            }
            .map_err(|e| format!("lease table: {e}"))
        }
        _ => {
            flakeid_seaorm::segment::create_table(db)
                .await
                .map_err(|e| format!("segment table: {e}"))?;
            flakeid_seaorm::lease::create_table(db)
                .await
                .map_err(|e| format!("lease table: {e}"))
        }
    }
}

fn diesel_create_tables(url: &str) -> Result<(), String> {
    use diesel::Connection as _;
    fn both<C>(conn: &mut C) -> Result<(), String>
    where
        C: diesel::Connection,
        C::Backend: flakeid_diesel::DieselBackend,
    {
        flakeid_diesel::segment::create_table(conn).map_err(|e| format!("segment table: {e}"))?;
        flakeid_diesel::lease::create_table(conn).map_err(|e| format!("lease table: {e}"))
    }
    let connect = |e: diesel::ConnectionError| format!("connect: {e}");
    if url.starts_with("postgres") {
        both(&mut diesel::PgConnection::establish(url).map_err(connect)?)
    } else if url.starts_with("mysql") {
        both(&mut diesel::MysqlConnection::establish(url).map_err(connect)?)
    } else {
        both(&mut diesel::SqliteConnection::establish(&sqlite_path(url)).map_err(connect)?)
    }
}

/// Prints every `flakeid` tracing event as an `EVENT` line.
mod events {
    use std::fmt::Write as _;

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    struct Line(String);

    impl Visit for Line {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            if field.name() == "message" {
                let _ = write!(self.0, " {value:?}");
            } else {
                let _ = write!(self.0, " {}={value:?}", field.name());
            }
        }
    }

    pub(crate) struct Print;

    impl Subscriber for Print {
        fn enabled(&self, metadata: &Metadata<'_>) -> bool {
            metadata.target().starts_with("flakeid")
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, event: &Event<'_>) {
            let mut line = Line(format!("EVENT {}", event.metadata().level()));
            event.record(&mut line);
            super::say(&line.0);
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }
}

async fn run(a: Args) -> Result<i32, String> {
    let _ = tracing::subscriber::set_global_default(events::Print);
    let db = Database::connect(&a.url)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    if let Some(at) = a.start_at_ms {
        start_at(at).await;
    }
    if a.create_tables
        && let Err(e) = create_tables(&db, &a).await
    {
        say(&format!("TABLES_FAILED {e}"));
        return Ok(6);
    }
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
        let nodes = a
            .node_range
            .map_or(0..=a.nodes.saturating_sub(1), |(lo, hi)| lo..=hi);
        let mut options = LeaseOptions::new(a.space.clone(), layout.clone())
            .clock(clock.clone())
            .nodes(nodes)
            .ttl(a.ttl)
            .renew_every(a.renew)
            .wait_for_node(a.wait_for_node)
            .at_ceiling(at_ceiling)
            .max_clock_skew(a.max_clock_skew)
            .holder(format!("{}/{}", a.worker, std::process::id()));
        if let Some(lead) = a.lead {
            options = options.ceiling_lead(lead);
        }
        let claimed = match a.orm.as_str() {
            "diesel" => {
                let url = a.url.clone();
                tokio::task::spawn_blocking(move || diesel_claim(&url, options))
                    .await
                    .map_err(|e| e.to_string())?
                    .map(Holder::Diesel)
            }
            "diesel-async" if a.url.starts_with("postgres") => {
                flakeid_diesel::lease_async::claim::<diesel_async::AsyncPgConnection, _, _>(
                    &a.url, options,
                )
                .await
                .map(Holder::DieselAsyncPg)
            }
            "diesel-async" => {
                flakeid_diesel::lease_async::claim::<diesel_async::AsyncMysqlConnection, _, _>(
                    &a.url, options,
                )
                .await
                .map(Holder::DieselAsyncMy)
            }
            "etcd" => {
                let client = flakeid_etcd::etcd_client::Client::connect([a.etcd.as_str()], None)
                    .await
                    .map_err(|e| format!("connect to etcd at {:?}: {e}", a.etcd))?;
                flakeid_etcd::claim(&client, options)
                    .await
                    .map(Holder::Etcd)
            }
            _ => flakeid_seaorm::lease::claim(&db, options)
                .await
                .map(Holder::SeaOrm),
        };
        let builder_of = |h: &Holder| match h {
            Holder::SeaOrm(l) => (l.generator_builder(), l.resume_after_millis()),
            Holder::Diesel(l) => (l.generator_builder(), l.resume_after_millis()),
            Holder::DieselAsyncPg(l) => (l.generator_builder(), l.resume_after_millis()),
            Holder::DieselAsyncMy(l) => (l.generator_builder(), l.resume_after_millis()),
            Holder::Etcd(l) => (l.generator_builder(), l.resume_after_millis()),
            Holder::File(_) | Holder::Fixed => unreachable!("a lease"),
        };
        match claimed {
            Ok(holder) => {
                let (builder, resume) = builder_of(&holder);
                let (node, fence) = holder.holding().ok_or("a lease")?;
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
            Err(e @ LeaseError::ClockAhead { .. }) => {
                say(&format!("CLOCK_AHEAD {e}"));
                return Ok(5);
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
    let builder = builder.clock_regression(ClockRegression::Wait {
        max: a.regression_wait,
    });
    let ids = if a.process_wide {
        Ids::Process(global::init(builder).map_err(|e| format!("global::init: {e}"))?)
    } else {
        Ids::Own(Arc::new(
            builder.build().map_err(|e| format!("build: {e}"))?,
        ))
    };
    let holder = Arc::new(holder);

    // Issue on a thread of its own: inserts may hang (a paused database)
    // while the generator meets its ceiling.
    let (tx, rx) = mpsc::channel::<(u64, i64)>();
    let issuer = {
        let (ids, a, holder) = (ids.clone(), a.clone(), holder.clone());
        let clock = clock.clone();
        std::thread::spawn(move || issue(&ids, &a, &clock, &holder, &tx))
    };
    let fences = Arc::new(std::sync::Mutex::new(std::collections::BTreeMap::from([(
        holder.holding().map_or(0, |h| h.0),
        fence,
    )])));
    let fence_of = {
        let (holder, fences) = (holder.clone(), fences.clone());
        move |node: u64| -> u64 {
            let mut fences = fences
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some((n, f)) = holder.holding()
                && n == node
            {
                fences.entry(n).or_insert(f);
            }
            fences.get(&node).copied().unwrap_or(fence)
        }
    };
    let (inserted, duplicates) = insert_all(&db, &a, fence_of, rx).await?;
    let (issued, fenced, lost) = issuer.join().map_err(|_| "issuer panicked")?;

    if let Some(path) = &a.hold_file {
        while !std::path::Path::new(path).exists() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
    let holder = Arc::try_unwrap(holder).map_err(|_| "the holder is still shared")?;
    if a.release {
        let started = std::time::Instant::now();
        let released = match (&ids, holder) {
            (Ids::Own(g), Holder::SeaOrm(l)) => l.release(g).await.map_err(|e| e.to_string()),
            (Ids::Process(g), Holder::SeaOrm(l)) => l.release(*g).await.map_err(|e| e.to_string()),
            (Ids::Own(g), Holder::DieselAsyncPg(l)) => {
                l.release(g).await.map_err(|e| e.to_string())
            }
            (Ids::Process(g), Holder::DieselAsyncPg(l)) => {
                l.release(*g).await.map_err(|e| e.to_string())
            }
            (Ids::Own(g), Holder::DieselAsyncMy(l)) => {
                l.release(g).await.map_err(|e| e.to_string())
            }
            (Ids::Process(g), Holder::DieselAsyncMy(l)) => {
                l.release(*g).await.map_err(|e| e.to_string())
            }
            (Ids::Own(g), Holder::Etcd(l)) => l.release(g).await.map_err(|e| e.to_string()),
            (Ids::Process(g), Holder::Etcd(l)) => l.release(*g).await.map_err(|e| e.to_string()),
            (ids, Holder::Diesel(l)) => {
                let ids = ids.clone();
                tokio::task::spawn_blocking(move || match ids {
                    Ids::Own(g) => l.release(&g).map_err(|e| e.to_string()),
                    Ids::Process(g) => l.release(g).map_err(|e| e.to_string()),
                })
                .await
                .map_err(|e| e.to_string())?
            }
            (Ids::Own(g), Holder::File(f)) => f.release(g).map_err(|e| e.to_string()),
            (Ids::Process(g), Holder::File(f)) => f.release(*g).map_err(|e| e.to_string()),
            (_, Holder::Fixed) => Ok(0),
        };
        let in_ms = started.elapsed().as_millis();
        match released {
            Ok(mark) => say(&format!("RELEASED in_ms={in_ms} mark={mark}")),
            Err(e) => say(&format!("RELEASE_FAILED in_ms={in_ms} {e}")),
        }
    } else {
        // As a crash would: nothing released, nothing renewed any more.
        std::mem::forget(holder);
    }
    say(&format!(
        "DONE issued={issued} inserted={inserted} duplicates={duplicates} fenced={fenced} lost={} clock={}",
        u8::from(lost),
        clock.now_millis()
    ));
    Ok(0)
}

/// Issues the IDs; `(issued, fence episodes, lost)`. Through the
/// process-wide generator a lost lease is waited out (the lease moves it).
fn issue(
    ids: &Ids,
    a: &Args,
    clock: &WorkerClock,
    holder: &Holder,
    tx: &mpsc::Sender<(u64, i64)>,
) -> (u64, u64, bool) {
    let (mut issued, mut fenced, mut in_episode) = (0, 0, false);
    let mut moves = 0;
    while issued < a.ids {
        // Read before the call: a process stopped between the call and the
        // reading must not look as if it issued the ID after it resumed.
        let at = wall_ms();
        match ids.next_id() {
            Ok(id) => {
                in_episode = false;
                issued += 1;
                if ids.moves() != moves {
                    moves = ids.moves();
                    let (node, fence) = holder.holding().unwrap_or_default();
                    say(&format!(
                        "MOVED moves={moves} node={node} fence={fence} at={at}"
                    ));
                }
                if tx.send((id, at)).is_err() {
                    break;
                }
                if !a.pace.is_zero() {
                    std::thread::sleep(a.pace);
                }
                if let WorkerClock::Manual(c) = clock
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
            Err(GenerateError::Fenced(e)) if matches!(ids, Ids::Process(_)) => {
                if !in_episode {
                    fenced += 1;
                    in_episode = true;
                    say(&format!("MOVING {e}"));
                }
                std::thread::sleep(Duration::from_millis(5));
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
    fence_of: impl Fn(u64) -> u64,
    rx: mpsc::Receiver<(u64, i64)>,
) -> Result<(u64, u64), String> {
    let layout = presets::twitter();
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
            .map(|(id, at)| {
                let node = layout.decompose(*id).node;
                format!("({id}, {node}, {}, '{}', {at})", fence_of(node), a.worker)
            })
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
