//! The lease table on each database through each ORM: created by the
//! helpers and migrations users run, and holding what the protocol says
//! after a claim, renewals and a release (read back with plain SQL).

use std::time::Duration;

use flakeid_lease::{LeaseOptions, NodeTable};
use flakeid_tests::db::{self, TestDb};
use sea_orm::{ConnectionTrait, Database, DatabaseConnection, DbBackend, Statement};
use sea_orm_migration::{MigrationTrait, MigratorTrait};

use super::lease_common::{
    assert_all_taken, assert_held_by_the_test_host, lease_options, scenario_tests,
};

/// The node's row, read with plain SQL: `(owner, fence, lease_until, high_water, holder, db_now)`.
async fn row(
    conn: &DatabaseConnection,
    space: &str,
    node: u64,
) -> (Option<String>, i64, i64, i64, Option<String>, i64) {
    let backend = conn.get_database_backend();
    use flakeid_sql::Dialect;
    let now = match backend {
        DbBackend::MySql => Dialect::MySql,
        DbBackend::Sqlite => Dialect::Sqlite,
        _ => Dialect::Postgres,
    }
    .now_millis();
    let sql = format!(
        "SELECT owner, fence, lease_until, high_water, holder, {now} AS db_now \
         FROM flakeid_nodes WHERE space = '{space}' AND node_id = {node}"
    );
    let r = conn
        .query_one_raw(Statement::from_string(backend, sql))
        .await
        .unwrap()
        .expect("the node's row");
    (
        r.try_get("", "owner").unwrap(),
        r.try_get("", "fence").unwrap(),
        r.try_get("", "lease_until").unwrap(),
        r.try_get("", "high_water").unwrap(),
        r.try_get("", "holder").unwrap(),
        r.try_get("", "db_now").unwrap(),
    )
}

fn options(space: &str) -> LeaseOptions {
    // Long enough that a loaded machine's stall never lets the lease
    // lapse between two reads: these tests follow the rows through a
    // claim, renewals and a release, not an expiry.
    lease_options(space, Duration::from_secs(30))
}

