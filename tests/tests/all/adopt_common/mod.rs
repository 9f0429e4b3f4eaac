//! What the adoption tests share: three tables keyed by auto-increment
//! (`users` ← `posts` ← `comments`, `comments` also → `users`) on each
//! database, plain SQL on one connection, the migration run as statements,
//! as a SeaORM migration or as Diesel migration files, and a SeaORM app and
//! a Diesel app whose ID types declare the cut-over.
#![allow(unreachable_pub)]

pub mod apps;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

use flakeid_adopt::{Adoption, AdoptionPlan, Catalog};
use flakeid_core::layout::presets;
use flakeid_id_function::IdFunction;
use flakeid_seaorm::SeaOrmExecutor;
use flakeid_sql::{Dialect, MigrationLock};
pub use flakeid_tests::adopt::{Keys, Kind, Row, Sql, create_schema};
use flakeid_tests::db::{self, TestDb};

/// The first key of Twitter's layout at 2026-01-01T00:00:00Z: the cut-over
/// the tests' adoptions use and their ID types declare.
pub const CUT_OVER: u64 = (1_767_225_600_000 - 1_288_834_974_657) << 22;

/// The node of the database's ID function (no application process uses it).
pub const SQL_NODE: u64 = 1000;

/// A test's database: a fresh database on a test server, or a SQLite file.
pub struct Target {
    pub kind: Kind,
    pub url: String,
    _db: Option<TestDb>,
    file: Option<PathBuf>,
}

impl Drop for Target {
    fn drop(&mut self) {
        if let Some(f) = &self.file {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", f.display()));
            }
        }
    }
}

impl Target {
    pub async fn new(kind: Kind) -> Target {
        match kind {
            Kind::Postgres => Self::server(kind, db::postgres().await),
            Kind::MySql => Self::server(kind, db::mysql().await),
            Kind::Sqlite => {
                static N: AtomicU32 = AtomicU32::new(0);
                let file = std::env::temp_dir().join(format!(
                    "flakeid-adopt-{}-{}.db",
                    std::process::id(),
                    N.fetch_add(1, Ordering::Relaxed)
                ));
                let _ = std::fs::remove_file(&file);
                Target {
                    kind,
                    url: format!("sqlite://{}?mode=rwc", file.display()),
                    _db: None,
                    file: Some(file),
                }
            }
        }
    }

    fn server(kind: Kind, db: TestDb) -> Target {
        Target {
            kind,
            url: db.url().to_owned(),
            _db: Some(db),
            file: None,
        }
    }

    pub fn dialect(&self) -> Dialect {
        self.kind.dialect()
    }

    /// The SQLite file's path (for Diesel).
    pub fn path(&self) -> String {
        self.file
            .as_ref()
            .map(|f| f.display().to_string())
            .unwrap_or_else(|| self.url.clone())
    }

    pub async fn sql(&self) -> Sql {
        Sql::connect(self.kind, &self.url).await
    }

    pub async fn seaorm(&self) -> sea_orm::DatabaseConnection {
        sea_orm::Database::connect(&self.url)
            .await
            .expect("SeaORM connects")
    }
}

/// The adoption of the three tables, with the database's ID function as
/// the keys' default where there is one.
pub fn adoption(kind: Kind) -> Adoption {
    let dialect = kind.dialect();
    let adoption = Adoption::new(dialect, presets::twitter())
        .table("users", "id")
        .table("posts", "id")
        .table("comments", "id")
        .cut_over(CUT_OVER);
    match kind {
        Kind::Sqlite => adoption,
        _ => adoption.id_function(IdFunction::new(
            dialect,
            "adopt",
            presets::twitter(),
            SQL_NODE,
        )),
    }
}

/// The catalog, read through SeaORM.
pub async fn catalog(target: &Target, adoption: &Adoption) -> Catalog {
    let db = target.seaorm().await;
    adoption
        .read_catalog(&SeaOrmExecutor::new(db))
        .await
        .unwrap_or_else(|e| panic!("the catalog: {e}"))
}

/// The plan of [`adoption`] for the database as it is now.
pub async fn plan(target: &Target) -> AdoptionPlan {
    let adoption = adoption(target.kind);
    let catalog = catalog(target, &adoption).await;
    adoption
        .plan(&catalog, std::time::SystemTime::now())
        .unwrap_or_else(|e| panic!("the plan: {e}"))
}

