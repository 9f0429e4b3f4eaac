//! A ticker: a task that wakes every millisecond on the async runtime it
//! is spawned on and counts the ticks it missed in a row — how long the
//! runtime's thread was held up by the other tasks on it.
//!
//! Missed ticks are counted from the ticker's own wake-ups, less the time
//! the operating system kept the thread from running although it was ready
//! to (its run-queue delay, `/proc/thread-self/schedstat` on Linux): on a
//! shared machine a runnable thread waiting for a CPU is not one held up by
//! a task. A thread blocked in a sleep or on a condition variable is not
//! runnable, so a blocking call is never excused.
//!
//! ```no_run
//! # async fn example() {
//! use flakeid_tests::ticker::Ticker;
//!
//! // On a current-thread runtime: the ticker and the work share the thread.
//! let ticker = Ticker::start(2);
//! tokio::time::sleep(std::time::Duration::from_millis(50)).await;
//! let stalls = ticker.stop().await;
//! assert!(stalls.worst_missed <= 2);
//! # }
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use tokio::time::MissedTickBehavior;

/// The ticker's period.
pub const PERIOD: Duration = Duration::from_millis(1);

/// What the ticker saw.
#[derive(Debug, Default, Clone, Copy)]
pub struct Stalls {
    /// How many times it ticked.
    pub ticks: u64,
    /// The most ticks missed in a row, less the operating system's delays.
    pub worst_missed: u64,
    /// The gap between two ticks behind `worst_missed`.
    pub worst_gap: Duration,
    /// The run-queue delay within that gap.
    pub worst_os_delay: Duration,
    /// The most ticks missed in a row before subtracting the delays.
    pub worst_missed_raw: u64,
    /// Whether the run-queue delay could be read.
    pub os_delay_known: bool,
}

impl Stalls {
    fn record(&mut self, gap: Duration, os_delay: Duration) {
        self.ticks += 1;
        let missed = |d: Duration| {
            u64::try_from(d.as_micros() / PERIOD.as_micros())
                .unwrap_or(u64::MAX)
                .saturating_sub(1)
        };
        self.worst_missed_raw = self.worst_missed_raw.max(missed(gap));
        let net = missed(gap.saturating_sub(os_delay));
        if net > self.worst_missed || self.ticks == 1 {
            self.worst_missed = self.worst_missed.max(net);
            self.worst_gap = gap;
            self.worst_os_delay = os_delay;
        }
    }
}

/// A task ticking every [`PERIOD`] on the runtime it is spawned on.
#[derive(Debug)]
pub struct Ticker {
    stop: Arc<AtomicBool>,
    stalled: Arc<AtomicBool>,
    task: tokio::task::JoinHandle<Stalls>,
}

impl Ticker {
    /// Spawns it on the current runtime (a current-thread one, so that it
    /// shares the thread with the work measured); [`has_stalled`](Self::has_stalled)
    /// turns true once it missed more than `max_missed` ticks in a row.
    pub fn start(max_missed: u64) -> Ticker {
        let stop = Arc::new(AtomicBool::new(false));
        let stalled = Arc::new(AtomicBool::new(false));
        let task = tokio::spawn({
            let (stop, stalled) = (stop.clone(), stalled.clone());
            async move {
                let mut interval = tokio::time::interval(PERIOD);
                // After a stall, go on from now: no burst of catch-up ticks.
                interval.set_missed_tick_behavior(MissedTickBehavior::Skip);
                interval.tick().await;
                let mut stalls = Stalls {
                    os_delay_known: run_queue_delay().is_some(),
                    ..Stalls::default()
                };
                let mut last = (Instant::now(), run_queue_delay().unwrap_or_default());
                while !stop.load(Ordering::Relaxed) {
                    interval.tick().await;
                    let now = (Instant::now(), run_queue_delay().unwrap_or_default());
                    stalls.record(now.0 - last.0, now.1.saturating_sub(last.1));
                    if stalls.worst_missed > max_missed {
                        stalled.store(true, Ordering::Relaxed);
                    }
                    last = now;
                }
                stalls
            }
        });
        Ticker {
            stop,
            stalled,
            task,
        }
    }

    /// Whether it has missed more ticks in a row than allowed so far.
    pub fn has_stalled(&self) -> bool {
        self.stalled.load(Ordering::Relaxed)
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

/// How long the calling thread has waited on a run queue, ready to run but
/// not running (Linux schedstat), if the kernel says.
pub fn run_queue_delay() -> Option<Duration> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = text.split_whitespace().nth(1)?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}