async fn wait_for_renewal(conn: &DatabaseConnection, space: &str, node: u64, above: i64) -> i64 {
    for _ in 0..3_000 {
        let hw = row(conn, space, node).await.3;
        if hw > above {
            return hw;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    panic!("high_water of node {node} never rose above {above}");
}

/// Claim, renewals, listing and release through SeaORM, checked in the table.
async fn seaorm_lease_lifecycle(conn: DatabaseConnection) {
    flakeid_seaorm::lease::create_table(&conn).await.unwrap();
    // Twice: the helper is idempotent.
    flakeid_seaorm::lease::create_table(&conn).await.unwrap();
    let space = "lifecycle-seaorm";
    let lease = flakeid_seaorm::lease::claim(&conn, options(space))
        .await
        .unwrap();
    let node = lease.node();
    assert!(node <= 2);
    let (owner, fence, lease_until, hw, holder, now) = row(&conn, space, node).await;
    assert!(owner.is_some());
    assert_eq!(fence, 1);
    assert!(lease_until >= now, "a live lease by the database's clock");
    assert_eq!(holder.as_deref(), Some("test-host/1"));
    let g = lease.generator_builder().build().unwrap();
    let id = g.next_id().unwrap();
    assert!(
        hw as u64 >= g.layout().timestamp_millis(id),
        "the ceiling is persisted before use"
    );
    // Renewals raise the mark.
    wait_for_renewal(&conn, space, node, hw).await;
    // Every node row exists; operators see the holder.
    let table: NodeTable = flakeid_seaorm::lease::list_nodes(&conn, space)
        .await
        .unwrap();
    assert_held_by_the_test_host(&table, node);
    let last = g.next_id().unwrap();
    let mark = lease.release(&g).await.unwrap();
    assert_eq!(mark, g.layout().timestamp_millis(last));
    let (owner, fence, _, hw, holder, _) = row(&conn, space, node).await;
    assert_eq!((owner, fence, hw), (None, 1, mark as i64));
    assert_eq!(holder.as_deref(), Some("test-host/1"), "kept for operators");
    // The next holder of the node resumes after the mark.
    let again = flakeid_seaorm::lease::claim(&conn, options(space).nodes(node..=node))
        .await
        .unwrap();
    assert_eq!((again.fence(), again.resume_after_millis()), (2, mark));
    again.release_unused().await.unwrap();
}

/// The same through Diesel, with a renewal thread on its own connection.
fn diesel_lease_lifecycle<C>(
    url: &str,
    conn: &mut C,
    probe: &DatabaseConnection,
    rt: &tokio::runtime::Handle,
) where
    C: diesel::Connection + diesel::connection::LoadConnection + Send + 'static,
    C::Backend: flakeid_diesel::DieselBackend,
{
    flakeid_diesel::lease::create_table(conn).unwrap();
    let space = "lifecycle-diesel";
    let url = url.to_owned();
    let lease = flakeid_diesel::lease::claim(move || C::establish(&url), options(space)).unwrap();
    let node = lease.node();
    let g = lease.generator_builder().build().unwrap();
    let id = g.next_id().unwrap();
    let (owner, fence, _, hw, _, _) = rt.block_on(row(probe, space, node));
    assert!(owner.is_some());
    assert_eq!(fence, 1);
    assert!(hw as u64 >= g.layout().timestamp_millis(id));
    rt.block_on(wait_for_renewal(probe, space, node, hw));
    let table = flakeid_diesel::lease::list_nodes(conn, space).unwrap();
    assert_eq!(table.held().map(|r| r.node).collect::<Vec<_>>(), vec![node]);
    let mark = lease.release(&g).unwrap();
    let (owner, _, _, hw, _, _) = rt.block_on(row(probe, space, node));
    assert_eq!((owner, hw), (None, mark as i64));
}

/// The same through `diesel-async`, with a tokio renewal task on its own
/// connection.
async fn diesel_async_lease_lifecycle<C>(db: TestDb)
where
    C: diesel_async::AsyncConnection + 'static,
    C::Backend: flakeid_diesel::AsyncDieselBackend,
{
    use flakeid_diesel::lease_async;
    let url = db.url();
    let probe = &Database::connect(url).await.unwrap();
    let mut conn = C::establish(url).await.unwrap();
    lease_async::create_table(&mut conn).await.unwrap();
    // Twice: the helper is idempotent.
    lease_async::create_table(&mut conn).await.unwrap();
    let space = "lifecycle-diesel-async";
    let lease = lease_async::claim::<C, _, _>(url, options(space))
        .await
        .unwrap();
    let node = lease.node();
    let g = lease.generator_builder().build().unwrap();
    let id = g.next_id().unwrap();
    let (owner, fence, lease_until, hw, holder, now) = row(probe, space, node).await;
    assert!(owner.is_some());
    assert_eq!(fence, 1);
    assert!(lease_until >= now, "a live lease by the database's clock");
    assert_eq!(holder.as_deref(), Some("test-host/1"));
    assert!(
        hw as u64 >= g.layout().timestamp_millis(id),
        "the ceiling is persisted before use"
    );
    // The tokio task renews: the mark rises.
    wait_for_renewal(probe, space, node, hw).await;
    let table = lease_async::list_nodes(&mut conn, space).await.unwrap();
    assert_eq!(table.rows.len(), 3);
    assert_eq!(table.held().map(|r| r.node).collect::<Vec<_>>(), vec![node]);
    let last = g.next_id().unwrap();
    let mark = lease.release(&g).await.unwrap();
    assert_eq!(mark, g.layout().timestamp_millis(last));
    let (owner, fence, _, hw, _, _) = row(probe, space, node).await;
    assert_eq!((owner, fence, hw), (None, 1, mark as i64));
    // The next holder of the node resumes after the mark.
    let again = lease_async::claim::<C, _, _>(url, options(space).nodes(node..=node))
        .await
        .unwrap();
    assert_eq!((again.fence(), again.resume_after_millis()), (2, mark));
    again.release_unused().await.unwrap();
}

/// The lifecycle through SeaORM on `conn`, then through Diesel's `C` on
/// `url` (the same database).
async fn seaorm_then_diesel_lifecycle<C>(conn: DatabaseConnection, url: String)
where
    C: diesel::Connection + diesel::connection::LoadConnection + Send + 'static,
    C::Backend: flakeid_diesel::DieselBackend,
{
    seaorm_lease_lifecycle(conn.clone()).await;
    let rt = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        let mut c = C::establish(&url).unwrap();
        diesel_lease_lifecycle(&url, &mut c, &conn, &rt);
    })
    .await
    .unwrap();
}

/// [`seaorm_then_diesel_lifecycle`] on `db`.
async fn lease_lifecycle_on<C>(db: TestDb)
where
    C: diesel::Connection + diesel::connection::LoadConnection + Send + 'static,
    C::Backend: flakeid_diesel::DieselBackend,
{
    let conn = Database::connect(db.url()).await.unwrap();
    seaorm_then_diesel_lifecycle::<C>(conn, db.url().to_owned()).await;
}

scenario_tests! {
    postgres_diesel_async_lease_rows_follow_claim_renewal_and_release:
        diesel_async_lease_lifecycle::<diesel_async::AsyncPgConnection>(db::postgres().await);
    mariadb_diesel_async_lease_rows_follow_claim_renewal_and_release:
        diesel_async_lease_lifecycle::<diesel_async::AsyncMysqlConnection>(db::mysql().await);
    postgres_lease_rows_follow_claim_renewal_and_release:
        lease_lifecycle_on::<diesel::PgConnection>(db::postgres().await);
    mariadb_lease_rows_follow_claim_renewal_and_release:
        lease_lifecycle_on::<diesel::MysqlConnection>(db::mysql().await);
}

