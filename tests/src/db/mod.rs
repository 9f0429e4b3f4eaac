//! A fresh database per test on real PostgreSQL and MySQL-family servers.
//!
//! [`postgres`] and [`mysql`] (and their blocking twins for synchronous
//! tests) create a new, uniquely named database and return a [`TestDb`]
//! whose [`url`](TestDb::url) connects to it. Tests running in parallel in
//! one binary therefore never see each other's tables or rows.
//!
//! Where the server comes from:
//! - `FLAKEID_TEST_POSTGRES_URL` / `FLAKEID_TEST_MYSQL_URL`: an existing
//!   server, given as a URL of a user allowed to create databases. The
//!   databases of passing tests are dropped again; those of failing tests
//!   are kept for inspection (their names start with `ft_`).
//! - otherwise a container, started on first use and shared by all tests
//!   of the binary, removed when the binary exits (also after a panic).
//!   The image comes from `FLAKEID_TEST_POSTGRES_IMAGE` (default
//!   `postgres:17`) / `FLAKEID_TEST_MYSQL_IMAGE` (default `mysql:8.4`;
//!   `mariadb:11` works too). `./scripts/test.sh` builds local images
//!   (`flakeid-postgres:15`, `flakeid-postgres:18`, `flakeid-mariadb:10.11`)
//!   and selects them.
//!
//! A second PostgreSQL server, 18 or later ([`ServerKind::Postgres18`]:
//! `FLAKEID_TEST_POSTGRES18_URL`, else a container of
//! `FLAKEID_TEST_POSTGRES18_IMAGE`, default `postgres:18`), serves
//! [`postgres18`], and serves [`postgres`] too when
//! `FLAKEID_TEST_POSTGRES_SERVER=18`: that is how `./scripts/test.sh` runs
//! every PostgreSQL test on both servers. With
//! `FLAKEID_TEST_POSTGRES_TESTS_LOG=FILE`, [`postgres`] appends the package,
//! test binary and test name of each caller to `FILE`, so the script knows
//! which tests to run again on the second server.
//!
//! [`etcd()`] is an etcd v3 server shared by the binary's tests
//! (`FLAKEID_TEST_ETCD_URL` / `FLAKEID_TEST_ETCD_IMAGE`, default
//! `quay.io/coreos/etcd:v3.5.17`; `./scripts/test.sh` selects
//! `flakeid-etcd:3.4`).
//!
//! [`postgres_to_pause`] and [`mysql_to_pause`] (like [`etcd_to_pause`])
//! give databases on servers of their own, always containers, for the tests
//! that `docker pause` the server: the other tests keep theirs running.
//!
//! If neither a URL nor a container engine is available, the fixture panics
//! with instructions: a database test never passes without a database.
//!
//! [`DedicatedServer`] starts a server of its own, with server settings
//! (e.g. a small buffer pool), for programs such as benchmarks.

mod admin;

mod container;

mod etcd;

mod mysql;

mod postgres;

mod runtime;

use std::fmt;
use std::io::Write as _;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use backon::{ExponentialBuilder, Retryable as _};
use sqlx::mysql::MySqlPool;
use sqlx::postgres::PgPool;
use testcontainers::{ContainerRequest, GenericImage};
use tokio::sync::OnceCell;

pub use container::Container;
use container::note;
pub use etcd::{Etcd, etcd, etcd_to_pause};

/// Selects the server [`postgres`] uses: unset, empty or `default` for
/// [`ServerKind::Postgres`], `18` for [`ServerKind::Postgres18`].
pub const POSTGRES_SERVER_VAR: &str = "FLAKEID_TEST_POSTGRES_SERVER";

/// File to which [`postgres`] appends `package<TAB>binary<TAB>test` for
/// each call (the test binary's target name, e.g. `seaorm_postgres`).
pub const POSTGRES_TESTS_LOG_VAR: &str = "FLAKEID_TEST_POSTGRES_TESTS_LOG";

/// Which kind of server a [`TestDb`] lives on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// PostgreSQL.
    Postgres,
    /// MySQL or MariaDB (see [`TestDb::is_mariadb`]).
    MySql,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Postgres => "PostgreSQL",
            Backend::MySql => "MySQL/MariaDB",
        })
    }
}

/// A server the fixtures start (or connect to), each with its own variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ServerKind {
    /// PostgreSQL from `FLAKEID_TEST_POSTGRES_URL` / `FLAKEID_TEST_POSTGRES_IMAGE`
    /// (default `postgres:17`).
    Postgres,
    /// PostgreSQL 18 or later from `FLAKEID_TEST_POSTGRES18_URL` /
    /// `FLAKEID_TEST_POSTGRES18_IMAGE` (default `postgres:18`). An older
    /// server is refused.
    Postgres18,
    /// MySQL or MariaDB from `FLAKEID_TEST_MYSQL_URL` /
    /// `FLAKEID_TEST_MYSQL_IMAGE` (default `mysql:8.4`).
    MySql,
}

