//! [`TraceIdGenerator`]: per-thread counters for one node, the thread IDs
//! they are handed out under, and the generator as an
//! [`IdSource`](flakeid_core::IdSource).

use core::cell::RefCell;
use core::fmt;
use core::time::Duration;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use flakeid_core::__private::scheme_of;
use flakeid_core::{Clock, MonotonicClock};

use super::{TraceIdError, TraceIdLayout};

thread_local! {
    static SLOTS: RefCell<Vec<Slot>> = const { RefCell::new(Vec::new()) };
}

/// Issues TraceIds for one node; see [`TraceIdLayout`].
///
/// Each thread that calls [`next_id`](Self::next_id) takes a thread ID on
/// its first call and then counts in thread-local state: no atomic is
/// shared between threads on the per-ID path. When a thread exits its
/// thread ID (with its last second and counter) is returned for reuse.
///
/// A generator never stamps an ID with the second in which it was built,
/// nor with a second its clock has not reached: a process restarted within
/// the same second, with the same node number, would otherwise repeat its
/// predecessor's IDs. So the first [`next_id`](Self::next_id) in that first
/// partial second waits for the next second (at most one second, once per
/// generator). The node number must be unique among running processes, a
/// process must have one generator per node number, and a forked child must
/// build its own (see [`GenerateError::Forked`](flakeid_core::GenerateError::Forked)).
///
/// ```
/// use std::sync::Arc;
/// use flakeid_core::ManualClock;
/// use flakeid_schemes::{TraceIdGenerator, TraceIdLayout};
///
/// let clock = Arc::new(ManualClock::new(1_750_000_000_500));
/// let generator = TraceIdGenerator::builder(7).threads(4).clock(clock).build()?;
/// // The first call waits for the next second (a manual clock jumps there).
/// let a = generator.layout().decompose(generator.next_id()?)?;
/// let b = generator.layout().decompose(generator.next_id()?)?;
/// assert_eq!((a.node, a.counter), (7, 1));
/// assert_eq!((b.thread, b.counter), (a.thread, 2)); // this thread's counter goes on
/// assert_eq!(u64::from(a.timestamp), 1_750_000_001 % TraceIdLayout::WRAP_SECONDS);
/// # Ok::<(), flakeid_schemes::TraceIdError>(())
/// ```
pub struct TraceIdGenerator<C = MonotonicClock> {
    layout: TraceIdLayout,
    node: u16,
    clock: C,
    key: u64,
    ids: Arc<ThreadIds>,
    floor_second: u64,
    fork_tag: u64,
}

impl<C> fmt::Debug for TraceIdGenerator<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TraceIdGenerator")
            .field("layout", &self.layout)
            .field("node", &self.node)
            .finish_non_exhaustive()
    }
}

impl<C> Drop for TraceIdGenerator<C> {
    fn drop(&mut self) {
        // Lets threads drop their slots for this generator.
        self.ids.alive.store(false, Ordering::Relaxed);
    }
}

/// Configures a [`TraceIdGenerator`].
///
/// ```
/// use flakeid_schemes::{TraceIdError, TraceIdGenerator};
///
/// // 3 threads round up to 4 thread IDs; fewer threads leave more counter values each.
/// let generator = TraceIdGenerator::builder(7).threads(3).build()?;
/// assert_eq!(generator.layout().max_threads(), 4);
/// assert_eq!(generator.layout().max_counter(), 1_048_575);
/// let e = TraceIdGenerator::builder(70_000).build().unwrap_err();
/// assert_eq!(e, TraceIdError::NodeOutOfRange { node: 70_000, max: 65_535 });
/// # Ok::<(), TraceIdError>(())
/// ```
#[derive(Debug, Clone)]
pub struct TraceIdGeneratorBuilder<C> {
    node: u64,
    threads: u32,
    clock: C,
}

impl TraceIdGenerator<MonotonicClock> {
    /// Starts configuring a generator for `node` (0..=65,535), for up to 32
    /// threads unless [`threads`](TraceIdGeneratorBuilder::threads) says otherwise.
    pub fn builder(node: u64) -> TraceIdGeneratorBuilder<MonotonicClock> {
        TraceIdGeneratorBuilder {
            node,
            threads: 32,
            clock: MonotonicClock::new(),
        }
    }
}

impl<C: Clock> TraceIdGeneratorBuilder<C> {
    flakeid_core::__private::setters! {
        /// The most threads that will use the generator at once (rounded up to
        /// a power of two); fewer threads leave more counter values per thread.
        threads(threads: u32) => threads = threads;
    }

    /// Uses `clock` instead of the current one.
    pub fn clock<C2: Clock>(self, clock: C2) -> TraceIdGeneratorBuilder<C2> {
        TraceIdGeneratorBuilder {
            node: self.node,
            threads: self.threads,
            clock,
        }
    }

    /// Checks the configuration and builds the generator.
    ///
    /// # Errors
    /// [`TraceIdError::NodeOutOfRange`], [`TraceIdError::ThreadCountOutOfRange`].
    pub fn build(self) -> Result<TraceIdGenerator<C>, TraceIdError> {
        let node = u16::try_from(self.node).map_err(|_| TraceIdError::NodeOutOfRange {
            node: self.node,
            max: TraceIdLayout::MAX_NODE,
        })?;
        let layout = TraceIdLayout::for_threads(self.threads)?;
        let fork_tag = flakeid_core::__private::fork_tag();
        // The build second may hold IDs of a predecessor with this node number.
        let floor_second = self.clock.now_millis() / 1000 + 1;
        Ok(TraceIdGenerator {
            layout,
            node,
            clock: self.clock,
            key: NEXT_GENERATOR.fetch_add(1, Ordering::Relaxed),
            ids: Arc::new(ThreadIds {
                max_threads: layout.max_threads(),
                alive: AtomicBool::new(true),
                inner: Mutex::new(ThreadIdsInner::default()),
            }),
            floor_second,
            fork_tag,
        })
    }
}

