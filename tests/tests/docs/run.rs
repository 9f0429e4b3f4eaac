//! Running the documentation's commands: each kind its own way (see
//! `docs/testing.md`, "How the documentation is checked").

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Process, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use flakeid_tests::db::TestDb;
use flakeid_tests::process::Output;
use rustix::process::{Pid, Signal, kill_process_group};
use wait_timeout::ChildExt as _;

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
    /// `./scripts/fuzz.sh TARGET SECONDS` (or `FILE…`): builds the fuzz
    /// targets with sanitizer flags, minutes cold; `.ci/run` runs every
    /// target for a few seconds.
    Fuzz,
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
        ["./scripts/fuzz.sh", target, _, ..] if *target != "--list" => Kind::Fuzz,
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

    /// `bash -euo pipefail -c COMMAND` under [`bounded`], in the
    /// repository's root, with this context's environment.
    fn shell(&self, command: &str) -> Process {
        let mut p = bounded("bash");
        p.args(["-euo", "pipefail", "-c", command])
            .current_dir(&self.repo)
            .env("PATH", self.path())
            .env("CARGO_INSTALL_ROOT", self.install_root.path())
            .env("PSQLRC", &self.psqlrc);
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
                .check_script(
                    "scripts/chaos.sh",
                    Some(("scripts/test.sh", "CHAOS_SMOKE=1 \"$here/chaos.sh\"")),
                )
                .map(|()| "run by the test command's chaos-smoke job (CHAOS_SMOKE=1)".into()),
            Kind::Fuzz => self
                .check_script(
                    "scripts/fuzz.sh",
                    Some((".ci/run", "./scripts/fuzz.sh all ")),
                )
                .map(|()| "CI runs every fuzz target for a few seconds (.ci/run)".into()),
            Kind::TestSelection(args) | Kind::Bless(args) => self.check_selection(&args),
            Kind::Service => self.check_service(&command.text),
            Kind::Plain => self.check_plain(command),
        }
    }

    /// A script the checker does not run itself: it must exist, be
    /// executable, parse (`bash -n`), and, where `run_by` is given (a
    /// script and a line of it), that script must still run it that way.
    fn check_script(&self, script: &str, run_by: Option<(&str, &str)>) -> Result<(), String> {
        use std::os::unix::fs::PermissionsExt as _;
        let path = self.repo.join(script);
        let meta = std::fs::metadata(&path).map_err(|e| format!("{script}: {e}"))?;
        if meta.permissions().mode() & 0o111 == 0 {
            return Err(format!("{script} is not executable"));
        }
        let mut p = Process::new("bash");
        p.arg("-n").arg(&path);
        run(p).map_err(|why| format!("bash -n {script}: {why}"))?;
        if let Some((runner, line)) = run_by {
            let text = std::fs::read_to_string(self.repo.join(runner))
                .map_err(|e| format!("{runner}: {e}"))?;
            if !text.contains(line) {
                return Err(format!(
                    "{runner} no longer runs {script} as `{line}`: the documented \
                     command is then checked by nothing"
                ));
            }
        }
        Ok(())
    }

    /// Runs the command; a `console` command's output must be the one
    /// shown (snapbox's comparison: a line `...` in the shown output stands
    /// for any lines, `[..]` for any text within a line).
    fn check_plain(&self, command: &Command) -> Result<String, String> {
        let started = Instant::now();
        let stdout = run(self.shell(&command.text))?;
        if let Some(shown) = &command.expected_output {
            // Blank lines at the end are the block's layout, not output.
            let printed = format!("{}\n", stdout.trim_end());
            let shown = format!("{}\n", shown.join("\n").trim_end());
            snapbox::Assert::new()
                .normalize_paths(false)
                .try_eq(Some(&"printed"), printed.into(), shown.into())
                .map_err(|diff| {
                    format!("printed something else than the documentation shows{diff}")
                })?;
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
        let mut p = bounded(&std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        p.arg("test")
            .args(cargo_args)
            .arg("--")
            .args(test_args)
            .arg("--list")
            .current_dir(&self.repo);
        let listed = run(p).map_err(|why| {
            format!(
                "cargo test {} -- {} --list: {why}",
                cargo_args.join(" "),
                test_args.join(" ")
            )
        })?;
        let tests = listed.lines().filter(|l| l.ends_with(": test")).count();
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
        .stderr(Stdio::inherit())
        .process_group(0);
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
        http_get(&addr, "/health")?;
        let page = http_get(&addr, "/")?;
        if !page.contains("<html") {
            return Err(format!("GET /: no <html in {page}"));
        }
        // Its group: `timeout` (which passes the signal on) and the service,
        // which the shell and then `cargo run` became (each replaces itself
        // with the command it runs).
        kill_process_group(Pid::from_child(&child.0), Signal::TERM)
            .map_err(|e| format!("SIGTERM: {e}"))?;
        let status = match child.0.wait_timeout(STOP_PATIENCE) {
            Ok(Some(status)) => status,
            Ok(None) => return Err(format!("still running {STOP_PATIENCE:?} after SIGTERM")),
            Err(e) => return Err(format!("wait: {e}")),
        };
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

/// `program` under coreutils' `timeout`, which leads a process group of its
/// own: after [`PATIENCE`] the whole group gets SIGTERM (SIGKILL 10 s
/// later), and `timeout` exits with status 124.
fn bounded(program: &str) -> Process {
    let mut p = Process::new("timeout");
    p.args(["--kill-after=10", &PATIENCE.as_secs().to_string(), program]);
    p
}

/// Runs `p` to its end, without input: what it printed, or why it failed
/// (an exit status other than 0, with the end of its output).
fn run(mut p: Process) -> Result<String, String> {
    let out = p
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("spawn {:?}: {e}", p.get_program()))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        return Ok(stdout);
    }
    let hang = match out.status.code() {
        Some(124) => format!(" (timeout's status: still running after {PATIENCE:?})"),
        _ => String::new(),
    };
    Err(format!(
        "exited with {}{hang}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        tail(&stdout),
        tail(&String::from_utf8_lossy(&out.stderr))
    ))
}

/// A child that leads a process group: the group is killed if the check
/// returns while the child still runs.
struct Group(Child);

impl Drop for Group {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = kill_process_group(Pid::from_child(&self.0), Signal::KILL);
            let _ = self.0.wait();
        }
    }
}

/// `GET path` on `addr`: the body of a 200 answer.
fn http_get(addr: &str, path: &str) -> Result<String, String> {
    let fail = |e: &dyn std::fmt::Display| format!("GET {path}: {e}");
    let mut response = ureq::get(format!("http://{addr}{path}"))
        .config()
        .timeout_global(Some(Duration::from_secs(30)))
        .build()
        .call()
        .map_err(|e| fail(&e))?;
    if response.status() != 200 {
        return Err(fail(&response.status()));
    }
    response.body_mut().read_to_string().map_err(|e| fail(&e))
}

/// The last 40 lines of `text`.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(40)..].join("\n")
}
