//! A ticker: a task that wakes every millisecond on the async runtime it
//! is spawned on and counts the ticks it missed in a row — how long the
//! runtime's thread was held up by the other tasks on it.
//!
//! What it reports for each gap between two of its wake-ups:
//!
//! * the gap itself (raw), and the gap less the time the operating system
//!   kept the thread from running although it was ready to (its run-queue
//!   delay, `/proc/thread-self/schedstat` on Linux);
//! * the time the thread spent running the code under test within the gap:
//!   the polls of the futures wrapped in [`charged`] and the calls wrapped
//!   in [`charged_sync`]. A poll or call that gave up its CPU (a sleep, a
//!   lock, a condition variable: a voluntary context switch) is charged its
//!   wall time less its run-queue delay, so a blocking wait is charged in
//!   full; one that never did is charged the time it ran on a CPU.
//!
//! The missed ticks a test asserts on are those of the charged time: what
//! the code under test took from the thread. It holds more than the code
//! under test's own work: the CPU time of a call also holds whatever the
//! kernel did on the thread's account in it (on a kernel without IRQ time
//! accounting, the interrupts and soft interrupts it served while the
//! thread ran; a shared 2-core machine running database servers has seen
//! 8 ms of it in one poll of a few microseconds' work), and a call's wait
//! may be one for a page of the binary or a lock that another test holds
//! (3.4 ms seen). So the ticker also counts the gaps in which the code
//! under test took more than the allowed ticks ([`Stalls::gaps_over`]): a
//! wait or spin in the code under test stalls the ticker every time it
//! runs, such a detour once in tens of thousands of ticks. The raw gaps on
//! a shared machine running debug builds also hold the database drivers'
//! work and delays no counter sees (a virtual CPU stolen by the host); they
//! are reported beside it.
//!
//! ```no_run
//! # async fn example() {
//! use flakeid_tests::ticker::Ticker;
//!
//! // On a current-thread runtime: the ticker and the work share the thread.
//! let ticker = Ticker::start(2);
//! flakeid_tests::ticker::charged(tokio::time::sleep(std::time::Duration::from_millis(50))).await;
//! let stalls = ticker.stop().await;
//! assert!(stalls.worst_missed <= 2);
//! # }
//! ```

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::time::MissedTickBehavior;

/// The ticker's period.
pub const PERIOD: Duration = Duration::from_millis(1);

/// What the ticker saw.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stalls {
    /// How many times it ticked.
    pub ticks: u64,
    /// The most ticks missed in a row because of the code under test: the
    /// time charged to it within one gap, in ticks.
    pub worst_missed: u64,
    /// The time charged within the gap behind `worst_missed`.
    pub worst_charged: Duration,
    /// Of it, the time charged to calls that gave up their CPU (waits).
    pub worst_charged_waiting: Duration,
    /// The gaps in which the code under test made the ticker miss more
    /// ticks in a row than the `max_missed` it was started with.
    pub gaps_over: u64,
    /// The most ticks missed in a row, less the operating system's delays
    /// (whatever held the thread).
    pub worst_missed_held: u64,
    /// The gap behind `worst_missed_held`.
    pub worst_gap: Duration,
    /// The run-queue delay within that gap.
    pub worst_os_delay: Duration,
    /// The time charged to the code under test within that gap.
    pub worst_gap_charged: Duration,
    /// The most ticks missed in a row before subtracting anything.
    pub worst_missed_raw: u64,
    /// Whether the run-queue delay could be read.
    pub os_delay_known: bool,
}

