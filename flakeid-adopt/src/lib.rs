//! Tables that already exist, switched from auto-increment keys to flake
//! keys: the key and every column referencing it widened to `BIGINT`, the
//! identity, sequence default or `AUTO_INCREMENT` dropped, the crate's
//! `CHECK (key > 0)` added, optionally the database's
//! [ID function](flakeid_id_function::IdFunction) as the key's default, and
//! every existing row and key kept as it is.
//!
//! For an application that has tables keyed by auto-increment and wants
//! `#[flake_id]` keys from now on, without renumbering rows or rewriting
//! references: a one-off migration, proven against the tables before it
//! changes anything. The `flakeid sql adopt` command of `flakeid-cli` runs
//! it from the command line.
//!
//! * [`Adoption`] — the tables and columns to switch, the layout, the
//!   cut-over; [`Adoption::read_catalog`] reads the tables as the database
//!   holds them ([`Catalog`], [`KeyTable`], [`Reference`], [`Increment`]),
//!   through any `flakeid-sql` [`AsyncSqlExecutor`].
//! * [`AdoptionPlan`] — the statements of the switch and of its way back,
//!   written from the catalog by [`Adoption::plan`]; [`AdoptError`] — why
//!   not, naming the table, the key and what would fit.
//!
//! ```no_run
//! # async fn example(db: &impl flakeid_sql::AsyncSqlExecutor) -> Result<(), flakeid_adopt::AdoptError> {
//! use std::time::SystemTime;
//! use flakeid_adopt::Adoption;
//! use flakeid_core::layout::presets;
//! use flakeid_sql::Dialect;
//!
//! let adoption = Adoption::new(Dialect::Postgres, presets::twitter())
//!     .table("users", "id")
//!     .table("posts", "id");
//! let catalog = adoption.read_catalog(db).await?; // reads, changes nothing
//! let plan = adoption.plan(&catalog, SystemTime::now())?; // refuses if a key is too large
//! println!("declare #[flake_id(cut_over = {})]", plan.cut_over());
//! print!("{}", Dialect::Postgres.script(plan.up())); // reviewed SQL, for any migration tool
//! # Ok(()) }
//! ```
//!
//! The crate has no features. It builds on `flakeid-core` (layouts, the
//! cut-over of ID types), `flakeid-sql` (dialects, executors) and
//! `flakeid-id-function` (the database's ID function as the key's default).
//!
//! # The cut-over
//!
//! Keys stay as they are, so after the switch a table holds small
//! auto-increment keys beside flake keys. The **cut-over** separates them:
//! the smallest key the layout issues when the migration is written (the
//! first key of that tick, node 0, sequence 0), taken [`clock_skew`](Adoption::clock_skew)
//! (a minute by default) before the planning clock, so that an application
//! host whose clock is behind by that much still issues keys above it.
//! The migration proves, before it changes anything, that every key the
//! table holds — and every value its sequence handed out, stored or not —
//! is below the cut-over, and that the cut-over is not above the first key
//! the layout issues by the database's clock. It refuses otherwise
//! ([`AdoptError::KeyTooLarge`], [`AdoptError::CutOverInFuture`]).
//!
//! Declare the cut-over on the key's ID type, `#[flake_id(cut_over = N)]`
//! ([`FlakeId::CUT_OVER`](flakeid_core::FlakeId::CUT_OVER)): keys below it then
//! decode as "issued before flake keys" instead of a time near the epoch,
//! and count as older than every flake key in
//! [`time_bounds`](flakeid_core::FlakeId::time_bounds). The SQL
//! [`DecodeFunctions`](flakeid_id_function::DecodeFunctions) read them as
//! `NULL` with the same cut-over.
//!
//! A key too large for the layout (say, a table that already held
//! snowflakes of a later epoch) cannot be fixed with a later epoch: a later
//! epoch makes flake keys *smaller*. The error names the latest epoch that
//! puts the first flake key above the largest existing key (an earlier
//! epoch: larger keys, a shorter life), or says that no epoch of the layout
//! can.
//!
//! # What runs, per database
//!
//! [`AdoptionPlan::up`] and [`AdoptionPlan::down`] are statements to run
//! in order on one connection; [`Dialect::script`](flakeid_sql::Dialect::script)
//! writes them for the database's client (`psql`, `mariadb`, `sqlite3
//! -bail`), [`Dialect::batch`](flakeid_sql::Dialect::batch) as one batch
//! for a migration runner (Diesel's `up.sql`, SeaORM's
//! `flakeid_seaorm::migration::SqlMigration`). Both stop at the first
//! error. The proof runs first and, where the database allows, under the
//! same lock as the change, so a row inserted meanwhile cannot slip past
//! it.
//!
//! ## PostgreSQL (15 and later)
//!
//! The proof runs once (a `DO` block that changes nothing), then the ID
//! function is installed (if asked for), then one `DO` block — one
//! transaction, so the proof (again) and every change commit together or
//! not at all — and one statement per table afterwards:
//!
//! | statement | lock (held until the block commits) | cost |
//! |---|---|---|
//! | `LOCK TABLE <referencing tables>, <key tables> IN ACCESS EXCLUSIVE MODE` | `ACCESS EXCLUSIVE` on every table: readers and writers wait | waits for the transactions using the tables to end; referencing tables first, in the order writers lock them (a row first, then the rows it references) |
//! | the proof: `max(key)` and the sequence's last value below the cut-over, the cut-over not above the first key at `clock_timestamp()` | (held) | reads the key's index |
//! | `ALTER TABLE t ALTER COLUMN … TYPE bigint, …` (only columns not yet `bigint`) | `ACCESS EXCLUSIVE` | **rewrites the table** and its indexes (`integer` → `bigint` is not binary coercible), once per table for all its columns; a foreign key over a changed column is checked again |
//! | `ALTER COLUMN key DROP IDENTITY` / `DROP DEFAULT` | `ACCESS EXCLUSIVE` | catalog only; a serial's sequence stays (owned by the column) for the down script |
//! | `ALTER COLUMN key SET DEFAULT flakeid_next_id()` (with an ID function) | `ACCESS EXCLUSIVE` | catalog only |
//! | `ADD CONSTRAINT t_key_flakeid_check CHECK (key > 0)` | `ACCESS EXCLUSIVE` | checked during the rewrite of a rewritten table; on a table not rewritten added `NOT VALID` (catalog only) … |
//! | … `ALTER TABLE t VALIDATE CONSTRAINT t_key_flakeid_check`, after the block | `SHARE UPDATE EXCLUSIVE`: reads and writes go on | scans the table outside the exclusive lock |
//!
//! A table whose key is already `bigint` (`bigserial`, `bigint` identity)
//! and whose references are `bigint` is not rewritten: writers wait only
//! for the catalog changes. Writers that waited insert once the block
//! commits, with the new default. Inside a migration runner's transaction
//! (Diesel, SeaORM) the `VALIDATE` runs in the same transaction, under the
//! exclusive lock.
//!
//! ## MySQL / MariaDB
//!
//! Statements on one connection: the proof, the ID function (if asked
//! for), `LOCK TABLES … WRITE` on every table, the proof again under the
//! lock, `SET FOREIGN_KEY_CHECKS = 0`, `DROP FOREIGN KEY` for every
//! foreign key that references a key (MariaDB refuses to change the type
//! of a column under a foreign key, even with the checks off: MDEV-31086),
//! one `ALTER TABLE … MODIFY COLUMN` per table (the key: `BIGINT`,
//! `UNSIGNED` kept, without `AUTO_INCREMENT`, with its `CHECK`; each
//! reference: `BIGINT`, with its nullability, default and comment stated
//! again, since `MODIFY` replaces the whole definition), the foreign keys
//! added again with their actions (not checked: the checks are off, and
//! no key changed), the ID function's trigger, the foreign key checks as
//! they were, `UNLOCK TABLES`. `ALTER TABLE` copies the table (`ALGORITHM=COPY`
//! for a type change), under the table lock. DDL is not transactional: a
//! failure after the first `ALTER` (a full disk) leaves the earlier tables
//! changed; the proof runs before any of them.
//!
//! ## SQLite
//!
//! An `INTEGER PRIMARY KEY` already holds 64-bit values, and referencing
//! columns need no change (their type is an affinity). What matters is the
//! key's behaviour: as an alias of the rowid (with or without
//! `AUTOINCREMENT`) an insert without a key silently gets the largest key
//! plus one — after the switch a flake-like key that a generator may issue
//! too.
//! So the key becomes `BIGINT NOT NULL PRIMARY KEY CHECK (key > 0)` (`INT`
//! in a `STRICT` table), **not** an alias of the rowid, as the crate's own
//! tables are: an insert without a key fails. The cost: the key gets an
//! index of its own beside the rowid.
//!
//! SQLite changes a column only by rebuilding the table, in one savepoint:
//! the proof (a temporary trigger raising an error), the rows copied to a
//! temporary table, the table dropped and created again under its own name
//! (its `CREATE TABLE` text with the key's definition rewritten), the rows
//! copied back, its indexes and triggers created again from their stored
//! text, `pragma_foreign_key_check` empty. The table keeps its name, so no
//! `ALTER TABLE … RENAME` rewrites other tables' foreign keys, triggers or
//! views (`legacy_alter_table` does not matter). Foreign keys: with
//! enforcement off (`PRAGMA foreign_keys = OFF`, SQLite's default) nothing
//! checks the dropped table; with enforcement on (sqlx's default, and
//! inside a transaction where it cannot be turned off) `PRAGMA
//! defer_foreign_keys = ON` defers the checks to the commit, when the rows
//! are back; the rebuild creates an index on every referencing column
//! first (dropped at the end), since with enforcement on each key dropped
//! and inserted again looks up its referencing rows. Dropping a table with
//! enforcement on would run the `ON
//! DELETE` actions of the foreign keys that reference it (`CASCADE` would
//! delete the referencing rows): the proof refuses that case; run the
//! migration with enforcement off (the `sqlite3` shell). Run scripts with
//! `sqlite3 -bail`: without it the shell goes on after an error.
//!
//! # Down scripts
//!
//! [`AdoptionPlan::down`] restores what the catalog held: the original
//! types (refused with an error when a key no longer fits them — flake
//! keys do not fit `integer`), the identity (continuing above the largest
//! key), the sequence default, `AUTO_INCREMENT`, SQLite's original `CREATE
//! TABLE`; it removes the check, the default and the ID function. Keys
//! stay as they are.
//!
//! # Catalog
//!
//! [`Adoption::read_catalog`] finds the foreign keys that reference each
//! key: PostgreSQL `pg_constraint` (every schema, partitions' inherited
//! constraints once), MySQL/MariaDB
//! `information_schema.KEY_COLUMN_USAGE` (every database), SQLite
//! `pragma_foreign_key_list` over every table. Columns that hold keys
//! without a foreign key are named with [`Adoption::reference`].
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod catalog;
mod cut_over;
mod error;
mod mysql;
mod plan;
mod postgres;
mod read;
mod sqlite;
mod sqlite_create;