impl ServerKind {
    /// Every kind.
    pub const ALL: [ServerKind; 3] = [
        ServerKind::Postgres,
        ServerKind::Postgres18,
        ServerKind::MySql,
    ];

    /// The protocol family.
    pub fn backend(self) -> Backend {
        match self {
            ServerKind::Postgres | ServerKind::Postgres18 => Backend::Postgres,
            ServerKind::MySql => Backend::MySql,
        }
    }

    /// Variable naming an existing server to use instead of a container.
    pub fn url_var(self) -> &'static str {
        match self {
            ServerKind::Postgres => postgres::URL_VAR,
            ServerKind::Postgres18 => postgres::URL_VAR_18,
            ServerKind::MySql => mysql::URL_VAR,
        }
    }

    /// Variable naming the container image.
    pub fn image_var(self) -> &'static str {
        match self {
            ServerKind::Postgres => postgres::IMAGE_VAR,
            ServerKind::Postgres18 => postgres::IMAGE_VAR_18,
            ServerKind::MySql => mysql::IMAGE_VAR,
        }
    }

    /// Image used when [`image_var`](Self::image_var) is unset or empty.
    pub fn default_image(self) -> &'static str {
        match self {
            ServerKind::Postgres => postgres::DEFAULT_IMAGE,
            ServerKind::Postgres18 => postgres::DEFAULT_IMAGE_18,
            ServerKind::MySql => mysql::DEFAULT_IMAGE,
        }
    }

    /// The image a container of this kind runs.
    pub fn image(self) -> String {
        std::env::var(self.image_var())
            .ok()
            .map(|i| i.trim().to_owned())
            .filter(|i| !i.is_empty())
            .unwrap_or_else(|| self.default_image().to_owned())
    }

    fn example_url(self) -> &'static str {
        match self {
            ServerKind::Postgres => "postgres://postgres:secret@127.0.0.1:5432/postgres",
            ServerKind::Postgres18 => "postgres://postgres:secret@127.0.0.1:5433/postgres",
            ServerKind::MySql => "mysql://root:secret@127.0.0.1:3306/mysql",
        }
    }

    fn container(self, image: &str, settings: &[(&str, &str)]) -> ContainerRequest<GenericImage> {
        match self.backend() {
            Backend::Postgres => postgres::container(image, settings),
            Backend::MySql => mysql::container(image, settings),
        }
    }

    fn admin_url(self, host: &str, port: u16) -> String {
        match self.backend() {
            Backend::Postgres => postgres::admin_url(host, port),
            Backend::MySql => mysql::admin_url(host, port),
        }
    }
}

impl fmt::Display for ServerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ServerKind::Postgres => "PostgreSQL",
            ServerKind::Postgres18 => "PostgreSQL 18",
            ServerKind::MySql => "MySQL/MariaDB",
        })
    }
}

/// One test's own database. Connect to it with [`url`](TestDb::url).
///
/// On an existing server (`FLAKEID_TEST_*_URL`) the database is dropped when
/// this value is dropped, unless the test is panicking. In a container it
/// simply goes away with the container.
pub struct TestDb {
    kind: ServerKind,
    name: String,
    url: String,
    server: &'static Server,
}

impl TestDb {
    /// Connection URL of this test's database, e.g.
    /// `postgres://postgres:flakeid@127.0.0.1:32768/ft_my_test_1234_0`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Name of this test's database.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The kind of server.
    pub fn backend(&self) -> Backend {
        self.kind.backend()
    }

    /// Which of the fixtures' servers the database is on.
    pub fn server_kind(&self) -> ServerKind {
        self.kind
    }

    /// The server's version string (`SELECT version()`).
    pub fn server_version(&self) -> &str {
        &self.server.version
    }

    /// The container running the server (`None` for a server given by
    /// URL), e.g. to pause it in tests of an unreachable database.
    pub fn container(&self) -> Option<&Container> {
        self.server.container.as_ref()
    }

    /// The ID of [`container`](Self::container).
    pub fn container_id(&self) -> Option<&str> {
        self.container().map(Container::id)
    }

    /// Whether the MySQL-family server is MariaDB (false for PostgreSQL).
    pub fn is_mariadb(&self) -> bool {
        self.backend() == Backend::MySql
            && self.server.version.to_ascii_lowercase().contains("mariadb")
    }
}

