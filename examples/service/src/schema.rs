//! The service's tables: `teams` and `players`, which reference each other
//! (a player belongs to a team; a team's captain is one of its players).

use flakeid_seaorm::flake_id;
use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, DbErr, Statement};

/// Key of `teams`.
#[flake_id]
pub struct TeamId(i64);

/// Key of `players`.
#[flake_id]
pub struct PlayerId(i64);

/// The longest team or player name, in characters (the columns'
/// `VARCHAR(100)`: characters on PostgreSQL, SQLite and MySQL's utf8mb4).
pub const MAX_NAME_CHARS: usize = 100;

pub mod team {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "teams")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::TeamId,
        pub name: String,
        /// NULL only inside the transaction that creates the team (see
        /// `create_tables`).
        pub captain_id: Option<super::PlayerId>,
    }
}

pub mod player {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "players")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::PlayerId,
        pub team_id: super::TeamId,
        pub name: String,
    }
}

/// Creates `teams` and `players` unless they exist. Any number of replicas
/// may run it at once.
///
/// Written as SQL rather than derived from the entities because the two
/// tables reference each other, which `create_table_from_entity` cannot
/// express: one of the two foreign keys has to be added after both tables
/// exist (PostgreSQL, MySQL), or declared ahead of the table it names
/// (SQLite, which cannot add a constraint later).
///
/// `teams.captain_id` is nullable and its key is checked at once (not
/// deferred): MySQL/MariaDB have no deferrable constraints, so a team is
/// inserted without its captain, then its players, then the captain is set,
/// all in one transaction. No other transaction sees the team before its
/// captain is set. The key `(id, captain_id) → players (team_id, id)` makes
/// the database refuse a captain who plays for another team.
///
/// # Errors
/// The database's.
pub async fn create_tables(db: &DatabaseConnection) -> Result<(), DbErr> {
    match db.get_database_backend() {
        DbBackend::Postgres => {
            // A bare `CREATE TABLE IF NOT EXISTS` run by two processes at once
            // can fail in one of them (the row type's unique index); a
            // transaction-scoped advisory lock makes them take turns, and the
            // DO block makes the whole schema one transaction.
            db.execute_unprepared(&format!(
                "DO $service$ BEGIN
                   PERFORM pg_advisory_xact_lock({SCHEMA_LOCK_KEY});
                   IF to_regclass('teams') IS NULL THEN
                     CREATE TABLE {TEAMS};
                     CREATE TABLE {PLAYERS};
                     {CAPTAIN_FK};
                   END IF;
                 END $service$"
            ))
            .await?;
        }
        DbBackend::MySql => {
            // DDL commits by itself on MySQL; a named lock (held by this
            // connection, hence the transaction) serialises the replicas, and
            // each step is safe to repeat after a crash half-way.
            let txn = sea_orm::TransactionTrait::begin(db).await?;
            txn.execute_unprepared("SELECT GET_LOCK('flakeid_service_schema', 60)")
                .await?;
            txn.execute_unprepared(&format!("CREATE TABLE IF NOT EXISTS {TEAMS}"))
                .await?;
            txn.execute_unprepared(&format!("CREATE TABLE IF NOT EXISTS {PLAYERS}"))
                .await?;
            let fk = txn
                .query_one_raw(Statement::from_string(
                    DbBackend::MySql,
                    "SELECT 1 FROM information_schema.table_constraints \
                     WHERE table_schema = DATABASE() AND table_name = 'teams' \
                     AND constraint_name = 'teams_captain_fk'",
                ))
                .await?;
            if fk.is_none() {
                txn.execute_unprepared(CAPTAIN_FK).await?;
            }
            txn.execute_unprepared("SELECT RELEASE_LOCK('flakeid_service_schema')")
                .await?;
            txn.commit().await?;
        }
        _ => {
            // SQLite: writers take turns (sqlx waits for the file's lock);
            // a foreign key may name a table created after it.
            db.execute_unprepared(
                "CREATE TABLE IF NOT EXISTS teams (
                   id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0),
                   name VARCHAR(100) NOT NULL,
                   captain_id BIGINT NULL,
                   CONSTRAINT teams_captain_fk FOREIGN KEY (id, captain_id)
                     REFERENCES players (team_id, id));
                 CREATE TABLE IF NOT EXISTS players (
                   id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0),
                   team_id BIGINT NOT NULL REFERENCES teams (id),
                   name VARCHAR(100) NOT NULL,
                   CONSTRAINT players_team_id_id UNIQUE (team_id, id));",
            )
            .await?;
        }
    }
    Ok(())
}

/// The PostgreSQL advisory lock taken while the tables are created (any
/// number that other code of the database does not use for its own locks).
const SCHEMA_LOCK_KEY: i64 = 0x666c_616b_6573_7663; // "flakesvc"

/// `teams` (PostgreSQL and MySQL).
const TEAMS: &str = "teams (
    id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0),
    name VARCHAR(100) NOT NULL,
    captain_id BIGINT NULL)";

/// `players`; `UNIQUE (team_id, id)` is what the captain's
/// key refers to, and the index that lists a team's players in ID order.
const PLAYERS: &str = "players (
    id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0),
    team_id BIGINT NOT NULL,
    name VARCHAR(100) NOT NULL,
    CONSTRAINT players_team_fk FOREIGN KEY (team_id) REFERENCES teams (id),
    CONSTRAINT players_team_id_id UNIQUE (team_id, id))";

/// The captain's key, added once both tables exist.
const CAPTAIN_FK: &str = "ALTER TABLE teams ADD CONSTRAINT teams_captain_fk \
    FOREIGN KEY (id, captain_id) REFERENCES players (team_id, id)";