impl Stalls {
    /// Records one gap between two ticks: its length, the run-queue delay
    /// in it, and the time charged to the code under test in it (all of
    /// it, and the part charged to calls that waited); `max_missed` as
    /// [`Ticker::start`] takes it.
    fn record(&mut self, max_missed: u64, gap: Duration, os_delay: Duration, charged: Charged) {
        self.ticks += 1;
        let missed = |d: Duration| {
            u64::try_from(d.as_micros() / PERIOD.as_micros())
                .unwrap_or(u64::MAX)
                .saturating_sub(1)
        };
        self.worst_missed_raw = self.worst_missed_raw.max(missed(gap));
        let held = missed(gap.saturating_sub(os_delay));
        if held > self.worst_missed_held || self.ticks == 1 {
            self.worst_missed_held = self.worst_missed_held.max(held);
            self.worst_gap = gap;
            self.worst_os_delay = os_delay;
            self.worst_gap_charged = charged.all;
        }
        // Charged time `c` delays the next wake-up by `c`: a gap of one
        // period plus `c`.
        let by_code = missed(PERIOD + charged.all);
        if by_code > self.worst_missed || self.ticks == 1 {
            self.worst_missed = self.worst_missed.max(by_code);
            self.worst_charged = charged.all;
            self.worst_charged_waiting = charged.waiting;
        }
        if by_code > max_missed {
            self.gaps_over += 1;
        }
    }
}

/// A task ticking every [`PERIOD`] on the runtime it is spawned on.
#[derive(Debug)]
pub struct Ticker {
    stop: Arc<AtomicBool>,
    gaps_over: Arc<AtomicU64>,
    task: tokio::task::JoinHandle<Stalls>,
}

impl Ticker {
    /// Spawns it on the current runtime (a current-thread one, so that it
    /// shares the thread with the work measured), counting the gaps in
    /// which the code under test made it miss more than `max_missed` ticks
    /// in a row.
    pub fn start(max_missed: u64) -> Ticker {
        let stop = Arc::new(AtomicBool::new(false));
        let gaps_over = Arc::new(AtomicU64::new(0));
        let task = tokio::spawn({
            let (stop, gaps_over) = (stop.clone(), gaps_over.clone());
            async move {
                let mut interval = tokio::time::interval(PERIOD);
                // After a stall, go on from now: no burst of catch-up ticks.
                interval.set_missed_tick_behavior(MissedTickBehavior::Skip);
                interval.tick().await;
                let mut stalls = Stalls {
                    os_delay_known: run_queue_delay().is_some(),
                    ..Stalls::default()
                };
                let mut last = (
                    Instant::now(),
                    run_queue_delay().unwrap_or_default(),
                    charged_so_far(),
                );
                while !stop.load(Ordering::Relaxed) {
                    interval.tick().await;
                    let now = (
                        Instant::now(),
                        run_queue_delay().unwrap_or_default(),
                        charged_so_far(),
                    );
                    stalls.record(
                        max_missed,
                        now.0 - last.0,
                        now.1.saturating_sub(last.1),
                        now.2.since(last.2),
                    );
                    gaps_over.store(stalls.gaps_over, Ordering::Relaxed);
                    last = now;
                }
                stalls
            }
        });
        Ticker {
            stop,
            gaps_over,
            task,
        }
    }

    /// The gaps so far in which the code under test made it miss more than
    /// the `max_missed` ticks in a row it was started with.
    pub fn gaps_over(&self) -> u64 {
        self.gaps_over.load(Ordering::Relaxed)
    }

    /// Stops it; what it saw.
    ///
    /// # Panics
    /// If the ticker task panicked.
    pub async fn stop(self) -> Stalls {
        self.stop.store(true, Ordering::Relaxed);
        self.task.await.expect("the ticker task does not panic")
    }
}

/// `future`, the time this thread spends inside its polls charged to the
/// code under test (as [`charged_sync`] charges a call), for a [`Ticker`]
/// on the same thread (a current-thread runtime).
pub async fn charged<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    std::future::poll_fn(|cx| charged_sync(|| future.as_mut().poll(cx))).await
}

/// `future`, only its polls that gave up the thread's CPU (a sleep, a lock,
/// a condition variable) charged to the code under test, as [`charged`]
/// charges them: for a future that does more than the code under test,
/// such as a database statement whose hook takes an ID. Its polls that
/// only ran on the CPU (building the statement, encoding and decoding
/// rows) are the driver's work and are not charged; a wait the code under
/// test makes the thread do is a voluntary context switch and is charged
/// in full.
pub async fn charged_waits<F: Future>(future: F) -> F::Output {
    let mut future = std::pin::pin!(future);
    std::future::poll_fn(|cx| charge(true, || future.as_mut().poll(cx))).await
}

/// `call()`, its time charged to the code under test: its wall time less
/// its run-queue delay if it gave up its CPU (a blocking wait), else the
/// time it ran on a CPU.
pub fn charged_sync<T>(call: impl FnOnce() -> T) -> T {
    charge(false, call)
}

