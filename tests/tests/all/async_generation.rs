//! Generation never holds up the async runtime it runs on: a
//! current-thread tokio runtime runs a ticker task (every millisecond)
//! while the same runtime inserts 100,000 rows with flake keys, through
//! SeaORM and through diesel-async on PostgreSQL, with the generator forced
//! to wait:
//!
//! * (a) a layout of 4 IDs per millisecond (2 sequence bits), so that every
//!   tick's sequence is used up and batches of IDs span many ticks;
//! * (b) a leased node whose lease store fails for a second at a time
//!   (shorter than the TTL), so that the generator reaches its ceiling and
//!   waits for the renewal — a task on the same runtime — to raise it.
//!
//! The time charged to generation (below) makes the ticker miss more than
//! 2 ticks in a row in at most 3 gaps of the tens of thousands, and never
//! more than 20. A wait on the thread, blocking or written as a spin, would
//! do the first in each of the thousand batches that use up their ticks,
//! and the second at the ceiling; the bounds leave room for what the
//! charged time holds that is not generation's: the interrupts the kernel
//! serves on the running thread's account and, in SeaORM's futures, the
//! thread's waits for a page of the test binary or a lock of the process's
//! other tests, a rare detour of a few milliseconds on a loaded machine.
//! The same workload with the blocking calls (`generate()`,
//! `generate_many()`) breaks the bounds: the harness can tell.
//!
//! Missed ticks are those of the time the runtime's thread spent running
//! generation within one gap between two ticks: the polls of the async
//! calls and the blocking calls. A poll or call that gave up its CPU (a
//! sleep, a lock, a condition variable) is charged its wall time less the
//! time the operating system kept the thread waiting for a CPU (its
//! run-queue delay, `/proc/thread-self/schedstat`), so a blocking wait
//! counts in full; one that never gave it up is charged its CPU time.
//! SeaORM takes the IDs inside futures that also build the statement (the
//! one-row inserts' `before_save` hook, `insert_many_with_ids`): of those,
//! only the polls that gave up the CPU are charged (a blocking wait for an
//! ID would be one, in full), since their CPU work is SeaORM's, a few
//! milliseconds in a debug build on a loaded machine, against
//! microseconds for the IDs. The raw gaps are printed beside: on
//! a shared 2-core virtual machine running debug builds they also hold the
//! drivers' work and time the host took the virtual CPU away, several
//! milliseconds with no generation in them.
//! What the stored rows say is checked with plain SQL.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use flakeid_core::layout::{BitLayout, presets};
use flakeid_core::{CeilingWait, ConfigError, Generator, flake_id};
use flakeid_lease::{
    AsyncLeaseStore, AsyncNodeLease, ClaimRequest, LeaseOptions, LeaseStatus, NodeRow, NodeTable,
};
use flakeid_lease::{ReleaseRequest, RenewRequest, Renewal};
use flakeid_sql::StoreError;
use flakeid_tests::ticker::{Stalls, Ticker, charged, charged_sync, charged_waits};

/// Rows each workload inserts.
const ROWS: usize = 100_000;
/// Rows per multi-row statement: 25 ticks of IDs in layout (a).
const BATCH: usize = 100;
/// Every `SINGLE_EVERY`-th statement inserts one row (the ID taken for that
/// row alone, as SeaORM's `before_save` hook does).
const SINGLE_EVERY: usize = 10;
/// The most ticks the ticker may miss in a row, but in at most
/// [`MAX_GAPS_OVER`] gaps (see the top).
const MAX_MISSED: u64 = 2;
/// The most gaps in which generation may make the ticker miss more than
/// [`MAX_MISSED`] ticks in a row.
const MAX_GAPS_OVER: u64 = 3;
/// The most ticks generation may make the ticker miss in a row at all.
const MAX_MISSED_EVER: u64 = 20;
/// The ticks in a row a blocking workload must stall the ticker for, in
/// the worst of its gaps: a batch of [`BATCH`] IDs taken with a blocking
/// call waits for 25 ticks once the sequence is used up. (A batch may first
/// take the unused IDs of the ticks since the generator was last used, and
/// wait for fewer.)
const STALL: u64 = 10;

