//! Starting a database container and making sure it goes away.
//!
//! The container is shared by all tests of one binary and held in a static,
//! and statics are never dropped, so testcontainers' remove-on-drop never
//! runs. Instead, before its first container, the test binary starts a small
//! watcher process: it blocks reading a pipe whose only writer is the test
//! binary, so it sees end-of-file when the binary exits in any way (normal
//! end, panic, abort, signal) and then removes the containers labelled with
//! the binary's owner label. `scripts/test.sh` additionally
//! removes anything carrying this run's label.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{LazyLock, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use testcontainers::core::{IntoContainerPort as _, Mount, WaitFor};
use testcontainers::runners::AsyncRunner as _;
use testcontainers::{ContainerAsync, GenericImage, ImageExt as _};

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
    pub(crate) container: ContainerAsync<GenericImage>,
    pub(crate) host: String,
    pub(crate) port: u16,
    pub(crate) id: String,
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

/// Starts the container and its watcher.
pub(crate) async fn start(spec: &ContainerSpec) -> Result<Started, String> {
    let (name, tag) = split_image(&spec.image);
    let run_id = std::env::var("FLAKEID_TEST_RUN_ID").unwrap_or_else(|_| "manual".to_owned());
    let mut request = GenericImage::new(name, tag)
        .with_exposed_port(spec.port.tcp())
        .with_wait_for(WaitFor::message_on_stderr(spec.ready_message))
        .with_label(LABEL, "1")
        .with_label(RUN_LABEL, run_id)
        .with_label(OWNER_LABEL, owner_label())
        .with_startup_timeout(Duration::from_secs(180));
    for (key, value) in &spec.env {
        request = request.with_env_var(*key, *value);
    }
    if !spec.cmd.is_empty() {
        request = request.with_cmd(spec.cmd.iter().cloned());
    }
    for path in &spec.tmpfs {
        request = request.with_mount(Mount::tmpfs_mount(*path));
    }
    let container = request.start().await.map_err(|e| e.to_string())?;
    let id = container.id().to_owned();
    let host = match container.get_host().await {
        Ok(host) => host.to_string(),
        Err(e) => {
            return Err(format!(
                "container {id} started but its host is unknown: {e}"
            ));
        }
    };
    // "localhost" would make libmysqlclient use a Unix socket instead of TCP.
    let host = if host == "localhost" {
        "127.0.0.1".to_owned()
    } else {
        host
    };
    let port = container
        .get_host_port_ipv4(spec.port)
        .await
        .map_err(|e| format!("container {id}: no host port for {}: {e}", spec.port))?;
    Ok(Started {
        container,
        host,
        port,
        id,
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
        let out = Command::new("docker")
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run docker {args:?}: {e}"));
        if out.status.success() {
            return String::from_utf8_lossy(&out.stdout).trim().to_owned();
        }
        last = format!(
            "{}: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
        if attempt < attempts {
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    panic!("docker {args:?} failed {attempts} time(s), last: {last}");
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

/// The socket testcontainers falls back to when `/var/run/docker.sock` is
/// missing (rootless Docker, Docker Desktop), so the CLI reaches the same engine.
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

/// Writes to the process's real stderr. `eprintln!` from a test thread (and
/// from threads it spawned, like the fixture runtime's) is captured by the
/// test harness; direct writes are not, so this shows in every test run.
pub(crate) fn note(msg: &str) {
    let _ = writeln!(std::io::stderr().lock(), "flakeid-tests: {msg}");
}
