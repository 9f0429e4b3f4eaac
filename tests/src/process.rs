//! Child processes of a test: their standard output followed line by line,
//! and signals sent with `kill`.

use std::io::{BufRead as _, BufReader};
use std::process::{Child, Command};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A child's standard output, read by a thread of its own: each line is
/// echoed as `[tag] line` (libtest shows it for a failing test), kept, and
/// handed to [`next`](Output::next).
///
/// ```no_run
/// use std::process::{Command, Stdio};
/// use std::time::Duration;
/// use flakeid_tests::process::Output;
///
/// let mut child = Command::new("echo").arg("READY").stdout(Stdio::piped()).spawn().unwrap();
/// let output = Output::follow(&mut child, "echo");
/// assert_eq!(output.next(Duration::from_secs(5)).unwrap(), "READY");
/// ```
pub struct Output {
    // In a mutex so that a `&Output` can be shared between threads.
    lines: Mutex<Receiver<String>>,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Output {
    /// Takes `child`'s piped standard output and starts reading it.
    ///
    /// # Panics
    /// If the child's standard output was not piped.
    pub fn follow(child: &mut Child, tag: &str) -> Output {
        let stdout = child
            .stdout
            .take()
            .expect("the child's stdout is piped (Stdio::piped())");
        let (tx, lines) = channel();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (seen2, tag) = (seen.clone(), tag.to_owned());
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                println!("[{tag}] {line}");
                seen2.lock().unwrap().push(line.clone());
                // Nobody waits for lines any more: keep them only.
                let _ = tx.send(line);
            }
        });
        Output {
            lines: Mutex::new(lines),
            seen,
        }
    }

    /// The next line not yet handed out, waiting at most `timeout`;
    /// `Disconnected` once the pipe closed and every line was handed out.
    pub fn next(&self, timeout: Duration) -> Result<String, RecvTimeoutError> {
        self.lines.lock().unwrap().recv_timeout(timeout)
    }

    /// The lines not yet handed out, up to the end of the pipe (or until no
    /// line came for `quiet`): call it after the child exited.
    pub fn rest(&self, quiet: Duration) -> Vec<String> {
        let lines = self.lines.lock().unwrap();
        std::iter::from_fn(|| lines.recv_timeout(quiet).ok()).collect()
    }

    /// Every line printed so far.
    pub fn said(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

/// Sends `kill -SIG pid` (e.g. `"STOP"`, `"KILL"`).
///
/// # Panics
/// If `kill` cannot run or fails.
pub fn signal(pid: u32, sig: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{sig}"), &pid.to_string()])
        .status()
        .expect("run kill")
        .success();
    assert!(ok, "kill -{sig} {pid}");
}

/// The value of `key=` in a worker's output `line` (`READY node=3 fence=2`).
///
/// ```
/// let node: u64 = flakeid_tests::process::field("READY node=3 fence=2", "node");
/// assert_eq!(node, 3);
/// ```
///
/// # Panics
/// If `line` has no `key=` with a value of type `T`.
pub fn field<T: std::str::FromStr>(line: &str, key: &str) -> T {
    line.split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key}= in {line:?}"))
}
