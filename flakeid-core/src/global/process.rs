//! The process-wide generator: one generator that a node lease can move to
//! another node while callers keep using it.

use core::any::Any;
use core::fmt;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use crate::clock::{Clock, MonotonicClock};
use crate::error::{ConfigError, FenceReason, GenerateError};
use crate::generator::{
    Attach, Ceiling, Generator, GeneratorBuilder, IdBatch, Movable, Sealable, async_twins,
};
use crate::layout::BitLayout;
use crate::node::{LeasedGenerator, sealed};
use crate::policy::CeilingWait;
use crate::runtime::{Attempt, Signal, Wait, note_blocking_wait};
use crate::source::{NodeConfig, batch_source, scheme_of};

/// The process-wide generator, returned by [`global::init`](crate::global::init)
/// and used by every `#[flake_id]` type: a [`Generator`] of a
/// [`BitLayout`] that a self-healing node lease can move to another node
/// while callers keep using it.
///
/// On a fixed node it is that node's generator. On a leased node
/// (a lease's `generator_builder`, in the `flakeid-lease` crate),
/// when the lease is lost (another holder took the node while this one
/// was cut off from the store), the lease claims a free node and the
/// generator moves to it: the old node's generator is stopped first (it
/// issues nothing more), the new one starts after the new node's
/// high-water mark, and callers switch to it atomically. A call that finds
/// the lease lost waits for the move as long as the lease's
/// [`CeilingWait`] allows (1 s by default), then fails with
/// [`GenerateError::Fenced`]. See `LeaseOptions::heal` in `flakeid-lease`.
///
/// Issuing costs what a [`Generator`] costs: its per-ID path is the plain
/// generator's, inlined the same way (see `BENCHMARKS.md`). Each move
/// keeps the previous node's stopped generator
/// (a few hundred bytes) as long as the process-wide generator lives, so
/// that a call still using it never reads freed memory.
///
/// ```
/// use flakeid_core::layout::{presets, Layout};
/// use flakeid_core::{global, Generator};
///
/// let generator = global::init(Generator::builder(presets::twitter(), 7))?;
/// let id = generator.next_id()?;
/// assert_eq!(generator.layout().decompose(id).node, 7);
/// assert_eq!(generator.node(), 7);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct ProcessGenerator {
    /// The generator of the first node: current until the first move. Kept
    /// inline so that issuing costs what a plain generator costs (its
    /// fields stay in registers across calls). Every call first tries its
    /// same-tick shortcut: after a move it is sealed, so the shortcut
    /// fails and the call goes to the generator moved to.
    first: Current,
    /// After the first move, the generator of the node held now (the last
    /// of `moved_to`); null before.
    current: AtomicPtr<Current>,
    /// Every generator moved to, from `Box::into_raw`, freed only when
    /// `self` is dropped: a reference from [`current`](Self::current)
    /// borrows `self`, so it stays valid after a move.
    generators: Mutex<Vec<AtomicPtr<Current>>>,
    moves: Mutex<Moves>,
    moved: Condvar,
    /// Async callers waiting for a move (fires with `moved`).
    moved_signal: Arc<Signal>,
    /// The node source to tell once the generator is installed.
    attach: Mutex<Option<Arc<dyn Attach>>>,
}

impl fmt::Debug for ProcessGenerator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProcessGenerator")
            .field("current", self.current())
            .field("moves", &self.lock().count)
            .finish()
    }
}

impl ProcessGenerator {
    /// Builds the process-wide generator from `builder`; its node source (if
    /// any) is told once it is installed
    /// ([`attach_source`](Self::attach_source)).
    pub(crate) fn build<C: Clock>(
        builder: GeneratorBuilder<BitLayout, C>,
    ) -> Result<Self, ConfigError> {
        let mut builder = builder;
        let attach = builder.take_attach();
        let generator = if (builder.clock_ref() as &dyn Any).is::<MonotonicClock>() {
            builder.map_clock(|_| ProcessClock::Monotonic).build()?
        } else {
            // Read through a pointer by the general path (see `ProcessClock`).
            builder
                .map_clock(|c| ProcessClock::Other(Arc::new(c)))
                .build()?
                .without_shortcut()
        };
        Ok(ProcessGenerator::new(generator, attach))
    }