pub use catalog::{Catalog, Increment, KeyTable, Reference};
pub use error::AdoptError;
pub use plan::AdoptionPlan;

use core::time::Duration;
use std::time::{SystemTime, UNIX_EPOCH};

use cut_over::unix_millis;
use flakeid_core::encoding::format_rfc3339;
use flakeid_core::layout::{BitLayout, Layout};
use flakeid_id_function::IdFunction;
use flakeid_sql::AsyncSqlExecutor;
use flakeid_sql::Dialect;

/// Switches existing tables from auto-increment keys to flake keys of one
/// [`BitLayout`] (see the [crate documentation](crate)): read the catalog
/// ([`read_catalog`](Self::read_catalog)), then [`plan`](Self::plan) the
/// statements.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use flakeid_adopt::Adoption;
/// use flakeid_core::layout::presets;
/// use flakeid_id_function::IdFunction;
/// use flakeid_sql::Dialect;
///
/// let adoption = Adoption::new(Dialect::Postgres, presets::twitter())
///     .table("users", "id")
///     // plain SQL inserts get keys from the database's ID function, node 1023
///     .id_function(IdFunction::new(Dialect::Postgres, "app", presets::twitter(), 1023))
///     // a column holding user keys without a foreign key
///     .reference("users", "audit_log", "actor_id");
/// let now = UNIX_EPOCH + Duration::from_millis(1_780_000_000_000);
/// // The first key of the layout a minute before `now` (for clock skew).
/// assert_eq!(adoption.cut_over_at(now)?, (1_780_000_000_000 - 60_000 - 1_288_834_974_657) << 22);
/// # Ok::<(), flakeid_adopt::AdoptError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Adoption {
    dialect: Dialect,
    layout: BitLayout,
    tables: Vec<KeyColumn>,
    references: Vec<NamedReference>,
    cut_over: Option<u64>,
    id_function: Option<IdFunction>,
    clock_skew: Duration,
}