/// Twitter's field widths with 2 sequence bits: 4 IDs per millisecond, so
/// that the inserts use up every tick.
fn four_per_tick() -> BitLayout {
    BitLayout::builder()
        .time_bits(51)
        .node_bits(10)
        .sequence_bits(2)
        .epoch_millis(1_288_834_974_657) // Twitter's
        .build()
        .expect("a layout of 4 IDs per tick")
}

fn four_per_tick_ids() -> Result<&'static Generator, ConfigError> {
    static G: OnceLock<Generator> = OnceLock::new();
    Ok(G.get_or_init(|| {
        Generator::builder(four_per_tick(), 1)
            .build()
            .expect("a generator of 4 IDs per tick")
    }))
}

/// Keys of layout (a).
#[flake_id(seaorm, diesel, layout = four_per_tick, source = four_per_tick_ids)]
pub struct TickId(i64);

/// A generator on a node leased for one test, set when its lease is claimed.
macro_rules! leased_id {
    ($id:ident, $cell:ident, $source:ident) => {
        static $cell: OnceLock<Generator> = OnceLock::new();

        fn $source() -> Result<&'static Generator, ConfigError> {
            $cell.get().ok_or(ConfigError::MissingNodeId)
        }

        /// Keys of scenario (b): Twitter's layout on a leased node.
        #[flake_id(seaorm, diesel, layout = presets::twitter, source = $source)]
        pub struct $id(i64);
    };
}

leased_id!(SeaLeasedId, SEA_LEASED, sea_leased_ids);
leased_id!(DieselLeasedId, DIESEL_LEASED, diesel_leased_ids);
leased_id!(BlockingLeasedId, BLOCKING_LEASED, blocking_leased_ids);

/// How the workload takes its IDs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Path {
    /// `generate_async` / `generate_many_async` and the SeaORM helpers.
    Async,
    /// `generate()` / `generate_many()`, as before async generation.
    Blocking,
}

/// How a scenario ends: every row inserted (and, with `at_least`, rows
/// going on in until that much time has passed), or (blocking runs) once
/// the ticker has missed more than [`MAX_MISSED`] ticks in a row in more
/// than [`MAX_GAPS_OVER`] gaps.
#[derive(Debug, Clone, Copy)]
struct Until {
    rows: usize,
    at_least: Duration,
    stop_after_stall: bool,
}

impl Until {
    /// Rows in the next statement of several, `n` rows in: a batch, cut to
    /// the rows left while any are.
    fn next_statement(&self, n: usize) -> usize {
        if n < self.rows {
            BATCH.min(self.rows - n)
        } else {
            BATCH
        }
    }
}

/// Every one of the [`ROWS`] rows.
const ALL_ROWS: Until = Until {
    rows: ROWS,
    at_least: Duration::ZERO,
    stop_after_stall: false,
};

/// Every one of the [`ROWS`] rows, and more until the first outage has
/// ended and the generator has gone on past it: how fast the rows go in
/// must not decide whether the workload meets an outage.
const THROUGH_AN_OUTAGE: Until = Until {
    rows: ROWS,
    at_least: Duration::from_millis(3_000),
    stop_after_stall: false,
};

// ---------------------------------------------------------------------------
// What the ticker must see
// ---------------------------------------------------------------------------

/// Asserts that the async workload left the ticker ticking.
fn assert_never_stalled(what: &str, stalls: &Stalls, elapsed: Duration) {
    eprintln!("{what}: {stalls:?} in {elapsed:?}");
    assert!(
        stalls.os_delay_known,
        "{what}: /proc/thread-self/schedstat is needed to tell the OS's delays from the runtime's"
    );
    // At least a tick per 10 ms of the run: the ticker really ran alongside
    // (it sleeps 1 ms; a loaded machine runs the thread less often, which
    // `worst_missed` does not charge to generation).
    let expected = elapsed.as_millis() as u64 / 10;
    assert!(
        stalls.ticks >= expected,
        "{what}: the ticker ran {} times in {elapsed:?}",
        stalls.ticks
    );
    if let Some(why) = held_up(stalls) {
        panic!("{what}: {why}: generation held up the runtime");
    }
}