    /// The process-wide generator issuing with `generator`; `attach`, its
    /// node source's hook, is told by [`attach_source`](Self::attach_source).
    fn new(generator: Current, attach: Option<Arc<dyn Attach>>) -> Self {
        ProcessGenerator {
            first: generator,
            current: AtomicPtr::new(core::ptr::null_mut()),
            generators: Mutex::new(Vec::new()),
            moves: Mutex::new(Moves::default()),
            moved: Condvar::new(),
            moved_signal: Arc::default(),
            attach: Mutex::new(attach),
        }
    }

    /// Tells the node source that `self` issues its generator's IDs.
    pub(crate) fn attach_source(self: &Arc<Self>) {
        let attach = self
            .attach
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(attach) = attach {
            attach.attach(self.clone());
        }
    }

    fn lock(&self) -> MutexGuard<'_, Moves> {
        self.moves.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The generator of the node held now.
    ///
    /// A caller that reads the pointer late (still null, or an earlier
    /// one) gets a generator that was sealed before the move was published:
    /// its call fails (the seal changed the state word its compare-and-swap
    /// expects, and left no sequence number in its tick for the shortcut)
    /// and [`after_move`](Self::after_move) reads again.
    #[inline]
    pub(crate) fn current(&self) -> &Current {
        if self.current.load(Ordering::Relaxed).is_null() {
            &self.first
        } else {
            self.moved()
        }
    }

    /// The generator of the node held now, after a move.
    #[cold]
    fn moved(&self) -> &Current {
        let current = self.current.load(Ordering::Acquire);
        if current.is_null() {
            return &self.first;
        }
        // SAFETY: a non-null `current` points to a generator from
        // `Box::into_raw` in `move_to`, also listed in `generators` and
        // freed only in `drop`, which cannot run while `self` is borrowed;
        // the Acquire load pairs with the Release store that published it
        // after the generator was written.
        #[allow(unsafe_code)]
        unsafe {
            &*current
        }
    }

    /// A fresh ID; see [`Generator::next_id`]. After the node's lease was
    /// lost, waits for the move to a new node as the lease's
    /// [`CeilingWait`] allows.
    ///
    /// # Errors
    /// As [`Generator::next_id`].
    #[inline]
    pub fn next_id(&self) -> Result<u64, GenerateError> {
        match self.first.next_id_same_tick() {
            Some(id) => Ok(id),
            None => self.issue(true, Generator::next_id),
        }
    }

    /// A fresh ID without waiting; see [`Generator::try_next_id`].
    ///
    /// # Errors
    /// As [`Generator::try_next_id`].
    #[inline]
    pub fn try_next_id(&self) -> Result<u64, GenerateError> {
        match self.first.next_id_same_tick() {
            Some(id) => Ok(id),
            None => self.issue(false, Generator::try_next_id),
        }
    }

