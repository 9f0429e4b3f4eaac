//! Async generation against blocking generation (the `async_generation`
//! binary): what an async call costs when no wait is needed, and how long
//! each holds up a current-thread runtime when waits are forced.
//!
//! * **No wait**: [`measure::fast_path`] over `Generator::next_id()` and
//!   `next_id_async()`, and over `UserId::generate()` and
//!   `generate_async()` (the process-wide generator), 1,000 IDs per
//!   millisecond. An async call is its future polled by the measuring loop
//!   as a task's poll would poll it: with no wait needed it is ready at its
//!   first poll.
//! * **Forced waits**: a [`Ticker`] on a current-thread tokio runtime
//!   beside a workload on the same runtime that takes IDs in statements of
//!   100 (one ID alone every tenth statement) and yields between statements
//!   as a database round trip would: (a) from a layout of 4 IDs per
//!   millisecond, (b) from a leased node whose (in-memory) lease store is
//!   down for a second, past the ceiling. The worst run of ticks missed in
//!   a row per path.

use std::fmt::Write as _;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use flakeid_core::layout::{BitLayout, presets};
use flakeid_core::{CeilingWait, GenerateError, Generator, flake_id, global};
use flakeid_lease::{LeaseOptions, MemoryLeaseStore};
use flakeid_sql::Outage;
use flakeid_tests::ticker::{Stalls, Ticker, charged, charged_sync};

use crate::BenchError;
use crate::measure::{self, FastPath};

/// What to measure and for how long.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Timed duration of each no-wait measurement.
    pub fast_path: Duration,
    /// IDs per millisecond in the no-wait measurement.
    pub per_tick: u32,
    /// Rounds of the no-wait measurement (alternating the paths).
    pub rounds: usize,
    /// IDs the workload of (a) takes per path.
    pub tick_ids: usize,
    /// How long the workload of (b) runs per path.
    pub lease_run: Duration,
    /// How long the lease store is down in (b).
    pub outage: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            fast_path: Duration::from_secs(1),
            per_tick: 1_000,
            rounds: 5,
            tick_ids: 20_000,
            lease_run: Duration::from_secs(3),
            outage: Duration::from_secs(1),
        }
    }
}

impl Config {
    /// Tiny durations for tests: every code path, no meaningful numbers.
    pub fn tiny() -> Self {
        Config {
            fast_path: Duration::from_millis(20),
            per_tick: 100,
            rounds: 1,
            tick_ids: 400,
            lease_run: Duration::from_millis(600),
            outage: Duration::from_millis(300),
        }
    }
}

/// The ID type of the process-wide generator (Twitter's layout).
#[flake_id]
pub struct UserId(i64);

/// One no-wait row: blocking and async medians (ns per ID) over the rounds.
#[derive(Debug, Clone, PartialEq)]
pub struct NoWait {
    /// What was called.
    pub what: &'static str,
    /// Per round: the blocking call's median ns/ID.
    pub blocking: Vec<f64>,
    /// Per round: the async call's median ns/ID.
    pub asynchronous: Vec<f64>,
}

impl NoWait {
    /// The median over rounds of async ÷ blocking.
    pub fn ratio(&self) -> f64 {
        let mut ratios: Vec<f64> = self
            .blocking
            .iter()
            .zip(&self.asynchronous)
            .map(|(b, a)| a / b)
            .collect();
        measure::median(&mut ratios).unwrap_or(f64::NAN)
    }
}

