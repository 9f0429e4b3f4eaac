//! Guarantees that concern processes, checked with real processes: a
//! restart right after an exit, `fork()`, and an idle process's clock.
//! Each scenario runs in a child process of this test binary.

use std::collections::HashSet;
use std::process::Command;
use std::time::{Duration, Instant};

use flakeid_core::layout::presets;
use flakeid_core::{Clock, GenerateError, Generator, MonotonicClock};

const SCENARIO: &str = "FLAKEID_TEST_PROCESS_SCENARIO";

fn scenario() -> Option<String> {
    std::env::var(SCENARIO).ok()
}

/// Runs test `name` of this binary as a child process in `scenario` mode and
/// returns its stdout; the child must pass.
fn run_child(name: &str, scenario: &str, vars: &[(&str, &str)]) -> String {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            name,
            "--exact",
            "--test-threads=1",
            "--nocapture",
            "--quiet",
        ])
        .env(SCENARIO, scenario)
        .envs(vars.iter().copied())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "child {name} ({scenario}) failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// The values printed by a child as `KEY=value` lines.
fn values<'a>(stdout: &'a str, key: &str) -> Vec<&'a str> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix(key)?.strip_prefix('='))
        .collect()
}

// ---------------------------------------------------------------------------
// Restarts
// ---------------------------------------------------------------------------

/// A service with LSID's one-second ticks, restarted at once after each
/// exit, eight times: the processes share node ID 7 and most of them start
/// within a second of their predecessor's IDs. No ID may repeat.
#[test]
fn processes_restarted_at_once_never_repeat_ids() {
    if scenario().as_deref() == Some("restart") {
        let g = flakeid_core::global::init_from_env().unwrap();
        for _ in 0..3 {
            println!("ID={}", g.next_id().unwrap());
        }
        return;
    }
    let vars = [("FLAKEID_NODE_ID", "7"), ("FLAKEID_LAYOUT", "lsid")];
    let mut seen = HashSet::new();
    let mut seconds = Vec::new();
    for run in 0..8 {
        let out = run_child(
            "processes_restarted_at_once_never_repeat_ids",
            "restart",
            &vars,
        );
        let ids = values(&out, "ID");
        assert_eq!(ids.len(), 3, "run {run}: {out}");
        for id in ids {
            let id: u64 = id.parse().unwrap();
            assert!(seen.insert(id), "run {run} repeated ID {id}");
            seconds.push(presets::lsid().decompose(id).tick);
        }
    }
    // The scenario really was a restart inside a tick at least once: two
    // consecutive processes' IDs one second apart or closer.
    assert!(
        seconds.windows(4).any(|w| w[3] <= w[0] + 1),
        "no two runs fell within one second: {seconds:?}"
    );
}

// ---------------------------------------------------------------------------
// fork()
// ---------------------------------------------------------------------------

/// Forks the process; returns `Some(status)` in the parent once the child
/// exited, `None` in the child.
#[allow(unsafe_code)]
fn fork_and_wait() -> Option<i32> {
    // SAFETY: called from a single-threaded child process of the test
    // harness (`--test-threads=1`, no other threads started), so the forked
    // child may run ordinary Rust code; the parent only waits for it.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        return None;
    }
    let mut status = 0;
    // SAFETY: `pid` is our child and `status` a valid out-pointer.
    let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
    assert_eq!(waited, pid);
    assert!(
        libc::WIFEXITED(status),
        "child did not exit normally: {status}"
    );
    Some(libc::WEXITSTATUS(status))
}

/// In the forked child: exit with `code`, skipping the test harness.
fn exit_child(code: i32) -> ! {
    std::process::exit(code)
}