impl fmt::Debug for TestDb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TestDb")
            .field("server", &self.kind)
            .field("name", &self.name)
            .field("url", &self.url)
            .field("server_version", &self.server.version)
            .finish()
    }
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if self.server.container.is_some() {
            return;
        }
        if std::thread::panicking() {
            note(&format!(
                "test failed: keeping database {} on {} for inspection",
                self.name, self.kind
            ));
            return;
        }
        let server = self.server;
        let name = std::mem::take(&mut self.name);
        if runtime::on_fixture_thread() {
            // Blocking here could stall the runtime that has to run the drop.
            runtime::detach(async move {
                if let Err(e) = server.admin.drop_database(&name).await {
                    note(&format!("could not drop database {name}: {e}"));
                }
            });
            return;
        }
        let result = runtime::block_on(async move {
            let dropped =
                tokio::time::timeout(Duration::from_secs(30), server.admin.drop_database(&name))
                    .await;
            (name, dropped)
        });
        match result {
            (_, Ok(Ok(()))) => {}
            (name, Ok(Err(e))) => note(&format!("could not drop database {name}: {e}")),
            (name, Err(_)) => note(&format!("dropping database {name} timed out")),
        }
    }
}

/// A fresh database on the PostgreSQL server selected by
/// `FLAKEID_TEST_POSTGRES_SERVER` (by default [`ServerKind::Postgres`]).
///
/// # Panics
/// If no server can be had (no `FLAKEID_TEST_POSTGRES_URL` and no reachable
/// container engine), the database cannot be created, or
/// `FLAKEID_TEST_POSTGRES_SERVER` has another value than `default` or `18`;
/// the message says how to fix it.
pub async fn postgres() -> TestDb {
    let test = current_test_name();
    let kind = unwrap_or_fail(logged_postgres(&test));
    unwrap_or_fail(runtime::run(create(kind, test)).await)
}

/// A fresh database on the PostgreSQL 18 server ([`ServerKind::Postgres18`]),
/// for tests of what only PostgreSQL 18 has (e.g. `uuidv7()`).
///
/// # Panics
/// As [`postgres`], for `FLAKEID_TEST_POSTGRES18_URL`, and if that server
/// is older than 18.
pub async fn postgres18() -> TestDb {
    let test = current_test_name();
    unwrap_or_fail(runtime::run(create(ServerKind::Postgres18, test)).await)
}

/// A fresh database on the shared MySQL-family server.
///
/// # Panics
/// As [`postgres`], for `FLAKEID_TEST_MYSQL_URL`.
pub async fn mysql() -> TestDb {
    let test = current_test_name();
    unwrap_or_fail(runtime::run(create(ServerKind::MySql, test)).await)
}

/// A fresh database on a PostgreSQL server in a container of its own
/// (of the kind [`postgres`] uses, and logged like it for the PostgreSQL 18
/// pass), shared only by the tests that pause it (`docker pause`): a pause
/// does not stall the tests on the shared server. Tests that pause it
/// should also hold one lock among themselves, so that one's pause does not
/// cut another's.
///
/// # Panics
/// As [`postgres`]; also if no container can be started (a server given by
/// URL cannot be paused).
pub async fn postgres_to_pause() -> TestDb {
    let test = current_test_name();
    let kind = unwrap_or_fail(logged_postgres(&test));
    unwrap_or_fail(
        runtime::run(async move { create_on(server_to_pause(kind).await?, kind, test).await })
            .await,
    )
}

/// [`postgres_to_pause`] for the MySQL-family server.
///
/// # Panics
/// As [`postgres_to_pause`], for `FLAKEID_TEST_MYSQL_IMAGE`.
pub async fn mysql_to_pause() -> TestDb {
    let test = current_test_name();
    let kind = ServerKind::MySql;
    unwrap_or_fail(
        runtime::run(async move { create_on(server_to_pause(kind).await?, kind, test).await })
            .await,
    )
}

/// [`postgres`] for synchronous tests (e.g. Diesel). Blocks the thread.
///
/// # Panics
/// As [`postgres`].
pub fn postgres_blocking() -> TestDb {
    let test = current_test_name();
    let kind = unwrap_or_fail(logged_postgres(&test));
    unwrap_or_fail(runtime::block_on(create(kind, test)))
}

/// [`postgres18`] for synchronous tests. Blocks the thread.
///
/// # Panics
/// As [`postgres18`].
pub fn postgres18_blocking() -> TestDb {
    let test = current_test_name();
    unwrap_or_fail(runtime::block_on(create(ServerKind::Postgres18, test)))
}

/// [`mysql`] for synchronous tests (e.g. Diesel). Blocks the thread.
///
/// # Panics
/// As [`postgres`], for `FLAKEID_TEST_MYSQL_URL`.
pub fn mysql_blocking() -> TestDb {
    let test = current_test_name();
    unwrap_or_fail(runtime::block_on(create(ServerKind::MySql, test)))
}