/// Measures the cost of a call when no wait is needed, both paths in
/// alternating rounds.
///
/// # Errors
/// A generator error, or IDs that do not increase.
pub fn no_wait(cfg: &Config) -> Result<Vec<NoWait>, BenchError> {
    global::init(Generator::builder(presets::twitter(), 1))?;
    let generator = Generator::builder(presets::twitter(), 2).build()?;
    let mut rows = vec![
        NoWait {
            what: "Generator: next_id() | next_id_async()",
            blocking: Vec::new(),
            asynchronous: Vec::new(),
        },
        NoWait {
            what: "#[flake_id] UserId: generate() | generate_async()",
            blocking: Vec::new(),
            asynchronous: Vec::new(),
        },
    ];
    for _ in 0..cfg.rounds {
        let fast = |next: &mut dyn FnMut() -> Result<u64, BenchError>| {
            measure::fast_path(next, cfg.fast_path, cfg.per_tick).map(|f: FastPath| f.median_ns)
        };
        rows[0]
            .blocking
            .push(fast(&mut || Ok(generator.next_id()?))?);
        rows[0]
            .asynchronous
            .push(fast(&mut || Ok(poll_to_end(generator.next_id_async())?))?);
        rows[1]
            .blocking
            .push(fast(&mut || Ok(raw(UserId::generate()?)))?);
        rows[1].asynchronous.push(fast(&mut || {
            Ok(raw(poll_to_end(UserId::generate_async())?))
        })?);
    }
    Ok(rows)
}

/// How IDs are taken in the forced-wait workloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Path {
    /// `next_id_async` / `next_batch_async`.
    Async,
    /// `next_id` / `next_batch` inside the async task.
    Blocking,
}

/// One forced-wait row.
#[derive(Debug, Clone)]
pub struct Stall {
    /// Which wait was forced.
    pub wait: &'static str,
    /// Which calls took the IDs.
    pub path: Path,
    /// IDs taken.
    pub ids: u64,
    /// Calls that failed (a blocking call at the ceiling keeps the renewal
    /// from running and fails after its wait).
    pub errors: u64,
    /// How long the workload ran.
    pub elapsed: Duration,
    /// What the ticker saw.
    pub stalls: Stalls,
}

/// Runs both forced-wait workloads along both paths.
///
/// # Errors
/// A generator or lease error other than those the blocking path is
/// expected to meet.
pub fn forced_waits(cfg: &Config) -> Result<Vec<Stall>, BenchError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|e| BenchError::Argument(format!("a tokio runtime: {e}")))?;
    let mut rows = Vec::new();
    for path in [Path::Async, Path::Blocking] {
        rows.push(runtime.block_on(used_up_ticks(cfg, path))?);
    }
    for path in [Path::Async, Path::Blocking] {
        rows.push(runtime.block_on(lease_outage(cfg, path))?);
    }
    Ok(rows)
}

/// The two tables, in Markdown.
pub fn tables(no_wait: &[NoWait], stalls: &[Stall]) -> String {
    let mut out = String::new();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let median = |xs: &[f64]| measure::median(&mut xs.to_vec()).unwrap_or(f64::NAN);
    let _ = writeln!(
        out,
        "| no wait needed | blocking ns/ID (median of rounds) | async ns/ID | async ÷ blocking (median of per-round ratios) |\n|---|---:|---:|---:|"
    );
    for r in no_wait {
        let _ = writeln!(
            out,
            "| {} | {:.1} | {:.1} | {:.2}× |",
            r.what,
            median(&r.blocking),
            median(&r.asynchronous),
            r.ratio()
        );
    }
    let _ = writeln!(
        out,
        "\n| forced wait | path | IDs | failed calls | run (ms) | ticks | worst ticks missed in a row by generation | generation's time in that gap (ms) | worst in a row, OS delays excluded | its gap (ms) | OS run-queue share (ms) | worst in a row, raw |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for s in stalls {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.0} | {} | {} | {:.1} | {} | {:.1} | {:.1} | {} |",
            s.wait,
            match s.path {
                Path::Async => "async (`next_id_async`, `next_batch_async`)",
                Path::Blocking => "blocking (`next_id`, `next_batch`)",
            },
            s.ids,
            s.errors,
            ms(s.elapsed),
            s.stalls.ticks,
            s.stalls.worst_missed,
            ms(s.stalls.worst_charged),
            s.stalls.worst_missed_held,
            ms(s.stalls.worst_gap),
            ms(s.stalls.worst_os_delay),
            s.stalls.worst_missed_raw,
        );
    }
    out
}

fn raw(id: UserId) -> u64 {
    id.get().unsigned_abs()
}