/// How long the calling thread has waited on a run queue, ready to run but
/// not running (Linux schedstat), if the kernel says.
pub fn run_queue_delay() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// Time charged to the code under test.
#[derive(Debug, Default, Clone, Copy)]
struct Charged {
    /// All of it.
    all: Duration,
    /// The part charged to calls that gave up their CPU.
    waiting: Duration,
}

impl Charged {
    /// What was charged since `earlier`.
    fn since(self, earlier: Charged) -> Charged {
        Charged {
            all: self.all.saturating_sub(earlier.all),
            waiting: self.waiting.saturating_sub(earlier.waiting),
        }
    }
}

thread_local! {
    /// The time this thread spent in [`charged`] polls and
    /// [`charged_sync`] calls.
    static CHARGED: Cell<Charged> = const {
        Cell::new(Charged { all: Duration::ZERO, waiting: Duration::ZERO })
    };
}

/// `call()`, charged as [`charged_sync`] charges it, or (`waits_only`) only
/// if it gave up its CPU.
fn charge<T>(waits_only: bool, call: impl FnOnce() -> T) -> T {
    let start = (
        Instant::now(),
        run_queue_delay().unwrap_or_default(),
        cpu_time(),
        voluntary_switches(),
    );
    let value = call();
    let cpu = cpu_time().saturating_sub(start.2);
    // A call that gave up its CPU (a sleep, a lock, a condition variable)
    // is charged its wall time less its run-queue delay; one that never did
    // is charged its CPU time: the rest is time the thread's virtual CPU
    // was not running at all (stolen by its host), no work of the call.
    let slept = voluntary_switches() != start.3;
    let charged = if slept {
        let os_delay = run_queue_delay()
            .unwrap_or_default()
            .saturating_sub(start.1);
        let waited = start.0.elapsed().saturating_sub(os_delay);
        Charged {
            all: waited,
            waiting: waited,
        }
    } else if waits_only {
        Charged::default()
    } else {
        Charged {
            all: cpu,
            waiting: Duration::ZERO,
        }
    };
    CHARGED.with(|total| {
        let so_far = total.get();
        total.set(Charged {
            all: so_far.all + charged.all,
            waiting: so_far.waiting + charged.waiting,
        });
    });
    value
}

/// The time this thread has spent in charged code so far.
fn charged_so_far() -> Charged {
    CHARGED.with(Cell::get)
}

/// How many times the calling thread gave up its CPU (Linux
/// `voluntary_ctxt_switches`; 0 if unknown).
fn voluntary_switches() -> u64 {
    std::fs::read_to_string("/proc/thread-self/status")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("voluntary_ctxt_switches:"))
                .and_then(|n| n.trim().parse().ok())
        })
        .unwrap_or_default()
}