/// A server of one test's own, in a container (never a server given by
/// URL): for a test that crashes the server, which would break every other
/// test on the shared one. The container is removed when this value is
/// dropped (or, at the latest, when the test binary exits).
pub struct OwnServer {
    backend: Backend,
    url: String,
    container: Container,
}

impl OwnServer {
    /// Admin URL (database `postgres` or `mysql`); it changes with
    /// [`crash_and_restart`](Self::crash_and_restart).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The container's ID.
    pub fn container_id(&self) -> &str {
        self.container.id()
    }

    /// Kills the server process with SIGKILL (`docker kill`), a crash
    /// without any shutdown, starts the container again (the server
    /// recovers from its log) and waits until it accepts connections.
    ///
    /// # Panics
    /// If the container engine refuses or the server does not come back.
    pub async fn crash_and_restart(&mut self) {
        let port = match self.backend {
            Backend::Postgres => postgres::PORT,
            Backend::MySql => mysql::PORT,
        };
        // A new host port.
        let host_port = self
            .container
            .crash_and_start(port)
            .await
            .unwrap_or_else(|e| panic!("{e}"));
        let mut url = url::Url::parse(&self.url).expect("the server's URL");
        url.set_port(Some(host_port)).expect("a URL with a port");
        self.url = url.into();
        let backend = self.backend;
        let admin = self.url.clone();
        let connected = runtime::run(async move {
            container::retry_connect(Duration::from_secs(120), || Admin::connect(backend, &admin))
                .await
                .map(drop)
        })
        .await;
        if let Err(e) = connected {
            panic!("{backend} did not come back after the crash: {e}");
        }
    }
}

impl fmt::Debug for OwnServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OwnServer")
            .field("backend", &self.backend)
            .field("url", &self.url)
            .field("id", &self.container.id())
            .finish()
    }
}

/// Starts a server of `backend` for the calling test alone, from the image
/// the shared server uses (`FLAKEID_TEST_POSTGRES_IMAGE`, or
/// `FLAKEID_TEST_POSTGRES18_IMAGE` when `FLAKEID_TEST_POSTGRES_SERVER=18`;
/// `FLAKEID_TEST_MYSQL_IMAGE`).
///
/// # Panics
/// If no container can be started; the message says how to fix it.
pub async fn own_server(backend: Backend) -> OwnServer {
    let started = runtime::run(async move {
        // The PostgreSQL server `postgres()` uses (`FLAKEID_TEST_POSTGRES_SERVER`).
        let kind = match backend {
            Backend::Postgres => selected_postgres()?,
            Backend::MySql => ServerKind::MySql,
        };
        let started = start_container(kind, &[]).await?;
        Ok::<_, String>(OwnServer {
            backend,
            url: started.admin_url.into(),
            container: started.container,
        })
    })
    .await;
    started.unwrap_or_else(|msg| panic!("{msg}"))
}

/// A server started for one program alone, with server settings of its own
/// (e.g. a small buffer pool for a benchmark). Unlike the test fixtures it
/// always runs a container of [`ServerKind::image`] (the `*_URL` variables
/// are ignored: an existing server's settings are not ours to change), and
/// the container is removed by [`stop`](Self::stop), when this value is
/// dropped, or when the process exits.
pub struct DedicatedServer {
    kind: ServerKind,
    inner: ContainerServer,
}

impl DedicatedServer {
    /// Starts a container of `kind` with `settings`: PostgreSQL `-c name=value`,
    /// MySQL/MariaDB `--name=value`.
    ///
    /// # Errors
    /// A message saying why no server could be started, or that a
    /// [`ServerKind::Postgres18`] image runs an older version.
    pub async fn start(kind: ServerKind, settings: &[(&str, &str)]) -> Result<Self, String> {
        let inner = start_container(kind, settings).await?;
        Ok(DedicatedServer { kind, inner })
    }

    /// The kind of server.
    pub fn kind(&self) -> ServerKind {
        self.kind
    }

    /// The image it runs.
    pub fn image(&self) -> &str {
        &self.inner.image
    }

    /// `SELECT version()`.
    pub fn version(&self) -> &str {
        &self.inner.version
    }

    /// URL of the administrative user and database.
    pub fn admin_url(&self) -> &str {
        self.inner.admin_url.as_str()
    }

    /// Creates database `name` (lowercase ASCII letters, digits and `_`,
    /// at most 63 bytes) and returns its URL.
    ///
    /// # Errors
    /// An invalid name, or the server's error.
    pub async fn create_database(&self, name: &str) -> Result<String, String> {
        check_database_name(name)?;
        self.inner.admin.create_database(name).await?;
        let mut url = self.inner.admin_url.clone();
        url.set_path(&format!("/{name}"));
        Ok(url.into())
    }

