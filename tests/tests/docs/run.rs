//! Running the documentation's commands: each kind its own way (see
//! `docs/testing.md`, "How the documentation is checked").

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use flakeid_tests::db::TestDb;
use flakeid_tests::process::{self, Output};

use crate::markdown::Command;

/// How long a command may take: a cold `cargo run` compiles for minutes on
/// a busy two-core machine. A bound on a hang, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(30 * 60);

/// How long the service may take to stop after SIGTERM.
const STOP_PATIENCE: Duration = Duration::from_secs(60);

/// What a command is, which decides how it is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// `./scripts/test.sh`: the command that runs this checker.
    TestCommand,
    /// `./scripts/test.sh ARGS`: a selection of the test command.
    TestSelection(Vec<String>),
    /// `./scripts/chaos.sh`: run by the test command's `chaos-smoke` job.
    Chaos,
    /// `cargo run -p flakeid-service`: runs until stopped.
    Service,
    /// `FLAKEID_BLESS=1 cargo test ARGS` (or `TRYBUILD=overwrite …`): writes
    /// snapshots into the repository, so it is not run; its selection is
    /// checked as a part of the test command's.
    Bless(Vec<String>),
    /// Anything else: run, must exit 0.
    Plain,
}

/// The kind of `command`.
pub fn classify(command: &str) -> Kind {
    let words: Vec<&str> = command.split_whitespace().collect();
    match words.as_slice() {
        ["./scripts/test.sh"] => Kind::TestCommand,
        ["./scripts/test.sh", args @ ..] => {
            Kind::TestSelection(args.iter().map(|s| (*s).to_owned()).collect())
        }
        ["./scripts/chaos.sh"] => Kind::Chaos,
        ["cargo", "run", "-p", "flakeid-service"] => Kind::Service,
        [var, "cargo", "test", args @ ..]
            if *var == "FLAKEID_BLESS=1" || *var == "TRYBUILD=overwrite" =>
        {
            Kind::Bless(args.iter().map(|s| (*s).to_owned()).collect())
        }
        _ => Kind::Plain,
    }
}

/// Where commands run and what they find: one per Markdown file.
pub struct Context {
    repo: PathBuf,
    /// The workspace's built binaries (`target/debug`).
    built: PathBuf,
    /// The test command's target directory, where the commands' cargo
    /// builds go (`cargo install`'s excepted).
    target: PathBuf,
    /// `target/docs`: where `cargo install` builds.
    install_target: PathBuf,
    /// `CARGO_INSTALL_ROOT` of this file's commands.
    install_root: tempfile::TempDir,
    /// A `psqlrc` that makes `psql` stop at the first error.
    psqlrc: PathBuf,
    /// This file's PostgreSQL database, made when a command first needs it.
    database: OnceLock<TestDb>,
}

impl Context {
    /// A context for the commands of one file.
    pub fn new(repo: &Path) -> Context {
        let exe = std::env::current_exe().expect("the test binary's path");
        // target/debug/deps/docs-HASH → target/debug
        let built = exe
            .parent()
            .and_then(Path::parent)
            .expect("the test binary lies in target/<profile>/deps")
            .to_owned();
        let target = built
            .parent()
            .expect("target/<profile> lies in the target dir")
            .to_owned();
        let install_target = target.join("docs");
        let install_root = tempfile::tempdir().expect("a temp dir");
        let psqlrc = install_root.path().join("psqlrc");
        std::fs::write(&psqlrc, "\\set ON_ERROR_STOP on\n").expect("write psqlrc");
        Context {
            repo: repo.to_owned(),
            built,
            target,
            install_target,
            install_root,
            psqlrc,
            database: OnceLock::new(),
        }
    }

    fn database_url(&self) -> &str {
        self.database
            .get_or_init(flakeid_tests::db::postgres_blocking)
            .url()
    }

