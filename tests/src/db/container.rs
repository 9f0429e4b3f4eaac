//! Starting a database container and making sure it goes away.
//!
//! Containers are started with the `docker` command line (`docker run`),
//! which also finds Docker Desktop's and rootless Docker's engines through
//! the CLI's context. The container is shared by all tests of one binary
//! and held in a static, and statics are never dropped. So before its first
//! container, the test binary starts a small watcher process: it blocks
//! reading a pipe whose only writer is the test binary, so it sees
//! end-of-file when the binary exits in any way (normal end, panic, abort,
//! signal) and then removes the containers labelled with the binary's owner
//! label. `scripts/test.sh` additionally removes anything carrying this
//! run's label.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{LazyLock, Mutex, mpsc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// Label on every container the fixtures start.
pub(crate) const LABEL: &str = "org.flakeid.tests";

/// Label naming the `scripts/test.sh` run (or `manual`), for its clean-up.
pub(crate) const RUN_LABEL: &str = "org.flakeid.tests.run";

/// How an image must be started and recognised as ready.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ImageKind {
    /// Built by `scripts/build-images.sh` (name starts with `flakeid-`).
    Local,
    /// Official `postgres` image.
    OfficialPostgres,
    /// Official `mysql` image.
    OfficialMysql,
    /// Official `mariadb` image.
    OfficialMariadb,
    /// Official etcd image (`quay.io/coreos/etcd`, `gcr.io/etcd-development/etcd`).
    OfficialEtcd,
}

/// What a backend needs from its container.
#[derive(Debug)]
pub(crate) struct ContainerSpec {
    /// Image reference, `name[:tag]`.
    pub(crate) image: String,
    pub(crate) kind: ImageKind,
    pub(crate) port: u16,
    pub(crate) env: Vec<(&'static str, &'static str)>,
    /// Command replacing the image's default (empty: the image's own), used
    /// to pass server settings.
    pub(crate) cmd: Vec<String>,
    /// Paths inside the container mounted as tmpfs (memory): data whose
    /// fsyncs would otherwise wait on a shared machine's disk.
    pub(crate) tmpfs: Vec<&'static str>,
    /// Log line (on stderr) after which the server accepts connections on
    /// its port. Official images run a temporary server first; callers also
    /// retry connecting until the real one answers.
    pub(crate) ready_message: &'static str,
}

/// A started container: where to reach it.
pub(crate) struct Started {
    pub(crate) container: Container,
    pub(crate) host: String,
    pub(crate) port: u16,
    pub(crate) id: String,
}

/// A container the fixtures started; [`Container::rm`] removes it (else the
/// watcher does, when this process exits).
#[derive(Debug)]
pub(crate) struct Container {
    id: String,
}

impl Container {
    /// The container's ID.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// Removes the container and its anonymous volumes.
    pub(crate) async fn rm(self) -> Result<(), String> {
        docker_async(vec!["rm".into(), "-fv".into(), self.id])
            .await
            .map(drop)
    }
}

/// Classifies an image reference by name.
pub(crate) fn kind_of(image: &str) -> ImageKind {
    let (name, _) = split_image(image);
    let base = name.rsplit('/').next().unwrap_or(name);
    if base.starts_with("flakeid-") {
        ImageKind::Local
    } else if base.contains("etcd") {
        ImageKind::OfficialEtcd
    } else if base.contains("mariadb") {
        ImageKind::OfficialMariadb
    } else if base.contains("mysql") {
        ImageKind::OfficialMysql
    } else {
        ImageKind::OfficialPostgres
    }
}

/// Splits `name[:tag]`; a `:` before the last `/` belongs to a registry port.
pub(crate) fn split_image(image: &str) -> (&str, &str) {
    match image.rfind(':') {
        Some(i) if !image[i..].contains('/') => (&image[..i], &image[i + 1..]),
        _ => (image, "latest"),
    }
}