/// Asserts that the blocking workload broke the bounds, stalling the
/// ticker for `at_least` ticks in a row in the worst gap: the harness
/// detects a blocking call.
fn assert_stalled(what: &str, stalls: &Stalls, at_least: u64) {
    eprintln!("{what} (blocking): {stalls:?}");
    assert!(
        held_up(stalls).is_some() && stalls.worst_missed >= at_least,
        "{what}: the blocking calls should have broken the bounds and stalled the ticker for \
         {at_least} ticks in a row, it missed more than {MAX_MISSED} in {} gaps, at most {}",
        stalls.gaps_over,
        stalls.worst_missed
    );
}

/// Why what the ticker saw says generation held up the runtime, if it does.
fn held_up(stalls: &Stalls) -> Option<String> {
    let worst = format!(
        "the worst gap was charged {:?} ({:?} of it waits), {} ticks missed in a row",
        stalls.worst_charged, stalls.worst_charged_waiting, stalls.worst_missed
    );
    if stalls.worst_missed > MAX_MISSED_EVER {
        Some(format!(
            "more than {MAX_MISSED_EVER} ticks missed in a row: {worst}"
        ))
    } else if stalls.gaps_over > MAX_GAPS_OVER {
        Some(format!(
            "more than {MAX_MISSED} ticks missed in a row in {} gaps: {worst}",
            stalls.gaps_over
        ))
    } else {
        None
    }
}

/// Scenario (a), async: `insert` (given the ticker and how many rows)
/// inserts [`ROWS`] rows while the ticker ticks; asserts that they all went
/// in. What the ticker saw, and how long the inserts took.
async fn all_rows_ticking(insert: impl AsyncFnOnce(&Ticker, Until) -> usize) -> (Stalls, Duration) {
    let ticker = Ticker::start(MAX_MISSED);
    let started = Instant::now();
    let inserted = insert(&ticker, ALL_ROWS).await;
    let elapsed = started.elapsed();
    let stalls = ticker.stop().await;
    assert_eq!(inserted, ROWS);
    (stalls, elapsed)
}

/// Scenario (a) taken with blocking calls: `insert` inserts until the
/// ticker has missed more than [`MAX_MISSED`] ticks in a row in more than
/// [`MAX_GAPS_OVER`] gaps (or 20 batches went in). What the ticker saw.
async fn until_stalled(insert: impl AsyncFnOnce(&Ticker, Until) -> usize) -> Stalls {
    let ticker = Ticker::start(MAX_MISSED);
    let until = Until {
        rows: 20 * BATCH,
        at_least: Duration::ZERO,
        stop_after_stall: true,
    };
    insert(&ticker, until).await;
    ticker.stop().await
}

// ---------------------------------------------------------------------------
// Scenario (b): a lease store with outages
// ---------------------------------------------------------------------------

/// A lease store that refuses every call while `down` is set.
#[derive(Clone)]
struct Outages<S> {
    store: S,
    down: Arc<AtomicBool>,
}

impl<S> Outages<S> {
    /// The store's call that `call` makes, refused instead if the store is
    /// down when it is made.
    fn unless_down<'s, F, T>(
        &'s self,
        call: impl FnOnce(&'s S) -> F,
    ) -> impl Future<Output = Result<T, StoreError>> + Send
    where
        F: Future<Output = Result<T, StoreError>> + Send,
    {
        let up: Result<(), StoreError> = if self.down.load(Ordering::Relaxed) {
            Err("the lease store is unreachable (an outage the test makes)".into())
        } else {
            Ok(())
        };
        let call = call(&self.store);
        async move {
            up?;
            call.await
        }
    }
}

impl<S: AsyncLeaseStore> AsyncLeaseStore for Outages<S> {
    fn ensure_nodes(
        &self,
        space: &str,
        nodes: std::ops::RangeInclusive<u64>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        self.unless_down(|store| store.ensure_nodes(space, nodes))
    }

    fn try_claim(
        &self,
        request: &ClaimRequest<'_>,
    ) -> impl Future<Output = Result<Option<NodeRow>, StoreError>> + Send {
        self.unless_down(|store| store.try_claim(request))
    }

