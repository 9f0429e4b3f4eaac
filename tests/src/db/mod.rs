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
//!   (`flakeid-postgres:15`, `flakeid-mariadb:10.11`) and selects them.
//!
//! If neither a URL nor a container engine is available, the fixture panics
//! with instructions: a database test never passes without a database.

mod container;
mod mysql;
mod postgres;
mod runtime;

use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use sqlx::mysql::MySqlPool;
use sqlx::postgres::PgPool;
use testcontainers::{ContainerAsync, GenericImage};
use tokio::sync::OnceCell;

use container::{ContainerSpec, note};

/// Which kind of server a [`TestDb`] lives on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Backend {
    /// PostgreSQL.
    Postgres,
    /// MySQL or MariaDB (see [`TestDb::is_mariadb`]).
    MySql,
}

impl Backend {
    fn label(self) -> &'static str {
        match self {
            Backend::Postgres => "PostgreSQL",
            Backend::MySql => "MySQL/MariaDB",
        }
    }

    fn url_var(self) -> &'static str {
        match self {
            Backend::Postgres => postgres::URL_VAR,
            Backend::MySql => mysql::URL_VAR,
        }
    }

    fn image_var(self) -> &'static str {
        match self {
            Backend::Postgres => postgres::IMAGE_VAR,
            Backend::MySql => mysql::IMAGE_VAR,
        }
    }

    fn example_url(self) -> &'static str {
        match self {
            Backend::Postgres => "postgres://postgres:secret@127.0.0.1:5432/postgres",
            Backend::MySql => "mysql://root:secret@127.0.0.1:3306/mysql",
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// One test's own database. Connect to it with [`url`](TestDb::url).
///
/// On an existing server (`FLAKEID_TEST_*_URL`) the database is dropped when
/// this value is dropped, unless the test is panicking. In a container it
/// simply goes away with the container.
pub struct TestDb {
    backend: Backend,
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
        self.backend
    }

    /// The server's version string (`SELECT version()`).
    pub fn server_version(&self) -> &str {
        &self.server.version
    }

    /// The container running the server (`None` for a server given by
    /// URL), e.g. for `docker pause` in tests of an unreachable database.
    pub fn container_id(&self) -> Option<&str> {
        self.server.container.as_ref().map(|c| c.id())
    }

    /// Whether the MySQL-family server is MariaDB (false for PostgreSQL).
    pub fn is_mariadb(&self) -> bool {
        self.backend == Backend::MySql
            && self.server.version.to_ascii_lowercase().contains("mariadb")
    }
}

impl fmt::Debug for TestDb {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TestDb")
            .field("backend", &self.backend)
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
                self.name, self.backend
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

/// A fresh database on the shared PostgreSQL server.
///
/// # Panics
/// If no server can be had (no `FLAKEID_TEST_POSTGRES_URL` and no reachable
/// container engine) or the database cannot be created; the message says how
/// to fix it.
pub async fn postgres() -> TestDb {
    let test = current_test_name();
    unwrap_or_fail(runtime::run(create(Backend::Postgres, test)).await)
}

/// A fresh database on the shared MySQL-family server.
///
/// # Panics
/// As [`postgres`], for `FLAKEID_TEST_MYSQL_URL`.
pub async fn mysql() -> TestDb {
    let test = current_test_name();
    unwrap_or_fail(runtime::run(create(Backend::MySql, test)).await)
}

/// [`postgres`] for synchronous tests (e.g. Diesel). Blocks the thread.
///
/// # Panics
/// As [`postgres`].
pub fn postgres_blocking() -> TestDb {
    let test = current_test_name();
    unwrap_or_fail(runtime::block_on(create(Backend::Postgres, test)))
}

/// [`mysql`] for synchronous tests (e.g. Diesel). Blocks the thread.
///
/// # Panics
/// As [`postgres`], for `FLAKEID_TEST_MYSQL_URL`.
pub fn mysql_blocking() -> TestDb {
    let test = current_test_name();
    unwrap_or_fail(runtime::block_on(create(Backend::MySql, test)))
}

/// A server of one test's own, in a container (never a server given by
/// URL): for a test that crashes the server, which would break every other
/// test on the shared one. The container is removed when this value is
/// dropped (or, at the latest, when the test binary exits).
pub struct OwnServer {
    backend: Backend,
    url: String,
    id: String,
    container: Option<ContainerAsync<GenericImage>>,
}

impl OwnServer {
    /// Admin URL (database `postgres` or `mysql`); it changes with
    /// [`crash_and_restart`](Self::crash_and_restart).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The container's ID.
    pub fn container_id(&self) -> &str {
        &self.id
    }

