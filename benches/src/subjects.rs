//! The generators compared, each set up the way its documentation recommends
//! for a server issuing 64-bit Twitter-layout IDs (node 1, Twitter epoch,
//! the crate's default monotonic clock), and the adapters that let the
//! generic measurements in [`crate::measure`] drive them.

use std::fmt::Debug;
use std::hint::spin_loop;
use std::sync::{Mutex, OnceLock};
use std::thread;
use std::time::{Duration, UNIX_EPOCH};

use ferroid::generator::{AtomicSnowflakeGenerator, BasicSnowflakeGenerator};
use ferroid::id::SnowflakeTwitterId;
use ferroid::time::{MonotonicClock as FerroidClock, TWITTER_EPOCH};
use flakeid_core::layout::presets;
use flakeid_core::layout::{BitLayout, Layout};
use flakeid_core::{Clock, Generator, MonotonicClock, SequenceExhaustion, global};
use flakeid_lease::{LeaseOptions, MemoryLeaseStore, NodeLease};

use crate::BenchError;
use crate::measure::{self, FastPath, Run, SharedRun};

/// Node (machine/instance) ID every snowflake generator is given.
pub const NODE: u16 = 1;

/// The Twitter layout's capacity per node: 4,096 IDs per millisecond.
pub const TWITTER_CAP_PER_SEC: f64 = 4_096_000.0;

/// One generator under test (one row of the table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subject {
    /// flakeid `Generator`, Twitter layout, default policies (wait when a
    /// tick is used up, 10 ms catch-up window).
    Flakeid,
    /// The same generator with its metrics (feature `metrics`) registered
    /// in a Prometheus recorder (metrics-exporter-prometheus), as a service
    /// exporting `/metrics` has it; the row above has no recorder.
    FlakeidRecorded,
    /// The same generator on a node leased from a lease store (in memory
    /// here: the store's cost is the renewal thread's, every 3 s), its IDs
    /// capped by the lease's ceiling.
    FlakeidLeased,
    /// The process-wide generator (`global::init`) on a leased node, which
    /// the lease moves to another node if it is lost: what `#[flake_id]`
    /// types use. One per process, shared by every measurement of the row.
    FlakeidProcessWide,
    /// flakeid `Generator` with `SequenceExhaustion::RunAhead { max_lead }`,
    /// one `next_id` call per ID (burst column only).
    FlakeidRunAhead,
    /// The same run-ahead generator, all IDs of the burst from one
    /// `next_batch` call (burst column only).
    FlakeidBatch,
    /// ferroid 2 `AtomicSnowflakeGenerator<SnowflakeTwitterId, MonotonicClock>`.
    FerroidAtomic,
    /// ferroid 2 `BasicSnowflakeGenerator` (single-threaded: a `Cell`).
    FerroidBasic,
    /// snowflaked 1 `sync::Generator` (Twitter layout, Twitter epoch).
    Snowflaked,
    /// uuid 1 `Uuid::now_v7()` (process-wide context behind a mutex; `fast-rng`).
    UuidV7,
    /// ulid 3 `ulid::Generator` (monotonic; behind a mutex when shared).
    Ulid,
}

impl Subject {
    /// Every subject, in table order.
    pub const ALL: [Subject; 11] = [
        Subject::Flakeid,
        Subject::FlakeidRecorded,
        Subject::FlakeidLeased,
        Subject::FlakeidProcessWide,
        Subject::FlakeidRunAhead,
        Subject::FlakeidBatch,
        Subject::FerroidAtomic,
        Subject::FerroidBasic,
        Subject::Snowflaked,
        Subject::UuidV7,
        Subject::Ulid,
    ];

    /// The subject the table's ratios are relative to.
    pub const BASELINE: Subject = Subject::FerroidAtomic;

    /// Row label.
    pub fn label(self) -> &'static str {
        match self {
            Subject::Flakeid => "flakeid Generator (Wait)",
            Subject::FlakeidRecorded => "flakeid Generator, metrics recorded",
            Subject::FlakeidLeased => "flakeid leased node (Wait)",
            Subject::FlakeidProcessWide => "flakeid leased, process-wide",
            Subject::FlakeidRunAhead => "flakeid RunAhead next_id",
            Subject::FlakeidBatch => "flakeid RunAhead next_batch",
            Subject::FerroidAtomic => "ferroid AtomicSnowflakeGen",
            Subject::FerroidBasic => "ferroid BasicSnowflakeGen",
            Subject::Snowflaked => "snowflaked sync::Generator",
            Subject::UuidV7 => "uuid Uuid::now_v7()",
            Subject::Ulid => "ulid Generator",
        }
    }

    /// Whether the subject issues Twitter-layout IDs, capped at 4,096 per ms.
    pub fn capped(self) -> bool {
        !matches!(self, Subject::UuidV7 | Subject::Ulid)
    }

    /// Whether the subject takes part in the per-ID columns (a)–(c); the
    /// run-ahead rows only differ from [`Subject::Flakeid`] under a burst.
    pub fn per_id_columns(self) -> bool {
        !matches!(self, Subject::FlakeidRunAhead | Subject::FlakeidBatch)
    }

    /// Whether one instance can be shared by threads (column c).
    pub fn shareable(self) -> bool {
        self.per_id_columns() && self != Subject::FerroidBasic
    }
}

