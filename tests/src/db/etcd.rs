//! etcd: an etcd v3 server per test binary, for the lease store on etcd.
//!
//! `FLAKEID_TEST_ETCD_URL` names an existing server (its client URL, e.g.
//! `http://127.0.0.1:2379`); otherwise a container is started from
//! `FLAKEID_TEST_ETCD_IMAGE` (default `quay.io/coreos/etcd:v3.5.17`;
//! `./scripts/test.sh` builds and selects `flakeid-etcd:3.4`, Debian's
//! `etcd-server` package). Tests share the server and keep apart by
//! their space names; without a server they fail with instructions.

use std::time::{Duration, Instant};

use flakeid_etcd::etcd_client::Client;
use testcontainers::core::Mount;
use testcontainers::{ContainerRequest, GenericImage, ImageExt as _};
use tokio::sync::OnceCell;

use super::container::{self, Container, note};
use super::runtime;

/// Image used when `FLAKEID_TEST_ETCD_IMAGE` is not set.
pub(crate) const DEFAULT_IMAGE: &str = "quay.io/coreos/etcd:v3.5.17";

pub(crate) const IMAGE_VAR: &str = "FLAKEID_TEST_ETCD_IMAGE";

pub(crate) const URL_VAR: &str = "FLAKEID_TEST_ETCD_URL";

/// The etcd server of this test binary.
pub struct Etcd {
    url: String,
    version: String,
    container: Option<Container>,
}

impl Etcd {
    /// The client URL, e.g. `http://127.0.0.1:32771`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The server's version (from its status).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The container running the server (`None` for a server given by URL).
    pub fn container(&self) -> Option<&Container> {
        self.container.as_ref()
    }

    /// The ID of [`container`](Self::container).
    pub fn container_id(&self) -> Option<&str> {
        self.container().map(Container::id)
    }

    /// A new client of the server.
    ///
    /// # Panics
    /// If the server cannot be reached.
    pub async fn client(&self) -> Client {
        Client::connect([self.url.as_str()], None)
            .await
            .unwrap_or_else(|e| panic!("connect to etcd at {}: {e}", self.url))
    }
}

impl std::fmt::Debug for Etcd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Etcd")
            .field("url", &self.url)
            .field("version", &self.version)
            .finish_non_exhaustive()
    }
}

/// The etcd server, started (or connected) on first use.
///
/// # Panics
/// If no server can be had; the message says how to fix it.
pub async fn etcd() -> &'static Etcd {
    fixture(&ETCD, start, "the etcd fixture").await
}

/// An etcd server in a container of its own, for tests that pause it
/// (`docker pause`) without stalling the tests that share [`etcd`].
///
/// # Panics
/// If no container can be started (a server given by URL cannot be paused).
pub async fn etcd_to_pause() -> &'static Etcd {
    fixture(&PAUSABLE, start_container, "the pausable etcd fixture").await
}

const PORT: u16 = 2379;

fn container(image: &str) -> ContainerRequest<GenericImage> {
    container::request(image, PORT, "ready to serve client requests")
        // Its WAL's fsyncs do not wait on the disk the other tests share.
        .with_mount(Mount::tmpfs_mount("/tmp/etcd"))
        // The same command for the official and the local image: both have
        // `etcd` on the PATH.
        .with_cmd([
            "etcd",
            "--name=flakeid-test",
            // A directory etcd creates (mode 0700) on the tmpfs.
            "--data-dir=/tmp/etcd/data",
            "--listen-client-urls=http://0.0.0.0:2379",
            "--advertise-client-urls=http://127.0.0.1:2379",
            "--listen-peer-urls=http://127.0.0.1:2380",
            "--initial-advertise-peer-urls=http://127.0.0.1:2380",
            "--initial-cluster=flakeid-test=http://127.0.0.1:2380",
        ])
}

async fn version(url: &str) -> Result<String, String> {
    let mut client = Client::connect([url], None)
        .await
        .map_err(|e| e.to_string())?;
    let status = client.status().await.map_err(|e| e.to_string())?;
    Ok(status.version().to_owned())
}

static ETCD: OnceCell<Result<Etcd, String>> = OnceCell::const_new();

static PAUSABLE: OnceCell<Result<Etcd, String>> = OnceCell::const_new();

/// The server in `cell`, started with `init` on first use (on the
/// fixtures' runtime); `what` names it when it did not start.
///
/// # Panics
/// If no server can be had; the message says how to fix it.
async fn fixture<F>(
    cell: &'static OnceCell<Result<Etcd, String>>,
    init: fn() -> F,
    what: &str,
) -> &'static Etcd
where
    F: Future<Output = Result<Etcd, String>> + Send + 'static,
{
    let server = runtime::run(async move {
        cell.get_or_init(init)
            .await
            .as_ref()
            .map_err(Clone::clone)
            .map(|_| ())
    })
    .await;
    match (server, cell.get()) {
        (Ok(()), Some(Ok(etcd))) => etcd,
        (Err(msg), _) => panic!("{msg}"),
        _ => panic!("flakeid-tests: {what} did not start"),
    }
}

async fn start() -> Result<Etcd, String> {
    if let Some(url) = std::env::var(URL_VAR).ok().filter(|u| !u.trim().is_empty()) {
        let url = url.trim().to_owned();
        let version = version(&url).await.map_err(|e| {
            format!("etcd: cannot reach {URL_VAR}={url}: {e}\nFix the URL or unset it to use a container.")
        })?;
        note(&format!("etcd {version} at {url} (from {URL_VAR})"));
        return Ok(Etcd {
            url,
            version,
            container: None,
        });
    }
    start_container().await
}

async fn start_container() -> Result<Etcd, String> {
    let started_at = Instant::now();
    let image = std::env::var(IMAGE_VAR)
        .ok()
        .filter(|i| !i.trim().is_empty())
        .map_or_else(|| DEFAULT_IMAGE.to_owned(), |i| i.trim().to_owned());
    let started = container::start(container(&image)).await.map_err(|e| {
        format!(
            "\n\nflakeid-tests: no etcd server available for this test.\n\
             Starting a container from image `{image}` failed: {e}\n\n\
             Fix it in one of these ways:\n  \
             - run `./scripts/test.sh` (builds a local etcd image from Debian's etcd-server package);\n  \
             - make image `{image}` available (choose another with {IMAGE_VAR}=...);\n  \
             - point the tests at an existing server: {URL_VAR}=http://127.0.0.1:2379\n"
        )
    })?;
    let url = format!("http://{}:{}", started.host, started.port);
    let version = container::retry_connect(Duration::from_secs(60), || version(&url))
        .await
        .map_err(|e| format!("etcd container ({image}) started but: {e}"))?;
    note(&format!(
        "etcd {version} ready at {url} in {:.1}s (container {} from {})",
        started_at.elapsed().as_secs_f64(),
        super::short(started.container.id()),
        image
    ));
    Ok(Etcd {
        url,
        version,
        container: Some(started.container),
    })
}