    fn renew(
        &self,
        request: &RenewRequest<'_>,
    ) -> impl Future<Output = Result<Renewal, StoreError>> + Send {
        self.unless_down(|store| store.renew(request))
    }

    fn release(
        &self,
        request: &ReleaseRequest<'_>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        self.unless_down(|store| store.release(request))
    }

    fn list(&self, space: &str) -> impl Future<Output = Result<NodeTable, StoreError>> + Send {
        self.unless_down(|store| store.list(space))
    }
}

/// The lease of scenario (b): renewed every 250 ms with a ceiling 500 ms
/// ahead, so that an outage of a second leaves the generator at its ceiling
/// for most of it; a TTL of 15 s, longer than any outage and any wait; at
/// the ceiling, callers wait up to `at_ceiling_for`.
fn lease_options(space: &str, at_ceiling_for: Duration) -> LeaseOptions {
    LeaseOptions::new(space, presets::twitter())
        .ttl(Duration::from_secs(15))
        .renew_every(Duration::from_millis(250))
        .ceiling_lead(Duration::from_millis(500))
        .at_ceiling(CeilingWait::Wait {
            max: at_ceiling_for,
        })
}

/// How long async callers wait at the ceiling: the outage lasts a second,
/// but the first renewal after it reconnects to the database, which a
/// loaded machine can take seconds over. The test is about the runtime,
/// not about how soon the store answers: a wait that ran out would fence
/// the generator and fail the test for the wrong reason.
const ASYNC_WAIT_AT_CEILING: Duration = Duration::from_secs(10);

/// How long the blocking caller waits at the ceiling before it fails: the
/// renewal cannot run while it holds the thread, so it always waits this
/// long.
const BLOCKING_WAIT_AT_CEILING: Duration = Duration::from_secs(3);

/// An outage of [`OUTAGE`] every [`OUTAGE_EVERY`] until stopped.
const OUTAGE: Duration = Duration::from_secs(1);
const OUTAGE_EVERY: Duration = Duration::from_millis(2_500);

/// Spawns the task that takes the store down for [`OUTAGE`] at a time,
/// printing when (ms since `t0`; shown if the test fails).
fn outages(
    down: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
    t0: Instant,
) -> tokio::task::JoinHandle<u32> {
    tokio::spawn(async move {
        let mut count = 0;
        loop {
            tokio::time::sleep(OUTAGE_EVERY - OUTAGE).await;
            if stop.load(Ordering::Relaxed) {
                return count;
            }
            down.store(true, Ordering::Relaxed);
            eprintln!("[{:>6} ms] the store is down", t0.elapsed().as_millis());
            count += 1;
            tokio::time::sleep(OUTAGE).await;
            down.store(false, Ordering::Relaxed);
            eprintln!("[{:>6} ms] the store is up", t0.elapsed().as_millis());
        }
    })
}

/// Spawns a task that prints every state of a lease it sees (ms since
/// `t0`; shown if the test fails): what the renewals did around a failure.
fn print_lease_states(
    mut state: tokio::sync::watch::Receiver<LeaseStatus>,
    t0: Instant,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            eprintln!(
                "[{:>6} ms] lease: {:?}",
                t0.elapsed().as_millis(),
                *state.borrow_and_update()
            );
            if state.changed().await.is_err() {
                return;
            }
        }
    })
}

/// The generator of `lease`, kept in `cell` for the ID type it serves.
fn leased_generator<S: AsyncLeaseStore>(
    lease: &AsyncNodeLease<S>,
    cell: &'static OnceLock<Generator>,
) -> &'static Generator {
    cell.get_or_init(|| {
        lease
            .generator_builder()
            .build()
            .expect("the leased generator")
    })
}

/// What an async run of scenario (b) saw.
struct OutageRun {
    inserted: usize,
    outages: u32,
    stalls: Stalls,
    elapsed: Duration,
}