    /// Drops database `name` if it exists.
    ///
    /// # Errors
    /// An invalid name, or the server's error.
    pub async fn drop_database(&self, name: &str) -> Result<(), String> {
        check_database_name(name)?;
        self.inner.admin.drop_database(name).await
    }

    /// Removes the container.
    ///
    /// # Errors
    /// The container engine's error.
    pub async fn stop(self) -> Result<(), String> {
        self.inner.container.remove().await
    }
}

/// The URL without its password, for messages: `mysql://root:***@db:3306/mysql`.
pub fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.into()
        }
        Ok(u) => u.into(),
        Err(_) => "<unparsable URL>".to_owned(),
    }
}

fn unwrap_or_fail<T>(result: Result<T, String>) -> T {
    result.unwrap_or_else(|msg| panic!("{msg}"))
}

/// The PostgreSQL server [`postgres`] uses, after logging `test` for the
/// PostgreSQL 18 pass.
fn logged_postgres(test: &str) -> Result<ServerKind, String> {
    let kind = selected_postgres()?;
    log_postgres_test(test)?;
    Ok(kind)
}

/// The server [`postgres`] uses, from `FLAKEID_TEST_POSTGRES_SERVER`.
fn selected_postgres() -> Result<ServerKind, String> {
    let value = std::env::var(POSTGRES_SERVER_VAR).unwrap_or_default();
    parse_postgres_server(&value)
}

fn parse_postgres_server(value: &str) -> Result<ServerKind, String> {
    match value.trim() {
        "" | "default" => Ok(ServerKind::Postgres),
        "18" => Ok(ServerKind::Postgres18),
        other => Err(format!(
            "{POSTGRES_SERVER_VAR}={other:?} is not a PostgreSQL server of the fixtures; \
             use `default` ({}) or `18` ({})",
            postgres::IMAGE_VAR,
            postgres::IMAGE_VAR_18
        )),
    }
}

/// Appends this test to `FLAKEID_TEST_POSTGRES_TESTS_LOG`, if set. A log
/// that cannot be written fails the test: a test missing from it would not
/// run on the second server.
fn log_postgres_test(test: &str) -> Result<(), String> {
    let Some(path) = std::env::var_os(POSTGRES_TESTS_LOG_VAR).filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    // Cargo sets the package name in the environment of the tests it runs.
    let package = std::env::var("CARGO_PKG_NAME").unwrap_or_default();
    let binary = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.file_name().map(|n| target_name(&n.to_string_lossy())))
        .unwrap_or_default();
    if package.is_empty() || binary.is_empty() {
        return Err(format!(
            "{POSTGRES_TESTS_LOG_VAR} is set, but this test binary's package or target is \
             unknown (package {package:?}, target {binary:?}); run it through `cargo test`"
        ));
    }
    let line = format!("{package}\t{binary}\t{test}\n");
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        // One write of one short line: concurrent tests' lines do not mix.
        .and_then(|mut f| f.write_all(line.as_bytes()))
        .map_err(|e| {
            format!(
                "cannot append to {POSTGRES_TESTS_LOG_VAR}={}: {e}",
                std::path::Path::new(&path).display()
            )
        })
}

/// The Cargo target name of a test executable: `seaorm_postgres-0123456789abcdef`
/// is target `seaorm_postgres`.
fn target_name(file_name: &str) -> String {
    match file_name.rsplit_once('-') {
        Some((stem, hash)) if hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()) => {
            stem.to_owned()
        }
        _ => file_name.to_owned(),
    }
}

/// A server shared by all tests of this binary.
struct Server {
    version: String,
    /// Admin URL; per-test URLs replace its database.
    admin_url: url::Url,
    admin: Admin,
    /// Kept so the container lives as long as the process.
    container: Option<Container>,
}

enum Admin {
    Postgres(PgPool),
    MySql(MySqlPool),
}

impl Admin {
    async fn connect(backend: Backend, url: &str) -> Result<Admin, String> {
        match backend {
            Backend::Postgres => admin::connect(url).await.map(Admin::Postgres),
            Backend::MySql => admin::connect(url).await.map(Admin::MySql),
        }
    }

    async fn version(&self) -> Result<String, String> {
        match self {
            Admin::Postgres(p) => admin::text(p, postgres::VERSION).await,
            Admin::MySql(p) => admin::text(p, mysql::VERSION).await,
        }
    }