/// Starts the container (`docker run`, pulling the image if it is not
/// there), waits for its ready message and finds its port on the host.
pub(crate) async fn start(spec: &ContainerSpec) -> Result<Started, String> {
    let run_id = std::env::var("FLAKEID_TEST_RUN_ID").unwrap_or_else(|_| "manual".to_owned());
    let mut args: Vec<String> = vec!["run".into(), "--detach".into()];
    for (key, value) in [
        (LABEL, "1"),
        (RUN_LABEL, run_id.as_str()),
        (OWNER_LABEL, owner_label()),
    ] {
        args.extend(["--label".into(), format!("{key}={value}")]);
    }
    // Any free port of the host.
    args.extend(["--publish".into(), format!("{}/tcp", spec.port)]);
    for (key, value) in &spec.env {
        args.extend(["--env".into(), format!("{key}={value}")]);
    }
    for path in &spec.tmpfs {
        args.extend(["--tmpfs".into(), (*path).to_owned()]);
    }
    args.push(spec.image.clone());
    args.extend(spec.cmd.iter().cloned());
    let id = docker_async(args).await?;
    let container = Container { id: id.clone() };
    let ready = spec.ready_message;
    let waited = {
        let id = id.clone();
        tokio::task::spawn_blocking(move || wait_for_stderr(&id, ready, STARTUP_TIMEOUT))
            .await
            .map_err(|e| format!("waiting for the container: {e}"))
    };
    if let Err(e) = waited.and_then(|r| r) {
        let _ = container.rm().await;
        return Err(e);
    }
    let port = host_port(&id, spec.port).await?;
    Ok(Started {
        container,
        host: docker_host(),
        port,
        id,
    })
}

/// The host port that `port`/tcp of container `id` is published on.
pub(crate) async fn host_port(id: &str, port: u16) -> Result<u16, String> {
    // `0.0.0.0:49153`, then `[::]:49153`: one line per address family.
    let mapped = docker_async(vec!["port".into(), id.to_owned(), format!("{port}/tcp")]).await?;
    mapped
        .lines()
        .find_map(|l| l.rsplit(':').next().and_then(|p| p.trim().parse().ok()))
        .ok_or_else(|| {
            format!("container {id}: no host port for {port} in `docker port`: {mapped:?}")
        })
}