/// Scenario (b), async: `insert` (given the ticker and how many rows)
/// takes at least [`ROWS`] keys from the generator of `lease` (kept in
/// `cell`), going on until the first outage is over
/// ([`THROUGH_AN_OUTAGE`]), while the store behind `down` fails for
/// [`OUTAGE`] every [`OUTAGE_EVERY`]; then the lease is released.
async fn during_outages<S: AsyncLeaseStore>(
    lease: AsyncNodeLease<S>,
    cell: &'static OnceLock<Generator>,
    down: &Arc<AtomicBool>,
    insert: impl AsyncFnOnce(&Ticker, Until) -> usize,
) -> OutageRun {
    let generator = leased_generator(&lease, cell);
    let ticker = Ticker::start(MAX_MISSED);
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let states = print_lease_states(lease.watch(), started);
    let outages = outages(down.clone(), stop.clone(), started);
    let inserted = insert(&ticker, THROUGH_AN_OUTAGE).await;
    let elapsed = started.elapsed();
    stop.store(true, Ordering::Relaxed);
    let outages = outages.await.expect("the outage task");
    let stalls = ticker.stop().await;
    down.store(false, Ordering::Relaxed);
    lease.release(generator).await.expect("release");
    states.abort();
    OutageRun {
        inserted,
        outages,
        stalls,
        elapsed,
    }
}

impl OutageRun {
    /// Asserts that every row went in (`ids`, the keys stored), the store
    /// failed, the generator waited at its ceiling and the ticker kept
    /// ticking.
    fn check(&self, what: &str, ids: &[i64]) {
        assert!(self.inserted >= ROWS, "{} rows of {ROWS}", self.inserted);
        assert_eq!(ids.len(), self.inserted);
        assert!(
            self.outages >= 1,
            "no outage happened in {:?}",
            self.elapsed
        );
        let gap = largest_gap_ms(ids);
        assert!(
            gap >= 500,
            "no key time gap of the ceiling (largest {gap} ms): the generator never waited at it"
        );
        assert_never_stalled(what, &self.stalls, self.elapsed);
    }
}

/// The largest gap between the times of two consecutive keys: where the
/// generator stood at its ceiling, no key was issued.
fn largest_gap_ms(ids: &[i64]) -> u64 {
    let layout = presets::twitter();
    ids.windows(2)
        .map(|w| {
            let t = |id: i64| layout.decompose(id.unsigned_abs()).tick;
            t(w[1]) - t(w[0])
        })
        .max()
        .unwrap_or(0)
}

/// Checks the keys of scenario (a): all of the generator's node, and the
/// ticks' sequences used up.
fn check_tick_ids(ids: &[i64], rows: usize) {
    assert_eq!(ids.len(), rows, "every row stored once");
    let layout = four_per_tick();
    let mut per_tick = std::collections::BTreeMap::<u64, u64>::new();
    for &id in ids {
        let parts = layout.decompose(id.unsigned_abs());
        assert_eq!(parts.node, 1, "{id} is node 1's");
        *per_tick.entry(parts.tick).or_default() += 1;
    }
    let full = per_tick.values().filter(|&&n| n == 4).count();
    assert!(
        full * 10 >= per_tick.len() * 9,
        "the sequence was used up in {full} of {} ticks: the generator was not made to wait",
        per_tick.len()
    );
}

// ---------------------------------------------------------------------------
// SeaORM
// ---------------------------------------------------------------------------

mod seaorm {
    use sea_orm::{ConnectionTrait, DatabaseConnection, EntityTrait, NotSet, Set, Statement};

    use flakeid_seaorm::{FlakeEntity, SeaOrmExecutor};
    use flakeid_tests::flake_entity;

    use super::*;

    // One entity per key type: `(id BIGINT PRIMARY KEY, n BIGINT)`.
    flake_entity!(pub mod tick_row = "tick_rows", super::TickId { pub n: i64, });
    flake_entity!(pub mod sea_leased_row = "leased_rows", super::SeaLeasedId { pub n: i64, });
    flake_entity! {
        pub mod blocking_leased_row = "leased_rows", super::BlockingLeasedId { pub n: i64, }
    }

    async fn create(db: &DatabaseConnection, table: &str) {
        db.execute_unprepared(&format!(
            "CREATE TABLE {table} (id BIGINT PRIMARY KEY, n BIGINT NOT NULL)"
        ))
        .await
        .unwrap_or_else(|e| panic!("create {table}: {e}"));
    }