    /// Kills the server process with SIGKILL (`docker kill`), a crash
    /// without any shutdown, starts the container again (the server
    /// recovers from its log) and waits until it accepts connections.
    ///
    /// # Panics
    /// If a `docker` command fails or the server does not come back.
    pub async fn crash_and_restart(&mut self) {
        let docker = |args: &[&str]| {
            let out = std::process::Command::new("docker")
                .args(args)
                .output()
                .unwrap_or_else(|e| panic!("cannot run docker {args:?}: {e}"));
            assert!(
                out.status.success(),
                "docker {args:?} failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout).trim().to_owned()
        };
        docker(&["kill", "--signal", "KILL", &self.id]);
        docker(&["start", &self.id]);
        let port = match self.backend {
            Backend::Postgres => postgres::PORT,
            Backend::MySql => mysql::PORT,
        };
        // A new host port: `127.0.0.1:49153` (one line per address family).
        let mapped = docker(&["port", &self.id, &format!("{port}/tcp")]);
        let host_port: u16 = mapped
            .lines()
            .find_map(|l| l.rsplit(':').next().and_then(|p| p.parse().ok()))
            .unwrap_or_else(|| panic!("no host port in `docker port`: {mapped:?}"));
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
            .field("id", &self.id)
            .finish()
    }
}

impl Drop for OwnServer {
    fn drop(&mut self) {
        if let Some(container) = self.container.take() {
            runtime::detach(async move {
                if let Err(e) = container.rm().await {
                    note(&format!("could not remove a test's own container: {e}"));
                }
            });
        }
    }
}

/// Starts a server of `backend` for the calling test alone, from the image
/// the shared server uses (`FLAKEID_TEST_POSTGRES_IMAGE`,
/// `FLAKEID_TEST_MYSQL_IMAGE`).
///
/// # Panics
/// If no container can be started; the message says how to fix it.
pub async fn own_server(backend: Backend) -> OwnServer {
    let started = runtime::run(async move {
        let image = std::env::var(backend.image_var())
            .ok()
            .filter(|i| !i.trim().is_empty())
            .map(|i| i.trim().to_owned());
        let spec = match backend {
            Backend::Postgres => postgres::container_spec(
                image.unwrap_or_else(|| postgres::DEFAULT_IMAGE.to_owned()),
            ),
            Backend::MySql => {
                mysql::container_spec(image.unwrap_or_else(|| mysql::DEFAULT_IMAGE.to_owned()))
            }
        };
        let started = container::start(&spec)
            .await
            .map_err(|e| no_server_message(backend, &spec, &e))?;
        let url = match backend {
            Backend::Postgres => postgres::admin_url(&started.host, started.port),
            Backend::MySql => mysql::admin_url(&started.host, started.port),
        };
        container::retry_connect(Duration::from_secs(120), || Admin::connect(backend, &url))
            .await
            .map_err(|e| format!("{backend} container of a test's own: {e}"))?;
        Ok::<_, String>(OwnServer {
            backend,
            url,
            id: started.id.clone(),
            container: Some(started.container),
        })
    })
    .await;
    started.unwrap_or_else(|msg| panic!("{msg}"))
}

fn unwrap_or_fail(result: Result<TestDb, String>) -> TestDb {
    result.unwrap_or_else(|msg| panic!("{msg}"))
}

/// A server shared by all tests of this binary.
struct Server {
    version: String,
    /// Admin URL; per-test URLs replace its database.
    admin_url: url::Url,
    admin: Admin,
    /// Kept so the container lives as long as the process.
    container: Option<ContainerAsync<GenericImage>>,
}

enum Admin {
    Postgres(PgPool),
    MySql(MySqlPool),
}

impl Admin {
    async fn connect(backend: Backend, url: &str) -> Result<Admin, String> {
        match backend {
            Backend::Postgres => postgres::connect_admin(url).await.map(Admin::Postgres),
            Backend::MySql => mysql::connect_admin(url).await.map(Admin::MySql),
        }
    }

    async fn version(&self) -> Result<String, String> {
        match self {
            Admin::Postgres(p) => postgres::version(p).await,
            Admin::MySql(p) => mysql::version(p).await,
        }
    }

    async fn create_database(&self, name: &str) -> Result<(), String> {
        match self {
            Admin::Postgres(p) => postgres::create_database(p, name).await,
            Admin::MySql(p) => mysql::create_database(p, name).await,
        }
    }

