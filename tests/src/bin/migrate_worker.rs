//! A replica's start-up for the migration tests: runs the migrations as an
//! application does (flakeid's lease and segment tables, then its own
//! table `events`), through SeaORM's `Migrator::up` or Diesel's
//! `run_pending_migrations`, then inserts rows with flake keys.
//!
//! ```text
//! migrate_worker --url URL --orm seaorm|diesel --node N [options]
//!   --plain                  the ORM's runner alone, without the lock
//!                            (to reproduce what the lock prevents)
//!   --rows N                 rows to insert into `events` afterwards (100)
//!   --start-at-ms MS         sleep until the wall clock reads MS (Unix ms)
//!                            before migrating, so that processes started
//!                            one by one migrate at the same moment
//! ```
//!
//! A `sqlite://PATH?…` URL serves SeaORM as it is and Diesel as `PATH`.
//! `events(id BIGINT PRIMARY KEY CHECK (id > 0), worker, n)`: the rows,
//! keys from the process-wide generator on node N.
//!
//! Output lines (stdout): `MIGRATED in_ms=..` or `MIGRATION_FAILED <error>`
//! (exit code 3), then `DONE inserted=..` or `ERROR <error>` (exit code 1).

use std::time::Instant;

use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};
use flakeid_core::layout::presets;
use flakeid_core::{Generator, global};
use flakeid_seaorm::FlakeEntity as _;
use flakeid_tests::flake_entity;
use flakeid_tests::worker::{say, sqlite_path, start_at};
use sea_orm::{ActiveValue::NotSet, ConnectionTrait as _, Database, Set};
use sea_orm_migration::{MigrationTrait, MigratorTrait};

#[flakeid_core::flake_id(seaorm, diesel)]
pub struct EventId(i64);

/// The application's own migrations, for Diesel.
const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations");

// The application's own table, for SeaORM.
flake_entity!(mod event = "events", super::EventId { pub worker: i32, pub n: i32, });

diesel::table! {
    events (id) {
        id -> BigInt,
        worker -> Integer,
        n -> Integer,
    }
}

#[derive(diesel::Insertable)]
#[diesel(table_name = events)]
struct NewEvent {
    id: EventId,
    worker: i32,
    n: i32,
}

/// The application's own migration, for SeaORM: the same table as
/// `migrations/2024-01-01-000001_create_events`.
struct CreateEvents;

impl sea_orm_migration::MigrationName for CreateEvents {
    fn name(&self) -> &str {
        "m20240101_000001_create_events"
    }
}

// The trait's signatures elide `SchemaManager`'s lifetime; the impl must match.
#[allow(elided_lifetimes_in_paths)]
#[async_trait::async_trait]
impl MigrationTrait for CreateEvents {
    async fn up(&self, manager: &sea_orm_migration::SchemaManager) -> Result<(), sea_orm::DbErr> {
        manager
            .get_connection()
            .execute_unprepared(include_str!(
                "../../migrations/2024-01-01-000001_create_events/up.sql"
            ))
            .await
            .map(drop)
    }

    async fn down(&self, manager: &sea_orm_migration::SchemaManager) -> Result<(), sea_orm::DbErr> {
        manager
            .get_connection()
            .execute_unprepared("DROP TABLE IF EXISTS events")
            .await
            .map(drop)
    }
}

struct Migrator;

impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(flakeid_seaorm::lease::Migration),
            Box::new(flakeid_seaorm::segment::Migration),
            Box::new(CreateEvents),
        ]
    }
}

