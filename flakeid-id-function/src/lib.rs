//! IDs issued and read by the database itself, in the application's
//! layout: for rows that SQL scripts, other services or a database console
//! insert, and for analysts who read keys in SQL.
//!
//! * [`IdFunction`] — a PostgreSQL or MariaDB function that composes IDs
//!   exactly as a [`Generator`](flakeid_core::Generator) of one
//!   [`BitLayout`] and node does, as the key column's default (a `BEFORE
//!   INSERT` trigger on MariaDB). Rows inserted by SQL and rows inserted by
//!   the application then share one ordered, unique key space. The node is
//!   reserved in the lease table of `flakeid-lease`, so that no application
//!   process leases it; one file per dialect (`postgres.rs`, `mysql.rs`).
//! * [`DecodeFunctions`] — SQL functions (or, on SQLite, expressions) that
//!   read an ID's time, tick, node, node fields and sequence, exactly as
//!   [`Decoded`](flakeid_core::Decoded) gives them in Rust (`decode.rs`);
//!   [`IdPart`] names what to read.
//! * [`IdFunctionError`] — why the SQL cannot be written.
//!
//! Both write SQL text and run nothing: apply the statements in a
//! migration (`flakeid-seaorm`'s `migration::SqlMigration`, Diesel's
//! `up.sql`) or with the `flakeid sql` command of `flakeid-cli`.
//!
//! ```
//! use flakeid_core::layout::presets;
//! use flakeid_id_function::{DecodeFunctions, IdFunction, IdPart};
//! use flakeid_sql::Dialect;
//!
//! // Node 1023 of the space "orders", issued by PostgreSQL.
//! let f = IdFunction::new(Dialect::Postgres, "orders", presets::twitter(), 1023);
//! let mut migration = f.install()?; // the function, its state, the node's reservation
//! migration.extend(f.column_default("orders", "id")?);
//! assert_eq!(migration.last().unwrap(), r#"ALTER TABLE "orders" ALTER COLUMN "id" SET DEFAULT "flakeid_next_id"()"#);
//!
//! // Reading the keys back in SQL: SELECT flakeid_id_time(id) FROM orders
//! let decode = DecodeFunctions::new(Dialect::Postgres, presets::twitter());
//! assert_eq!(decode.function(&IdPart::Time)?, r#""flakeid_id_time""#);
//! # Ok::<(), flakeid_id_function::IdFunctionError>(())
//! ```
//!
//! The crate has no features. It builds on `flakeid-core` (layouts),
//! `flakeid-sql` (dialects, names) and `flakeid-lease` (the lease table
//! the node is reserved in).
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod decode;
mod error;
mod mysql;
mod plan;
mod postgres;

pub use decode::{DecodeFunctions, IdPart};
pub use error::IdFunctionError;

use core::time::Duration;

use flakeid_core::layout::BitLayout;
use flakeid_lease::LeaseOptions;
use flakeid_sql::Dialect;