    /// `n` consecutive IDs reserved in one atomic step; see [`Generator::next_batch`].
    ///
    /// # Errors
    /// As [`Generator::next_batch`].
    pub fn next_batch(&self, n: usize) -> Result<IdBatch<'_, BitLayout>, GenerateError> {
        self.issue(true, |g| g.next_batch(n))
    }

    /// [`next_batch`](Self::next_batch) without waiting; see [`Generator::try_next_batch`].
    ///
    /// # Errors
    /// As [`Generator::try_next_batch`].
    pub fn try_next_batch(&self, n: usize) -> Result<IdBatch<'_, BitLayout>, GenerateError> {
        self.issue(false, |g| g.try_next_batch(n))
    }

    async_twins!(
        raw = u64,
        layout = BitLayout,
        example = "use flakeid_core::layout::presets;\n\
                   use flakeid_core::{global, Generator};\n\
                   let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build()?;\n\
                   let generator = global::init(Generator::builder(presets::twitter(), 7))?;",
    );

    /// One non-blocking attempt of an async caller (see
    /// [`Generator::attempt_one`]); after a lost lease, the wait for the
    /// move to a new node.
    #[inline]
    pub(crate) fn attempt_one(&self) -> Result<Attempt<u64>, GenerateError> {
        match self.first.next_id_same_tick() {
            Some(id) => Ok(Attempt::Ready(id)),
            None => self.attempt(Generator::attempt_one),
        }
    }

    /// One non-blocking attempt at a batch (see [`Generator::attempt_batch`]).
    pub(crate) fn attempt_batch(
        &self,
        n: usize,
    ) -> Result<Attempt<IdBatch<'_, BitLayout>>, GenerateError> {
        self.attempt(|g| g.attempt_batch(n))
    }

    /// `call` on the generator of the node held now; after a lost lease, on
    /// the one it moved to, or the wait for the move while one is under way.
    #[inline(never)]
    fn attempt<'a, T>(
        &'a self,
        call: impl Fn(&'a Current) -> Result<Attempt<T>, GenerateError>,
    ) -> Result<Attempt<T>, GenerateError> {
        // Read before the generator is: a move after it wakes the waiter.
        let seen = self.moved_signal.seen();
        let mut generator = self.current();
        loop {
            let error = match call(generator) {
                Err(e) if is_lost(&e) => e,
                other => return other,
            };
            // Under the lock a move is either done (a new current) or not.
            let moves = self.lock();
            let next = self.current();
            if !core::ptr::eq(next, generator) {
                drop(moves);
                generator = next;
                continue;
            }
            if !moves.moving || moves.sealed {
                return Err(error);
            }
            let max = match generator.ceiling_wait() {
                Some(CeilingWait::Wait { max }) => max,
                _ => Duration::ZERO,
            };
            return Ok(Attempt::Wait(Wait::signal(&self.moved_signal, seen, max)));
        }
    }

    /// The layout IDs are composed with (the same on every node).
    pub fn layout(&self) -> &BitLayout {
        self.current().layout()
    }

    /// The node IDs are issued for now (another one after a move).
    pub fn node(&self) -> u64 {
        self.current().node()
    }

    /// Whether the generator stamps under a node source's ceiling (a leased
    /// node, or a high-water file).
    pub fn is_fenced(&self) -> bool {
        self.current().is_fenced()
    }

    /// How many times a lease moved the generator to another node.
    pub fn moves(&self) -> u64 {
        self.lock().count
    }

    /// `call` on the generator of the node held now; after a lost lease, on
    /// the generator it moved to (see [`after_move`](Self::after_move)).
    #[inline(never)]
    fn issue<'a, T>(
        &'a self,
        wait: bool,
        call: impl Fn(&'a Current) -> Result<T, GenerateError>,
    ) -> Result<T, GenerateError> {
        let generator = self.current();
        match call(generator) {
            Ok(v) => Ok(v),
            Err(e) => self.after_move(generator, e, wait, call),
        }
    }

    /// `call` once more on the generator a lease moved to, if the one that
    /// failed was moved away from (or is being moved away from and
    /// `wait`ing is allowed), else `error`.
    #[cold]
    #[inline(never)]
    fn after_move<'a, T>(
        &'a self,
        failed: &'a Current,
        error: GenerateError,
        wait: bool,
        call: impl Fn(&'a Current) -> Result<T, GenerateError>,
    ) -> Result<T, GenerateError> {
        let (mut failed, mut error) = (failed, error);
        let mut deadline = None;
        loop {
            if !is_lost(&error) {
                return Err(error);
            }
            let max = match failed.ceiling_wait() {
                Some(CeilingWait::Wait { max }) if wait => max,
                _ => Duration::ZERO,
            };
            let deadline = *deadline.get_or_insert_with(|| Instant::now().checked_add(max));
            let next = self.wait_moved(failed, deadline);
            if core::ptr::eq(next, failed) {
                return Err(error);
            }
            match call(next) {
                Ok(v) => return Ok(v),
                Err(e) => (failed, error) = (next, e),
            }
        }
    }

    /// The current generator once it is not `from`, or `from` when no move
    /// is under way or `deadline` passes.
    fn wait_moved<'a>(&'a self, from: &'a Current, deadline: Option<Instant>) -> &'a Current {
        let mut moves = self.lock();
        loop {
            let current = self.moved();
            if !core::ptr::eq(current, from) || !moves.moving || moves.sealed {
                return current;
            }
            let Some(left) = deadline.and_then(|d| d.checked_duration_since(Instant::now())) else {
                return current;
            };
            if left.is_zero() {
                return current;
            }
            note_blocking_wait("ProcessGenerator::next_id");
            moves = self
                .moved
                .wait_timeout(moves, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Whether the current generators of `self` and `other` were built
    /// with the same layout, node and policies.
    pub(crate) fn same_config(&self, other: &ProcessGenerator) -> bool {
        self.current().same_config(other.current())
    }

    /// The node and policies the generator runs with; `node_var` names the
    /// variable its node ID came from.
    pub(crate) fn node_config(&self, node_var: Option<&'static str>) -> NodeConfig {
        NodeConfig::of(self.current(), node_var)
    }
}

impl Drop for ProcessGenerator {
    fn drop(&mut self) {
        let generators = self
            .generators
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner);
        for generator in generators.drain(..) {
            // SAFETY: each pointer came from `Box::into_raw` in `new` or
            // `move_to`, is listed once, and is freed only here; no
            // reference from `current` outlives `&self`.
            #[allow(unsafe_code)]
            drop(unsafe { Box::from_raw(generator.into_inner()) });
        }
    }
}

impl Sealable for ProcessGenerator {
    fn uses(&self, ceiling: &Arc<Ceiling>) -> bool {
        self.current().uses_ceiling(ceiling)
    }

    /// Stops the generator for good: it is never moved again.
    fn seal(&self) -> Option<u64> {
        let mut moves = self.lock();
        moves.sealed = true;
        moves.moving = false;
        drop(moves);
        self.moved.notify_all();
        self.moved_signal.notify();
        self.current().seal()
    }
}

impl Movable for ProcessGenerator {
    fn begin_move(&self, ceiling: &Arc<Ceiling>) -> bool {
        let mut moves = self.lock();
        if moves.sealed || !self.current().uses_ceiling(ceiling) {
            return false;
        }
        moves.moving = true;
        true
    }

    fn abandon_move(&self) {
        self.lock().moving = false;
        self.moved.notify_all();
        self.moved_signal.notify();
    }

    fn move_to(
        &self,
        node: u64,
        resume_after: u64,
        ceiling: Arc<Ceiling>,
    ) -> Result<(), ConfigError> {
        let mut moves = self.lock();
        if moves.sealed {
            return Err(ConfigError::AlreadyInitialized);
        }
        let old = self.current();
        let next = old.rebuilt(node, resume_after, ceiling)?;
        // Nothing of the old node after the switch, not even in its last tick.
        old.seal();
        let next = Box::into_raw(Box::new(next));
        self.generators
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(AtomicPtr::new(next));
        self.current.store(next, Ordering::Release);
        moves.moving = false;
        moves.count += 1;
        drop(moves);
        self.moved.notify_all();
        self.moved_signal.notify();
        Ok(())
    }
}

impl sealed::Sealed for ProcessGenerator {
    fn handle(&self) -> sealed::Handle<'_> {
        sealed::Handle(self)
    }
}

