//! Generic measurements: each takes a closure that issues one ID and checks
//! what it produced, so a broken generator fails the run instead of
//! producing a flattering number.
//!
//! Every loop compares each ID with the previous one (strictly increasing
//! implies unique within a thread); the shared-generator measurement also
//! records what the threads produced and checks the union for duplicates.
//! The check costs the same compare for every generator, so it does not
//! bias the comparison.

use std::fmt::Debug;
use std::hint::spin_loop;
use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant};

use crate::BenchError;

/// The result of issuing IDs for a while.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Run {
    /// IDs issued.
    pub ids: u64,
    /// Time taken.
    pub elapsed: Duration,
}

impl Run {
    /// Issued IDs per second.
    pub fn ids_per_sec(&self) -> f64 {
        self.ids as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// The result of [`fast_path`].
#[derive(Debug, Clone, PartialEq)]
pub struct FastPath {
    /// Median over the timed batches of the batch's time divided by its size.
    pub median_ns: f64,
    /// Batches timed.
    pub batches: usize,
    /// Batches that took longer than one tick (the thread was descheduled
    /// or the generator waited); the median ignores them by construction.
    pub slow_batches: usize,
    /// IDs issued.
    pub ids: u64,
}

/// The result of [`shared`].
#[derive(Debug, Clone, PartialEq)]
pub struct SharedRun {
    /// All threads together.
    pub run: Run,
    /// IDs issued by each thread.
    pub per_thread: Vec<u64>,
    /// IDs recorded and checked for duplicates across threads.
    pub checked: u64,
}

/// Cost per ID while the sequence is never exhausted.
///
/// Once per millisecond the loop issues `per_tick` IDs back to back and
/// times that batch; then it spins (keeping its core and caches, as a busy
/// service would) until a millisecond has passed since the batch began.
/// With `per_tick` well below a layout's per-tick capacity (1,000 of 4,096
/// for Twitter's layout), every call is a fast-path call: either the next
/// sequence number of the current tick or the first of a new tick. Even if
/// a lagging clock puts three batches into one tick, nothing waits. The
/// result is the median over batches, so a batch stretched by the scheduler
/// does not move it.
pub fn fast_path<T, F>(
    mut next: F,
    duration: Duration,
    per_tick: u32,
) -> Result<FastPath, BenchError>
where
    T: Ord + Debug,
    F: FnMut() -> Result<T, BenchError>,
{
    let per_tick = per_tick.max(1);
    let tick = Duration::from_millis(1);
    let mut last = next()?;
    let mut ids = 1u64;
    let mut samples: Vec<f64> = Vec::new();
    let mut slow_batches = 0;
    let begin = Instant::now();
    loop {
        let t0 = Instant::now();
        for _ in 0..per_tick {
            let id = next()?;
            check_increasing(&last, &id, ids)?;
            last = id;
            ids += 1;
        }
        let dt = t0.elapsed();
        if dt >= tick {
            slow_batches += 1;
        }
        samples.push(dt.as_nanos() as f64 / f64::from(per_tick));
        if begin.elapsed() >= duration {
            break;
        }
        while t0.elapsed() < tick {
            spin_loop();
        }
    }
    Ok(FastPath {
        median_ns: median(&mut samples).unwrap_or(f64::NAN),
        batches: samples.len(),
        slow_batches,
        ids,
    })
}

/// Issues IDs from one thread as fast as the generator allows, for `duration`.
pub fn saturated<T, F>(mut next: F, duration: Duration) -> Result<Run, BenchError>
where
    T: Ord + Debug,
    F: FnMut() -> Result<T, BenchError>,
{
    let start = Instant::now();
    let first = next()?;
    let ids = issue_until(&mut next, first, start, duration, |_| {})?;
    Ok(Run {
        ids,
        elapsed: start.elapsed(),
    })
}

/// `threads` threads issue IDs from one shared generator as fast as it
/// allows, for `duration`. Each thread checks that its own IDs increase and
/// records up to `record_cap` of them (into memory touched before the clock
/// starts, so page faults are not timed); afterwards the recorded IDs of all
/// threads are checked for duplicates.
pub fn shared<T, F>(
    next: &F,
    threads: usize,
    duration: Duration,
    record_cap: usize,
) -> Result<SharedRun, BenchError>
where
    T: Ord + Copy + Debug + Send,
    F: Fn() -> Result<T, BenchError> + Sync,
{
    let threads = threads.max(1);
    let barrier = Barrier::new(threads);
    let results: Vec<Result<ThreadRun<T>, BenchError>> = thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    // One ID before the barrier warms the thread up and fills
                    // the record buffer; wait at the barrier even on error so
                    // that the other threads are not left waiting.
                    let warm = next();
                    let mut record = match &warm {
                        Ok(id) => vec![*id; record_cap],
                        Err(_) => Vec::new(),
                    };
                    barrier.wait();
                    warm?;
                    let start = Instant::now();
                    let first = next()?;
                    let mut recorded = 0usize;
                    let mut keep = |id: &T| {
                        if recorded < record_cap {
                            record[recorded] = *id;
                            recorded += 1;
                        }
                    };
                    keep(&first);
                    let ids = issue_until(next, first, start, duration, keep)?;
                    let elapsed = start.elapsed();
                    record.truncate(recorded);
                    Ok((ids, elapsed, record))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(Err(BenchError::ThreadPanicked)))
            .collect()
    });
    let mut per_thread = Vec::with_capacity(threads);
    let mut elapsed = Duration::ZERO;
    let mut all: Vec<T> = Vec::new();
    for r in results {
        let (ids, e, record) = r?;
        per_thread.push(ids);
        elapsed = elapsed.max(e);
        all.extend(record);
    }
    all.sort_unstable();
    if let Some(w) = all.windows(2).find(|w| w[0] == w[1]) {
        return Err(BenchError::Duplicate(format!("{:?}", w[0])));
    }
    Ok(SharedRun {
        run: Run {
            ids: per_thread.iter().sum(),
            elapsed,
        },
        per_thread,
        checked: all.len() as u64,
    })
}