/// IDs issued by the database itself, in the application's layout: a
/// PostgreSQL or MariaDB function that composes IDs exactly as a
/// [`Generator`](flakeid_core::Generator) of one [`BitLayout`] and node does,
/// for use as the key column's default. Rows inserted by SQL scripts,
/// other services or a database console and rows inserted by the
/// application then share one ordered, unique key space.
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_id_function::IdFunction;
/// use flakeid_sql::Dialect;
///
/// let f = IdFunction::new(Dialect::Postgres, "orders", presets::twitter(), 1023);
/// let install: Vec<String> = f.install()?; // run in order, e.g. in a migration
/// assert_eq!(install.len(), 5);
/// assert_eq!(f.call()?, "\"flakeid_next_id\"()");
/// assert_eq!(
///     f.column_default("orders", "id")?,
///     ["ALTER TABLE \"orders\" ALTER COLUMN \"id\" SET DEFAULT \"flakeid_next_id\"()"],
/// );
/// # Ok::<(), flakeid_id_function::IdFunctionError>(())
/// ```
///
/// # The node
///
/// The function issues IDs of one node of one lease space, and reserves
/// that node in the lease table ([the lease protocol](flakeid_lease::LeaseOptions#the-lease-protocol), `flakeid_nodes` by
/// default) so that no application process leases it: the install sets the
/// node's row to an owner token of its own (`sql:` and 16 hex digits
/// derived from the function name, space and node, so running the install
/// again changes nothing), a `holder` naming the function, and a lease
/// that never ends ([`NodeRow::RESERVED_UNTIL_MILLIS`](flakeid_lease::NodeRow::RESERVED_UNTIL_MILLIS)).
/// The install fails if a live lease holds the node. Every call of the
/// function reads the row: it refuses to issue when the row no longer
/// names its token, and it stamps no ID at or before the row's
/// `high_water` (the last time the node's previous holders used), so IDs of
/// the node stay disjoint in time across holders, as between application
/// processes. [`IdFunction::uninstall`] drops the function, records its
/// last time as `high_water` and frees the row.
///
/// Applications that do not lease their node IDs must be configured so
/// that none of them uses the function's node.
///
/// # What the function guarantees
///
/// | | PostgreSQL (15 and later) | MariaDB (10.3 and later) |
/// |---|---|---|
/// | state: the last position (tick × 2^sequence bits + sequence) | a sequence, `CACHE 1` | an InnoDB table's `AUTO_INCREMENT` counter |
/// | kept when the inserting transaction rolls back | yes: sequences are not transactional | yes: `AUTO_INCREMENT` values are not given back |
/// | kept across a crash for every committed row | yes: the sequence is WAL-logged ahead of its values, and a committing transaction flushes that log | yes: the counter is redo-logged with the insert that moved it (persistent since MariaDB 10.2.4), before the row's commit |
/// | calls of concurrent transactions | serialised only while the function runs (a session-level advisory lock, released before it returns) | serialised only while the function runs (`GET_LOCK`, released before it returns) |
/// | clock | `clock_timestamp()`, or [`IdFunction::clock_function`] | the statement's start (`@@timestamp`) plus the time since then (`SYSDATE(6)`), or [`IdFunction::clock_function`] |
///
/// On both databases, every call:
///
/// * never returns an ID twice, and returns increasing IDs (monotonic per
///   node), whatever the transactions that called it did (rolled back,
///   still open, or reading a repeatable-read snapshot: the state is read
///   outside the snapshot);
/// * stamps the clock's current tick; when the tick's sequence values are
///   used up it waits for the next tick, for at most
///   [`max_wait`](IdFunction::max_wait), then raises an error (it never
///   wraps the sequence and never stamps a future tick);
/// * raises an error when the clock reads earlier than the tick of the
///   node's last ID, not after the row's high-water mark, before the
///   layout's epoch, or past the layout's last tick;
/// * raises an error when the lease row no longer reserves the node for it.
///
/// Errors are raised as SQLSTATE `P0001` (PostgreSQL) or `45000` (MariaDB)
/// with a message starting `flakeid:`; an insert that gets one fails and
/// the transaction can be retried. The state is only ever moved forward:
/// a refused call on MariaDB uses up one position (the node's next ID has
/// a sequence number one higher), on PostgreSQL none.
///
/// Only the function may touch its state: calling `nextval` on the
/// sequence, inserting into the state table, or re-creating either lets
/// the function repeat IDs issued before a clock step back. The state
/// belongs to one layout: to change the layout, uninstall first.
///
/// ## What it costs
///
/// Each call reads the node's lease row by its primary key and runs
/// under a lock that spans only the call: concurrent inserting
/// transactions wait for each other only while the function runs, never
/// until one commits. On MariaDB each call also inserts and deletes one row
/// of the state table; on PostgreSQL a call in a new tick writes the
/// sequence (`setval`), a call within a tick increments it (`nextval`).
///
/// ## Why MariaDB does not use a sequence, and what MySQL 8 needs
///
/// A MariaDB `SEQUENCE` is not transactional and would be the natural
/// state, but the function must move it forward to the clock's tick, and
/// `SETVAL` takes only literals while stored functions and triggers may
/// not run dynamic SQL. An InnoDB `AUTO_INCREMENT` counter moves forward
/// with an explicit insert, is never given back, and is persistent since
/// MariaDB 10.2.4 and MySQL 8.0.
///
/// The MariaDB text uses two MariaDB extensions: `CREATE OR REPLACE
/// FUNCTION` and an anonymous `BEGIN NOT ATOMIC … END` block (for the
/// reservation's check and the uninstall). MySQL 8 has neither: it would
/// need `DROP FUNCTION IF EXISTS` before `CREATE FUNCTION`, and those two
/// blocks as stored procedures; with binary logging on (MySQL 8's default)
/// creating the function needs `log_bin_trust_function_creators = 1` or the
/// `SUPER` privilege. Everything else it uses (`GET_LOCK`, `SIGNAL`,
/// `SYSDATE(6)`, `@@timestamp`, triggers) exists in MySQL 8, but it is not
/// tested there.
///
/// ## The column default
///
/// PostgreSQL takes the function as the column's `DEFAULT`
/// ([`IdFunction::column_default`]). MariaDB does not allow stored
/// functions in `DEFAULT`: [`IdFunction::column_default`] writes a `BEFORE
/// INSERT` trigger that sets the column when the insert gives it no value
/// (`NULL` or 0), and a `DEFAULT 0` (MariaDB requires a default for
/// columns an `INSERT … SELECT` leaves out, even when a trigger sets them).
/// Rows the application inserts with an ID keep their ID.
///
/// On MariaDB the function reads the clock from `SYSDATE(6)`, in the
/// session's time zone: a statement that runs across a daylight-saving
/// change of that zone is refused (or, for a change forward, stamps IDs an
/// hour ahead); a server started with `--sysdate-is-now` cannot wait for
/// the next tick within one statement and refuses after
/// [`max_wait`](IdFunction::max_wait) instead.
///
/// # Names
///
/// Every name (function, state, lease table, clock function, table,
/// column, trigger) is written as a quoted identifier, and refused with
/// [`SqlNameError`](flakeid_sql::SqlNameError) where the database would not keep it exactly (see
/// [`Dialect::identifier`](flakeid_sql::Dialect::identifier)). The space
/// and the messages are written as string literals that read the same in
/// every escaping mode.
///
/// The SQL that makes a database issue IDs of one [`BitLayout`] and node;
/// see above.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdFunction {
    dialect: Dialect,
    space: String,
    layout: BitLayout,
    node: u64,
    function: String,
    state: Option<String>,
    lease_table: String,
    clock_function: Option<String>,
    max_wait: Duration,
    lock_timeout: Duration,
}