/// A measurement that can drive any single-threaded ID source.
pub trait Visit {
    /// What the measurement yields.
    type Out;
    /// Runs the measurement with `next` issuing one ID per call.
    fn visit<T, F>(self, next: F) -> Result<Self::Out, BenchError>
    where
        T: Ord + Copy + Debug + Send,
        F: FnMut() -> Result<T, BenchError>;
}

/// A measurement that drives an ID source shared by threads.
pub trait VisitShared {
    /// What the measurement yields.
    type Out;
    /// Runs the measurement with `next` issuing one ID per call from any thread.
    fn visit<T, F>(self, next: &F) -> Result<Self::Out, BenchError>
    where
        T: Ord + Copy + Debug + Send,
        F: Fn() -> Result<T, BenchError> + Sync;
}

/// A flakeid generator on Twitter's layout with the given policy.
pub fn flakeid(policy: SequenceExhaustion) -> Result<Generator, BenchError> {
    Ok(Generator::builder(presets::twitter(), u64::from(NODE))
        .sequence_exhaustion(policy)
        .build()?)
}

/// A flakeid generator like [`flakeid`] whose metrics go to a Prometheus
/// recorder (one per process, never rendered: recording is what costs).
pub fn flakeid_recorded(policy: SequenceExhaustion) -> Result<Generator, BenchError> {
    static RECORDER: OnceLock<metrics_exporter_prometheus::PrometheusRecorder> = OnceLock::new();
    let recorder = RECORDER
        .get_or_init(|| metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder());
    metrics::with_local_recorder(recorder, || flakeid(policy))
}

/// A flakeid generator like [`flakeid`], on a node leased from an
/// in-memory lease store, and its lease (keep it while the generator runs).
pub fn flakeid_leased(policy: SequenceExhaustion) -> Result<(NodeLease, Generator), BenchError> {
    let lease = LeaseOptions::new("bench", presets::twitter())
        .nodes(u64::from(NODE)..=u64::from(NODE))
        .claim(MemoryLeaseStore::new())?;
    let g = lease
        .generator_builder()
        .sequence_exhaustion(policy)
        .build()?;
    Ok((lease, g))
}

/// The process-wide generator on a node leased from an in-memory store,
/// installed on first use; the lease is kept for the rest of the process.
pub fn flakeid_process_wide() -> Result<&'static global::ProcessGenerator, BenchError> {
    static INSTALLED: OnceLock<(NodeLease, &'static global::ProcessGenerator)> = OnceLock::new();
    if let Some((_, g)) = INSTALLED.get() {
        return Ok(g);
    }
    let lease = LeaseOptions::new("bench-process", presets::twitter())
        .nodes(u64::from(NODE)..=u64::from(NODE))
        .claim(MemoryLeaseStore::new())?;
    let g = global::init(lease.generator_builder())?;
    Ok(INSTALLED.get_or_init(|| (lease, g)).1)
}

impl Subject {
    /// Builds a fresh instance of the generator and lets `v` drive it from
    /// this thread. `policy` applies to the flakeid rows.
    pub fn single<V: Visit>(self, v: V, policy: SequenceExhaustion) -> Result<V::Out, BenchError> {
        match self {
            Subject::Flakeid | Subject::FlakeidRunAhead | Subject::FlakeidBatch => {
                let g = flakeid(policy)?;
                v.visit(|| g.next_id().map_err(BenchError::from))
            }
            Subject::FlakeidRecorded => {
                let g = flakeid_recorded(policy)?;
                v.visit(|| g.next_id().map_err(BenchError::from))
            }
            Subject::FlakeidLeased => {
                let (lease, g) = flakeid_leased(policy)?;
                let out = v.visit(|| g.next_id().map_err(BenchError::from))?;
                lease.release(&g)?;
                Ok(out)
            }
            Subject::FlakeidProcessWide => {
                let g = flakeid_process_wide()?;
                v.visit(|| g.next_id().map_err(BenchError::from))
            }
            Subject::FerroidAtomic => {
                let g = AtomicSnowflakeGenerator::<SnowflakeTwitterId, _>::new(
                    u64::from(NODE),
                    ferroid_clock(),
                );
                v.visit(|| Ok(g.next_id(ferroid_backoff).to_raw()))
            }
            Subject::FerroidBasic => {
                let g = BasicSnowflakeGenerator::<SnowflakeTwitterId, _>::new(
                    u64::from(NODE),
                    ferroid_clock(),
                );
                v.visit(|| Ok(g.next_id(ferroid_backoff).to_raw()))
            }
            Subject::Snowflaked => {
                let g = snowflaked_generator();
                v.visit(|| Ok(g.generate::<u64>()))
            }
            Subject::UuidV7 => v.visit(uuid_next),
            Subject::Ulid => {
                let mut g = ulid::Generator::new();
                v.visit(move || ulid_next(&mut g))
            }
        }
    }

