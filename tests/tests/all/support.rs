//! What every module of this test binary shares: one process, so one
//! process-wide generator configuration.

use flakeid_core::layout::presets;
use flakeid_core::{Generator, global};

/// The node ID of the process-wide generator. The modules share it: a
/// second, different `global::init` in the same process is refused.
pub(crate) const NODE: u64 = 7;

/// Configures the process-wide generator (Twitter's layout, node [`NODE`]).
/// Every test that generates IDs calls it; repeating an identical
/// configuration is allowed.
pub(crate) fn init_generator() {
    global::init(Generator::builder(presets::twitter(), NODE))
        .expect("the test generator configuration is valid");
}

/// The name libtest gives the test function `function` of the module
/// `module_path` (from `module_path!()`): the path without the crate's
/// name, as `--exact` expects it when a test runs itself in a child process.
pub(crate) fn test_name(module_path: &str, function: &str) -> String {
    let module = module_path
        .split_once("::")
        .map_or("", |(_crate, module)| module);
    if module.is_empty() {
        function.to_owned()
    } else {
        format!("{module}::{function}")
    }
}

/// Runs `cmd` (this test binary again, in the tests that run a test in a
/// child process) to its end: its output, and what it printed (stdout,
/// then stderr) as text.
pub(crate) fn output_and_text(cmd: &mut std::process::Command) -> (std::process::Output, String) {
    let out = cmd.output().unwrap_or_else(|e| {
        panic!(
            "cannot run {}: {e}",
            std::path::Path::new(cmd.get_program()).display()
        )
    });
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out, text)
}

/// Held for their whole run by the tests that pause a server's container
/// (`docker pause`): one such test must not pause, unpause or delay
/// another's phases.
pub(crate) static PAUSE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Runs `reserve` while another thread takes IDs one by one from the
/// process-wide generator (Twitter's layout, node [`NODE`]) that every ID
/// type of these tests shares; returns what `reserve` returned and the other
/// thread's IDs. The other thread has taken IDs before `reserve` starts and
/// goes on until it returns.
pub(crate) fn with_a_concurrent_caller<R>(reserve: impl FnOnce() -> R) -> (R, Vec<i64>) {
    let other = ConcurrentCaller::start();
    let result = reserve();
    (result, other.stop())
}

/// Another thread taking IDs one by one from the process-wide generator
/// (see [`with_a_concurrent_caller`]), for callers that await in between.
pub(crate) struct ConcurrentCaller {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: std::thread::JoinHandle<Vec<i64>>,
}

impl ConcurrentCaller {
    /// Starts it; returns once it has taken its first ID.
    pub(crate) fn start() -> Self {
        use std::sync::atomic::AtomicBool;
        use std::sync::{Arc, Barrier};

        init_generator();
        let generator = global::generator().expect("the process-wide generator is configured");
        let stop = Arc::new(AtomicBool::new(false));
        let started = Arc::new(Barrier::new(2));
        let thread = std::thread::spawn({
            let (stop, started) = (Arc::clone(&stop), Arc::clone(&started));
            move || {
                let next = || {
                    let id = generator.next_id().expect("the other caller gets an ID");
                    i64::try_from(id).expect("a Twitter-layout ID fits an i64")
                };
                let mut ids = vec![next()];
                started.wait();
                while !stop.load(std::sync::atomic::Ordering::Acquire) {
                    ids.push(next());
                }
                ids
            }
        });
        started.wait();
        ConcurrentCaller { stop, thread }
    }

    /// Stops it; the IDs it took.
    pub(crate) fn stop(self) -> Vec<i64> {
        self.stop.store(true, std::sync::atomic::Ordering::Release);
        self.thread.join().expect("the other caller does not panic")
    }
}

/// `ids` (as stored) form one contiguous run of the generator: consecutive
/// (tick, sequence) positions of node [`NODE`], with none of `others`
/// (IDs the same generator issued meanwhile) among them.
pub(crate) fn assert_one_contiguous_run(ids: &[i64], others: &[i64]) {
    let layout = presets::twitter();
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    let max_seq = layout.max_sequence();
    for pair in sorted.windows(2) {
        let (a, b) = (
            layout.decompose(pair[0].unsigned_abs()),
            layout.decompose(pair[1].unsigned_abs()),
        );
        assert_eq!((a.node, b.node), (NODE, NODE), "{pair:?}");
        let next = if a.sequence == max_seq {
            (a.tick + 1, 0)
        } else {
            (a.tick, a.sequence + 1)
        };
        assert_eq!(
            (b.tick, b.sequence),
            next,
            "IDs {} and {} are not consecutive positions of the generator",
            pair[0],
            pair[1]
        );
    }
    let (lo, hi) = (sorted[0], sorted[sorted.len() - 1]);
    let inside: Vec<i64> = others
        .iter()
        .copied()
        .filter(|o| (lo..=hi).contains(o))
        .collect();
    assert!(
        inside.is_empty(),
        "{} IDs of the concurrent caller fall inside the run {lo}..={hi}: {:?}",
        inside.len(),
        &inside[..inside.len().min(5)]
    );
    // The other caller ran before the run was taken.
    assert!(others.iter().any(|&o| o < lo), "{others:?}");
}
