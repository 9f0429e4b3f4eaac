//! The lock-free ID generator; see [`Generator`].

mod batch;
mod builder;
mod ceiling;
mod env;
mod moves;
mod source;
mod state;
mod sync;
mod twins;

use core::any::{Any, TypeId};
use core::fmt;
use core::time::Duration;
use std::sync::Arc;
use std::time::Instant;

pub use batch::IdBatch;
pub use builder::GeneratorBuilder;
pub use ceiling::{Ceiling, Sealable};
pub(crate) use env::{EnvConfig, NODE_ID_VAR};
pub use moves::{Attach, Movable};
pub(crate) use twins::async_twins;

use self::state::{Ahead, Blocked, Params, Reservation, SATURATING, SameTick};
use self::sync::{AtomicU64, Ordering};
use crate::clock::{Clock, MonotonicClock};
use crate::error::GenerateError;
use crate::layout::{BitLayout, Layout};
use crate::policy::{CeilingWait, ClockRegression, SequenceExhaustion};
use crate::runtime::{Attempt, Wait, note_blocking_wait};
use crate::telemetry::{GeneratorTelemetry, WaitCause};

/// The catch-up window used unless [`GeneratorBuilder::catch_up_window`] says otherwise.
pub(crate) const DEFAULT_CATCH_UP_WINDOW: Duration = Duration::from_millis(10);

/// The lock-free ID generator.
///
/// A [`Generator`] issues IDs for one node of one [`Layout`]. Its whole state
/// is one `AtomicU64` holding the last issued `(tick, sequence)`; issuing an
/// ID is one compare-and-swap, so a generator can be shared by any number
/// of threads (`&'static Generator`, `Arc<Generator>`) without a lock.
///
/// # Guarantees
///
/// * **Unique and strictly increasing**: every ID a generator issues is
///   greater than every ID it issued before (in the order the CAS operations
///   took effect; IDs one thread receives are increasing). No ID is issued
///   twice, whatever the clock does.
/// * **Never zero**: no ID is issued in tick 0.
/// * **Never wraps**: past the layout's last tick every call fails with
///   [`GenerateError::TimeExhausted`] naming the end instant.
/// * **Not in the build tick**: a generator issues no ID in the tick in
///   which it was built; its first ID is in the next tick. A blocking call
///   waits for it (at most one tick, whatever the policies); a non-blocking
///   call returns [`GenerateError::WouldBlock`] until then. So a process
///   restarted with the same node ID does not re-enter a tick its
///   predecessor used, provided both read the same time (one machine's
///   clock) and the predecessor was not running ahead
///   ([`SequenceExhaustion::RunAhead`]) past the moment of the restart. A
///   wall clock stepped back between the two runs is not covered: that
///   needs the previous run's last time persisted somewhere.
/// * **Not across fork()**: in a child process forked after the generator
///   was built, every call fails with [`GenerateError::Forked`] (the child
///   holds a copy of the state and the node ID); see [`GenerateError::Forked`](crate::GenerateError::Forked).
///
/// # Policies
///
/// * [`SequenceExhaustion`]: what to do when a tick's sequence numbers are
///   used up — wait for the next tick (default), run ahead of the clock by a
///   bounded lead, or fail.
/// * [`ClockRegression`]: what to do when the clock reads earlier than the
///   last issued ID (beyond the run-ahead lead) — wait up to a bound
///   (default 1 s), or fail.
/// * **Catch-up window** ([`GeneratorBuilder::catch_up_window`], default
///   10 ms): a thread that saturates the generator but is descheduled
///   for a moment would leave the rest of a tick's sequence numbers unused.
///   When the previous tick was *used up*, the generator continues in the
///   next tick even if the clock has moved on, as long as the ID's time lags
///   the clock by at most the window. Saturating callers thereby get close
///   to the layout's full capacity (≥ 99 % of 4,096,000 IDs/s for Twitter's
///   layout) instead of 86–100 %. The generator cannot tell a saturating
///   caller from a slow one that comes right after a burst, so IDs lag the
///   clock's tick only within the window after the generator last used up a
///   tick: once the window has passed, every ID carries the clock's tick.
///
/// # Timestamp accuracy
///
/// With `W` the catch-up window and `L` the run-ahead lead (zero unless
/// [`SequenceExhaustion::RunAhead`]), both rounded down to whole ticks, and
/// `tick` the layout's tick length, the time decoded from an ID (the start of
/// its tick) lies within `[t − W − tick + 1 ms, t + L]` of the generator
/// clock's reading `t` at the moment the ID was issued. The `tick − 1 ms`
/// is truncation (an LSID ID, with 1 s ticks, can decode 999 ms before `t`);
/// the `W` only applies within the window after a used-up tick (see above).
/// [`MonotonicClock`] itself lags true time by about a millisecond (see its
/// documentation).
///
/// A batch takes the positions right after the last issued ID, or ticks
/// the generator left unused up to the clock's tick, so its first IDs may be
/// stamped earlier than `t` by up to the batch's own span in ticks (plus `W`
/// and the tick). A batch that reaches beyond the clock's tick plus `L`
/// reserves its positions at once and returns when the clock has reached
/// its last tick (see [`Generator::next_batch`]).
///
/// # Memory ordering
///
/// The state word is one atomic, so uniqueness and order come from its
/// single modification order. Beyond that, a thread that finds a state
/// word of tick `t` reads a clock no older than the reading that chose
/// `t` (Acquire/Release, see `reserve_with`), so a stale clock reading
/// is never reported as a [`GenerateError::ClockRegressed`] under
/// [`ClockRegression::Fail`] on weakly ordered CPUs (ARM, POWER).
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_core::Generator;
/// use flakeid_core::layout::Layout;
///
/// let generator = Generator::builder(presets::twitter(), 42).build()?;
/// let a = generator.next_id()?;
/// let b = generator.next_id()?;
/// assert!(b > a);
/// assert_eq!(generator.layout().decompose(b).node, 42);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A lock-free generator of unique, increasing IDs for one node of a layout.
///
/// Build one with [`Generator::builder`]. See below
/// for guarantees and policies.
pub struct Generator<L = BitLayout, C = MonotonicClock> {
    state: PaddedState,
    layout: L,
    clock: C,
    node: u64,
    params: Params,
    epoch_millis: u64,
    tick_millis: u64,
    /// `ticks = (ms * tick_magic) >> tick_shift` for ms below 2^50 (no division).
    tick_magic: u64,
    tick_shift: u32,
    same_tick: SameTick,
    exhaustion: SequenceExhaustion,
    regression: ClockRegression,
    catch_up: Duration,
    /// The largest batch one call may reserve (see [`Generator::max_batch_len`]).
    max_batch: u64,
    /// The process's fork tag when the generator was built (see [`GenerateError::Forked`](crate::GenerateError::Forked)).
    fork_tag: u64,
    /// [`Ahead::until`] and [`Ahead::span`]: ticks reserved ahead of the
    /// clock by batches. Written before the state word (Release), read after
    /// it (Acquire), only on the out-of-line paths.
    ahead_until: AtomicU64,
    ahead_span: AtomicU64,
    /// The latest time IDs may be stamped with, kept by a node source
    /// (see [`crate::node`]); checked when a reservation enters a new
    /// tick, never on the same-tick shortcut.
    ceiling: Option<Arc<Ceiling>>,
    /// Metrics and `tracing` events (see [`crate::telemetry`]); touched
    /// only on the out-of-line paths.
    telemetry: GeneratorTelemetry,
}