    /// The keys stored, in order, by plain SQL.
    async fn stored(db: &DatabaseConnection, table: &str) -> Vec<i64> {
        let rows = db
            .query_all_raw(Statement::from_string(
                db.get_database_backend(),
                format!("SELECT id FROM {table} ORDER BY id"),
            ))
            .await
            .unwrap_or_else(|e| panic!("select from {table}: {e}"));
        rows.iter()
            .map(|r| r.try_get_by_index::<i64>(0).expect("a BIGINT key"))
            .collect()
    }

    /// Inserts rows into the entity `$m` (key type `$id`) until `until`
    /// says, its IDs taken along `path`: one row alone every
    /// [`SINGLE_EVERY`] statements (`ActiveModel::insert`, whose
    /// `before_save` hook takes the ID), else [`BATCH`] rows in one
    /// `insert_many_with_ids`. Returns how many rows went in.
    macro_rules! insert_rows {
        ($m:ident, $id:ty, $db:expr, $path:expr, $until:expr, $ticker:expr) => {{
            use sea_orm::ActiveModelTrait as _;
            let (db, path, until, ticker): (&DatabaseConnection, Path, Until, &Ticker) =
                ($db, $path, $until, $ticker);
            let started = Instant::now();
            let mut n = 0usize;
            let mut statement = 0usize;
            while (n < until.rows || started.elapsed() < until.at_least)
                && !(until.stop_after_stall && ticker.gaps_over() > MAX_GAPS_OVER)
            {
                statement += 1;
                let row = |n: usize, id| $m::ActiveModel {
                    id,
                    n: Set(n as i64),
                };
                if statement % SINGLE_EVERY == 0 {
                    let id = match path {
                        Path::Async => NotSet,
                        Path::Blocking => Set(charged_sync(<$id>::generate).expect("an ID")),
                    };
                    charged_waits(row(n, id).insert(db))
                        .await
                        .expect("insert one row");
                    n += 1;
                } else {
                    let len = until.next_statement(n);
                    let insert = match path {
                        Path::Async => charged_waits($m::Entity::insert_many_with_ids(
                            (n..n + len).map(|n| row(n, NotSet)),
                        ))
                        .await
                        .expect("IDs for a statement"),
                        Path::Blocking => {
                            let ids = charged_sync(|| <$id>::generate_many(len))
                                .expect("IDs for a statement");
                            $m::Entity::insert_many(
                                (n..n + len).zip(ids).map(|(n, id)| row(n, Set(id))),
                            )
                        }
                    };
                    insert
                        .exec_without_returning(db)
                        .await
                        .expect("insert a statement's rows");
                    n += len;
                }
            }
            n
        }};
    }

    #[tokio::test]
    async fn a_used_up_sequence_never_holds_up_the_runtime() {
        let (_db, db) = crate::seaorm_connect::postgres().await;
        create(&db, "tick_rows").await;
        let (stalls, elapsed) = all_rows_ticking(async |ticker, until| {
            insert_rows!(tick_row, TickId, &db, Path::Async, until, ticker)
        })
        .await;
        check_tick_ids(&stored(&db, "tick_rows").await, ROWS);
        assert_never_stalled("SeaORM, 4 IDs per tick", &stalls, elapsed);
    }

    #[tokio::test]
    async fn a_used_up_sequence_taken_with_blocking_calls_stalls_the_runtime() {
        let (_db, db) = crate::seaorm_connect::postgres().await;
        create(&db, "tick_rows").await;
        let stalls = until_stalled(async |ticker, until| {
            insert_rows!(tick_row, TickId, &db, Path::Blocking, until, ticker)
        })
        .await;
        // A statement's 100 IDs span 25 ticks, waited for on the thread.
        assert_stalled("SeaORM, 4 IDs per tick", &stalls, STALL);
    }

    /// Claims the node of scenario (b) on `db` behind an outage switch.
    async fn claim(
        db: &DatabaseConnection,
        down: &Arc<AtomicBool>,
        at_ceiling_for: Duration,
    ) -> flakeid_lease::AsyncNodeLease<Outages<flakeid_lease::SqlLeaseStore<SeaOrmExecutor>>> {
        flakeid_seaorm::lease::create_table(db)
            .await
            .expect("lease table");
        let store = Outages {
            store: flakeid_lease::SqlLeaseStore::new_async(SeaOrmExecutor::new(db.clone())),
            down: down.clone(),
        };
        lease_options("async-generation", at_ceiling_for)
            .claim_on_tokio(store)
            .await
            .expect("a node")
    }