    /// Builds a fresh instance and lets `v` drive it from several threads;
    /// `None` for generators that cannot be shared.
    pub fn shared<V: VisitShared>(self, v: V) -> Result<Option<V::Out>, BenchError> {
        Ok(Some(match self {
            Subject::Flakeid => {
                let g = flakeid(SequenceExhaustion::Wait)?;
                v.visit(&|| g.next_id().map_err(BenchError::from))?
            }
            Subject::FlakeidRecorded => {
                let g = flakeid_recorded(SequenceExhaustion::Wait)?;
                v.visit(&|| g.next_id().map_err(BenchError::from))?
            }
            Subject::FlakeidLeased => {
                let (lease, g) = flakeid_leased(SequenceExhaustion::Wait)?;
                let out = v.visit(&|| g.next_id().map_err(BenchError::from))?;
                lease.release(&g)?;
                out
            }
            Subject::FlakeidProcessWide => {
                let g = flakeid_process_wide()?;
                v.visit(&|| g.next_id().map_err(BenchError::from))?
            }
            Subject::FerroidAtomic => {
                let g = AtomicSnowflakeGenerator::<SnowflakeTwitterId, _>::new(
                    u64::from(NODE),
                    ferroid_clock(),
                );
                v.visit(&|| Ok(g.next_id(ferroid_backoff).to_raw()))?
            }
            Subject::Snowflaked => {
                let g = snowflaked_generator();
                v.visit(&|| Ok(g.generate::<u64>()))?
            }
            Subject::UuidV7 => v.visit(&uuid_next)?,
            Subject::Ulid => {
                let g = Mutex::new(ulid::Generator::new());
                v.visit(&|| {
                    let mut g = g.lock().map_err(|_| BenchError::ThreadPanicked)?;
                    ulid_next(&mut g)
                })?
            }
            Subject::FlakeidRunAhead | Subject::FlakeidBatch | Subject::FerroidBasic => {
                return Ok(None);
            }
        }))
    }
}

/// Visitor for [`measure::fast_path`], after an untimed warm-up of the same kind.
#[derive(Debug, Clone, Copy)]
pub struct FastPathVisit {
    /// Timed duration.
    pub duration: Duration,
    /// Untimed warm-up before it.
    pub warm_up: Duration,
    /// IDs per batch (per millisecond).
    pub per_tick: u32,
}

impl Visit for FastPathVisit {
    type Out = FastPath;
    fn visit<T, F>(self, mut next: F) -> Result<FastPath, BenchError>
    where
        T: Ord + Copy + Debug + Send,
        F: FnMut() -> Result<T, BenchError>,
    {
        measure::fast_path(&mut next, self.warm_up, self.per_tick)?;
        measure::fast_path(&mut next, self.duration, self.per_tick)
    }
}

/// Visitor for [`measure::saturated`], after an untimed warm-up.
#[derive(Debug, Clone, Copy)]
pub struct SaturatedVisit {
    /// Timed duration.
    pub duration: Duration,
    /// Untimed warm-up before it.
    pub warm_up: Duration,
}

impl Visit for SaturatedVisit {
    type Out = Run;
    fn visit<T, F>(self, mut next: F) -> Result<Run, BenchError>
    where
        T: Ord + Copy + Debug + Send,
        F: FnMut() -> Result<T, BenchError>,
    {
        measure::saturated(&mut next, self.warm_up)?;
        measure::saturated(&mut next, self.duration)
    }
}

/// Visitor for [`measure::shared`], after an untimed warm-up.
#[derive(Debug, Clone, Copy)]
pub struct SharedVisit {
    /// Threads sharing the generator.
    pub threads: usize,
    /// Timed duration.
    pub duration: Duration,
    /// Untimed warm-up before it (one thread).
    pub warm_up: Duration,
    /// IDs each thread records for the duplicate check.
    pub record_cap: usize,
}

impl VisitShared for SharedVisit {
    type Out = SharedRun;
    fn visit<T, F>(self, next: &F) -> Result<SharedRun, BenchError>
    where
        T: Ord + Copy + Debug + Send,
        F: Fn() -> Result<T, BenchError> + Sync,
    {
        measure::saturated(next, self.warm_up)?;
        measure::shared(next, self.threads, self.duration, self.record_cap)
    }
}