/// After `fork()` the child's clock moves on (its ticker thread did not
/// survive the fork), a generator built before the fork refuses to issue
/// in the child (it would repeat the parent's IDs), and one built in the
/// child issues as many IDs as time allows. The parent is unaffected. (The
/// generators of the other schemes are checked in flakeid-schemes and
/// flakeid-segment.)
#[test]
fn a_forked_child_gets_a_working_clock_and_refuses_copied_generators() {
    if scenario().as_deref() != Some("fork") {
        let out = run_child(
            "a_forked_child_gets_a_working_clock_and_refuses_copied_generators",
            "fork",
            &[],
        );
        assert!(out.contains("PARENT=ok"), "{out}");
        return;
    }
    let clock = MonotonicClock::new();
    let before = Generator::builder(presets::twitter(), 1).build().unwrap();
    // Read the clock fast enough that a ticker thread runs when we fork.
    let busy = Instant::now();
    while busy.elapsed() < Duration::from_millis(50) {
        before.next_id().unwrap();
    }
    let last_parent_id = before.next_id().unwrap();

    match fork_and_wait() {
        Some(status) => {
            assert_eq!(status, 0, "the child reported failure {status}");
            assert!(before.next_id().unwrap() > last_parent_id);
            println!("PARENT=ok");
        }
        None => {
            // Exit codes name what failed; nothing may panic across fork here.
            let t0 = clock.now_millis();
            std::thread::sleep(Duration::from_millis(30));
            if clock.now_millis() < t0 + 20 {
                exit_child(10); // the clock stood still
            }
            match before.next_id() {
                Err(GenerateError::Forked) => {}
                _ => exit_child(11), // a copied generator issued an ID
            }
            if !matches!(before.try_next_id(), Err(GenerateError::Forked))
                || !matches!(before.next_batch(3), Err(GenerateError::Forked))
            {
                exit_child(12);
            }
            let Ok(child) = Generator::builder(presets::twitter(), 2).build() else {
                exit_child(13);
            };
            // More than one tick's worth with non-blocking calls: the clock must move.
            let mut issued = 0;
            let start = Instant::now();
            while issued < 3 * 4_096 {
                match child.try_next_id() {
                    Ok(_) => issued += 1,
                    Err(GenerateError::WouldBlock { .. }) => {
                        if start.elapsed() > Duration::from_secs(10) {
                            exit_child(14); // stuck: the clock does not move
                        }
                        std::thread::yield_now();
                    }
                    Err(_) => exit_child(15),
                }
            }
            exit_child(0);
        }
    }
}

// ---------------------------------------------------------------------------
// An idle process's clock
// ---------------------------------------------------------------------------

/// Context switches of this process's threads other than the calling
/// one, exited threads included (`getrusage`: the process's sum minus this
/// thread's). In the child of this test only the clock's ticker and the
/// test harness's waiting main thread run besides the test: each ticker
/// wake-up is a switch.
fn other_threads_switches() -> u64 {
    fn usage(who: libc::c_int) -> u64 {
        // SAFETY: getrusage only writes the struct it is given.
        #[allow(unsafe_code)]
        let r = unsafe {
            let mut r: libc::rusage = std::mem::zeroed();
            assert_eq!(libc::getrusage(who, &mut r), 0);
            r
        };
        u64::try_from(r.ru_nvcsw + r.ru_nivcsw).unwrap()
    }
    usage(libc::RUSAGE_SELF) - usage(libc::RUSAGE_THREAD)
}

/// A service that reads the clock a few times a second (one ID every
/// 200 ms) costs next to nothing while idle: no background wake-ups (a
/// ticker waking every millisecond would switch about 2,000 times in 2 s).
/// A busy reader still gets the one-load fast path (a ticker runs), and it
/// stops soon after the reading stops.
#[test]
fn a_slowly_read_clock_keeps_no_thread_awake() {
    if scenario().as_deref() != Some("idle") {
        let out = run_child("a_slowly_read_clock_keeps_no_thread_awake", "idle", &[]);
        let slow: u64 = values(&out, "SLOW")[0].parse().unwrap();
        let busy: u64 = values(&out, "BUSY")[0].parse().unwrap();
        let after: u64 = values(&out, "AFTER")[0].parse().unwrap();
        println!(
            "ticker wake-ups: slow reader {slow}, busy reader {busy}, after it stopped {after}"
        );
        assert!(slow < 100, "{slow} ticker wake-ups for 10 readings in 2 s");
        assert!(busy > 0, "no ticker for a busy reader");
        assert!(
            after < 100,
            "the ticker went on waking: {after} wake-ups in 2 s"
        );
        return;
    }
    let clock = MonotonicClock::new();
    let g = Generator::builder(presets::twitter(), 1).build().unwrap();
    let switches = other_threads_switches();
    for _ in 0..10 {
        g.next_id().unwrap();
        std::thread::sleep(Duration::from_millis(200));
    }
    println!("SLOW={}", other_threads_switches() - switches);

    let switches = other_threads_switches();
    let busy = Instant::now();
    let mut sum = 0u64;
    while busy.elapsed() < Duration::from_millis(300) {
        sum = sum.wrapping_add(clock.now_millis());
    }
    std::hint::black_box(sum);
    println!("BUSY={}", other_threads_switches() - switches);
    std::thread::sleep(Duration::from_millis(500));
    let switches = other_threads_switches();
    std::thread::sleep(Duration::from_secs(2));
    println!("AFTER={}", other_threads_switches() - switches);
}
