//! A MAC-derived Flake128 worker is held by one generator per host at a
//! time: checked with real processes (this test binary re-executing itself)
//! holding the lock, exiting, and being killed with SIGKILL.
//!
//! Every test uses its own fake `/sys/class/net` and its own lock
//! directory, so that test runs on one machine never contend for a lock.
//! The tests of this binary run one at a time (`serial`): a child process
//! started by one test while another test holds a lock gets a copy of the
//! lock's descriptor and holds the lock too, until it executes its program,
//! so the second test could see its own dropped lock still held.

use std::fs;
use std::io::{BufRead, BufReader};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard, PoisonError};

use flakeid_core::{GenerateError, ManualClock};
use flakeid_flake128::Flake128Error;
use flakeid_flake128::{Flake128Generator, Flake128GeneratorBuilder};

const MAC: u64 = 0x0242_ac11_0002;
const LOCK_NAME: &str = "flakeid-flake128-0242ac110002.lock";
const NOW: u64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z

const CHILD: &str = "FLAKEID_TEST_FLAKE128_CHILD";
const NET_VAR: &str = "FLAKEID_TEST_FLAKE128_NET";
const FORK_VAR: &str = "FLAKEID_TEST_FLAKE128_FORK_LOCKS";

/// Held for the whole of each test: no test starts a process while another
/// holds a lock (see the module documentation).
fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A fresh temporary directory, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("flakeid-host-lock-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// A fake `/sys/class/net` with one device-backed interface of address `MAC`.
    fn fake_net(name: &str) -> Self {
        let net = TempDir::new(name);
        let eth0 = net.0.join("eth0");
        fs::create_dir_all(eth0.join("device")).unwrap();
        fs::write(eth0.join("address"), "02:42:ac:11:00:02\n").unwrap();
        net
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// A host of its own: a fake `/sys/class/net` (see `TempDir::fake_net`)
/// and a directory for its locks.
struct Host {
    net: TempDir,
    locks: TempDir,
}

impl Host {
    /// The directories `net-{name}` and `locks-{name}`.
    fn new(name: &str) -> Self {
        Host {
            net: TempDir::fake_net(&format!("net-{name}")),
            locks: TempDir::new(&format!("locks-{name}")),
        }
    }

    /// The default (MAC-derived) generator of this host.
    fn mac_builder(&self) -> Flake128GeneratorBuilder {
        mac_builder(&self.net.0, &self.locks.0)
    }
}

/// The default (MAC-derived) generator, reading `net` and locking in `locks`.
fn mac_builder(net: &Path, locks: &Path) -> Flake128GeneratorBuilder {
    Flake128Generator::builder()
        .mac_address_in(net)
        .lock_dir(locks)
}

fn in_use_message(lock: &Path) -> String {
    format!(
        "Flake128 worker 0x0242ac110002 (MAC address 02:42:ac:11:00:02) is in use on this host: \
         another generator holds the lock {}; two generators with one worker would issue the \
         same flakes in the same millisecond. Give each process its own worker explicitly \
         (Flake128Generator::builder().worker(..))",
        lock.display()
    )
}

/// Starts this test in a child process that builds the default generator
/// (lock directory: the child's temporary directory, `locks`), issues a
/// flake and holds the generator until its stdin closes. Returns once the
/// child reports that it holds the worker.
fn spawn_holder(test: &str, net: &Path, locks: &Path) -> Child {
    let exe = std::env::current_exe().unwrap();
    let mut child = Command::new(exe)
        .args([test, "--exact", "--test-threads=1", "--nocapture"])
        .env(CHILD, "1")
        .env(NET_VAR, net)
        // The child relies on the default lock directory, the temporary one.
        .env("TMPDIR", locks)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let held = loop {
        match lines.next() {
            // libtest may have written "test … ... " on the same line.
            Some(Ok(line)) if line.contains("HOLDING ") => {
                break line.split("HOLDING ").nth(1).unwrap_or_default().to_owned();
            }
            Some(Ok(_)) => continue,
            other => panic!("the holder ended before taking the worker: {other:?}"),
        }
    };
    // On failure `child` is dropped with its stdin, which ends the holder.
    assert_eq!(held, locks.join(LOCK_NAME).display().to_string());
    // Keep reading, so that the child's last lines do not hit a closed pipe.
    std::thread::spawn(move || lines.for_each(drop));
    child
}

/// The child's side: take the worker with the default lock directory and
/// keep it until stdin closes.
fn hold() {
    let net = std::env::var_os(NET_VAR).unwrap();
    let generator = Flake128Generator::builder()
        .mac_address_in(Path::new(&net))
        .build()
        .unwrap();
    assert_eq!(generator.generate().unwrap().worker(), MAC);
    println!("HOLDING {}", generator.lock_path().unwrap().display());
    let mut rest = String::new();
    // Returns at end of input: when the parent closes stdin or dies.
    let _ = std::io::stdin().read_line(&mut rest);
    drop(generator);
}

#[test]
fn a_second_process_gets_the_mac_worker_only_after_the_first_exits_or_is_killed() {
    let _serial = serial();
    const NAME: &str =
        "a_second_process_gets_the_mac_worker_only_after_the_first_exits_or_is_killed";
    if std::env::var_os(CHILD).is_some() {
        hold();
        return;
    }
    let host = Host::new("kill");
    let lock = host.locks.0.join(LOCK_NAME);

    // Killed with SIGKILL: the operating system releases the lock.
    let mut holder = spawn_holder(NAME, &host.net.0, &host.locks.0);
    let err = host.mac_builder().build().unwrap_err();
    assert_eq!(
        err,
        Flake128Error::WorkerInUse {
            worker: MAC,
            lock_path: lock.display().to_string(),
        }
    );
    assert_eq!(err.to_string(), in_use_message(&lock));
    holder.kill().unwrap(); // SIGKILL on Unix
    let status = holder.wait().unwrap();
    assert_eq!(status.signal(), Some(9), "{status}");
    let after_kill = host.mac_builder().build().unwrap();
    assert_eq!(after_kill.worker(), MAC);
    assert_eq!(after_kill.lock_path(), Some(lock.as_path()));
    assert_eq!(after_kill.generate().unwrap().worker(), MAC);
    drop(after_kill);

    // Exiting normally releases it too.
    let mut holder = spawn_holder(NAME, &host.net.0, &host.locks.0);
    assert!(matches!(
        host.mac_builder().build(),
        Err(Flake128Error::WorkerInUse { .. })
    ));
    drop(holder.stdin.take());
    let status = holder.wait().unwrap();
    assert!(status.success(), "{status}");
    assert!(host.mac_builder().build().is_ok());
}

#[test]
fn a_second_generator_in_one_process_is_refused_until_the_first_is_dropped() {
    let _serial = serial();
    let host = Host::new("same");
    let first = host.mac_builder().build().unwrap();
    let err = host.mac_builder().build().unwrap_err();
    assert_eq!(
        err.to_string(),
        in_use_message(&host.locks.0.join(LOCK_NAME))
    );
    drop(first);
    let again = host
        .mac_builder()
        .clock(ManualClock::new(NOW))
        .build()
        .unwrap();
    // Built at NOW: its first flake is in the next millisecond.
    let flake = again.generate().unwrap();
    assert_eq!(
        (flake.timestamp_millis(), flake.worker(), flake.sequence()),
        (NOW + 1, MAC, 0)
    );
}

#[test]
fn an_explicit_worker_takes_no_lock() {
    let _serial = serial();
    let host = Host::new("explicit");
    let by_mac = host.mac_builder().build().unwrap();
    // The caller vouches for an explicit worker: even the MAC's value is
    // not checked against the lock.
    let a = Flake128Generator::builder()
        .worker(MAC)
        .lock_dir(&host.locks.0)
        .build()
        .unwrap();
    let b = Flake128Generator::builder().worker(MAC).build().unwrap();
    assert_eq!((a.worker(), a.lock_path()), (MAC, None));
    assert_eq!((b.worker(), b.lock_path()), (MAC, None));
    assert!(by_mac.lock_path().is_some());
    let files: Vec<_> = fs::read_dir(&host.locks.0)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(files, vec![std::ffi::OsString::from(LOCK_NAME)]);
}

#[test]
fn building_reports_what_went_wrong() {
    let _serial = serial();
    let locks = TempDir::new("locks-errors");
    // No MAC address to derive a worker from.
    let empty = TempDir::new("net-empty");
    let err = mac_builder(&empty.0, &locks.0).build().unwrap_err();
    assert_eq!(
        err,
        Flake128Error::NoMacAddress {
            path: empty.0.display().to_string()
        }
    );
    assert_eq!(
        err.to_string(),
        format!(
            "no Flake128 worker from a MAC address: no network interface in {} has a non-zero \
             MAC address (loopback excluded); configure the worker ID explicitly",
            empty.0.display()
        )
    );
    // A lock directory that does not exist.
    let net = TempDir::fake_net("net-errors");
    let missing = locks.0.join("missing");
    let err = mac_builder(&net.0, &missing).build().unwrap_err();
    let lock = missing.join(LOCK_NAME);
    assert_eq!(
        err.to_string(),
        format!(
            "cannot lock Flake128 worker 0x0242ac110002 with {}: No such file or directory \
             (os error 2); give the worker explicitly if this host has no usable lock directory",
            lock.display()
        )
    );
    // An explicit worker wider than 48 bits.
    assert_eq!(
        Flake128Generator::builder()
            .worker(1 << 48)
            .build()
            .unwrap_err(),
        Flake128Error::PartOutOfRange {
            part: "worker",
            value: 1 << 48,
            max: (1 << 48) - 1
        }
    );
}

/// Runs `systemd-tmpfiles --clean` over `dir` with age 0: everything in it
/// older than now is removed, unless the cleaner skips it.
fn clean_everything_in(dir: &Path, config_dir: &Path) {
    let config = config_dir.join("clean.conf");
    fs::write(&config, format!("d {} - - - 0\n", dir.display())).unwrap();
    let out = Command::new("systemd-tmpfiles")
        .arg("--clean")
        .arg(&config)
        .output()
        .unwrap_or_else(|e| {
            panic!("this test needs systemd-tmpfiles (Debian: apt-get install systemd): {e}")
        });
    assert!(
        out.status.success(),
        "systemd-tmpfiles failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_tmp_cleaner_leaves_a_held_lock_in_place() {
    let _serial = serial();
    let host = Host::new("clean");
    let config = TempDir::new("config-clean");
    let lock = host.locks.0.join(LOCK_NAME);
    let stale = host.locks.0.join("stale");
    fs::write(&stale, "").unwrap();

    let held = host.mac_builder().build().unwrap();
    clean_everything_in(&host.locks.0, &config.0);
    assert!(!stale.exists(), "the cleaner removes what is not locked");
    assert!(lock.is_dir(), "the cleaner skips the held lock");
    assert!(matches!(
        host.mac_builder().build(),
        Err(Flake128Error::WorkerInUse { .. })
    ));

    drop(held);
    clean_everything_in(&host.locks.0, &config.0);
    assert!(
        !lock.exists(),
        "a lock nobody holds is cleaned like anything else"
    );
    assert!(host.mac_builder().build().is_ok());
}

/// A process forked (without `exec`) while a generator holds the worker
/// keeps the worker until it exits, and its copy of the generator issues
/// nothing; once it is gone the worker can be taken again. Run in a child
/// process of its own (`--test-threads=1`), so that only one thread forks.
#[test]
fn a_forked_child_keeps_the_worker_until_it_exits_and_its_copy_issues_nothing() {
    const NAME: &str = "a_forked_child_keeps_the_worker_until_it_exits_and_its_copy_issues_nothing";
    let _serial = serial();
    let Some(dir) = std::env::var_os(FORK_VAR) else {
        let host = Host::new("fork");
        let out = Command::new(std::env::current_exe().unwrap())
            .args([NAME, "--exact", "--test-threads=1", "--nocapture"])
            .env(FORK_VAR, &host.locks.0)
            .env(NET_VAR, &host.net.0)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.contains("FORK=ok"),
            "{}\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        return;
    };
    let net = std::env::var_os(NET_VAR).unwrap();
    let (net, locks) = (Path::new(&net), Path::new(&dir));
    let generator = mac_builder(net, locks).build().unwrap();
    generator.generate().unwrap();
    match fork() {
        0 => {
            // The forked copy: it must refuse, then wait to be killed.
            if !matches!(generator.generate(), Err(GenerateError::Forked)) {
                std::process::exit(21);
            }
            std::thread::sleep(std::time::Duration::from_secs(60));
            std::process::exit(22);
        }
        child => {
            drop(generator);
            // The forked process still holds the lock's descriptor.
            assert!(
                matches!(
                    mac_builder(net, locks).build(),
                    Err(Flake128Error::WorkerInUse { .. })
                ),
                "the worker was free while the forked process lived"
            );
            // SAFETY: `child` is the process forked above.
            #[allow(unsafe_code)]
            let killed = unsafe { libc::kill(child, libc::SIGKILL) };
            assert_eq!(killed, 0);
            let mut status = 0;
            // SAFETY: `child` is our child and `status` a valid out-pointer.
            #[allow(unsafe_code)]
            let waited = unsafe { libc::waitpid(child, &mut status, 0) };
            assert_eq!(waited, child);
            assert!(
                libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGKILL,
                "the forked copy did not wait to be killed (exit {}): it issued a flake",
                libc::WEXITSTATUS(status)
            );
            assert!(mac_builder(net, locks).build().is_ok());
            println!("FORK=ok");
        }
    }
}

/// `fork()`; returns 0 in the child and the child's pid in the parent.
#[allow(unsafe_code)]
fn fork() -> libc::pid_t {
    // SAFETY: called in a process whose test harness runs one test thread
    // (`--test-threads=1`); the child runs only the code above and exits.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    pid
}