/// Visitor for [`measure::burst`] (no warm-up: the generator must be idle).
#[derive(Debug, Clone, Copy)]
pub struct BurstVisit {
    /// IDs in the burst.
    pub n: u64,
}

impl Visit for BurstVisit {
    type Out = Run;
    fn visit<T, F>(self, next: F) -> Result<Run, BenchError>
    where
        T: Ord + Copy + Debug + Send,
        F: FnMut() -> Result<T, BenchError>,
    {
        Ok(measure::burst(next, self.n)?.0)
    }
}

/// The result of a burst: its run and, for flakeid, how far ahead of its
/// clock the last ID was stamped (negative: behind).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Burst {
    /// The timed burst.
    pub run: Run,
    /// Last ID's time minus the clock's reading right after the burst, in ms.
    pub ahead_ms: Option<i64>,
}

impl Subject {
    /// A burst of `n` IDs from a fresh, idle generator. The clock and the
    /// code are warmed up first with a throwaway instance of the same kind;
    /// flakeid rows use `policy` (the run-ahead rows are built with it).
    pub fn burst(self, n: u64, policy: SequenceExhaustion) -> Result<Burst, BenchError> {
        let warm = BurstVisit {
            n: n.clamp(1, 20_000),
        };
        match self {
            Subject::Flakeid | Subject::FlakeidRunAhead => {
                self.single(warm, policy)?;
                let g = flakeid(policy)?;
                let (run, last) = measure::burst(|| g.next_id().map_err(BenchError::from), n)?;
                Ok(Burst {
                    run,
                    ahead_ms: Some(ahead_ms(&g, last)),
                })
            }
            Subject::FlakeidBatch => {
                batch_burst(&flakeid(policy)?, warm.n)?;
                let g = flakeid(policy)?;
                let (run, last) = batch_burst(&g, n)?;
                Ok(Burst {
                    run,
                    ahead_ms: Some(ahead_ms(&g, last)),
                })
            }
            _ => {
                self.single(warm, policy)?;
                Ok(Burst {
                    run: self.single(BurstVisit { n }, policy)?,
                    ahead_ms: None,
                })
            }
        }
    }
}

/// Reserves `n` IDs with one `next_batch` call and iterates over them,
/// checking that they increase; returns the run and the last ID.
pub fn batch_burst<C: Clock>(
    g: &Generator<BitLayout, C>,
    n: u64,
) -> Result<(Run, u64), BenchError> {
    let len = usize::try_from(n)
        .map_err(|_| BenchError::Argument(format!("burst size {n} too large")))?;
    let start = std::time::Instant::now();
    let mut last = 0u64;
    let mut count = 0u64;
    for id in g.next_batch(len)? {
        if id <= last {
            return Err(BenchError::NotIncreasing {
                previous: format!("{last}"),
                next: format!("{id}"),
                position: count,
            });
        }
        last = id;
        count += 1;
    }
    let elapsed = start.elapsed();
    if count != n {
        return Err(BenchError::Argument(format!(
            "batch of {n} yielded {count} IDs"
        )));
    }
    Ok((
        Run {
            ids: count,
            elapsed,
        },
        last,
    ))
}

/// ferroid calls this when it cannot issue an ID: `0` means a lost CAS
/// race (retry at once), anything else a used-up millisecond. Yielding
/// matches flakeid's own wait (it yields for the last millisecond).
fn ferroid_backoff(yield_for: u64) {
    if yield_for == 0 {
        spin_loop();
    } else {
        thread::yield_now();
    }
}

fn ferroid_clock() -> FerroidClock {
    FerroidClock::with_epoch(TWITTER_EPOCH)
}

fn snowflaked_generator() -> snowflaked::sync::Generator {
    snowflaked::sync::Generator::builder()
        .instance(NODE)
        .epoch(UNIX_EPOCH + Duration::from_millis(presets::twitter().epoch_millis()))
        .build()
}

fn uuid_next() -> Result<u128, BenchError> {
    Ok(uuid::Uuid::now_v7().as_u128())
}

fn ulid_next(g: &mut ulid::Generator) -> Result<u128, BenchError> {
    // Overflow (2^80 IDs in one millisecond) cannot happen in practice;
    // the crate's documented answer is to move on to the next millisecond.
    Ok(g.generate()
        .unwrap_or_else(|o| o.commit_overflow_increment())
        .0)
}

fn ahead_ms(g: &Generator, id: u64) -> i64 {
    let layout: &BitLayout = g.layout();
    let stamped = layout.decompose(id).tick * layout.tick_millis() + layout.epoch_millis();
    let now = MonotonicClock::new().now_millis();
    i64::try_from(stamped).unwrap_or(i64::MAX) - i64::try_from(now).unwrap_or(i64::MAX)
}