struct Args {
    url: String,
    orm: String,
    node: u64,
    plain: bool,
    rows: i32,
    start_at_ms: Option<u64>,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        url: String::new(),
        orm: "seaorm".into(),
        node: 0,
        plain: false,
        rows: 100,
        start_at_ms: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--url" => a.url = value()?,
            "--orm" => a.orm = value()?,
            "--node" => a.node = value()?.parse().map_err(|e| format!("--node: {e}"))?,
            "--plain" => a.plain = true,
            "--rows" => a.rows = value()?.parse().map_err(|e| format!("--rows: {e}"))?,
            "--start-at-ms" => {
                a.start_at_ms = Some(
                    value()?
                        .parse()
                        .map_err(|e| format!("--start-at-ms: {e}"))?,
                );
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if a.url.is_empty() {
        return Err("--url is required".into());
    }
    Ok(a)
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// flakeid's tables, then the application's, through Diesel's runner.
fn diesel_migrate(url: &str, plain: bool) -> Result<(), String> {
    use diesel::Connection as _;
    fn pending<C>(conn: &mut C) -> Result<(), BoxError>
    where
        C: MigrationHarness<C::Backend> + diesel::Connection,
        C::Backend: flakeid_diesel::DieselBackend,
    {
        conn.run_pending_migrations(flakeid_diesel::lease::MIGRATIONS)?;
        conn.run_pending_migrations(flakeid_diesel::segment::MIGRATIONS)?;
        conn.run_pending_migrations(MIGRATIONS)?;
        Ok(())
    }
    fn on<C>(conn: &mut C, plain: bool) -> Result<(), String>
    where
        C: MigrationHarness<C::Backend>
            + diesel::Connection<TransactionManager = diesel::connection::AnsiTransactionManager>
            + diesel::connection::LoadConnection,
        C::Backend: flakeid_diesel::DieselBackend,
    {
        if plain {
            return pending(conn).map_err(|e| e.to_string());
        }
        let lock = flakeid_diesel::migration::MigrationLock::new();
        flakeid_diesel::migration::run(conn, &lock, pending).map_err(|e| e.to_string())
    }
    let connect = |e: diesel::ConnectionError| format!("connect: {e}");
    if url.starts_with("postgres") {
        on(
            &mut diesel::PgConnection::establish(url).map_err(connect)?,
            plain,
        )
    } else if url.starts_with("mysql") {
        on(
            &mut diesel::MysqlConnection::establish(url).map_err(connect)?,
            plain,
        )
    } else {
        on(
            &mut diesel::SqliteConnection::establish(&sqlite_path(url)).map_err(connect)?,
            plain,
        )
    }
}

/// Inserts `rows` rows with keys from the process-wide generator.
fn diesel_insert(url: &str, node: u64, rows: i32) -> Result<usize, String> {
    use diesel::{Connection as _, RunQueryDsl as _};
    let worker = i32::try_from(node).map_err(|e| e.to_string())?;
    let ids = EventId::generate_many(usize::try_from(rows).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let new: Vec<NewEvent> = ids
        .into_iter()
        .zip(0..)
        .map(|(id, n)| NewEvent { id, worker, n })
        .collect();
    let insert = diesel::insert_into(events::table).values(&new);
    let connect = |e: diesel::ConnectionError| format!("connect: {e}");
    if url.starts_with("postgres") {
        insert.execute(&mut diesel::PgConnection::establish(url).map_err(connect)?)
    } else if url.starts_with("mysql") {
        insert.execute(&mut diesel::MysqlConnection::establish(url).map_err(connect)?)
    } else {
        let mut conn = diesel::SqliteConnection::establish(&sqlite_path(url)).map_err(connect)?;
        diesel::sql_query("PRAGMA busy_timeout = 10000")
            .execute(&mut conn)
            .map_err(|e| e.to_string())?;
        insert.execute(&mut conn)
    }
    .map_err(|e| e.to_string())
}

async fn run(a: Args) -> Result<i32, String> {
    global::init(Generator::builder(presets::twitter(), a.node)).map_err(|e| e.to_string())?;
    let db = Database::connect(&a.url)
        .await
        .map_err(|e| format!("connect: {e}"))?;
    if let Some(at) = a.start_at_ms {
        start_at(at).await;
    }
    let started = Instant::now();
    let migrated = match (a.orm.as_str(), a.plain) {
        ("diesel", plain) => {
            let url = a.url.clone();
            tokio::task::spawn_blocking(move || diesel_migrate(&url, plain))
                .await
                .map_err(|e| e.to_string())?
        }
        (_, true) => Migrator::up(&db, None).await.map_err(|e| e.to_string()),
        (_, false) => flakeid_seaorm::migration::up::<Migrator>(&db)
            .await
            .map_err(|e| e.to_string()),
    };
    if let Err(e) = migrated {
        say(&format!("MIGRATION_FAILED {e}"));
        return Ok(3);
    }
    say(&format!("MIGRATED in_ms={}", started.elapsed().as_millis()));
    let inserted = if a.orm == "diesel" {
        let url = a.url.clone();
        let (node, rows) = (a.node, a.rows);
        tokio::task::spawn_blocking(move || diesel_insert(&url, node, rows))
            .await
            .map_err(|e| e.to_string())??
    } else {
        let worker = i32::try_from(a.node).map_err(|e| e.to_string())?;
        let models = (0..a.rows).map(|n| event::ActiveModel {
            id: NotSet,
            worker: Set(worker),
            n: Set(n),
        });
        event::Entity::insert_many_with_ids(models)
            .await
            .map_err(|e| e.to_string())?
            .exec_without_returning(&db)
            .await
            .map_err(|e| e.to_string())?;
        usize::try_from(a.rows).map_err(|e| e.to_string())?
    };
    say(&format!("DONE inserted={inserted}"));
    Ok(0)
}

#[tokio::main]
async fn main() {
    let code = match args() {
        Ok(a) => run(a).await.unwrap_or_else(|e| {
            say(&format!("ERROR {e}"));
            1
        }),
        Err(e) => {
            say(&format!("ERROR {e}"));
            2
        }
    };
    std::process::exit(code);
}