/// How a migration runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// Each statement on one connection, as `psql` runs a script.
    Statements,
    /// A `flakeid_seaorm::migration::SqlMigration` under the migration lock.
    SeaOrm,
    /// Diesel migration files (`up.sql`, `down.sql`), under the lock.
    Diesel,
}

/// Runs the plan's up (or down) statements `via`.
pub async fn migrate(
    target: &Target,
    plan: &AdoptionPlan,
    via: Via,
    up: bool,
) -> Result<(), String> {
    match via {
        Via::Statements => {
            let statements = if up { plan.up() } else { plan.down() };
            target.sql().await.all(statements).await
        }
        Via::SeaOrm => {
            use sea_orm_migration::{MigrationTrait, SchemaManager};
            let db = target.seaorm().await;
            let m = flakeid_seaorm::migration::SqlMigration::new(
                "m20260101_000001_adopt",
                plan.up().to_vec(),
                plan.down().to_vec(),
            );
            flakeid_seaorm::migration::run(&db, &MigrationLock::new(), async |db| {
                let manager = SchemaManager::new(db);
                if up {
                    m.up(&manager).await
                } else {
                    m.down(&manager).await
                }
            })
            .await
            .map_err(|e| e.to_string())
        }
        Via::Diesel => {
            let dir = diesel_files(target, plan);
            let (kind, url) = (target.kind, target.path());
            tokio::task::spawn_blocking(move || diesel_migrate(kind, &url, &dir, up))
                .await
                .expect("the Diesel migration's thread")
        }
    }
}

/// The plan as a Diesel migration directory, as `flakeid sql adopt --out` writes it.
fn diesel_files(target: &Target, plan: &AdoptionPlan) -> PathBuf {
    static N: AtomicU32 = AtomicU32::new(0);
    let root = std::env::temp_dir().join(format!(
        "flakeid-adopt-migrations-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let dir = root.join("2026-01-01-000000_adopt");
    std::fs::create_dir_all(&dir).expect("a migration directory");
    let d = target.dialect();
    std::fs::write(dir.join("up.sql"), d.batch(plan.up())).expect("up.sql");
    std::fs::write(dir.join("down.sql"), d.batch(plan.down())).expect("down.sql");
    root
}

fn diesel_migrate(kind: Kind, url: &str, dir: &std::path::Path, up: bool) -> Result<(), String> {
    use diesel::Connection;
    fn go<C>(mut conn: C, dir: &std::path::Path, up: bool) -> Result<(), String>
    where
        C: diesel::Connection<TransactionManager = diesel::connection::AnsiTransactionManager>
            + diesel::connection::LoadConnection
            + diesel_migrations::MigrationHarness<C::Backend>,
        C::Backend: flakeid_diesel::DieselBackend,
    {
        use diesel_migrations::FileBasedMigrations;
        let migrations = FileBasedMigrations::from_path(dir).map_err(|e| e.to_string())?;
        flakeid_diesel::migration::run(&mut conn, &MigrationLock::new(), |c| {
            if up {
                c.run_pending_migrations(migrations).map(drop)
            } else {
                c.revert_last_migration(migrations).map(drop)
            }
        })
        .map_err(|e| e.to_string())
    }
    match kind {
        Kind::Postgres => go(
            diesel::PgConnection::establish(url).map_err(|e| e.to_string())?,
            dir,
            up,
        ),
        Kind::MySql => go(
            diesel::MysqlConnection::establish(url).map_err(|e| e.to_string())?,
            dir,
            up,
        ),
        Kind::Sqlite => go(
            diesel::SqliteConnection::establish(url).map_err(|e| e.to_string())?,
            dir,
            up,
        ),
    }
}

/// What the catalog says of each table, without its keys' values: what a
/// down script must restore.
pub fn shape(catalog: &Catalog) -> Vec<String> {
    catalog
        .tables
        .iter()
        .map(|t| {
            let refs: Vec<String> = t
                .references
                .iter()
                .map(|r| format!("{}.{} {}", r.table, r.column, r.column_type))
                .collect();
            format!(
                "{}.{} {} {:?} [{}]",
                t.table,
                t.column,
                t.column_type,
                t.increment,
                refs.join(", ")
            )
        })
        .collect()
}