    /// `PATH`: the install root's `bin`, the workspace's built binaries, then
    /// the inherited one.
    fn path(&self) -> String {
        format!(
            "{}:{}:{}",
            self.install_root.path().join("bin").display(),
            self.built.display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    /// `bash -euo pipefail -c COMMAND` in the repository's root, in a
    /// process group of its own, with this context's environment.
    fn shell(&self, command: &str) -> Process {
        let mut p = Process::new("bash");
        p.args(["-euo", "pipefail", "-c", command])
            .current_dir(&self.repo)
            .env("PATH", self.path())
            .env("CARGO_INSTALL_ROOT", self.install_root.path())
            .env("PSQLRC", &self.psqlrc)
            .stdin(Stdio::null())
            .process_group(0);
        if command.trim_start().starts_with("cargo install") {
            // The release profile: a target dir of its own (no other build
            // of the test command uses one), built as a reader's cargo
            // builds it, without the test command's compiler wrapper.
            // Optimising is the slow part, and what is checked is that the
            // command installs a working program, not how fast it runs.
            // Release's 16 codegen units stay: 256 (tried for more
            // parallelism) took 16 % more CPU on two cores, and longer.
            p.env("CARGO_TARGET_DIR", &self.install_target)
                .env_remove("RUSTC_WORKSPACE_WRAPPER")
                .env_remove("CLIPPY_ARGS")
                .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
                .env("CARGO_PROFILE_RELEASE_DEBUG", "false");
        } else {
            // The test command's target dir and compiler environment
            // (wrapper, CLIPPY_ARGS, CARGO_INCREMENTAL): each package
            // resolves its own features, but the dependencies whose
            // features match the tests' build (about three in four of
            // these builds' units) are not compiled again. A compiler
            // environment of their own would make cargo compile the
            // workspace's crates over the tests' build, and the other jobs
            // compile them back.
            p.env("CARGO_TARGET_DIR", &self.target);
        }
        if command.contains("DATABASE_URL") {
            p.env("DATABASE_URL", self.database_url());
        }
        p
    }

    /// Checks `command` as its kind requires; what was done, or why it
    /// failed.
    pub fn check(&self, command: &Command) -> Result<String, String> {
        match classify(&command.text) {
            Kind::TestCommand => self
                .check_script("scripts/test.sh", None)
                .map(|()| "the test command itself: its own run is the check".into()),
            Kind::Chaos => self
                .check_script("scripts/chaos.sh", Some("CHAOS_SMOKE=1 \"$here/chaos.sh\""))
                .map(|()| "run by the test command's chaos-smoke job (CHAOS_SMOKE=1)".into()),
            Kind::TestSelection(args) | Kind::Bless(args) => self.check_selection(&args),
            Kind::Service => self.check_service(&command.text),
            Kind::Plain => self.check_plain(command),
        }
    }

    /// A script the checker does not run itself: it must exist, be
    /// executable, parse (`bash -n`), and, where `run_by` is given, the
    /// test command must still run it that way.
    fn check_script(&self, script: &str, run_by: Option<&str>) -> Result<(), String> {
        use std::os::unix::fs::PermissionsExt as _;
        let path = self.repo.join(script);
        let meta = std::fs::metadata(&path).map_err(|e| format!("{script}: {e}"))?;
        if meta.permissions().mode() & 0o111 == 0 {
            return Err(format!("{script} is not executable"));
        }
        let mut p = Process::new("bash");
        p.arg("-n").arg(&path).stdin(Stdio::null());
        let (status, _, stderr) = run(p)?;
        if !status.success() {
            return Err(format!("bash -n {script}: {status}\n{}", tail(&stderr)));
        }
        if let Some(line) = run_by {
            let test = std::fs::read_to_string(self.repo.join("scripts/test.sh"))
                .map_err(|e| format!("scripts/test.sh: {e}"))?;
            if !test.contains(line) {
                return Err(format!(
                    "scripts/test.sh no longer runs {script} as `{line}`: the documented \
                     command is then checked by nothing"
                ));
            }
        }
        Ok(())
    }

    fn check_plain(&self, command: &Command) -> Result<String, String> {
        let started = Instant::now();
        let (status, stdout, stderr) = run(self.shell(&command.text))?;
        if !status.success() {
            return Err(format!(
                "exited with {status}\n--- stdout\n{}\n--- stderr\n{}",
                tail(&stdout),
                tail(&stderr)
            ));
        }
        if let Some(expected) = &command.expected_output {
            let got: Vec<&str> = stdout.trim_end_matches('\n').lines().collect();
            let want: Vec<&str> = trim_trailing_blank(expected);
            if got != want {
                return Err(format!(
                    "printed something else than the documentation shows\n--- shown\n{}\n--- printed\n{}",
                    want.join("\n"),
                    got.join("\n")
                ));
            }
        }
        Ok(format!("ran in {:.1} s", started.elapsed().as_secs_f64()))
    }

    /// A selection of the test command selects at least one test of the
    /// binaries the test command built.
    fn check_selection(&self, args: &[String]) -> Result<String, String> {
        let (cargo_args, test_args) = match args.iter().position(|a| a == "--") {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &[][..]),
        };
        if !cargo_args.iter().any(|a| a == "--workspace") {
            return Err(format!(
                "`./scripts/test.sh {}` is not a --workspace selection: it would build the \
                 workspace again with other features; document `--workspace` with --test/--lib \
                 and a filter",
                args.join(" ")
            ));
        }
        let mut p = Process::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        p.arg("test")
            .args(cargo_args)
            .arg("--")
            .args(test_args)
            .arg("--list")
            .current_dir(&self.repo)
            .stdin(Stdio::null())
            .process_group(0);
        let (status, stdout, stderr) = run(p)?;
        if !status.success() {
            return Err(format!(
                "cargo test {} -- {} --list exited with {status}\n{}",
                cargo_args.join(" "),
                test_args.join(" "),
                tail(&stderr)
            ));
        }
        let tests = stdout.lines().filter(|l| l.ends_with(": test")).count();
        if tests == 0 {
            return Err(format!(
                "`./scripts/test.sh {}` selects no test",
                args.join(" ")
            ));
        }
        Ok(format!("selects {tests} tests (cargo test … --list)"))
    }

    /// Starts the service, checks that it serves, stops it with SIGTERM.
    fn check_service(&self, command: &str) -> Result<String, String> {
        let data = tempfile::tempdir().map_err(|e| format!("a temp dir: {e}"))?;
        let mut p = self.shell(command);
        p.env(
            "DATABASE_URL",
            format!("sqlite://{}/service.db?mode=rwc", data.path().display()),
        )
        .env("HOST", "127.0.0.1")
        .env("PORT", "0")
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
        let mut child = Group(p.spawn().map_err(|e| format!("spawn bash: {e}"))?);
        let output = Output::follow(&mut child.0, "service");
        let started = Instant::now();
        let addr = loop {
            let left = PATIENCE.saturating_sub(started.elapsed());
            match output.next(left) {
                Ok(line) if line.contains("listening") => {
                    match line
                        .split_whitespace()
                        .find_map(|kv| kv.strip_prefix("addr="))
                    {
                        Some(addr) => break addr.to_owned(),
                        None => return Err(format!("no addr= in {line:?}")),
                    }
                }
                Ok(_) => {}
                Err(e) => {
                    return Err(format!(
                        "did not log `listening` ({e:?}); it printed {:#?}",
                        output.said()
                    ));
                }
            }
        };
        let health = http_get(&addr, "/health")?;
        if !health.starts_with("HTTP/1.1 200") {
            return Err(format!("GET /health: {health}"));
        }
        let page = http_get(&addr, "/")?;
        if !page.starts_with("HTTP/1.1 200") || !page.contains("<html") {
            return Err(format!("GET /: {page}"));
        }
        let pid = find_descendant(child.0.id(), "flakeid-service")
            .ok_or("no flakeid-service process below the command")?;
        process::signal(pid, "TERM");
        let status = wait(&mut child.0, STOP_PATIENCE)?;
        output.rest(Duration::from_secs(5));
        if !status.success() {
            return Err(format!(
                "exited with {status} after SIGTERM; it printed {:#?}",
                output.said()
            ));
        }
        if !output
            .said()
            .iter()
            .any(|l| l.contains("node lease released"))
        {
            return Err(format!(
                "released no node at SIGTERM; it printed {:#?}",
                output.said()
            ));
        }
        Ok(format!(
            "served /health and / on {addr}, stopped by SIGTERM with status 0 ({:.1} s)",
            started.elapsed().as_secs_f64()
        ))
    }
}

/// A child in a process group of its own, killed with its group on drop.
struct Group(Child);

impl Drop for Group {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            kill_group(self.0.id(), "KILL");
            let _ = self.0.wait();
        }
    }
}