    #[tokio::test]
    async fn a_lease_at_its_ceiling_during_an_outage_never_holds_up_the_runtime() {
        let (_db, db) = crate::seaorm_connect::postgres().await;
        create(&db, "leased_rows").await;
        let down = Arc::new(AtomicBool::new(false));
        let lease = claim(&db, &down, ASYNC_WAIT_AT_CEILING).await;
        let run = during_outages(lease, &SEA_LEASED, &down, async |ticker, until| {
            insert_rows!(sea_leased_row, SeaLeasedId, &db, Path::Async, until, ticker)
        })
        .await;
        run.check(
            "SeaORM, lease at its ceiling",
            &stored(&db, "leased_rows").await,
        );
    }

    #[tokio::test]
    async fn a_lease_at_its_ceiling_waited_for_with_blocking_calls_stalls_the_runtime() {
        let (_db, db) = crate::seaorm_connect::postgres().await;
        create(&db, "leased_rows").await;
        let down = Arc::new(AtomicBool::new(false));
        let lease = claim(&db, &down, BLOCKING_WAIT_AT_CEILING).await;
        let generator = leased_generator(&lease, &BLOCKING_LEASED);
        let ticker = Ticker::start(MAX_MISSED);
        // The outage starts at once and lasts past the ceiling.
        down.store(true, Ordering::Relaxed);
        let back = tokio::spawn({
            let down = down.clone();
            async move {
                tokio::time::sleep(OUTAGE).await;
                down.store(false, Ordering::Relaxed);
            }
        });
        let started = Instant::now();
        // At the ceiling the blocking call holds the thread the renewal
        // needs: it waits its [`BLOCKING_WAIT_AT_CEILING`] and fails, the ticker standing still.
        let mut failed = None;
        while started.elapsed() < OUTAGE * 2 && failed.is_none() {
            failed = charged_sync(|| BlockingLeasedId::generate_many(BATCH)).err();
            tokio::task::yield_now().await;
        }
        back.await.expect("the outage task");
        let stalls = ticker.stop().await;
        let _ = lease.release(generator).await;
        let e = failed.expect("the blocking call at the ceiling failed");
        assert!(e.to_string().contains("ceiling"), "{e}");
        assert_stalled("SeaORM, lease at its ceiling", &stalls, 1_000);
    }
}

// ---------------------------------------------------------------------------
// diesel-async
// ---------------------------------------------------------------------------

mod diesel_async_rows {
    use diesel::prelude::*;
    use diesel_async::{AsyncConnection, AsyncPgConnection, RunQueryDsl, SimpleAsyncConnection};

    use super::*;

    diesel::table! {
        tick_rows (id) {
            id -> BigInt,
            n -> BigInt,
        }
    }

    diesel::table! {
        leased_rows (id) {
            id -> BigInt,
            n -> BigInt,
        }
    }

    #[derive(Insertable)]
    #[diesel(table_name = tick_rows)]
    struct TickRow {
        id: TickId,
        n: i64,
    }

    #[derive(Insertable)]
    #[diesel(table_name = leased_rows)]
    struct LeasedRow {
        id: DieselLeasedId,
        n: i64,
    }

    async fn connect(table: &str) -> (flakeid_tests::db::TestDb, AsyncPgConnection) {
        let db = flakeid_tests::db::postgres().await;
        let mut conn = AsyncPgConnection::establish(db.url())
            .await
            .expect("connect to PostgreSQL");
        conn.batch_execute(&format!(
            "CREATE TABLE {table} (id BIGINT PRIMARY KEY, n BIGINT NOT NULL)"
        ))
        .await
        .unwrap_or_else(|e| panic!("create {table}: {e}"));
        (db, conn)
    }

    async fn stored(conn: &mut AsyncPgConnection, table: &str) -> Vec<i64> {
        #[derive(QueryableByName)]
        struct Key {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            id: i64,
        }
        let keys: Vec<Key> = diesel::sql_query(format!("SELECT id FROM {table} ORDER BY id"))
            .load(conn)
            .await
            .unwrap_or_else(|e| panic!("select from {table}: {e}"));
        keys.into_iter().map(|k| k.id).collect()
    }

