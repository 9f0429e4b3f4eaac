//! Database containers, started, paused and removed through testcontainers.
//!
//! Every container carries the label `org.flakeid.tests=1` and the run's
//! label `org.flakeid.tests.run=$FLAKEID_TEST_RUN_ID` (or `manual`), by
//! which `scripts/test.sh` removes whatever a run left behind.
//!
//! A [`Container`] is removed when it is dropped. The servers shared by a
//! binary's tests live in statics, which Rust never drops, and
//! testcontainers has no reaper (no Ryuk) for them; so every container is
//! also removed when the process exits: normally, after failed tests
//! (libtest catches their panics and exits) and on `process::exit`, by an
//! `atexit` hook; on SIGINT, SIGTERM or SIGQUIT by testcontainers' watchdog.
//! A process killed with SIGKILL leaves them to `scripts/test.sh`'s clean-up
//! (by hand: `docker rm -f $(docker ps -aq --filter label=org.flakeid.tests)`).

use std::io::Write as _;
use std::sync::{Arc, Mutex, Once, PoisonError};
use std::time::{Duration, Instant};

use backon::{ConstantBuilder, Retryable as _};
use testcontainers::bollard::query_parameters::KillContainerOptionsBuilder;
use testcontainers::core::client::docker_client_instance;
use testcontainers::core::{IntoContainerPort as _, WaitFor};
use testcontainers::runners::AsyncRunner as _;
use testcontainers::{ContainerAsync, ContainerRequest, GenericImage, ImageExt as _};

use super::runtime;

/// Label on every container the fixtures start.
pub(crate) const LABEL: &str = "org.flakeid.tests";

/// Label naming the `scripts/test.sh` run (or `manual`), for its clean-up.
pub(crate) const RUN_LABEL: &str = "org.flakeid.tests.run";

/// The request for a container of `image` (`name[:tag]`, run as it is: a
/// tag that exists locally is not pulled) whose server listens on `port`
/// (published on any free host port) and accepts connections once it logged
/// `ready` on stderr. Official images run a temporary server first; callers
/// also retry connecting until the real one answers.
pub(crate) fn request(image: &str, port: u16, ready: &str) -> ContainerRequest<GenericImage> {
    let (name, tag) = split_image(image);
    let run_id = std::env::var("FLAKEID_TEST_RUN_ID").unwrap_or_else(|_| "manual".to_owned());
    GenericImage::new(name, tag)
        .with_exposed_port(port.tcp())
        .with_wait_for(WaitFor::message_on_stderr(ready))
        .with_label(LABEL, "1")
        .with_label(RUN_LABEL, run_id)
        // Starting and waiting for `ready`; an image pull before it is not counted.
        .with_startup_timeout(Duration::from_secs(180))
}

/// Whether `image` is one of the images `scripts/build-images.sh` builds
/// (`flakeid-…`), which start their servers with scripts of their own.
pub(crate) fn is_local(image: &str) -> bool {
    let (name, _) = split_image(image);
    name.rsplit('/')
        .next()
        .unwrap_or(name)
        .starts_with("flakeid-")
}

/// A started container: where to reach it.
pub(crate) struct Started {
    pub(crate) container: Container,
    pub(crate) host: String,
    pub(crate) port: u16,
}

/// A container the fixtures started. It is removed when this value is
/// dropped, or at the latest when the process exits.
pub struct Container {
    id: String,
    slot: Arc<Slot>,
}

impl Container {
    /// The container's ID.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Freezes every process of the container (`docker pause`): the server
    /// stops answering, its connections stay open.
    ///
    /// # Panics
    /// If the engine refuses five times, 200 ms apart: on a busy machine
    /// the kernel's cgroup freezer can fail to settle in time (runc:
    /// "unable to freeze"), and the container is then left as it was.
    pub async fn pause(&self) {
        self.freeze(true).await;
    }

    /// Thaws the container after [`pause`](Self::pause).
    ///
    /// # Panics
    /// As [`pause`](Self::pause).
    pub async fn unpause(&self) {
        self.freeze(false).await;
    }