/// Sends `signal` to the process group `pgid` (a child spawned with
/// `process_group(0)`: its pid). The `--` matters: procps' `kill` reads
/// `kill -KILL -1234` as signal 1234's digits, not as group 1234, and may
/// signal every process of the user (`kill(-1, …)`).
fn kill_group(pgid: u32, signal: &str) {
    if pgid > 1 {
        let _ = Process::new("kill")
            .args(["-s", signal, "--", &format!("-{pgid}")])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// Runs `p` to its end (at most [`PATIENCE`]); its status and output.
fn run(mut p: Process) -> Result<(ExitStatus, String, String), String> {
    p.stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = Group(p.spawn().map_err(|e| format!("spawn: {e}"))?);
    let out = read_all(child.0.stdout.take().expect("piped"));
    let err = read_all(child.0.stderr.take().expect("piped"));
    let status = wait(&mut child.0, PATIENCE)?;
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    Ok((status, stdout, stderr))
}

/// Reads `pipe` to its end on a thread of its own.
fn read_all<R: std::io::Read + Send + 'static>(mut pipe: R) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Waits for `child` at most `patience`.
fn wait(child: &mut Child, patience: Duration) -> Result<ExitStatus, String> {
    let deadline = Instant::now() + patience;
    loop {
        if let Some(status) = child.try_wait().map_err(|e| format!("wait: {e}"))? {
            return Ok(status);
        }
        if Instant::now() > deadline {
            return Err(format!("still running after {patience:?}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `GET path` on `addr`: the whole response as text.
fn http_get(addr: &str, path: &str) -> Result<String, String> {
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("connect {addr}: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| format!("send GET {path}: {e}"))?;
    let mut response = String::new();
    stream
        .read_to_string(&mut response)
        .map_err(|e| format!("read GET {path}: {e}"))?;
    Ok(response)
}

/// `root` or the first process below it whose name is `name` (`cargo run`
/// replaces itself with the program on Unix; a shell may too).
fn find_descendant(root: u32, name: &str) -> Option<u32> {
    let mut parents = Vec::new();
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid …; comm may hold spaces and parentheses.
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        let comm = stat[stat.find('(')? + 1..close].to_owned();
        let ppid = stat[close + 1..]
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(ppid) = ppid {
            parents.push((pid, ppid, comm));
        }
    }
    if parents
        .iter()
        .any(|(pid, _, comm)| *pid == root && comm == name)
    {
        return Some(root);
    }
    let mut frontier = vec![root];
    while let Some(p) = frontier.pop() {
        for (pid, ppid, comm) in &parents {
            if *ppid == p {
                if comm == name {
                    return Some(*pid);
                }
                frontier.push(*pid);
            }
        }
    }
    None
}

/// The last 40 lines of `text`.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}

fn trim_trailing_blank(lines: &[String]) -> Vec<&str> {
    let mut v: Vec<&str> = lines.iter().map(String::as_str).collect();
    while v.last().is_some_and(|l| l.trim().is_empty()) {
        v.pop();
    }
    v
}