    /// Inserts rows into `$table` (rows `$row`, keys `$id`) as the SeaORM
    /// workload does: one row alone every [`SINGLE_EVERY`] statements, else
    /// [`BATCH`] rows in one statement, IDs taken along `path`.
    macro_rules! insert_rows {
        ($table:ident, $row:ident, $id:ty, $conn:expr, $path:expr, $until:expr, $ticker:expr) => {{
            let (conn, path, until, ticker): (&mut AsyncPgConnection, Path, Until, &Ticker) =
                ($conn, $path, $until, $ticker);
            let started = Instant::now();
            let mut n = 0usize;
            let mut statement = 0usize;
            while (n < until.rows || started.elapsed() < until.at_least)
                && !(until.stop_after_stall && ticker.gaps_over() > MAX_GAPS_OVER)
            {
                statement += 1;
                let len = if statement % SINGLE_EVERY == 0 {
                    1
                } else {
                    until.next_statement(n)
                };
                let ids = match (path, len) {
                    (Path::Async, 1) => {
                        vec![charged(<$id>::generate_async()).await.expect("an ID")]
                    }
                    (Path::Async, _) => {
                        charged(<$id>::generate_many_async(len)).await.expect("IDs")
                    }
                    (Path::Blocking, 1) => vec![charged_sync(<$id>::generate).expect("an ID")],
                    (Path::Blocking, _) => charged_sync(|| <$id>::generate_many(len)).expect("IDs"),
                };
                let rows: Vec<$row> = ids
                    .into_iter()
                    .zip(n..)
                    .map(|(id, n)| $row { id, n: n as i64 })
                    .collect();
                diesel::insert_into($table::table)
                    .values(&rows)
                    .execute(conn)
                    .await
                    .expect("insert a statement's rows");
                n += len;
            }
            n
        }};
    }

    #[tokio::test]
    async fn a_used_up_sequence_never_holds_up_the_runtime() {
        let (_db, mut conn) = connect("tick_rows").await;
        let (stalls, elapsed) = all_rows_ticking(async |ticker, until| {
            insert_rows!(
                tick_rows,
                TickRow,
                TickId,
                &mut conn,
                Path::Async,
                until,
                ticker
            )
        })
        .await;
        check_tick_ids(&stored(&mut conn, "tick_rows").await, ROWS);
        assert_never_stalled("diesel-async, 4 IDs per tick", &stalls, elapsed);
    }

    #[tokio::test]
    async fn a_used_up_sequence_taken_with_blocking_calls_stalls_the_runtime() {
        let (_db, mut conn) = connect("tick_rows").await;
        let stalls = until_stalled(async |ticker, until| {
            insert_rows!(
                tick_rows,
                TickRow,
                TickId,
                &mut conn,
                Path::Blocking,
                until,
                ticker
            )
        })
        .await;
        assert_stalled("diesel-async, 4 IDs per tick", &stalls, STALL);
    }

    #[tokio::test]
    async fn a_lease_at_its_ceiling_during_an_outage_never_holds_up_the_runtime() {
        let (db, mut conn) = connect("leased_rows").await;
        flakeid_diesel::lease_async::create_table(&mut conn)
            .await
            .expect("lease table");
        let down = Arc::new(AtomicBool::new(false));
        let store = Outages {
            store: flakeid_diesel::lease_async::store::<AsyncPgConnection>(db.url()),
            down: down.clone(),
        };
        let lease = lease_options("async-generation", ASYNC_WAIT_AT_CEILING)
            .claim_on_tokio(store)
            .await
            .expect("a node");
        let run = during_outages(lease, &DIESEL_LEASED, &down, async |ticker, until| {
            insert_rows!(
                leased_rows,
                LeasedRow,
                DieselLeasedId,
                &mut conn,
                Path::Async,
                until,
                ticker
            )
        })
        .await;
        run.check(
            "diesel-async, lease at its ceiling",
            &stored(&mut conn, "leased_rows").await,
        );
    }
}