    /// Kills the server with SIGKILL (no shutdown at all), starts the
    /// container again and returns the host port `port` is now published on.
    pub(crate) async fn crash_and_start(&self, port: u16) -> Result<u16, String> {
        let slot = Arc::clone(&self.slot);
        runtime::run(async move {
            let container = slot.lock().await;
            let container = container.as_ref().ok_or("the container was removed")?;
            // testcontainers stops (SIGTERM first) but does not kill: its
            // Docker client does.
            let docker = docker_client_instance().await.map_err(|e| e.to_string())?;
            let kill = KillContainerOptionsBuilder::new().signal("KILL").build();
            docker
                .kill_container(container.id(), Some(kill))
                .await
                .map_err(|e| format!("kill: {e}"))?;
            container.start().await.map_err(|e| format!("start: {e}"))?;
            container
                .get_host_port_ipv4(port)
                .await
                .map_err(|e| e.to_string())
        })
        .await
        .map_err(|e| format!("container {}: {e}", self.id))
    }

    /// Removes the container and its anonymous volumes.
    pub(crate) async fn remove(self) -> Result<(), String> {
        let slot = Arc::clone(&self.slot);
        runtime::run(async move { remove(&slot).await }).await
    }

    async fn freeze(&self, pause: bool) {
        let slot = Arc::clone(&self.slot);
        let outcome = runtime::run(async move {
            let container = slot.lock().await;
            let container = container.as_ref().ok_or("the container was removed")?;
            let freeze = async || {
                if pause {
                    container.pause().await
                } else {
                    container.unpause().await
                }
            };
            let retries = 4;
            let every_200ms = ConstantBuilder::new().with_delay(Duration::from_millis(200));
            freeze
                .retry(every_200ms.with_max_times(retries))
                .sleep(tokio::time::sleep)
                .await
                .map_err(|e| format!("failed {} times, last: {e}", retries + 1))
        })
        .await;
        if let Err(e) = outcome {
            let verb = if pause { "pause" } else { "unpause" };
            panic!("{verb} of container {}: {e}", self.id);
        }
    }
}

impl std::fmt::Debug for Container {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Container").field("id", &self.id).finish()
    }
}

impl Drop for Container {
    fn drop(&mut self) {
        let slot = Arc::clone(&self.slot);
        // testcontainers' removal needs a Tokio runtime: the fixtures', as the
        // caller may be on none, or on one about to end.
        runtime::detach(async move {
            if let Err(e) = remove(&slot).await {
                note(&format!("could not remove a container: {e}"));
            }
        });
    }
}

/// Splits `name[:tag]`; a `:` before the last `/` belongs to a registry port.
pub(crate) fn split_image(image: &str) -> (&str, &str) {
    match image.rfind(':') {
        Some(i) if !image[i..].contains('/') => (&image[..i], &image[i + 1..]),
        _ => (image, "latest"),
    }
}

/// Starts the container of [`request`] (pulling the image if it is not
/// there), waits until it is ready and finds where its port is reached.
pub(crate) async fn start(request: ContainerRequest<GenericImage>) -> Result<Started, String> {
    let port = request
        .expose_ports()
        .first()
        .ok_or("internal: a request without a port")?
        .as_u16();
    REMOVE_AT_EXIT.call_once(remove_at_exit);
    runtime::run(async move {
        let container = request.start().await.map_err(|e| e.to_string())?;
        let id = container.id().to_owned();
        let slot = Arc::new(tokio::sync::Mutex::new(Some(container)));
        {
            let mut live = LIVE.lock().unwrap_or_else(PoisonError::into_inner);
            // Forgets the handles of containers dropped since (only `LIVE` holds them).
            live.retain(|slot| Arc::strong_count(slot) > 1);
            live.push(Arc::clone(&slot));
        }
        let container = Container { id, slot };
        let (host, port) = {
            let started = container.slot.lock().await;
            let started = started.as_ref().ok_or("the container was removed")?;
            let host = started.get_host().await.map_err(|e| e.to_string())?;
            let port = started
                .get_host_port_ipv4(port)
                .await
                .map_err(|e| e.to_string())?;
            (host.to_string(), port)
        };
        // An IP address: with `localhost` libmysqlclient would use a Unix socket.
        let host = if host == "localhost" {
            "127.0.0.1".to_owned()
        } else {
            host
        };
        Ok(Started {
            container,
            host,
            port,
        })
    })
    .await
}