impl IdFunction {
    /// The function [`IdFunction::DEFAULT_FUNCTION`] issuing IDs of `layout` for `node`
    /// of lease space `space`, with the lease table
    /// [`LeaseOptions::DEFAULT_TABLE`], the database's clock, [`IdFunction::DEFAULT_MAX_WAIT`] and
    /// [`IdFunction::DEFAULT_LOCK_TIMEOUT`]. Nothing is checked until SQL is written.
    pub fn new(dialect: Dialect, space: impl Into<String>, layout: BitLayout, node: u64) -> Self {
        IdFunction {
            dialect,
            space: space.into(),
            layout,
            node,
            function: IdFunction::DEFAULT_FUNCTION.to_owned(),
            state: None,
            lease_table: LeaseOptions::DEFAULT_TABLE.to_owned(),
            clock_function: None,
            max_wait: IdFunction::DEFAULT_MAX_WAIT,
            lock_timeout: IdFunction::DEFAULT_LOCK_TIMEOUT,
        }
    }

    flakeid_core::__private::setters! {
        /// The function's name (default [`IdFunction::DEFAULT_FUNCTION`]). On PostgreSQL
        /// the function, its state and the lease table are found through the
        /// `search_path` in force when [`install`](Self::install) runs.
        function_name(name: impl Into<String>) => function = name.into();

        /// The name of the state: a sequence on PostgreSQL, a table on MariaDB
        /// (default: the function's name followed by `_state`).
        state_name(name: impl Into<String>) => state = Some(name.into());

        /// The lease table (default [`LeaseOptions::DEFAULT_TABLE`]).
        lease_table(name: impl Into<String>) => lease_table = name.into();

        /// Reads the time from this function (no arguments, returning the Unix
        /// time in milliseconds as `BIGINT`) instead of the database's clock:
        /// for tests that set the clock, as [`ManualClock`](flakeid_core::ManualClock)
        /// does for a generator.
        clock_function(name: impl Into<String>) => clock_function = Some(name.into());

        /// How long a call waits for the next tick when the current tick's
        /// sequence values are used up before it raises an error (default
        /// [`IdFunction::DEFAULT_MAX_WAIT`], at most [`IdFunction::MAX_MAX_WAIT`]; zero raises at
        /// once). Whole milliseconds.
        max_wait(max: Duration) => max_wait = max;

        /// MariaDB: how long a call waits for another session's call to finish
        /// before it raises an error (default [`IdFunction::DEFAULT_LOCK_TIMEOUT`],
        /// rounded up to whole seconds, 1 s to 1 h).
        lock_timeout(timeout: Duration) => lock_timeout = timeout;
    }