/// Issues `n` IDs back to back and times them; returns the run and the last ID.
pub fn burst<T, F>(mut next: F, n: u64) -> Result<(Run, T), BenchError>
where
    T: Ord + Debug,
    F: FnMut() -> Result<T, BenchError>,
{
    let start = Instant::now();
    let mut last = next()?;
    for i in 1..n {
        let id = next()?;
        check_increasing(&last, &id, i)?;
        last = id;
    }
    Ok((
        Run {
            ids: n.max(1),
            elapsed: start.elapsed(),
        },
        last,
    ))
}

/// Median of `xs` (sorts them); `None` when empty.
pub fn median(xs: &mut [f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    xs.sort_unstable_by(f64::total_cmp);
    let m = xs.len() / 2;
    Some(if xs.len() % 2 == 1 {
        xs[m]
    } else {
        (xs[m - 1] + xs[m]) / 2.0
    })
}

/// How many IDs are issued between two readings of the stopwatch in the
/// duration-bounded loops (a reading costs about as much as an ID).
const CHECK_EVERY: u64 = 256;

/// What one thread of [`shared`] returns: IDs issued, time, recorded IDs.
type ThreadRun<T> = (u64, Duration, Vec<T>);

/// Issues IDs after `last` (the first of the run) in rounds of
/// [`CHECK_EVERY`] until `duration` has passed since `start`, checking that
/// each increases and handing it to `seen`; the IDs of the run, `last`
/// included.
fn issue_until<T: Ord + Debug>(
    mut next: impl FnMut() -> Result<T, BenchError>,
    mut last: T,
    start: Instant,
    duration: Duration,
    mut seen: impl FnMut(&T),
) -> Result<u64, BenchError> {
    let mut ids = 1u64;
    loop {
        for _ in 0..CHECK_EVERY {
            let id = next()?;
            check_increasing(&last, &id, ids)?;
            seen(&id);
            last = id;
            ids += 1;
        }
        if start.elapsed() >= duration {
            return Ok(ids);
        }
    }
}

fn check_increasing<T: Ord + Debug>(last: &T, id: &T, position: u64) -> Result<(), BenchError> {
    if id <= last {
        return Err(BenchError::NotIncreasing {
            previous: format!("{last:?}"),
            next: format!("{id:?}"),
            position,
        });
    }
    Ok(())
}