fn sqlite_file(name: &str) -> (std::path::PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("flakeid-lease-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("app.db");
    (dir, path.display().to_string())
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_lease_rows_follow_claim_renewal_and_release() {
    let (dir, path) = sqlite_file("lifecycle");
    let conn = Database::connect(format!("sqlite://{path}?mode=rwc"))
        .await
        .unwrap();
    assert_eq!(conn.get_database_backend(), DbBackend::Sqlite);
    seaorm_then_diesel_lifecycle::<diesel::SqliteConnection>(conn, path).await;
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn postgres_all_nodes_taken_is_an_error_naming_the_count_and_first_expiry() {
    let db = db::postgres().await;
    let conn = Database::connect(db.url()).await.unwrap();
    flakeid_seaorm::lease::create_table(&conn).await.unwrap();
    let mut held = Vec::new();
    for _ in 0..3 {
        held.push(
            flakeid_seaorm::lease::claim(&conn, options("full"))
                .await
                .unwrap(),
        );
    }
    let err = flakeid_seaorm::lease::claim(&conn, options("full"))
        .await
        .unwrap_err();
    assert_all_taken(&err);
    assert!(err.to_string().contains("by the database's clock"), "{err}");
    for l in held {
        l.release_unused().await.unwrap();
    }
}

/// A migrator of the one migration `M`.
struct Only<M>(std::marker::PhantomData<M>);

#[async_trait::async_trait]
impl<M: MigrationTrait + Default + 'static> MigratorTrait for Only<M> {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![Box::new(M::default())]
    }
}

/// Runs the migration `M` up on a fresh SQLite file named for `name`,
/// checks that it created `table`, runs `between`, runs `M` down and
/// checks that `table` is gone.
async fn migration_creates_and_drops<M: MigrationTrait + Default + 'static>(
    name: &str,
    table: &str,
    between: impl AsyncFnOnce(&DatabaseConnection),
) {
    let (dir, path) = sqlite_file(name);
    let conn = Database::connect(format!("sqlite://{path}?mode=rwc"))
        .await
        .unwrap();
    let count = async |conn: &DatabaseConnection| {
        let sql = format!("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = '{table}'");
        let r = conn
            .query_one_raw(Statement::from_string(DbBackend::Sqlite, sql))
            .await
            .unwrap()
            .unwrap();
        r.try_get::<i64>("", "n").unwrap()
    };
    Only::<M>::up(&conn, None).await.unwrap();
    assert_eq!(count(&conn).await, 1);
    between(&conn).await;
    Only::<M>::down(&conn, None).await.unwrap();
    assert_eq!(count(&conn).await, 0);
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn seaorm_migration_creates_and_drops_the_lease_table() {
    migration_creates_and_drops::<flakeid_seaorm::lease::Migration>(
        "seaorm-migration",
        "flakeid_nodes",
        async |conn| {
            let lease = flakeid_seaorm::lease::claim(conn, options("migrated"))
                .await
                .unwrap();
            lease.release_unused().await.unwrap();
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn seaorm_segment_migration_creates_and_drops_the_segment_table() {
    migration_creates_and_drops::<flakeid_seaorm::segment::Migration>(
        "seaorm-segment-migration",
        "flakeid_segments",
        async |_| {},
    )
    .await;
}

/// Runs the pending migrations of `source` on `conn`, and checks that they
/// were its one migration, `version`.
fn run_the_one_migration<DB: diesel::backend::Backend>(
    conn: &mut impl diesel_migrations::MigrationHarness<DB>,
    source: impl diesel::migration::MigrationSource<DB>,
    version: &str,
) {
    let applied = conn.run_pending_migrations(source).unwrap();
    assert_eq!(applied.len(), 1);
    assert_eq!(applied[0].to_string(), version);
}

#[test]
fn diesel_segment_migration_source_runs_with_the_harness() {
    use diesel::Connection as _;
    use diesel_migrations::MigrationHarness as _;
    let mut conn = diesel::SqliteConnection::establish(":memory:").unwrap();
    run_the_one_migration(
        &mut conn,
        flakeid_diesel::segment::MIGRATIONS,
        "00000000000002",
    );
    assert_eq!(
        flakeid_diesel::segment::max_id(&mut conn, "absent").unwrap(),
        None,
        "the migrated table answers and has no row yet"
    );
    conn.revert_last_migration(flakeid_diesel::segment::MIGRATIONS)
        .unwrap();
    assert!(
        flakeid_diesel::segment::max_id(&mut conn, "absent").is_err(),
        "the reverted table is gone"
    );
}

#[test]
fn diesel_migration_source_runs_with_the_harness() {
    use diesel::Connection as _;
    use diesel_migrations::MigrationHarness as _;
    let db = db::postgres_blocking();
    let mut conn = diesel::PgConnection::establish(db.url()).unwrap();
    run_the_one_migration(
        &mut conn,
        flakeid_diesel::lease::MIGRATIONS,
        "00000000000001",
    );
    // Recorded: nothing pending the second time.
    assert!(
        conn.run_pending_migrations(flakeid_diesel::lease::MIGRATIONS)
            .unwrap()
            .is_empty()
    );
    let table = flakeid_diesel::lease::list_nodes(&mut conn, "none").unwrap();
    assert!(table.rows.is_empty());
    conn.revert_last_migration(flakeid_diesel::lease::MIGRATIONS)
        .unwrap();
    assert!(flakeid_diesel::lease::list_nodes(&mut conn, "none").is_err());
}