    /// The dialect.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The layout.
    pub fn layout(&self) -> &BitLayout {
        &self.layout
    }

    /// The node.
    pub fn node(&self) -> u64 {
        self.node
    }

    /// The lease space.
    pub fn space(&self) -> &str {
        &self.space
    }

    /// The `owner` token the install writes into the node's lease row:
    /// `sql:` and 16 hex digits derived from the function's name, the
    /// space and the node.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// use flakeid_id_function::IdFunction;
    /// use flakeid_sql::Dialect;
    /// let f = IdFunction::new(Dialect::MySql, "orders", presets::twitter(), 1);
    /// assert!(f.owner().starts_with("sql:"));
    /// assert_eq!(f.owner().len(), 20);
    /// assert_ne!(f.owner(), f.clone().function_name("other").owner());
    /// ```
    pub fn owner(&self) -> String {
        let mut hash = Fnv::new();
        hash.write(self.function.as_bytes());
        hash.write(&[0]);
        hash.write(self.space.as_bytes());
        hash.write(&[0]);
        hash.write(&self.node.to_be_bytes());
        format!("sql:{:016x}", hash.0)
    }

    /// The `holder` the install writes into the node's lease row, for
    /// operators: `SQL function <name>`.
    pub fn holder(&self) -> String {
        format!("SQL function {}", self.function)
            .chars()
            .take(HOLDER_MAX_CHARS)
            .collect()
    }

    /// The expression that calls the function, e.g. for a `DEFAULT` in a
    /// `CREATE TABLE` (PostgreSQL) or a `SELECT`.
    ///
    /// # Errors
    /// As [`install`](Self::install).
    pub fn call(&self) -> Result<String, IdFunctionError> {
        Ok(format!("{}()", self.plan()?.function))
    }

    /// The statements that create the function, to run in this order on
    /// one connection (each is one statement, without a trailing `;`):
    /// the lease table if it is missing, the node's row if it is missing,
    /// the reservation of the node (an error if a live lease holds it),
    /// the state if it is missing (an existing state is kept), and the
    /// function (replacing an existing one).
    ///
    /// # Errors
    /// [`IdFunctionError`] naming the setting that cannot be written.
    pub fn install(&self) -> Result<Vec<String>, IdFunctionError> {
        let p = self.plan()?;
        let lease = self.lease_sql(&p);
        Ok(vec![
            lease.create_table(),
            lease.insert_node_script(&self.space, self.node),
            match self.dialect {
                Dialect::Postgres => self.postgres_reserve(&p),
                _ => self.mariadb_reserve(&p),
            },
            self.create_state(&p),
            match self.dialect {
                Dialect::Postgres => self.postgres_function(&p),
                _ => self.mariadb_function(&p),
            },
        ])
    }

    /// The statements that remove the function, to run in this order on one
    /// connection once no column default or trigger calls it: drop the
    /// function, free the node's lease row recording the function's last
    /// time as its `high_water` (so the node's next holder starts after
    /// it), drop the state. Running them again changes nothing.
    ///
    /// # Errors
    /// As [`install`](Self::install).
    pub fn uninstall(&self) -> Result<Vec<String>, IdFunctionError> {
        let p = self.plan()?;
        Ok(match self.dialect {
            Dialect::Postgres => vec![
                format!("DROP FUNCTION IF EXISTS {}()", p.function),
                self.postgres_release(&p),
                format!("DROP SEQUENCE IF EXISTS {}", p.state),
            ],
            _ => vec![
                format!("DROP FUNCTION IF EXISTS {}", p.function),
                self.mariadb_release(&p),
                format!("DROP TABLE IF EXISTS {}", p.state),
            ],
        })
    }