    async fn drop_database(&self, name: &str) -> Result<(), String> {
        match self {
            Admin::Postgres(p) => postgres::drop_database(p, name).await,
            Admin::MySql(p) => mysql::drop_database(p, name).await,
        }
    }
}

static POSTGRES: OnceCell<Result<Server, String>> = OnceCell::const_new();
static MYSQL: OnceCell<Result<Server, String>> = OnceCell::const_new();

/// The backend's server, started (or connected) on first use. A failure is
/// remembered so every test fails fast with the same message.
async fn server(backend: Backend) -> Result<&'static Server, String> {
    let cell = match backend {
        Backend::Postgres => &POSTGRES,
        Backend::MySql => &MYSQL,
    };
    cell.get_or_init(|| start_server(backend))
        .await
        .as_ref()
        .map_err(Clone::clone)
}

async fn start_server(backend: Backend) -> Result<Server, String> {
    let started_at = Instant::now();
    if let Some(url) = std::env::var(backend.url_var())
        .ok()
        .filter(|u| !u.trim().is_empty())
    {
        let admin_url = url::Url::parse(url.trim()).map_err(|e| {
            format!(
                "{}: {} is not a valid URL: {e}",
                backend.url_var(),
                redact(&url)
            )
        })?;
        let admin = Admin::connect(backend, admin_url.as_str()).await.map_err(|e| {
            format!(
                "{backend}: cannot connect to {}={}: {e}\nFix the URL or unset it to use a container.",
                backend.url_var(),
                redact(admin_url.as_str())
            )
        })?;
        let version = admin
            .version()
            .await
            .map_err(|e| format!("{backend}: version query failed: {e}"))?;
        note(&format!(
            "{backend} server at {} (from {}) connected in {:.1}s: {version}",
            redact(admin_url.as_str()),
            backend.url_var(),
            started_at.elapsed().as_secs_f64()
        ));
        return Ok(Server {
            version,
            admin_url,
            admin,
            container: None,
        });
    }

    let image = std::env::var(backend.image_var())
        .ok()
        .filter(|i| !i.trim().is_empty())
        .map(|i| i.trim().to_owned());
    let spec: ContainerSpec = match backend {
        Backend::Postgres => {
            postgres::container_spec(image.unwrap_or_else(|| postgres::DEFAULT_IMAGE.to_owned()))
        }
        Backend::MySql => {
            mysql::container_spec(image.unwrap_or_else(|| mysql::DEFAULT_IMAGE.to_owned()))
        }
    };
    let started = container::start(&spec)
        .await
        .map_err(|e| no_server_message(backend, &spec, &e))?;
    let admin_url = match backend {
        Backend::Postgres => postgres::admin_url(&started.host, started.port),
        Backend::MySql => mysql::admin_url(&started.host, started.port),
    };
    let admin = container::retry_connect(Duration::from_secs(120), || {
        Admin::connect(backend, &admin_url)
    })
    .await
    .map_err(|e| {
        format!(
            "{backend} container {} ({}) started but: {e}",
            short(&started.id),
            spec.image
        )
    })?;
    let version = admin
        .version()
        .await
        .map_err(|e| format!("{backend}: version query failed: {e}"))?;
    note(&format!(
        "{backend} server ready at {}:{} in {:.1}s (container {} from {}, {:?} image): {version}",
        started.host,
        started.port,
        started_at.elapsed().as_secs_f64(),
        short(&started.id),
        spec.image,
        spec.kind,
    ));
    let admin_url = url::Url::parse(&admin_url)
        .map_err(|e| format!("internal: bad admin URL {admin_url}: {e}"))?;
    Ok(Server {
        version,
        admin_url,
        admin,
        container: Some(started.container),
    })
}

fn no_server_message(backend: Backend, spec: &ContainerSpec, error: &str) -> String {
    format!(
        "\n\nflakeid-tests: no {backend} server available for this test.\n\
         Starting a container from image `{image}` failed: {error}\n\n\
         Fix it in one of these ways:\n  \
         - run `./scripts/test.sh` (installs and starts Docker, builds local images, runs all tests);\n  \
         - start Docker (or Podman with DOCKER_HOST pointing at its socket) and make sure image `{image}` \
           can be pulled or exists locally (choose another with {image_var}=...);\n  \
         - point the tests at an existing server: {url_var}={example}\n",
        image = spec.image,
        image_var = backend.image_var(),
        url_var = backend.url_var(),
        example = backend.example_url(),
    )
}

async fn create(backend: Backend, test: String) -> Result<TestDb, String> {
    let server = server(backend).await?;
    let name = database_name(&test);
    let mut attempt = 0;
    loop {
        match server.admin.create_database(&name).await {
            Ok(()) => break,
            // Concurrent CREATE DATABASE from one template can collide briefly.
            Err(_) if attempt < 3 => {
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(200 * attempt)).await;
            }
            Err(e) => return Err(format!("{backend}: cannot create database {name}: {e}")),
        }
    }
    let mut url = server.admin_url.clone();
    url.set_path(&format!("/{name}"));
    Ok(TestDb {
        backend,
        name,
        url: url.into(),
        server,
    })
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

/// The URL without its password, for messages.
fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) if u.password().is_some() => {
            let _ = u.set_password(Some("***"));
            u.into()
        }
        Ok(u) => u.into(),
        Err(_) => "<unparsable URL>".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::container::{ImageKind, kind_of, split_image};
    use super::{database_name, redact};

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
    fn image_kinds_follow_the_name() {
        assert_eq!(kind_of("flakeid-postgres:15"), ImageKind::Local);
        assert_eq!(kind_of("flakeid-mariadb:10.11"), ImageKind::Local);
        assert_eq!(kind_of("mariadb:11"), ImageKind::OfficialMariadb);
        assert_eq!(
            kind_of("docker.io/library/mysql:8.4"),
            ImageKind::OfficialMysql
        );
        assert_eq!(kind_of("postgres:16"), ImageKind::OfficialPostgres);
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