impl Adoption {
    /// How far behind the planning clock the cut-over is taken unless
    /// [`clock_skew`](Self::clock_skew) says otherwise: one minute.
    pub const DEFAULT_CLOCK_SKEW: Duration = Duration::from_secs(60);

    /// An adoption for `dialect`'s database, whose new keys are keys of
    /// `layout`. Name its tables with [`table`](Self::table).
    pub fn new(dialect: Dialect, layout: BitLayout) -> Self {
        Adoption {
            dialect,
            layout,
            tables: Vec::new(),
            references: Vec::new(),
            cut_over: None,
            id_function: None,
            clock_skew: Self::DEFAULT_CLOCK_SKEW,
        }
    }

    /// Switches `table`'s key `column` (its primary key) to flake keys,
    /// with every column whose foreign key references it. Tables are
    /// unquoted names in the connection's current schema (PostgreSQL
    /// `search_path`) or database.
    pub fn table(mut self, table: impl Into<String>, column: impl Into<String>) -> Self {
        self.tables.push(KeyColumn {
            table: table.into(),
            column: column.into(),
        });
        self
    }

    /// `table.column` holds keys of `key_table` without a foreign key
    /// saying so: it is widened with the foreign keys' columns.
    pub fn reference(
        mut self,
        key_table: impl Into<String>,
        table: impl Into<String>,
        column: impl Into<String>,
    ) -> Self {
        self.references.push(NamedReference {
            key_table: key_table.into(),
            table: table.into(),
            column: column.into(),
        });
        self
    }