/// How much time a batch may need at the layout's full rate: larger
/// batches are refused ([`GenerateError::BatchTooLarge`]) rather than
/// holding up every caller of the generator for longer.
pub(crate) const MAX_BATCH_SPAN: Duration = Duration::from_secs(60);

impl<L: Layout, C> fmt::Debug for Generator<L, C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (tick, sequence, _) = self.params.unpack(self.state.0.load(Ordering::Relaxed));
        f.debug_struct("Generator")
            .field("layout", &self.layout)
            .field("node", &self.node)
            .field("sequence_exhaustion", &self.exhaustion)
            .field("clock_regression", &self.regression)
            .field("catch_up_window", &self.catch_up)
            .field("last_tick", &tick)
            .field("last_sequence", &sequence)
            .field("ceiling_millis", &self.ceiling.as_ref().map(|c| c.millis()))
            .finish_non_exhaustive()
    }
}

/// How a reservation ended when it could not be made at once.
enum Outcome {
    Wait {
        until_millis: u64,
        now_millis: u64,
        cause: WaitCause,
    },
    /// At the ceiling, which may still rise: wait for it (up to `max`).
    WaitCeiling {
        ceiling_millis: u64,
        max: Duration,
    },
    Fail(GenerateError),
}

/// What a call that found no ID at hand waits for (see `Generator::pending`).
enum Pending<'a> {
    /// The clock reaching `until_millis`.
    Clock { until_millis: u64 },
    /// `ceiling` rising above `ceiling_millis`, for up to `max`.
    Ceiling {
        ceiling: &'a Ceiling,
        ceiling_millis: u64,
        max: Duration,
    },
    /// Nothing: ask again.
    Again,
}

/// When a waiting call gives up on a ceiling that does not rise.
#[derive(Default)]
struct CeilingDeadline(Option<Instant>);

impl CeilingDeadline {
    fn get(&mut self, max: Duration) -> Instant {
        *self.0.get_or_insert_with(|| {
            let now = Instant::now();
            now.checked_add(max)
                .unwrap_or(now + Duration::from_secs(86_400 * 365))
        })
    }
}

impl<L: Layout, C: Clock> Generator<L, C> {
    /// The layout IDs are composed with; use it to decode them.
    pub fn layout(&self) -> &L {
        &self.layout
    }

    /// This generator's node ID.
    pub fn node(&self) -> u64 {
        self.node
    }

    /// The clock the generator reads.
    pub fn clock(&self) -> &C {
        &self.clock
    }

    /// The policy for a used-up sequence.
    pub fn sequence_exhaustion(&self) -> SequenceExhaustion {
        self.exhaustion
    }

    /// The policy for a clock running backwards.
    pub fn clock_regression(&self) -> ClockRegression {
        self.regression
    }