/// The output of `future`, polled on this thread until it is ready (at
/// once when it needs no wait; a wait parks the thread until woken).
fn poll_to_end<F: Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let mut future = pin!(future);
    // A task's poll has its waker at hand: with no wait needed the future
    // is ready at its first poll, which takes a no-op waker rather than
    // making one per ID; only a future that waits gets the parking one.
    if let Poll::Ready(v) = future
        .as_mut()
        .poll(&mut Context::from_waker(Waker::noop()))
    {
        return v;
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    loop {
        if let Poll::Ready(v) = future.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}

/// Twitter's field widths with 2 sequence bits: 4 IDs per millisecond.
fn four_per_tick() -> Result<BitLayout, BenchError> {
    BitLayout::builder()
        .time_bits(51)
        .node_bits(10)
        .sequence_bits(2)
        .epoch_millis(1_288_834_974_657)
        .build()
        .map_err(|e| BenchError::Argument(format!("a layout of 4 IDs per tick: {e}")))
}

/// Takes IDs from `generator` in statements as the workloads do; the count
/// of IDs and of errors.
async fn statement(generator: &Generator, path: Path, n: usize) -> Result<u64, GenerateError> {
    // The time the thread spends taking the IDs is charged to generation.
    let ids = match (path, n) {
        (Path::Async, 1) => charged(generator.next_id_async()).await.map(|_| 1)?,
        (Path::Async, _) => charged(generator.next_batch_async(n)).await?.count() as u64,
        (Path::Blocking, 1) => charged_sync(|| generator.next_id()).map(|_| 1)?,
        (Path::Blocking, _) => charged_sync(|| generator.next_batch(n))?.count() as u64,
    };
    // A database round trip would give the runtime back here.
    tokio::task::yield_now().await;
    Ok(ids)
}

fn statement_len(index: usize) -> usize {
    if index % 10 == 9 { 1 } else { 100 }
}

async fn used_up_ticks(cfg: &Config, path: Path) -> Result<Stall, BenchError> {
    let generator = Generator::builder(four_per_tick()?, 1).build()?;
    let ticker = Ticker::start(u64::MAX);
    let started = Instant::now();
    let mut ids = 0;
    let mut index = 0;
    while ids < cfg.tick_ids as u64 {
        ids += statement(&generator, path, statement_len(index)).await?;
        index += 1;
    }
    let elapsed = started.elapsed();
    Ok(Stall {
        wait: "(a) 4 IDs per tick, every tick used up",
        path,
        ids,
        errors: 0,
        elapsed,
        stalls: ticker.stop().await,
    })
}

async fn lease_outage(cfg: &Config, path: Path) -> Result<Stall, BenchError> {
    let down = Outage::new();
    let store = MemoryLeaseStore::new().behind(&down);
    // Renewed every 50 ms with the ceiling 100 ms ahead; at the ceiling,
    // callers wait up to twice the outage.
    let lease = LeaseOptions::new("bench", presets::twitter())
        .ttl(Duration::from_secs(10))
        .renew_every(Duration::from_millis(50))
        .ceiling_lead(Duration::from_millis(100))
        .at_ceiling(CeilingWait::Wait {
            max: cfg.outage * 2,
        })
        .claim_on_tokio(store)
        .await?;
    let generator = lease.generator_builder().build()?;
    let ticker = Ticker::start(u64::MAX);
    let outage = tokio::spawn({
        let (down, length, after) = (down.clone(), cfg.outage, cfg.lease_run / 4);
        async move {
            tokio::time::sleep(after).await;
            down.start();
            tokio::time::sleep(length).await;
            down.end();
        }
    });
    let started = Instant::now();
    let (mut ids, mut errors, mut index) = (0, 0, 0);
    while started.elapsed() < cfg.lease_run {
        match statement(&generator, path, statement_len(index)).await {
            Ok(n) => ids += n,
            Err(GenerateError::Fenced(_)) => errors += 1,
            Err(e) => return Err(e.into()),
        }
        index += 1;
    }
    let elapsed = started.elapsed();
    let stalls = ticker.stop().await;
    outage
        .await
        .map_err(|e| BenchError::Argument(format!("the outage task: {e}")))?;
    lease.release(&generator).await?;
    Ok(Stall {
        wait: "(b) leased node at its ceiling, store down",
        path,
        ids,
        errors,
        elapsed,
        stalls,
    })
}