    /// The statements that make the function fill `column` of `table` when
    /// an insert gives it no value: PostgreSQL, the column's `DEFAULT`;
    /// MariaDB, `DEFAULT 0` and a `BEFORE INSERT` trigger named
    /// `<table>_<column>_flakeid_<n>` (`n` the table name's length in
    /// characters, so that `a_b`.`c` and `a`.`b_c` get triggers of their
    /// own) that replaces `NULL` or 0 with the function's ID.
    ///
    /// # Errors
    /// As [`install`](Self::install), also for the table, column and
    /// trigger names.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// use flakeid_id_function::IdFunction;
    /// use flakeid_sql::Dialect;
    /// let f = IdFunction::new(Dialect::MySql, "orders", presets::twitter(), 1);
    /// let sql = f.column_default("orders", "id")?;
    /// assert_eq!(sql[0], "ALTER TABLE `orders` ALTER COLUMN `id` SET DEFAULT 0");
    /// assert_eq!(
    ///     sql[1],
    ///     "CREATE OR REPLACE TRIGGER `orders_id_flakeid_6` BEFORE INSERT ON `orders` FOR EACH ROW \
    ///      BEGIN IF NEW.`id` IS NULL OR NEW.`id` = 0 THEN SET NEW.`id` = `flakeid_next_id`(); END IF; END"
    /// );
    /// # Ok::<(), flakeid_id_function::IdFunctionError>(())
    /// ```
    pub fn column_default(
        &self,
        table: &str,
        column: &str,
    ) -> Result<Vec<String>, IdFunctionError> {
        let p = self.plan()?;
        let d = self.dialect;
        let t = d.identifier("table", table)?;
        let c = d.identifier("column", column)?;
        Ok(match d {
            Dialect::Postgres => vec![format!(
                "ALTER TABLE {t} ALTER COLUMN {c} SET DEFAULT {}()",
                p.function
            )],
            _ => self.mariadb_column_default(&p, table, column, &t, &c)?,
        })
    }

    /// Undoes [`column_default`](Self::column_default): the column has no
    /// default (and, on MariaDB, no trigger) afterwards.
    ///
    /// # Errors
    /// As [`column_default`](Self::column_default).
    pub fn drop_column_default(
        &self,
        table: &str,
        column: &str,
    ) -> Result<Vec<String>, IdFunctionError> {
        self.plan()?;
        let d = self.dialect;
        let t = d.identifier("table", table)?;
        let c = d.identifier("column", column)?;
        let drop_default = format!("ALTER TABLE {t} ALTER COLUMN {c} DROP DEFAULT");
        Ok(match d {
            Dialect::Postgres => vec![drop_default],
            _ => vec![self.mariadb_drop_trigger(table, column)?, drop_default],
        })
    }

    /// `statements` as a script for the database's command-line client
    /// (`psql`, `mariadb`): each ends with `;`, and on MariaDB the
    /// statements with a body are wrapped in `DELIMITER` lines.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// use flakeid_id_function::IdFunction;
    /// use flakeid_sql::Dialect;
    /// let f = IdFunction::new(Dialect::MySql, "orders", presets::twitter(), 1);
    /// let script = f.script(&f.install()?);
    /// assert!(script.contains("DELIMITER $$\nCREATE OR REPLACE FUNCTION"));
    /// # Ok::<(), flakeid_id_function::IdFunctionError>(())
    /// ```
    pub fn script(&self, statements: &[String]) -> String {
        self.dialect.script(statements)
    }
}

impl IdFunction {
    /// The function's name unless [`IdFunction::function_name`] says otherwise.
    pub const DEFAULT_FUNCTION: &str = "flakeid_next_id";

    /// How long a call waits for the next tick when the current one's sequence
    /// values are used up, unless [`IdFunction::max_wait`] says otherwise: 1 s.
    pub const DEFAULT_MAX_WAIT: Duration = Duration::from_secs(1);

    /// The longest [`IdFunction::max_wait`]: one hour.
    pub const MAX_MAX_WAIT: Duration = Duration::from_secs(3600);

    /// How long a MariaDB call waits for another session's call to finish
    /// (`GET_LOCK`'s timeout) unless [`IdFunction::lock_timeout`] says
    /// otherwise: 10 s. PostgreSQL waits as long as its `lock_timeout` allows.
    pub const DEFAULT_LOCK_TIMEOUT: Duration = Duration::from_secs(10);
}

/// The lease table's `holder` column holds 255 characters.
const HOLDER_MAX_CHARS: usize = 255;

/// FNV-1a, 64 bits: a stable hash for the owner token.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The crate's README (its registry page): its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