impl LeasedGenerator for ProcessGenerator {}

scheme_of!(impl[] ProcessGenerator, |generator| generator.layout());
batch_source!(impl[] ProcessGenerator);

/// The process-wide generator's clock: the default clock, or any other
/// behind a pointer.
///
/// The same-tick shortcut reads the default clock inline, with no branch
/// on which clock this is: [`try_tagged_now`](Clock::try_tagged_now)
/// always reads the default clock, and a generator with another clock has
/// its shortcut turned off ([`ProcessGenerator::build`], and the
/// generators a move rebuilds from it), so that its every call takes the
/// general path, which reads [`now_millis`](Clock::now_millis).
#[derive(Clone)]
pub(crate) enum ProcessClock {
    Monotonic,
    Other(Arc<dyn Clock>),
}

impl Clock for ProcessClock {
    #[inline]
    fn now_millis(&self) -> u64 {
        match self {
            ProcessClock::Monotonic => MonotonicClock::new().now_millis(),
            ProcessClock::Other(c) => c.now_millis(),
        }
    }

    #[inline]
    fn try_tagged_now(&self) -> Option<u64> {
        MonotonicClock::new().try_tagged_now()
    }

    fn wait_until(&self, target_millis: u64) {
        match self {
            ProcessClock::Monotonic => MonotonicClock::new().wait_until(target_millis),
            ProcessClock::Other(c) => c.wait_until(target_millis),
        }
    }

    fn sleep_before(&self, target_millis: u64) -> Duration {
        match self {
            ProcessClock::Monotonic => MonotonicClock::new().sleep_before(target_millis),
            ProcessClock::Other(c) => c.sleep_before(target_millis),
        }
    }
}

/// Whether `error` says the generator's lease was lost: only such a
/// generator is ever moved away from.
fn is_lost(error: &GenerateError) -> bool {
    matches!(error, GenerateError::Fenced(f) if matches!(f.reason, FenceReason::Lost { .. }))
}

/// The generator of one node.
type Current = Generator<BitLayout, ProcessClock>;

#[derive(Debug, Default)]
struct Moves {
    /// The node source lost its node and is claiming another.
    moving: bool,
    /// Released: never moved again.
    sealed: bool,
    /// How many times the generator moved.
    count: u64,
}