/// Retries `connect` until it succeeds or `timeout` passes; official images
/// restart their server once after initialisation.
pub(crate) async fn retry_connect<T, F, Fut>(timeout: Duration, mut connect: F) -> Result<T, String>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, String>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        let attempt = tokio::time::timeout(Duration::from_secs(10), connect()).await;
        let err = match attempt {
            Ok(Ok(v)) => return Ok(v),
            Ok(Err(e)) => e,
            Err(_) => "connection attempt timed out".to_owned(),
        };
        if Instant::now() >= deadline {
            return Err(format!(
                "server did not accept connections within {timeout:?}: {err}"
            ));
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// Runs `docker ARGS...` (e.g. `pause ID`) and returns its standard
/// output, trimmed. A pause or unpause is tried up to five times, 200 ms
/// apart: on a busy machine the kernel's cgroup freezer can fail to settle
/// in time (runc: "unable to freeze"), and the container is then left as it
/// was.
///
/// # Panics
/// If `docker` cannot run or the command fails (every attempt).
pub fn docker(args: &[&str]) -> String {
    let attempts = if matches!(args.first(), Some(&("pause" | "unpause"))) {
        5
    } else {
        1
    };
    let mut last = String::new();
    for attempt in 1..=attempts {
        match docker_output(args) {
            Ok(out) => return out,
            Err(e) => last = e,
        }
        if attempt < attempts {
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    panic!("docker {args:?} failed {attempts} time(s), last: {last}");
}

/// Writes to the process's real stderr. `eprintln!` from a test thread (and
/// from threads it spawned, like the fixture runtime's) is captured by the
/// test harness; direct writes are not, so this shows in every test run.
pub(crate) fn note(msg: &str) {
    let _ = writeln!(std::io::stderr().lock(), "flakeid-tests: {msg}");
}

/// How long a container may take to log its ready message (an image
/// pulled first included).
const STARTUP_TIMEOUT: Duration = Duration::from_secs(180);

/// Where published ports are reached: the engine's host for a remote
/// engine (`DOCKER_HOST=tcp://…`), else this machine. An IP address, not
/// `localhost`, which would make libmysqlclient use a Unix socket.
fn docker_host() -> String {
    std::env::var("DOCKER_HOST")
        .ok()
        .and_then(|h| {
            let rest = h.strip_prefix("tcp://")?;
            let host = rest.split([':', '/']).next()?;
            (!host.is_empty() && host != "localhost").then(|| host.to_owned())
        })
        .unwrap_or_else(|| "127.0.0.1".to_owned())
}

/// Follows the container's log until a line of its standard error contains
/// `message`; fails when the container stops first or `timeout` passes.
fn wait_for_stderr(id: &str, message: &str, timeout: Duration) -> Result<(), String> {
    let mut child = docker_command(&["logs", "--follow", id])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run docker logs: {e}"))?;
    let stderr = child.stderr.take().expect("piped");
    let (lines_tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + timeout;
    let mut tail: Vec<String> = Vec::new();
    let outcome = loop {
        match lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(line) if line.contains(message) => break Ok(()),
            Ok(line) => {
                tail.push(line);
                if tail.len() > 20 {
                    tail.remove(0);
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                break Err(format!(
                    "container {id} did not log {message:?} within {timeout:?}; its last lines:\n{}",
                    tail.join("\n")
                ));
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                break Err(format!(
                    "container {id} stopped before logging {message:?}; its last lines:\n{}",
                    tail.join("\n")
                ));
            }
        }
    };
    let _ = child.kill();
    let _ = child.wait();
    outcome
}

/// Label whose value names the test process that owns a container.
const OWNER_LABEL: &str = "org.flakeid.tests.owner";

/// This process's owner label value (pid plus start time, as pids get reused),
/// and its watcher. Never dropped: the pipe to the watcher must stay open
/// exactly as long as this process lives.
static WATCHER: LazyLock<(String, Mutex<Option<Child>>)> = LazyLock::new(|| {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let owner = format!("{}-{nanos}", std::process::id());
    let child = spawn_watcher(&owner);
    (owner, Mutex::new(child))
});

/// `docker ARGS...` on the runtime's blocking threads.
async fn docker_async(args: Vec<String>) -> Result<String, String> {
    tokio::task::spawn_blocking(move || {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        docker_output(&args)
    })
    .await
    .map_err(|e| format!("docker: {e}"))?
}

/// Runs `docker ARGS...` once: its standard output, trimmed, or why it failed.
fn docker_output(args: &[&str]) -> Result<String, String> {
    let out = docker_command(args)
        .output()
        .map_err(|e| format!("cannot run docker {args:?}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    } else {
        Err(format!(
            "docker {args:?}: {}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// The `docker` command, pointed at a rootless or Docker Desktop engine
/// when the default socket is missing and `DOCKER_HOST` is not set.
fn docker_command(args: &[&str]) -> Command {
    let mut cmd = Command::new("docker");
    cmd.args(args);
    if std::env::var_os("DOCKER_HOST").is_none()
        && let Some(host) = rootless_docker_host()
    {
        cmd.env("DOCKER_HOST", host);
    }
    cmd
}

/// Starts the process that removes this process's containers once this
/// process is gone, and returns the owner label value to put on them. Called
/// before a container is created, so no container can outlive us unwatched.
fn owner_label() -> &'static str {
    &WATCHER.0
}

fn spawn_watcher(owner: &str) -> Option<Child> {
    let Some(cli) = ["docker", "podman"].into_iter().find(|c| on_path(c)) else {
        note(&format!(
            "neither docker nor podman CLI found: containers will stay after the tests; \
             remove them with `docker rm -f $(docker ps -aq --filter label={LABEL})`"
        ));
        return None;
    };
    // `cat` returns when the pipe's writer (this process) is gone. The second
    // pass catches a container whose creation was in flight at that moment.
    let script = r#"cat >/dev/null
for pass in 1 2; do
    ids=$("$0" ps -aq --filter "label=$1")
    [ -n "$ids" ] && "$0" rm -fv $ids
    sleep 2
done"#;
    let mut cmd = Command::new("sh");
    cmd.args(["-c", script, cli, &format!("{OWNER_LABEL}={owner}")])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if std::env::var_os("DOCKER_HOST").is_none()
        && let Some(host) = rootless_docker_host()
    {
        cmd.env("DOCKER_HOST", host);
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        // Own process group: a Ctrl-C aimed at the tests must not kill the watcher.
        cmd.process_group(0);
    }
    match cmd.spawn() {
        Ok(child) => Some(child),
        Err(e) => {
            note(&format!(
                "cannot start the clean-up watcher ({e}); remove containers by hand with \
                 `docker rm -f $(docker ps -aq --filter label={OWNER_LABEL}={owner})`"
            ));
            None
        }
    }
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .map(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
        .unwrap_or(false)
}

/// The socket of a rootless Docker or Docker Desktop engine, when
/// `/var/run/docker.sock` is missing.
fn rootless_docker_host() -> Option<String> {
    if Path::new("/var/run/docker.sock").exists() {
        return None;
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let runtime = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from);
    [
        runtime.map(|d| d.join(".docker/run/docker.sock")),
        home.as_ref().map(|d| d.join(".docker/run/docker.sock")),
        home.as_ref().map(|d| d.join(".docker/desktop/docker.sock")),
    ]
    .into_iter()
    .flatten()
    .find(|p| p.exists())
    .map(|p| format!("unix://{}", p.display()))
}