    /// Whether the generator stamps under a node source's ceiling (a
    /// leased node, or a high-water file).
    pub fn is_fenced(&self) -> bool {
        self.ceiling.is_some()
    }

    /// The catch-up window (see the [`Generator`] documentation).
    pub fn catch_up_window(&self) -> Duration {
        self.catch_up
    }

    /// The first Unix millisecond the generator cannot stamp an ID with: its
    /// IDs run out then. Saturates at `u64::MAX` for layouts that outlast it.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// use flakeid_core::Generator;
    ///
    /// let generator = Generator::builder(presets::twitter(), 0).build()?;
    /// // 41 bits of milliseconds after Twitter's 2010 epoch: 2080-07-10T17:30:30.209Z.
    /// assert_eq!(generator.end_millis(), 3_487_858_230_209);
    /// # Ok::<(), flakeid_core::ConfigError>(())
    /// ```
    pub fn end_millis(&self) -> u64 {
        self.params
            .max_tick
            .saturating_add(1)
            .saturating_mul(self.tick_millis)
            .saturating_add(self.epoch_millis)
    }

    /// Whether `self` and `other` were built with the same layout, node and policies.
    pub fn same_config<C2>(&self, other: &Generator<L, C2>) -> bool
    where
        L: PartialEq,
    {
        self.layout == other.layout
            && self.node == other.node
            && self.exhaustion == other.exhaustion
            && self.regression == other.regression
            && self.catch_up == other.catch_up
    }

