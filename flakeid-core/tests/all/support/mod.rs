//! Helpers that several modules of this binary use. The files `capture.rs`,
//! `changes.rs` and `config_errors.rs` are also compiled into
//! `global_process.rs` (a binary of its own) with `#[path]`.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use flakeid_core::layout::{BitLayout, presets};
use flakeid_lease::MemoryLeaseStore;
use flakeid_segment::SegmentOptions;
use flakeid_core::{Generator, GeneratorBuilder, ManualClock};

pub(crate) mod capture;
pub(crate) mod changes;
pub(crate) mod config_errors;

/// 2023-11-14T22:13:20Z in Unix ms: where the manual clocks of most tests start.
pub(crate) const T0: u64 = 1_700_000_000_000;

/// Answers handed out in order, then none; counts the calls.
#[derive(Debug)]
pub(crate) struct Script<T> {
    answers: Mutex<VecDeque<T>>,
    calls: AtomicUsize,
}

impl<T> Script<T> {
    pub(crate) fn new(answers: impl IntoIterator<Item = T>) -> Script<T> {
        Script {
            answers: Mutex::new(answers.into_iter().collect()),
            calls: AtomicUsize::new(0),
        }
    }

    /// The next answer, `None` once all were given.
    pub(crate) fn answer(&self) -> Option<T> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.answers.lock().unwrap().pop_front()
    }

    /// How often `answer` was called.
    pub(crate) fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

/// A builder of a Twitter-layout generator for `node` on `clock`.
pub(crate) fn twitter_on(
    clock: &Arc<ManualClock>,
    node: u64,
) -> GeneratorBuilder<BitLayout, Arc<ManualClock>> {
    Generator::builder(presets::twitter(), node).clock(clock.clone())
}

/// A manual clock reading `millis`, and an in-memory lease store that keeps
/// time by it (the database's clock).
pub(crate) fn store_on_clock(millis: u64) -> (Arc<ManualClock>, MemoryLeaseStore) {
    let clock = Arc::new(ManualClock::new(millis));
    let store = MemoryLeaseStore::with_clock(clock.clone());
    (clock, store)
}

/// Segments of `name` of a fixed size: the step never adapts.
pub(crate) fn fixed_step(name: &str, step: u64) -> SegmentOptions {
    SegmentOptions::new(name).step(step).max_step(step)
}

/// Waits (generously: the machine is shared) until `cond` holds.
pub(crate) fn eventually(what: &str, cond: impl Fn() -> bool) {
    let until = Instant::now() + Duration::from_secs(30);
    while !cond() {
        assert!(Instant::now() < until, "never happened: {what}");
        std::thread::sleep(Duration::from_millis(1));
    }
}