/// Retries `connect` until it succeeds or `timeout` passes; official images
/// restart their server once after initialisation.
pub(crate) async fn retry_connect<T, F, Fut>(timeout: Duration, mut connect: F) -> Result<T, String>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, String>>,
{
    let deadline = Instant::now() + timeout;
    let attempt = || {
        let connecting = tokio::time::timeout(Duration::from_secs(10), connect());
        async move {
            match connecting.await {
                Ok(connected) => connected,
                Err(_) => Err("connection attempt timed out".to_owned()),
            }
        }
    };
    let every_250ms = ConstantBuilder::new().with_delay(Duration::from_millis(250));
    attempt
        .retry(every_250ms.without_max_times())
        .sleep(tokio::time::sleep)
        .when(|_| Instant::now() < deadline)
        .await
        .map_err(|err| format!("server did not accept connections within {timeout:?}: {err}"))
}

/// Writes to the process's real stderr. `eprintln!` from a test thread (and
/// from threads it spawned, like the fixture runtime's) is captured by the
/// test harness; direct writes are not, so this shows in every test run.
pub(crate) fn note(msg: &str) {
    let _ = writeln!(std::io::stderr().lock(), "flakeid-tests: {msg}");
}

/// A container's handle; empty once it is removed.
type Slot = tokio::sync::Mutex<Option<ContainerAsync<GenericImage>>>;

/// Every container this process started, for the exit hook.
static LIVE: Mutex<Vec<Arc<Slot>>> = Mutex::new(Vec::new());

static REMOVE_AT_EXIT: Once = Once::new();

async fn remove(slot: &Slot) -> Result<(), String> {
    match slot.lock().await.take() {
        Some(container) => {
            let id = container.id().to_owned();
            container
                .rm()
                .await
                .map_err(|e| format!("container {id}: {e}"))
        }
        None => Ok(()),
    }
}

/// Registers [`remove_live`] to run when the process exits.
fn remove_at_exit() {
    // SAFETY: `atexit` only stores the function pointer; `remove_live`
    // takes no arguments and never unwinds.
    #[allow(unsafe_code)]
    let status = unsafe { libc::atexit(remove_live) };
    if status != 0 {
        note(&format!(
            "cannot register the clean-up at exit: containers will stay after the tests; \
             remove them with `docker rm -f $(docker ps -aq --filter label={LABEL})`"
        ));
    }
}

/// Removes the containers still there (the shared servers), all at once,
/// for at most a minute.
extern "C" fn remove_live() {
    let slots = std::mem::take(&mut *LIVE.lock().unwrap_or_else(PoisonError::into_inner));
    // Nothing is used after a panic: the process is ending.
    let removed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        runtime::block_on(async move {
            let mut removals = tokio::task::JoinSet::new();
            for slot in slots {
                removals.spawn(async move { remove(&slot).await });
            }
            tokio::time::timeout(Duration::from_secs(60), removals.join_all()).await
        })
    }));
    let failures: Vec<String> = match removed {
        Ok(Ok(results)) => results.into_iter().filter_map(Result::err).collect(),
        Ok(Err(_)) => vec!["removal timed out after 60 s".to_owned()],
        Err(_) => vec!["removal panicked".to_owned()],
    };
    for failure in failures {
        note(&format!(
            "at exit: {failure}; remove leftovers with \
             `docker rm -f $(docker ps -aq --filter label={LABEL})`"
        ));
    }
}
