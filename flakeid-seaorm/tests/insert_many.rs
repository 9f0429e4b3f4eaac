//! `insert_many_with_ids` reserves the keys of one statement in one step:
//! one contiguous run of the generator's positions, however busy the
//! generator is, so the rows land together at the right edge of the key's
//! index. Checked with what SQLite stored, read back with plain SQL.
#![allow(unreachable_pub)] // generated entity items are `pub` inside private modules

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use std::sync::OnceLock;

use flakeid_seaorm::flakeid_core::layout::{Layout, presets};
use flakeid_seaorm::flakeid_core::runtime::Attempt;
use flakeid_seaorm::flakeid_core::{
    ConfigError, Decoded, FieldOutOfRange, GenerateError, Generator, IdScheme, IdSource, global,
};
use flakeid_seaorm::{FlakeActiveModel, FlakeEntity, flake_id};
use sea_orm::{ConnectionTrait, Database, DbBackend, EntityTrait, NotSet, Schema, Set, Statement};

#[flake_id]
pub struct EventId(i64);

/// A generator that someone else always uses between two single calls:
/// every `next_id` comes after another caller's ID. A batch is one call.
#[derive(Debug)]
struct Busy(Generator);

impl IdScheme for Busy {
    fn max_id(&self) -> u64 {
        self.0.max_id()
    }
    fn check(&self, id: u64) -> Result<(), FieldOutOfRange> {
        self.0.check(id)
    }
    fn decode(&self, id: u64) -> Decoded {
        self.0.decode(id)
    }
}

impl IdSource for Busy {
    fn next_id(&self) -> Result<u64, GenerateError> {
        self.0.next_id()?; // the other caller's
        self.0.next_id()
    }
    fn next_ids(&self, n: usize) -> Result<Vec<u64>, GenerateError> {
        self.0.next_ids(n)
    }
    // What async callers (the SeaORM helpers) call.
    fn attempt_next_id(&self) -> Result<Attempt<u64>, GenerateError> {
        self.0.next_id()?; // the other caller's
        self.0.attempt_next_id()
    }
    fn attempt_next_ids(&self, n: usize) -> Result<Attempt<Vec<u64>>, GenerateError> {
        IdSource::attempt_next_ids(&self.0, n)
    }
}

fn busy() -> Result<&'static Busy, ConfigError> {
    static BUSY: OnceLock<Busy> = OnceLock::new();
    if let Some(b) = BUSY.get() {
        return Ok(b);
    }
    let g = Generator::builder(presets::twitter(), 4).build()?;
    Ok(BUSY.get_or_init(|| Busy(g)))
}

#[flake_id(layout = presets::twitter, source = busy)]
pub struct BusyId(i64);

mod busy_event {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "busy_events")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::BusyId,
        pub n: i64,
    }
}

mod event {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "events")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::EventId,
        pub n: i64,
    }
}

/// Each statement's stored keys, in row order, as positions of the
/// Twitter layout (`tick · 4096 + sequence`) must be consecutive.
fn assert_runs(stored: &[(i64, i64)], per_statement: usize) {
    let layout = presets::twitter();
    let position = |id: i64| {
        let p = layout.decompose(id as u64);
        p.tick * layout.sequences_per_tick() + p.sequence
    };
    for statement in stored.chunks(per_statement) {
        for w in statement.windows(2) {
            assert_eq!(
                position(w[1].0),
                position(w[0].0) + 1,
                "rows {} and {} of one statement are not adjacent",
                w[0].1,
                w[1].1
            );
        }
    }
}

async fn stored(
    db: &sea_orm::DatabaseConnection,
    table: &str,
) -> Result<Vec<(i64, i64)>, sea_orm::DbErr> {
    let rows = db
        .query_all_raw(Statement::from_string(
            DbBackend::Sqlite,
            format!("SELECT id, n FROM {table} ORDER BY n"),
        ))
        .await?;
    rows.iter()
        .map(|r| Ok((r.try_get("", "id")?, r.try_get("", "n")?)))
        .collect()
}

/// Inserts `statements` statements of `rows` rows each with
/// `insert_many_with_ids` into `_entity`'s table; row `i` of statement `s`
/// is `model(s · 1000 + i)`.
async fn insert_statements<E>(
    db: &sea_orm::DatabaseConnection,
    _entity: E,
    statements: i64,
    rows: i64,
    model: impl Fn(i64) -> E::ActiveModel,
) -> Result<(), sea_orm::DbErr>
where
    E: EntityTrait,
    E::ActiveModel: FlakeActiveModel + Send,
{
    for s in 0..statements {
        let models: Vec<E::ActiveModel> = (0..rows).map(|i| model(s * 1_000 + i)).collect();
        E::insert_many_with_ids(models).await?.exec(db).await?;
    }
    Ok(())
}

/// Deterministic: with a generator someone else uses between any two
/// single calls, assigning keys one by one would leave a gap after every
/// row.
#[tokio::test]
async fn a_statements_keys_are_one_run_even_when_every_single_call_is_interleaved()
-> Result<(), Box<dyn std::error::Error>> {
    let db = Database::connect("sqlite::memory:").await?;
    db.execute(&Schema::new(DbBackend::Sqlite).create_table_from_entity(busy_event::Entity))
        .await?;
    insert_statements(&db, busy_event::Entity, 3, 100, |n| {
        busy_event::ActiveModel {
            id: NotSet,
            n: Set(n),
        }
    })
    .await?;
    let rows = stored(&db, "busy_events").await?;
    assert_eq!(rows.len(), 300);
    assert_runs(&rows, 100);
    Ok(())
}

/// With real threads: another caller takes IDs from the process-wide
/// generator all along.
#[tokio::test]
async fn a_statements_keys_are_one_contiguous_run_while_other_callers_generate()
-> Result<(), Box<dyn std::error::Error>> {
    global::init(Generator::builder(presets::twitter(), 3))?;
    let db = Database::connect("sqlite::memory:").await?;
    db.execute(&Schema::new(DbBackend::Sqlite).create_table_from_entity(event::Entity))
        .await?;

    // Another caller takes IDs from the same generator all along; the
    // inserts start once it has taken its first.
    let stop = Arc::new(AtomicBool::new(false));
    let (started, running) = std::sync::mpsc::channel();
    let other = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut taken = 0u64;
            while !stop.load(Ordering::Relaxed) {
                EventId::generate().expect("an ID");
                if taken == 0 {
                    let _ = started.send(());
                }
                taken += 1;
            }
            taken
        })
    };
    running.recv()?;
    insert_statements(&db, event::Entity, 20, 500, |n| event::ActiveModel {
        id: NotSet,
        n: Set(n),
    })
    .await?;
    stop.store(true, Ordering::Relaxed);
    let taken = other.join().expect("the other caller");
    assert!(taken > 0, "the other caller took no ID");

    let rows = stored(&db, "events").await?;
    assert_eq!(rows.len(), 20 * 500);
    assert_runs(&rows, 500);
    Ok(())
}