    /// The cut-over: the ID types' [`CUT_OVER`](flakeid_core::FlakeId::CUT_OVER)
    /// when they already declare one. By default the first key of the
    /// layout [`clock_skew`](Self::clock_skew) before the planning time.
    pub fn cut_over(mut self, cut_over: u64) -> Self {
        self.cut_over = Some(cut_over);
        self
    }

    /// Installs `function` (of the same database and layout) and makes it
    /// the default of every key, so that plain SQL inserts get flake keys
    /// (PostgreSQL, MariaDB; see [`IdFunction`]).
    pub fn id_function(mut self, function: IdFunction) -> Self {
        self.id_function = Some(function);
        self
    }

    /// How far behind the planning clock an application host's clock may
    /// be (default [`DEFAULT_CLOCK_SKEW`](Self::DEFAULT_CLOCK_SKEW)): the
    /// computed cut-over is the first key of that earlier time.
    pub fn clock_skew(mut self, skew: Duration) -> Self {
        self.clock_skew = skew;
        self
    }

    /// The dialect.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The layout.
    pub fn layout(&self) -> &BitLayout {
        &self.layout
    }

    /// The smallest key the layout issues at `at`: the first key of its
    /// tick (node 0, sequence 0; 1 at the epoch's first tick).
    ///
    /// # Errors
    /// [`AdoptError::LayoutEnded`] when `at` is past the layout's time.
    pub fn first_key(&self, at: SystemTime) -> Result<u64, AdoptError> {
        let l = &self.layout;
        let ms = unix_millis(at);
        let tick = ms.saturating_sub(l.epoch_millis()) / l.tick_millis();
        if tick > l.max_tick() {
            return Err(AdoptError::LayoutEnded {
                at: format_rfc3339(at),
                end: format_rfc3339(l.end()),
            });
        }
        Ok(l.compose(tick, 0, 0).max(1))
    }

    /// The cut-over a plan made at `now` uses: the one given, or the first
    /// key at `now` minus the clock skew; checked to be at most the first
    /// key at `now`.
    ///
    /// # Errors
    /// [`AdoptError::CutOverInFuture`], [`AdoptError::LayoutEnded`].
    pub fn cut_over_at(&self, now: SystemTime) -> Result<u64, AdoptError> {
        let first = self.first_key(now)?;
        match self.cut_over {
            Some(cut_over) if cut_over > first => Err(AdoptError::CutOverInFuture {
                cut_over,
                first_key: first,
                at: format_rfc3339(now),
            }),
            Some(cut_over) => Ok(cut_over.max(1)),
            None => self.first_key(now.checked_sub(self.clock_skew).unwrap_or(UNIX_EPOCH)),
        }
    }

    /// Reads the tables' keys, auto-increments, largest keys and
    /// referencing columns from the catalog of `db` (see the
    /// [crate documentation](crate#catalog)). Changes nothing.
    ///
    /// # Errors
    /// [`AdoptError`]: a query failed, a table or column does not exist,
    /// is not a primary key of one integer column, or a foreign key of
    /// several columns references it.
    pub async fn read_catalog<E: AsyncSqlExecutor>(&self, db: &E) -> Result<Catalog, AdoptError> {
        if self.tables.is_empty() {
            return Err(AdoptError::NoTables);
        }
        read::read_catalog(self, db).await
    }

    /// The migration of the tables `catalog` describes, planned at `now`:
    /// refused unless every key of every table (and every value its
    /// sequence handed out) is below the cut-over.
    ///
    /// # Errors
    /// [`AdoptError::KeyTooLarge`] (saying which layout change would fit),
    /// [`AdoptError::CutOverInFuture`], a name the database would not keep,
    /// the ID function's errors.
    pub fn plan(&self, catalog: &Catalog, now: SystemTime) -> Result<AdoptionPlan, AdoptError> {
        plan::plan(self, catalog, now)
    }
}

/// A key table and column, as named.
#[derive(Debug, Clone, PartialEq, Eq)]
struct KeyColumn {
    table: String,
    column: String,
}

/// A column named as holding keys of `key_table`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct NamedReference {
    key_table: String,
    table: String,
    column: String,
}

/// The crate's README (its registry page): its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