    /// The version string, after checking that a [`ServerKind::Postgres18`]
    /// server is at least 18.
    async fn checked_version(&self, kind: ServerKind, source: &str) -> Result<String, String> {
        let version = self
            .version()
            .await
            .map_err(|e| format!("{kind}: version query failed: {e}"))?;
        if let (ServerKind::Postgres18, Admin::Postgres(p)) = (kind, self) {
            let num = postgres::version_num(p)
                .await
                .map_err(|e| format!("{kind}: {e}"))?;
            if num < postgres::VERSION_NUM_18 {
                return Err(format!(
                    "{kind}: {source} runs {version} (server_version_num {num}), not 18 or \
                     later; point {} or {} at PostgreSQL 18",
                    kind.image_var(),
                    kind.url_var()
                ));
            }
        }
        Ok(version)
    }

    async fn create_database(&self, name: &str) -> Result<(), String> {
        match self {
            Admin::Postgres(p) => admin::execute(p, postgres::create_database(name)).await,
            Admin::MySql(p) => admin::execute(p, mysql::create_database(name)).await,
        }
    }

    async fn drop_database(&self, name: &str) -> Result<(), String> {
        match self {
            Admin::Postgres(p) => admin::execute(p, postgres::drop_database(name)).await,
            Admin::MySql(p) => admin::execute(p, mysql::drop_database(name)).await,
        }
    }
}

static POSTGRES: OnceCell<Result<Server, String>> = OnceCell::const_new();

static POSTGRES18: OnceCell<Result<Server, String>> = OnceCell::const_new();

static MYSQL: OnceCell<Result<Server, String>> = OnceCell::const_new();

static POSTGRES_TO_PAUSE: OnceCell<Result<Server, String>> = OnceCell::const_new();

static POSTGRES18_TO_PAUSE: OnceCell<Result<Server, String>> = OnceCell::const_new();

static MYSQL_TO_PAUSE: OnceCell<Result<Server, String>> = OnceCell::const_new();

/// The pausable server of `kind`: always a container, started on first use.
async fn server_to_pause(kind: ServerKind) -> Result<&'static Server, String> {
    let cell = match kind {
        ServerKind::Postgres => &POSTGRES_TO_PAUSE,
        ServerKind::Postgres18 => &POSTGRES18_TO_PAUSE,
        ServerKind::MySql => &MYSQL_TO_PAUSE,
    };
    cell.get_or_init(|| container_server(kind, "server to pause"))
        .await
        .as_ref()
        .map_err(Clone::clone)
}

/// The server of `kind`, started (or connected) on first use. A failure is
/// remembered so every test fails fast with the same message.
async fn server(kind: ServerKind) -> Result<&'static Server, String> {
    let cell = match kind {
        ServerKind::Postgres => &POSTGRES,
        ServerKind::Postgres18 => &POSTGRES18,
        ServerKind::MySql => &MYSQL,
    };
    cell.get_or_init(|| start_server(kind))
        .await
        .as_ref()
        .map_err(Clone::clone)
}

async fn start_server(kind: ServerKind) -> Result<Server, String> {
    let started_at = Instant::now();
    if let Some(url) = std::env::var(kind.url_var())
        .ok()
        .filter(|u| !u.trim().is_empty())
    {
        let admin_url = url::Url::parse(url.trim()).map_err(|e| {
            format!(
                "{}: {} is not a valid URL: {e}",
                kind.url_var(),
                redact(&url)
            )
        })?;
        let admin = Admin::connect(kind.backend(), admin_url.as_str())
            .await
            .map_err(|e| {
                format!(
                    "{kind}: cannot connect to {}={}: {e}\nFix the URL or unset it to use a container.",
                    kind.url_var(),
                    redact(admin_url.as_str())
                )
            })?;
        let version = admin
            .checked_version(kind, &format!("the server at {}", kind.url_var()))
            .await?;
        note(&format!(
            "{kind} server at {} (from {}) connected in {:.1}s: {version}",
            redact(admin_url.as_str()),
            kind.url_var(),
            started_at.elapsed().as_secs_f64()
        ));
        return Ok(Server {
            version,
            admin_url,
            admin,
            container: None,
        });
    }

    container_server(kind, "server").await
}

/// A server of `kind` in a container of its own; `role` names it in the
/// note (e.g. "server to pause").
async fn container_server(kind: ServerKind, role: &str) -> Result<Server, String> {
    let started_at = Instant::now();
    let started = start_container(kind, &[]).await?;
    note(&format!(
        "{kind} {role} ready at {}:{} in {:.1}s (container {} from {}): {}",
        started.admin_url.host_str().unwrap_or("?"),
        started.admin_url.port().unwrap_or(0),
        started_at.elapsed().as_secs_f64(),
        short(started.container.id()),
        started.image,
        started.version,
    ));
    Ok(Server {
        version: started.version,
        admin_url: started.admin_url,
        admin: started.admin,
        container: Some(started.container),
    })
}