impl<C: Clock> TraceIdGenerator<C> {
    /// How the low bits split; use it to decode IDs.
    pub fn layout(&self) -> TraceIdLayout {
        self.layout
    }

    /// This generator's node number.
    pub fn node(&self) -> u16 {
        self.node
    }

    /// A new ID from the calling thread's counter. The generator's first
    /// call within the second it was built in waits for the next second.
    ///
    /// # Errors
    /// [`TraceIdError::TooManyThreads`] when more threads than the layout
    /// has thread IDs use the generator at once;
    /// [`TraceIdError::CounterExhausted`] when this thread issued
    /// [`max_counter`](TraceIdLayout::max_counter) IDs in the current second;
    /// [`TraceIdError::Forked`] in a forked child of the process that built it.
    pub fn next_id(&self) -> Result<u64, TraceIdError> {
        if flakeid_core::__private::fork_current_tag() != self.fork_tag {
            return Err(TraceIdError::Forked);
        }
        let mut now_millis = self.clock.now_millis();
        if now_millis / 1000 + 1 == self.floor_second {
            // Still the build second: wait for the next one (a clock further
            // back was stepped back; the floor below keeps IDs unique then).
            self.clock
                .wait_until(self.floor_second.saturating_mul(1000));
            now_millis = self.clock.now_millis();
        }
        SLOTS.with_borrow_mut(|slots| {
            let index = match slots.iter().position(|s| s.generator == self.key) {
                Some(i) => i,
                None => {
                    // Slots of dropped generators are dead weight; drop them.
                    slots.retain(|s| s.ids.alive.load(Ordering::Relaxed));
                    let (thread, second, counter) = self.ids.acquire()?;
                    slots.push(Slot {
                        generator: self.key,
                        thread,
                        second,
                        counter,
                        ids: Arc::clone(&self.ids),
                    });
                    slots.len() - 1
                }
            };
            let slot = &mut slots[index];
            // Never earlier than this thread's last second: a clock stepping
            // back continues the last second's counter instead of repeating it.
            let second = (now_millis / 1000).max(slot.second).max(self.floor_second);
            let counter = if second == slot.second {
                slot.counter + 1
            } else {
                1
            };
            if counter > self.layout.max_counter() {
                let next = second.saturating_add(1).saturating_mul(1000);
                return Err(TraceIdError::CounterExhausted {
                    thread: slot.thread,
                    unix_second: second,
                    max_counter: self.layout.max_counter(),
                    retry_after: Duration::from_millis(next.saturating_sub(now_millis)),
                });
            }
            slot.second = second;
            slot.counter = counter;
            Ok(self.layout.compose_unchecked(
                second & TraceIdLayout::TIMESTAMP_MAX,
                self.node,
                slot.thread,
                counter,
            ))
        })
    }
}

/// Distinguishes generators in the thread-local slots; never reused.
static NEXT_GENERATOR: AtomicU64 = AtomicU64::new(0);

/// Thread IDs of one generator; returned IDs keep their last second and
/// counter so that a thread that takes one over continues after them.
#[derive(Debug)]
struct ThreadIds {
    max_threads: u32,
    alive: AtomicBool,
    inner: Mutex<ThreadIdsInner>,
}

#[derive(Debug, Default)]
struct ThreadIdsInner {
    next: u32,
    free: Vec<(u32, u64, u32)>,
}

impl ThreadIds {
    fn acquire(&self) -> Result<(u32, u64, u32), TraceIdError> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(released) = inner.free.pop() {
            return Ok(released);
        }
        if inner.next < self.max_threads {
            inner.next += 1;
            return Ok((inner.next - 1, 0, 0));
        }
        Err(TraceIdError::TooManyThreads {
            max_threads: self.max_threads,
        })
    }

    fn release(&self, thread: u32, second: u64, counter: u32) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        inner.free.push((thread, second, counter));
    }
}

/// One thread's state for one generator.
struct Slot {
    generator: u64,
    thread: u32,
    second: u64,
    counter: u32,
    ids: Arc<ThreadIds>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.ids.release(self.thread, self.second, self.counter);
    }
}

scheme_of!(impl[C: Clock] TraceIdGenerator<C>, |generator| &generator.layout);

/// Waits only once, in the generator's first second (see
/// [`TraceIdGenerator`]); a thread whose counter ran out in the current
/// second gets [`GenerateError::Scheme`](flakeid_core::GenerateError::Scheme)
/// wrapping [`TraceIdError::CounterExhausted`] (with the time to retry
/// after).
///
/// An async caller ([`attempt_next_id`](flakeid_core::IdSource::attempt_next_id))
/// waits out that first second on its runtime's timer.
impl<C: Clock> flakeid_core::IdSource for TraceIdGenerator<C> {
    fn next_id(&self) -> Result<u64, flakeid_core::GenerateError> {
        TraceIdGenerator::next_id(self)
            .map_err(|e| flakeid_core::SchemeError::new("TraceId", e).into())
    }

    fn attempt_next_id(
        &self,
    ) -> Result<flakeid_core::runtime::Attempt<u64>, flakeid_core::GenerateError> {
        if self.clock.now_millis() / 1000 + 1 == self.floor_second {
            let wait = self
                .clock
                .sleep_before(self.floor_second.saturating_mul(1000));
            return Ok(flakeid_core::runtime::Attempt::Wait(
                flakeid_core::runtime::Wait::sleep(wait),
            ));
        }
        flakeid_core::IdSource::next_id(self).map(flakeid_core::runtime::Attempt::Ready)
    }
}
