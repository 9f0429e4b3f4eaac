//! The schemes' generators after `fork()`, checked with a real fork in a
//! child process of this test binary: built before the fork, they refuse
//! to issue in the forked child (they would repeat the parent's IDs); the
//! parent is unaffected.

use std::process::Command;
use std::sync::atomic::AtomicU32;

use flakeid_core::GenerateError;
use flakeid_core::layout::presets;
use flakeid_schemes::{
    DecimalIdError, DecimalIdGenerator, RandomKeyGenerator, TraceIdError, TraceIdGenerator,
};

const SCENARIO: &str = "FLAKEID_TEST_PROCESS_SCENARIO";

fn scenario() -> Option<String> {
    std::env::var(SCENARIO).ok()
}

/// Runs test `name` of this binary as a child process in `scenario` mode and
/// returns its stdout; the child must pass.
fn run_child(name: &str, scenario: &str) -> String {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            name,
            "--exact",
            "--test-threads=1",
            "--nocapture",
            "--quiet",
        ])
        .env(SCENARIO, scenario)
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

/// Every scheme with in-memory state, built before the fork: refused in
/// the forked child, still issuing in the parent.
#[test]
fn a_forked_child_refuses_copied_scheme_generators() {
    if scenario().as_deref() != Some("fork") {
        let out = run_child("a_forked_child_refuses_copied_scheme_generators", "fork");
        assert!(out.contains("PARENT=ok"), "{out}");
        return;
    }
    let traces = TraceIdGenerator::builder(1).build().unwrap();
    let randoms = RandomKeyGenerator::builder(presets::nonsequential(), 1)
        .build()
        .unwrap();
    let decimals = DecimalIdGenerator::builder(65, AtomicU32::new(9))
        .build()
        .unwrap();
    traces.next_id().unwrap();
    randoms.next_id().unwrap();
    decimals.next_id().unwrap();

    match fork_and_wait() {
        Some(status) => {
            assert_eq!(status, 0, "the child reported failure {status}");
            traces.next_id().unwrap();
            randoms.next_id().unwrap();
            decimals.next_id().unwrap();
            println!("PARENT=ok");
        }
        None => {
            // Exit codes name what failed; nothing may panic across fork here.
            if !matches!(traces.next_id(), Err(TraceIdError::Forked)) {
                exit_child(16);
            }
            if !matches!(randoms.next_id(), Err(GenerateError::Forked)) {
                exit_child(17);
            }
            if !matches!(decimals.next_id(), Err(DecimalIdError::Forked)) {
                exit_child(18);
            }
            exit_child(0);
        }
    }
}