    /// A fresh ID, waiting as the policies allow.
    ///
    /// # Errors
    /// [`GenerateError::SequenceExhausted`] under [`SequenceExhaustion::Fail`],
    /// [`GenerateError::ClockRegressed`] when the clock is further behind than
    /// [`ClockRegression`] tolerates, [`GenerateError::TimeExhausted`] past the
    /// layout's last tick.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// use flakeid_core::Generator;
    ///
    /// let generator = Generator::builder(presets::twitter(), 5).build()?;
    /// let id = generator.next_id()?;
    /// assert!(id > 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn next_id(&self) -> Result<L::Raw, GenerateError> {
        match self.reserve_same_tick() {
            Some((next, tick, seq)) => Ok(self.compose_next(next, tick, seq)),
            None => self.next_id_slow(),
        }
    }

    /// This generator with its same-tick shortcut off: every call takes
    /// the general path, which issues the same IDs. For a clock whose
    /// `try_tagged_now` does not read it (the process-wide generator's
    /// clock other than the default one, see `global/process.rs`).
    pub(crate) fn without_shortcut(mut self) -> Self {
        self.same_tick = self.same_tick.off();
        self
    }

    /// The same-tick shortcut of [`next_id`](Self::next_id) alone: an ID if
    /// the clock is still in the last issued tick (or, running ahead,
    /// behind it by at most the lead) and it has a sequence number left,
    /// else `None` (then call `next_id`).
    #[inline]
    pub(crate) fn next_id_same_tick(&self) -> Option<L::Raw> {
        self.reserve_same_tick()
            .map(|(next, tick, seq)| self.compose_next(next, tick, seq))
    }

    /// Everything but the same-tick shortcut: a new tick, catching up,
    /// waiting, policies, errors. Out of line so that the inlined fast path
    /// needs no stack frame.
    #[inline(never)]
    fn next_id_slow(&self) -> Result<L::Raw, GenerateError> {
        let mut deadline = CeilingDeadline::default();
        loop {
            match self.reserve_one() {
                Ok(state) => return Ok(self.compose_state(state)),
                Err(o) => self.wait(o, &mut deadline)?,
            }
        }
    }

    /// Waits as an outcome says, or returns its error.
    #[cold]
    fn wait(&self, outcome: Outcome, deadline: &mut CeilingDeadline) -> Result<(), GenerateError> {
        match self.pending(outcome)? {
            Pending::Clock { until_millis } => {
                note_blocking_wait("Generator::next_id");
                self.clock.wait_until(until_millis);
                Ok(())
            }
            Pending::Ceiling {
                ceiling,
                ceiling_millis,
                max,
            } => {
                note_blocking_wait("Generator::next_id");
                if ceiling.wait_above(ceiling_millis, deadline.get(max)) {
                    Ok(())
                } else {
                    Err(GenerateError::Fenced(
                        ceiling.fenced(self.node, ceiling.millis()),
                    ))
                }
            }
            Pending::Again => Ok(()),
        }
    }

    async_twins!(
        raw = L::Raw,
        layout = L,
        example = "use flakeid_core::layout::presets;\n\
                   use flakeid_core::Generator;\n\
                   let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build()?;\n\
                   let generator = Generator::builder(presets::twitter(), 5).build()?;",
    );

    /// One non-blocking attempt of an async caller: the ID, or what to
    /// wait for where [`next_id`](Self::next_id) would block (see
    /// [`Attempt`]). The core of [`next_id_async`](Self::next_id_async),
    /// and of [`IdSource::attempt_next_id`](crate::IdSource::attempt_next_id).
    #[inline]
    pub(crate) fn attempt_one(&self) -> Result<Attempt<L::Raw>, GenerateError> {
        match self.reserve_same_tick() {
            Some((next, tick, seq)) => Ok(Attempt::Ready(self.compose_next(next, tick, seq))),
            None => self.attempt_one_slow(),
        }
    }

    #[inline(never)]
    fn attempt_one_slow(&self) -> Result<Attempt<L::Raw>, GenerateError> {
        let seen = self.ceiling_seen();
        match self.reserve_one() {
            Ok(state) => Ok(Attempt::Ready(self.compose_state(state))),
            Err(o) => self.wait_for(o, seen).map(Attempt::Wait),
        }
    }

    /// What an async caller waits for where a blocking call would wait as
    /// `outcome` says; `seen` is the ceiling's signal read before the
    /// reservation.
    #[cold]
    fn wait_for(&self, outcome: Outcome, seen: u64) -> Result<Wait, GenerateError> {
        Ok(match self.pending(outcome)? {
            Pending::Clock { until_millis } => Wait::sleep(self.clock.sleep_before(until_millis)),
            Pending::Ceiling { ceiling, max, .. } => Wait::signal(ceiling.signal(), seen, max),
            Pending::Again => Wait::sleep(Duration::ZERO),
        })
    }

    /// What a caller that must wait as `outcome` says waits for, the wait
    /// noted in the telemetry; the error of a failed outcome. The blocking
    /// ([`wait`](Self::wait)) and the async ([`wait_for`](Self::wait_for))
    /// callers then wait each their own way.
    fn pending(&self, outcome: Outcome) -> Result<Pending<'_>, GenerateError> {
        match outcome {
            Outcome::Wait {
                until_millis,
                now_millis,
                cause,
            } => {
                self.note_wait(cause, until_millis, now_millis);
                Ok(Pending::Clock { until_millis })
            }
            Outcome::WaitCeiling {
                ceiling_millis,
                max,
            } => match &self.ceiling {
                Some(ceiling) => {
                    self.telemetry
                        .waiting(WaitCause::LeaseCeiling, max, ceiling_millis);
                    Ok(Pending::Ceiling {
                        ceiling,
                        ceiling_millis,
                        max,
                    })
                }
                // Unreachable: only a generator with a ceiling is stopped by one.
                None => Ok(Pending::Again),
            },
            Outcome::Fail(e) => Err(e),
        }
    }

    /// Records a wait for the clock to reach `until_millis`.
    #[cold]
    fn note_wait(&self, cause: WaitCause, until_millis: u64, now_millis: u64) {
        let wait = Duration::from_millis(until_millis.saturating_sub(now_millis));
        self.telemetry.waiting(cause, wait, until_millis);
    }

    /// The ceiling's signal, read before a reservation that may stop at it.
    #[inline]
    fn ceiling_seen(&self) -> u64 {
        self.ceiling.as_ref().map_or(0, |c| c.signal().seen())
    }

    /// A fresh ID if one can be issued without waiting.
    ///
    /// # Errors
    /// [`GenerateError::WouldBlock`] (with how long to wait) where
    /// [`next_id`](Self::next_id) would wait; otherwise as `next_id`.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use flakeid_core::layout::presets;
    /// use flakeid_core::{GenerateError, Generator, ManualClock};
    ///
    /// let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    /// let generator = Generator::builder(presets::twitter(), 0).clock(clock.clone()).build()?;
    /// // No ID in the millisecond the generator was built in.
    /// assert!(matches!(generator.try_next_id(), Err(GenerateError::WouldBlock { .. })));
    /// clock.set(1_700_000_000_001);
    /// for _ in 0..4096 {
    ///     generator.try_next_id()?;
    /// }
    /// // The clock stands still and the millisecond's 4,096 IDs are issued.
    /// assert!(matches!(generator.try_next_id(), Err(GenerateError::WouldBlock { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[inline]
    pub fn try_next_id(&self) -> Result<L::Raw, GenerateError> {
        match self.reserve_same_tick() {
            Some((next, tick, seq)) => Ok(self.compose_next(next, tick, seq)),
            None => self.try_next_id_slow(),
        }
    }

    #[inline(never)]
    fn try_next_id_slow(&self) -> Result<L::Raw, GenerateError> {
        match self.reserve_one() {
            Ok(state) => Ok(self.compose_state(state)),
            Err(o) => Err(self.would_block(o)),
        }
    }

    /// The ID of a state word (as returned by a reservation of one ID).
    #[inline]
    fn compose_state(&self, state: u64) -> L::Raw {
        let (tick, seq, _) = self.params.unpack(state);
        self.compose_next(state, tick, seq)
    }

    /// The ID of the state word `next`, whose tick and sequence are given.
    #[inline(always)]
    fn compose_next(&self, next: u64, tick: u64, seq: u64) -> L::Raw {
        // Decided at compile time: `TypeId`s of concrete types are constants.
        if TypeId::of::<L>() == TypeId::of::<BitLayout>() {
            // The state word is shaped like the ID (see `StateShape`).
            let id = next & !SATURATING;
            if let Some(&raw) = (&id as &dyn Any).downcast_ref::<L::Raw>() {
                debug_assert!(raw == self.layout.compose(tick, self.node, seq));
                return raw;
            }
        }
        self.layout.compose(tick, self.node, seq)
    }

    /// The shortcut for the common call: the clock is still on the last
    /// issued tick (or, with [`SequenceExhaustion::RunAhead`], that tick is
    /// at most the lead ahead of the clock's) and the tick has sequence
    /// numbers left, so the next ID is the next sequence number. One load,
    /// one clock reading, one CAS;
    /// anything else (including a lost CAS) returns `None` for the general
    /// path. Returns the new state word, its tick and its sequence.
    ///
    /// Relaxed orderings suffice here: the shortcut only continues a tick
    /// that a reservation on the general path entered, so it never judges a
    /// clock regression, and its CAS extends that reservation's release
    /// sequence (see [`reserve_with`](Self::reserve_with)). A clock reading of
    /// another fork generation never matches (see [`GenerateError::Forked`](crate::GenerateError::Forked)).
    #[inline(always)]
    fn reserve_same_tick(&self) -> Option<(u64, u64, u64)> {
        let last = self.state.0.load(Ordering::Relaxed);
        let (next, tick, seq) = self.same_tick.next(last, self.clock.try_tagged_now()?)?;
        self.state
            .0
            .compare_exchange_weak(last, next, Ordering::Relaxed, Ordering::Relaxed)
            .ok()
            .map(|_| (next, tick, seq))
    }

    /// Reserves `n` consecutive IDs in one atomic step, waiting as the
    /// policies allow; the batch yields them in ascending order, one
    /// contiguous run of this node's positions (across ticks when `n` is
    /// larger than what is left of the current tick).
    ///
    /// The batch takes the positions right after the last issued ID (or
    /// ticks the generator left unused, up to the clock's tick). When they
    /// reach beyond the clock's tick (plus the run-ahead lead), the call
    /// reserves them at once and then waits until the clock reaches the
    /// batch's last tick, so it completes after about the time its IDs take
    /// at the layout's full rate, plus one tick, whatever other callers
    /// do; callers arriving meanwhile get IDs after the batch. Under
    /// [`SequenceExhaustion::Fail`] such a batch fails instead.
    /// `n == 0` gives an empty batch.
    ///
    /// # Errors
    /// As [`next_id`](Self::next_id), and [`GenerateError::BatchTooLarge`]
    /// when `n` is more than [`max_batch_len`](Self::max_batch_len) or more
    /// than remain before the layout's end.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use flakeid_core::layout::presets;
    /// use flakeid_core::{Generator, ManualClock};
    /// use flakeid_core::layout::Layout;
    ///
    /// let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    /// let generator = Generator::builder(presets::twitter(), 0).clock(clock).build()?;
    /// // 10,000 IDs need three milliseconds of sequence numbers; the manual
    /// // clock advances itself while the generator waits.
    /// let ids: Vec<u64> = generator.next_batch(10_000)?.collect();
    /// assert_eq!(ids.len(), 10_000);
    /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
    /// let first = generator.layout().decompose(ids[0]).tick;
    /// let last = generator.layout().decompose(ids[9_999]).tick;
    /// assert_eq!(last - first, 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn next_batch(&self, n: usize) -> Result<IdBatch<'_, L>, GenerateError> {
        if n == 0 {
            return Ok(self.empty_batch());
        }
        let n = self.batch_len(n)?;
        let reserve_ahead = self.exhaustion != SequenceExhaustion::Fail;
        let mut deadline = CeilingDeadline::default();
        let r = loop {
            match self.reserve(n, reserve_ahead) {
                Ok(r) => break r,
                Err(o) => self
                    .wait(o, &mut deadline)
                    .map_err(|e| self.batch_error(e, n))?,
            }
        };
        if r.ahead {
            // Reserved beyond the clock: hand the IDs out once they are due.
            self.note_wait(
                WaitCause::Sequence,
                self.due_millis(&r),
                self.clock.now_millis(),
            );
            note_blocking_wait("Generator::next_batch");
            self.clock.wait_until(self.due_millis(&r));
        }
        Ok(self.batch_of(&r, n))
    }

    /// One non-blocking attempt at a batch for an async caller (see
    /// [`Attempt`]): the batch; the batch reserved ahead of the clock and
    /// due after a while ([`Attempt::ReadyAfter`]); or what to wait for
    /// before asking again (nothing is reserved then). The core of
    /// [`next_batch_async`](Self::next_batch_async).
    pub(crate) fn attempt_batch(&self, n: usize) -> Result<Attempt<IdBatch<'_, L>>, GenerateError> {
        if n == 0 {
            return Ok(Attempt::Ready(self.empty_batch()));
        }
        let n = self.batch_len(n)?;
        let reserve_ahead = self.exhaustion != SequenceExhaustion::Fail;
        let seen = self.ceiling_seen();
        match self.reserve(n, reserve_ahead) {
            Ok(r) if r.ahead => {
                self.note_wait(
                    WaitCause::Sequence,
                    self.due_millis(&r),
                    self.clock.now_millis(),
                );
                let due = self.clock.sleep_before(self.due_millis(&r));
                Ok(Attempt::ReadyAfter(self.batch_of(&r, n), due))
            }
            Ok(r) => Ok(Attempt::Ready(self.batch_of(&r, n))),
            Err(o) => self
                .wait_for(o, seen)
                .map(Attempt::Wait)
                .map_err(|e| self.batch_error(e, n)),
        }
    }

    /// When a batch reserved ahead of the clock is due: the start of its
    /// last tick, less the run-ahead lead.
    fn due_millis(&self, r: &Reservation) -> u64 {
        self.tick_start(r.end_tick.saturating_sub(self.params.lead))
    }

    /// Reserves `n` consecutive IDs if that is possible without waiting.
    ///
    /// # Errors
    /// [`GenerateError::WouldBlock`] where [`next_batch`](Self::next_batch)
    /// would wait (nothing is reserved then); otherwise as `next_batch`.
    pub fn try_next_batch(&self, n: usize) -> Result<IdBatch<'_, L>, GenerateError> {
        if n == 0 {
            return Ok(self.empty_batch());
        }
        let n = self.batch_len(n)?;
        let r = self
            .reserve(n, false)
            .map_err(|o| self.batch_error(self.would_block(o), n))?;
        Ok(self.batch_of(&r, n))
    }

    /// The most IDs one [`next_batch`](Self::next_batch) call may reserve:
    /// what the layout issues per node in one minute
    /// at its full rate — 245,760,000 for Twitter's layout, 1,536,000 for
    /// Sonyflake's, 245,760 for `js_safe_seconds`.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// use flakeid_core::Generator;
    ///
    /// let generator = Generator::builder(presets::twitter(), 0).build()?;
    /// assert_eq!(generator.max_batch_len(), 4_096 * 60_000);
    /// # Ok::<(), flakeid_core::ConfigError>(())
    /// ```
    pub fn max_batch_len(&self) -> u64 {
        self.max_batch
    }

    fn batch_len(&self, n: usize) -> Result<u64, GenerateError> {
        match u64::try_from(n) {
            Ok(len) if len <= self.max_batch => Ok(len),
            _ => Err(GenerateError::BatchTooLarge {
                requested: u64::try_from(n).unwrap_or(u64::MAX),
                max: self.max_batch,
            }),
        }
    }

    /// The error of a batch of `n`: [`Blocked::TooLarge`] comes as
    /// `BatchTooLarge` with what remains (see `blocked`).
    fn batch_error(&self, e: GenerateError, n: u64) -> GenerateError {
        match e {
            GenerateError::BatchTooLarge { max, .. } => {
                GenerateError::BatchTooLarge { requested: n, max }
            }
            e => e,
        }
    }

    fn batch_of(&self, r: &Reservation, n: u64) -> IdBatch<'_, L> {
        // `n <= max_batch`, and a batch fits in memory positions only as an
        // iterator: its length is a count, never allocated.
        let len = usize::try_from(n).unwrap_or(usize::MAX);
        IdBatch::new(
            &self.layout,
            self.node,
            self.params.seqs,
            r.tick,
            r.seq,
            len,
        )
    }

    fn empty_batch(&self) -> IdBatch<'_, L> {
        IdBatch::new(&self.layout, self.node, self.params.seqs, 0, 1, 0)
    }

    /// The tick containing Unix millisecond `now` (0 before the epoch).
    #[inline]
    fn tick_at(&self, now: u64) -> u64 {
        let ms = now.saturating_sub(self.epoch_millis);
        if self.tick_millis == 1 {
            ms
        } else if ms < 1 << 50 {
            // Exact for ms < 2^50 (year ~37,000); see `build`.
            ((u128::from(ms) * u128::from(self.tick_magic)) >> self.tick_shift) as u64
        } else {
            ms / self.tick_millis
        }
    }

    /// The Unix millisecond at which `tick` starts.
    fn tick_start(&self, tick: u64) -> u64 {
        tick.saturating_mul(self.tick_millis)
            .saturating_add(self.epoch_millis)
    }

    #[cold]
    fn would_block(&self, o: Outcome) -> GenerateError {
        match o {
            Outcome::Wait {
                until_millis,
                now_millis,
                ..
            } => GenerateError::WouldBlock {
                retry_after: Duration::from_millis(until_millis.saturating_sub(now_millis)),
                until_millis,
            },
            Outcome::WaitCeiling { ceiling_millis, .. } => self.fenced(ceiling_millis),
            Outcome::Fail(e) => e,
        }
    }

    /// The error of a generator that may stamp nothing after `ceiling_millis`.
    #[cold]
    fn fenced(&self, ceiling_millis: u64) -> GenerateError {
        match &self.ceiling {
            Some(c) => GenerateError::Fenced(c.fenced(self.node, ceiling_millis)),
            // Unreachable: only a generator with a ceiling is blocked by one.
            None => GenerateError::WouldBlock {
                retry_after: Duration::ZERO,
                until_millis: ceiling_millis,
            },
        }
    }

    /// Whether a reservation reaching `tick` would pass the ceiling; if so,
    /// what to do. Only the general path asks: the same-tick shortcut
    /// continues a tick that passed this check when it was entered.
    #[inline]
    fn check_ceiling(&self, tick: u64) -> Result<(), Outcome> {
        match &self.ceiling {
            Some(c) => {
                let ceiling_millis = c.millis();
                if tick > self.tick_at(ceiling_millis) {
                    Err(self.at_ceiling(c, ceiling_millis))
                } else {
                    Ok(())
                }
            }
            None => Ok(()),
        }
    }

    #[cold]
    #[inline(never)]
    fn at_ceiling(&self, c: &Ceiling, ceiling_millis: u64) -> Outcome {
        match c.wait_policy() {
            CeilingWait::Wait { max } if !c.is_closed() => Outcome::WaitCeiling {
                ceiling_millis,
                max,
            },
            _ => Outcome::Fail(self.fenced(ceiling_millis)),
        }
    }

    /// Stops the generator for good and returns its exact high-water mark:
    /// the last Unix millisecond of the last tick it issued IDs in (`None`
    /// if it issued none). Node sources call it when they release a node,
    /// after closing the generator's [`Ceiling`] ([`Ceiling::close`]), and
    /// record the mark for the next holder.
    ///
    /// The state word is moved to the last sequence of its tick, so the
    /// same-tick shortcut cannot continue it; a reservation that read the
    /// ceiling before it was closed then fails its CAS and, rereading the
    /// state (Acquire, pairing with this Release), sees the closed ceiling.
    /// So once the ceiling is closed, no ID is issued later than the mark.
    /// (Without a closed ceiling, new ticks may still be entered after it.)
    pub(crate) fn seal(&self) -> Option<u64> {
        let last_seq = self.params.seqs - 1;
        let mut last = self.state.0.load(Ordering::Acquire);
        loop {
            let (tick, seq, saturating) = self.params.unpack(last);
            // The value must change, or a CAS planned from it before the
            // ceiling closed could still succeed after.
            let sealed = self
                .params
                .pack(tick, last_seq, saturating ^ (seq == last_seq));
            match self
                .state
                .0
                .compare_exchange(last, sealed, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => {
                    // The last tick's IDs, counted now: no later tick will.
                    self.telemetry
                        .sealed(tick.wrapping_mul(self.params.seqs).wrapping_add(seq));
                    return (tick >= self.params.floor)
                        .then(|| self.tick_start(tick.saturating_add(1)).saturating_sub(1));
                }
                Err(actual) => last = actual,
            }
        }
    }

    /// What the generator does at its ceiling, if it has one.
    pub(crate) fn ceiling_wait(&self) -> Option<CeilingWait> {
        self.ceiling.as_ref().map(|c| c.wait_policy())
    }

    /// Whether this generator stamps under `ceiling`.
    pub(crate) fn uses_ceiling(&self, ceiling: &Arc<Ceiling>) -> bool {
        self.ceiling
            .as_ref()
            .is_some_and(|c| Arc::ptr_eq(c, ceiling))
    }

    /// The ticks batches reserved ahead of the clock (see [`Ahead`]).
    #[cold]
    fn ahead(&self) -> Ahead {
        Ahead {
            until: self.ahead_until.load(Ordering::Relaxed),
            span: self.ahead_span.load(Ordering::Relaxed),
        }
    }

    /// Refuses to issue from a copy of the generator in a forked child.
    #[inline]
    fn check_fork(&self) -> Result<(), Outcome> {
        if crate::fork::current_tag() == self.fork_tag {
            Ok(())
        } else {
            Err(Outcome::Fail(GenerateError::Forked))
        }
    }

    /// [`reserve`](Self::reserve) for one ID; returns the new state word.
    #[inline]
    fn reserve_one(&self) -> Result<u64, Outcome> {
        self.reserve_with(|last, now| {
            let new_state = self
                .params
                .plan_one(last, self.tick_at(now), || self.ahead())
                .map_err(|blocked| self.blocked(blocked, now))?;
            self.check_ceiling(self.params.unpack(new_state).0)?;
            Ok((new_state, new_state, new_state))
        })
    }

    /// One attempt to reserve `n` IDs: CAS until the state moves or the plan
    /// says to wait or fail. With `reserve_ahead` a batch that does not fit
    /// before the clock takes its positions now; the caller waits for them
    /// to be due.
    #[inline]
    fn reserve(&self, n: u64, reserve_ahead: bool) -> Result<Reservation, Outcome> {
        self.reserve_with(|last, now| {
            let now_tick = self.tick_at(now);
            let ahead = if self.params.unpack(last).0 > now_tick {
                self.ahead()
            } else {
                Ahead::default()
            };
            let r = self
                .params
                .plan(last, now_tick, n, ahead, reserve_ahead)
                .map_err(|blocked| self.blocked(blocked, now))?;
            self.check_ceiling(r.end_tick)?;
            if r.ahead {
                // Recorded before the state word that needs it.
                let horizon = now_tick.saturating_add(self.params.lead);
                self.ahead_until.fetch_max(r.end_tick, Ordering::Relaxed);
                self.ahead_span
                    .fetch_max(r.end_tick - horizon, Ordering::Relaxed);
            }
            Ok((r.new_state, self.params.pack(r.tick, r.seq, false), r))
        })
    }

    /// The CAS loop of a reservation: `plan`, given the state word and the
    /// clock's reading, says which state word to store, the state of the
    /// first ID it reserves, and what the caller gets (or to wait or fail);
    /// when another thread replaced the state word first, the loop plans
    /// again from that thread's.
    ///
    /// # Memory ordering
    ///
    /// The state word is loaded with Acquire and replaced with Release,
    /// and the clock is read (Acquire) after the state is loaded. So a
    /// thread that finds a state word entering tick `t` also sees a clock
    /// at least as late as the reading that decided `t` (the clock's
    /// publication happens before that reading, which happens before the
    /// Release that this Acquire pairs with, directly or through the
    /// shortcut's RMWs in its release sequence): it never mistakes a stale
    /// reading for a clock that went backwards.
    #[inline(always)]
    fn reserve_with<T>(
        &self,
        mut plan: impl FnMut(u64, u64) -> Result<(u64, u64, T), Outcome>,
    ) -> Result<T, Outcome> {
        self.check_fork()?;
        let mut last = self.state.0.load(Ordering::Acquire);
        loop {
            let now = self.clock.now_millis();
            let (new_state, first, reserved) = plan(last, now)?;
            match self.state.0.compare_exchange_weak(
                last,
                new_state,
                Ordering::Release,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    self.note_reservation(last, first, now);
                    return Ok(reserved);
                }
                Err(actual) => {
                    // Another thread won; backing off briefly lets it
                    // (or an SMT sibling) finish, fewer CAS collisions.
                    core::hint::spin_loop();
                    last = actual;
                }
            }
        }
    }

    /// Counts the IDs of the ticks left behind when a reservation from the
    /// state `last` enters a new tick at the state `first` (the first ID it
    /// reserved), clock at `now`.
    #[inline]
    fn note_reservation(&self, last: u64, first: u64, now: u64) {
        let (lt, ls, _) = self.params.unpack(last);
        let (ft, fs, _) = self.params.unpack(first);
        if ft != lt {
            let lin = |t: u64, q: u64| t.wrapping_mul(self.params.seqs).wrapping_add(q);
            self.telemetry.entered_tick(lin(lt, ls), lin(ft, fs), now);
        }
    }

    #[cold]
    #[inline(never)]
    fn blocked(&self, blocked: Blocked, now: u64) -> Outcome {
        match blocked {
            Blocked::TimeExhausted => Outcome::Fail(GenerateError::TimeExhausted {
                end_millis: self.end_millis(),
            }),
            Blocked::TooLarge { available } => Outcome::Fail(GenerateError::BatchTooLarge {
                // The caller knows the length; see `batch_error`.
                requested: 0,
                max: available,
            }),
            Blocked::Exhausted {
                until_tick,
                last_usable,
            } => {
                let until_millis = self.tick_start(until_tick);
                match self.exhaustion {
                    SequenceExhaustion::Fail => Outcome::Fail(GenerateError::SequenceExhausted {
                        tick: last_usable,
                        retry_after: Duration::from_millis(until_millis.saturating_sub(now)),
                    }),
                    SequenceExhaustion::Wait | SequenceExhaustion::RunAhead { .. } => {
                        Outcome::Wait {
                            until_millis,
                            now_millis: now,
                            cause: WaitCause::Sequence,
                        }
                    }
                }
            }
            // The first ID waits for the tick after the one the generator
            // was built in, whatever the policies: that is no regression.
            Blocked::BeforeFloor {
                until_tick,
                behind_ticks: 0 | 1,
            } => Outcome::Wait {
                until_millis: self.tick_start(until_tick),
                now_millis: now,
                cause: WaitCause::FirstTick,
            },
            Blocked::Regressed {
                until_tick,
                behind_ticks,
            }
            | Blocked::BeforeFloor {
                until_tick,
                behind_ticks,
            } => {
                let until_millis = self.tick_start(until_tick);
                let behind = Duration::from_millis(behind_ticks.saturating_mul(self.tick_millis));
                self.telemetry.regressed(
                    until_tick,
                    u64::try_from(behind.as_millis()).unwrap_or(u64::MAX),
                    now,
                );
                match self.regression {
                    ClockRegression::Wait { max }
                        if Duration::from_millis(until_millis.saturating_sub(now)) <= max =>
                    {
                        Outcome::Wait {
                            until_millis,
                            now_millis: now,
                            cause: WaitCause::ClockRegression,
                        }
                    }
                    ClockRegression::Wait { max } => Outcome::Fail(GenerateError::ClockRegressed {
                        behind,
                        max_wait: max,
                    }),
                    ClockRegression::Fail => Outcome::Fail(GenerateError::ClockRegressed {
                        behind,
                        max_wait: Duration::ZERO,
                    }),
                }
            }
        }
    }
}

impl<L: Layout, C: Clock> Sealable for Generator<L, C> {
    fn uses(&self, ceiling: &Arc<Ceiling>) -> bool {
        self.uses_ceiling(ceiling)
    }

    fn seal(&self) -> Option<u64> {
        Generator::seal(self)
    }
}

/// Keeps the state word alone in its cache line so that a hot generator
/// does not slow down unrelated data next to it.
#[repr(align(128))]
struct PaddedState(AtomicU64);

#[cfg(all(test, not(loom)))]
#[path = "../../tests/unit/generator.rs"]
mod tests;
