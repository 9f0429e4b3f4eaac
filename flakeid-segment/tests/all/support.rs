//! Helpers that several modules of this binary use.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use flakeid_segment::SegmentOptions;

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