/// A container of `kind`, connected and version-checked.
struct ContainerServer {
    image: String,
    version: String,
    admin_url: url::Url,
    admin: Admin,
    container: Container,
}

async fn start_container(
    kind: ServerKind,
    settings: &[(&str, &str)],
) -> Result<ContainerServer, String> {
    let image = kind.image();
    let started = container::start(kind.container(&image, settings))
        .await
        .map_err(|e| no_server_message(kind, &image, &e))?;
    let admin_url = kind.admin_url(&started.host, started.port);
    let admin = container::retry_connect(Duration::from_secs(120), || {
        Admin::connect(kind.backend(), &admin_url)
    })
    .await
    .map_err(|e| {
        format!(
            "{kind} container {} ({}) started but: {e}",
            short(started.container.id()),
            image
        )
    })?;
    let version = admin
        .checked_version(kind, &format!("image {}={image}", kind.image_var()))
        .await?;
    let admin_url = url::Url::parse(&admin_url)
        .map_err(|e| format!("internal: bad admin URL {admin_url}: {e}"))?;
    Ok(ContainerServer {
        image,
        version,
        admin_url,
        admin,
        container: started.container,
    })
}

fn no_server_message(kind: ServerKind, image: &str, error: &str) -> String {
    let selected = if kind == ServerKind::Postgres18 {
        format!(
            "\n  (this server serves tests calling `postgres18()`, and `postgres()` when \
             {POSTGRES_SERVER_VAR}=18; unset that to use {} / {})",
            postgres::URL_VAR,
            postgres::IMAGE_VAR
        )
    } else {
        String::new()
    };
    format!(
        "\n\nflakeid-tests: no {kind} server available for this test.\n\
         Starting a container from image `{image}` failed: {error}\n\n\
         Fix it in one of these ways:\n  \
         - run `./scripts/test.sh` (installs and starts Docker, builds local images, runs all tests);\n  \
         - start Docker (or Podman with DOCKER_HOST pointing at its socket) and make sure image `{image}` \
           can be pulled or exists locally (choose another with {image_var}=...);\n  \
         - point the tests at an existing server: {url_var}={example}{selected}\n",
        image_var = kind.image_var(),
        url_var = kind.url_var(),
        example = kind.example_url(),
    )
}

async fn create(kind: ServerKind, test: String) -> Result<TestDb, String> {
    create_on(server(kind).await?, kind, test).await
}

async fn create_on(
    server: &'static Server,
    kind: ServerKind,
    test: String,
) -> Result<TestDb, String> {
    let name = database_name(&test);
    // Concurrent CREATE DATABASE from one template can collide briefly.
    let backoff = ExponentialBuilder::new().with_min_delay(Duration::from_millis(200));
    (async || server.admin.create_database(&name).await)
        .retry(backoff.with_max_times(3))
        .sleep(tokio::time::sleep)
        .await
        .map_err(|e| format!("{kind}: cannot create database {name}: {e}"))?;
    let mut url = server.admin_url.clone();
    url.set_path(&format!("/{name}"));
    Ok(TestDb {
        kind,
        name,
        url: url.into(),
        server,
    })
}

fn check_database_name(name: &str) -> Result<(), String> {
    let valid = !name.is_empty()
        && name.len() <= 63
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if valid {
        Ok(())
    } else {
        Err(format!(
            "database name {name:?} must be 1 to 63 lowercase ASCII letters, digits or `_`"
        ))
    }
}

/// libtest names each test's thread after the test.
fn current_test_name() -> String {
    std::thread::current().name().unwrap_or("test").to_owned()
}

/// `ft_<test name>_<pid>_<n>`: recognisable, unique across parallel tests
/// and concurrent runs, within PostgreSQL's 63 and MySQL's 64 byte limits.
fn database_name(test: &str) -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let last = test.rsplit("::").next().unwrap_or(test);
    let mut slug: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    slug.truncate(32);
    format!("ft_{slug}_{}_{n}", std::process::id())
}

fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use testcontainers::{ContainerRequest, GenericImage};

    use super::container::{LABEL, RUN_LABEL, is_local, split_image};
    use super::{
        ServerKind, check_database_name, database_name, mysql, parse_postgres_server, postgres,
        redact, target_name,
    };

    #[test]
    fn the_postgres_server_is_selected_by_name() {
        assert_eq!(parse_postgres_server(""), Ok(ServerKind::Postgres));
        assert_eq!(parse_postgres_server("default"), Ok(ServerKind::Postgres));
        assert_eq!(parse_postgres_server(" 18 "), Ok(ServerKind::Postgres18));
        let err = parse_postgres_server("17").unwrap_err();
        assert!(
            err.contains("FLAKEID_TEST_POSTGRES_SERVER=\"17\""),
            "the message names the variable and the value: {err}"
        );
    }

    #[test]
    fn test_executables_map_to_their_targets() {
        assert_eq!(
            target_name("seaorm_postgres-0123456789abcdef"),
            "seaorm_postgres"
        );
        assert_eq!(
            target_name("flakeid_tests-fedcba9876543210"),
            "flakeid_tests"
        );
        // Not a Cargo hash: kept whole.
        assert_eq!(target_name("db-quick"), "db-quick");
        assert_eq!(target_name("harness"), "harness");
    }

    /// The command of a container request, as `docker run` gets it.
    fn command(request: ContainerRequest<GenericImage>) -> Vec<String> {
        request.cmd().map(String::from).collect()
    }

    #[test]
    fn server_settings_become_the_container_command() {
        let local = postgres::container("flakeid-postgres:18", &[("shared_buffers", "64MB")]);
        assert_eq!(
            command(local),
            [
                "/usr/local/bin/flakeid-start-postgres",
                "-c",
                "shared_buffers=64MB"
            ]
        );
        let official = postgres::container("postgres:18", &[("fsync", "off")]);
        assert_eq!(command(official), ["postgres", "-c", "fsync=off"]);
        // Without settings the image's own command runs.
        assert!(command(postgres::container("postgres:18", &[])).is_empty());

        let local = mysql::container(
            "flakeid-mariadb:10.11",
            &[("innodb-buffer-pool-size", "64M")],
        );
        assert_eq!(
            command(local),
            [
                "/usr/local/bin/flakeid-start-mariadb",
                "--innodb-buffer-pool-size=64M"
            ]
        );
        let official = mysql::container("mariadb:11", &[("innodb-buffer-pool-size", "64M")]);
        assert_eq!(command(official), ["--innodb-buffer-pool-size=64M"]);
    }

    #[test]
    fn containers_carry_the_labels_the_clean_up_looks_for() {
        let request = mysql::container("mariadb:11", &[]);
        let labels = request.labels();
        assert_eq!(labels.get(LABEL).map(String::as_str), Some("1"));
        let run = std::env::var("FLAKEID_TEST_RUN_ID").unwrap_or_else(|_| "manual".to_owned());
        assert_eq!(labels.get(RUN_LABEL), Some(&run));
        assert_eq!(request.descriptor(), "mariadb:11");
    }

    #[test]
    fn dedicated_database_names_are_checked() {
        assert!(check_database_name("bench_pg18_r1").is_ok());
        for bad in ["", "Bench", "a-b", "a;drop", &"x".repeat(64)] {
            let err = check_database_name(bad).unwrap_err();
            assert!(err.contains(&format!("{bad:?}")), "{err}");
        }
    }

    #[test]
    fn image_references_split_into_name_and_tag() {
        assert_eq!(split_image("postgres:16"), ("postgres", "16"));
        assert_eq!(split_image("mysql"), ("mysql", "latest"));
        assert_eq!(
            split_image("registry:5000/team/mariadb"),
            ("registry:5000/team/mariadb", "latest")
        );
        assert_eq!(
            split_image("registry:5000/mariadb:11"),
            ("registry:5000/mariadb", "11")
        );
    }

    #[test]
    fn local_images_are_told_apart_by_name() {
        for local in [
            "flakeid-postgres:15",
            "flakeid-mariadb:10.11",
            "flakeid-etcd:3.4",
        ] {
            assert!(is_local(local), "{local}");
        }
        for official in [
            "mariadb:11",
            "docker.io/library/mysql:8.4",
            "postgres:16",
            "quay.io/coreos/etcd:v3.5.17",
        ] {
            assert!(!is_local(official), "{official}");
        }
    }

    #[test]
    fn database_names_are_safe_unique_and_short() {
        let a = database_name("orm::diesel::Inserts-A-Very-Long-Test-Name-That-Goes-On-And-On");
        let b = database_name("orm::diesel::Inserts-A-Very-Long-Test-Name-That-Goes-On-And-On");
        assert_ne!(a, b);
        for name in [&a, &b] {
            assert!(name.len() <= 63, "{name}");
            assert!(name.starts_with("ft_inserts_a_very_long"), "{name}");
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{name}"
            );
        }
    }

    #[test]
    fn passwords_are_redacted() {
        assert_eq!(
            redact("mysql://root:secret@db:3306/mysql"),
            "mysql://root:***@db:3306/mysql"
        );
        assert_eq!(redact("postgres://u@h/d"), "postgres://u@h/d");
    }
}