/// How long the calling thread has run on a CPU, up to this instant
/// (`CLOCK_THREAD_CPUTIME_ID`; time the host took its virtual CPU away is
/// not in it on a kernel with paravirtual steal accounting).
///
/// Not the runtime in `/proc/thread-self/schedstat`: for a running thread
/// the kernel brings that up to date only at its scheduler ticks, so a
/// short call measured with it would be charged the CPU time of the
/// uncharged work before it (see the test below).
fn cpu_time() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or_default(),
        u32::try_from(t.tv_nsec).unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The thread's CPU clock, read here rather than through the code under
    /// test.
    fn thread_cpu() -> Duration {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
    }

    /// Spins until the thread has run `d` on a CPU (no system call that
    /// could give it up); the CPU time it ran.
    fn spin(d: Duration) -> Duration {
        let start = thread_cpu();
        loop {
            let ran = thread_cpu() - start;
            if ran >= d {
                return ran;
            }
            std::hint::spin_loop();
        }
    }

    /// A call that never gives up its CPU is charged the CPU time it ran:
    /// at least what it spun on a CPU, never more than its wall time, so
    /// none of the CPU time the thread spent before it, on uncharged work.
    /// (Both bounds hold whatever the load: a thread kept off its CPU runs
    /// longer in wall time, not on the CPU.)
    ///
    /// The kernel's `schedstat` runtime of a running thread is only brought
    /// up to date at scheduler ticks (4 ms apart at `HZ=250`), so a short call
    /// measured with it is charged nothing, or the whole run since the last
    /// tick: uncharged work's milliseconds.
    #[test]
    fn a_call_is_charged_the_cpu_time_it_ran_and_no_more() {
        let mut wrong = Vec::new();
        for round in 0..200 {
            // Uncharged work: the driver's, in the tests. (Timed by the wall
            // clock: a reading of the thread's CPU clock brings the kernel's
            // count of its runtime up to date.)
            let work = Instant::now();
            while work.elapsed() < Duration::from_millis(3) {
                std::hint::spin_loop();
            }
            let before = charged_so_far().all;
            let start = Instant::now();
            let spun = charged_sync(|| spin(Duration::from_micros(200)));
            let wall = start.elapsed();
            let charged = charged_so_far().all - before;
            if charged < spun || charged > wall {
                wrong.push((round, spun, charged, wall));
            }
        }
        assert!(
            wrong.is_empty(),
            "{} of 200 calls were charged less than the CPU time they spun or more than their \
             wall time (round, spun, charged, wall): {:?}",
            wrong.len(),
            &wrong[..wrong.len().min(10)]
        );
    }

    /// A gap of `gap`, no run-queue delay, `all` charged of which `waiting`
    /// to waits.
    fn gap(stalls: &mut Stalls, gap: Duration, all: Duration, waiting: Duration) {
        stalls.record(2, gap, Duration::ZERO, Charged { all, waiting });
    }

    const MS: Duration = Duration::from_millis(1);

    /// Each gap in which the code under test took more than the allowed
    /// ticks counts once, whether it ran on the CPU (a kernel's detour on
    /// the thread's account looks the same) or waited; the worst gap keeps
    /// the part of its charged time that waited.
    #[test]
    fn every_gap_over_the_bound_counts_and_the_worst_is_kept() {
        let mut stalls = Stalls::default();
        for _ in 0..1_000 {
            gap(&mut stalls, MS, Duration::from_micros(20), Duration::ZERO);
        }
        assert_eq!((stalls.worst_missed, stalls.gaps_over), (0, 0));
        gap(&mut stalls, 9 * MS, 8 * MS, Duration::ZERO);
        gap(&mut stalls, 6 * MS, 5 * MS, 5 * MS);
        // Exactly the allowed ticks is not over.
        gap(&mut stalls, 3 * MS, 2 * MS, Duration::ZERO);
        assert_eq!((stalls.worst_missed, stalls.gaps_over), (8, 2));
        assert_eq!(
            (stalls.worst_charged, stalls.worst_charged_waiting),
            (8 * MS, Duration::ZERO)
        );
        gap(&mut stalls, 12 * MS, 11 * MS, 10 * MS);
        assert_eq!((stalls.worst_missed, stalls.gaps_over), (11, 3));
        assert_eq!(stalls.worst_charged_waiting, 10 * MS);
    }

    /// Code under test that spins 5 ms on the CPU in each of 20 polls
    /// stalls a ticker on the same thread in 20 gaps: a wait written as a
    /// spin is caught each time it runs. (Its CPU time is at least 5 ms
    /// whatever the load; the next spin starts once the ticker has counted
    /// the last, so that a loaded machine, waking the ticker and the next
    /// spin in one turn, cannot put two in one gap.)
    #[test]
    fn a_spin_in_every_poll_stalls_the_ticker_every_time() {
        let stalls = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .expect("a runtime")
            .block_on(async {
                let ticker = Ticker::start(2);
                tokio::time::sleep(5 * MS).await;
                for spun in 1..=20 {
                    charged(async { spin(5 * MS) }).await;
                    let counted = Instant::now();
                    while ticker.gaps_over() < spun {
                        assert!(
                            counted.elapsed() < Duration::from_secs(10),
                            "spin {spun} was never counted"
                        );
                        tokio::time::sleep(MS).await;
                    }
                }
                ticker.stop().await
            });
        assert_eq!(stalls.gaps_over, 20, "{stalls:?}");
        assert_eq!(stalls.worst_charged_waiting, Duration::ZERO, "{stalls:?}");
    }
}
