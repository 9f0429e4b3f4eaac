//! The SQL that flakeid's database-backed crates share: the dialects, the
//! statements with their bound values, the one seam through which an ORM
//! runs them, and the lock that lets every replica migrate at start-up.
//!
//! Most applications never name this crate: `flakeid-seaorm` (feature
//! `sql`, which its `lease`, `segment` and `migration` features turn on)
//! and `flakeid-diesel` implement its executor traits on their connections
//! and re-export it. Depend on it directly to run flakeid's SQL through a
//! database library of your own (implement [`SqlExecutor`] or
//! [`AsyncSqlExecutor`] once), or to write a crate that keeps its state in
//! the application's database as flakeid's own do.
//!
//! * [`Dialect`] — quoting, placeholders, string literals, scripts and the
//!   database's clock for PostgreSQL, MySQL/MariaDB and SQLite.
//! * [`SqlStatement`] — a statement, its values in placeholder order and
//!   the columns a query returns, written with a [`SqlWriter`];
//!   [`SqlValue`], [`SqlType`] and [`SqlRow`] — what is bound and read.
//! * [`SqlExecutor`] / [`AsyncSqlExecutor`] — what an ORM crate
//!   implements to run the statements on blocking / async connections,
//!   answering [`Executed`] or rows; a statement that failed is a
//!   [`StoreError`].
//! * [`MemoryRows`] and [`Outage`] — the rows of the in-memory stores that
//!   tests use instead of a database, and a switch that cuts a handle off
//!   from them as a network partition would.
//! * [`MigrationLock`] — the lock a migration run holds, so that every
//!   replica may run its migrations at start-up ([`MigrationLockTimeout`]
//!   when it is not free in time).
//!
//! Each table's statements live with the crate that uses the table: the
//! lease table's in `flakeid-lease` (`LeaseSql`), the segment table's in
//! `flakeid-segment` (`SegmentSql`), the per-location counters' in
//! `flakeid-schemes` (`LocationRange`), the database ID function's in
//! `flakeid-id-function`, the adoption of existing tables' in
//! `flakeid-adopt`. An executor runs them as given; it writes no SQL of
//! its own.
//!
//! Every statement built from a name you supply quotes it for its database
//! ([`Dialect::identifier`]) or refuses it with a [`SqlNameError`] that
//! names the object, the name and the database.
//!
//! ```
//! use flakeid_sql::{Dialect, SqlNameError, SqlValue, SqlWriter};
//!
//! // A statement for one database: the table's name quoted, the value bound.
//! let dialect = Dialect::Postgres;
//! let table = dialect.identifier("counter table", "counters")?;
//! let mut sql = SqlWriter::new(dialect);
//! sql.push("UPDATE ").push(&table).push(" SET n = n + 1 WHERE name = ");
//! sql.bind(SqlValue::Text("orders".into()));
//! let statement = sql.finish();
//! assert_eq!(statement.sql, r#"UPDATE "counters" SET n = n + 1 WHERE name = $1"#);
//! assert_eq!(statement.values, [SqlValue::Text("orders".into())]);
//!
//! // A name the database would not keep as given is refused, not changed.
//! let refused = Dialect::MySql.identifier("counter table", "counters ");
//! assert!(matches!(refused, Err(SqlNameError::TrailingSpace { .. })));
//! # Ok::<(), SqlNameError>(())
//! ```
//!
//! The crate has no features. It builds on `flakeid-core`, whose
//! [`Clock`](flakeid_core::Clock) stands for the database's clock in
//! [`MemoryRows`].
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod error;
mod executor;
mod migration_lock;

pub use error::SqlNameError;
pub use executor::{
    AsyncSqlExecutor, Executed, MemoryRows, Outage, SqlExecutor, SqlRow, StoreError, Unreachable,
};
pub use migration_lock::{MigrationLock, MigrationLockTimeout};

/// The crate's README (its registry page): its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}

use core::fmt;

/// PostgreSQL keeps 63 bytes of a name (`NAMEDATALEN − 1`).
pub const POSTGRES_MAX_NAME_BYTES: usize = 63;
/// MySQL and MariaDB names hold 64 characters.
pub const MYSQL_MAX_NAME_CHARS: usize = 64;
/// MySQL's limit on a `SIGNAL`'s `MESSAGE_TEXT`, in characters.
pub const MYSQL_MAX_MESSAGE_CHARS: usize = 128;

/// The PostgreSQL advisory lock every table creation of flakeid's takes:
/// the bytes of `"flakeid\0"` as a big-endian `bigint`.
pub const DDL_LOCK_KEY: i64 = 7_380_381_003_244_200_960;

/// The SQL dialects flakeid writes. Exhaustive: every statement builder of
/// flakeid's crates handles each dialect, so a new one is a breaking change
/// that the compiler walks through them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    /// PostgreSQL: `"ident"`, `$1` placeholders.
    Postgres,
    /// MySQL and MariaDB: `` `ident` ``, `?` placeholders.
    MySql,
    /// SQLite: `"ident"`, `?` placeholders.
    Sqlite,
}

impl Dialect {
    /// `name` as a quoted identifier (the quote character doubled inside).
    ///
    /// ```
    /// use flakeid_sql::Dialect;
    ///
    /// assert_eq!(Dialect::Postgres.quote("flakeid_nodes"), "\"flakeid_nodes\"");
    /// assert_eq!(Dialect::MySql.quote("a`b"), "`a``b`");
    /// ```
    pub fn quote(self, name: &str) -> String {
        let q = match self {
            Dialect::MySql => '`',
            Dialect::Postgres | Dialect::Sqlite => '"',
        };
        let mut s = String::with_capacity(name.len() + 2);
        s.push(q);
        for c in name.chars() {
            if c == q {
                s.push(q);
            }
            s.push(c);
        }
        s.push(q);
        s
    }

    /// The `n`-th (1-based) bind placeholder.
    pub fn placeholder(self, n: usize) -> String {
        match self {
            Dialect::Postgres => format!("${n}"),
            Dialect::MySql | Dialect::Sqlite => "?".to_owned(),
        }
    }

    /// The database's clock in Unix milliseconds, as an SQL expression
    /// (independent of the session's time zone):
    ///
    /// | dialect | expression |
    /// |---|---|
    /// | PostgreSQL | `CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)` |
    /// | MySQL/MariaDB | `CAST(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000 AS SIGNED)` |
    /// | SQLite | `CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)` |
    pub const fn now_millis(self) -> &'static str {
        match self {
            Dialect::Postgres => {
                "CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS BIGINT)"
            }
            Dialect::MySql => {
                "CAST(TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6)) DIV 1000 AS SIGNED)"
            }
            Dialect::Sqlite => "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)",
        }
    }

    /// `create` (a `CREATE TABLE IF NOT EXISTS`) made safe for any number
    /// of sessions running it at once. MySQL/MariaDB (metadata locks) and
    /// SQLite (one writer) already are; on PostgreSQL two sessions that
    /// both find the table missing both create it, and one fails on the
    /// catalog's unique index (`pg_type_typname_nsp_index`) or with
    /// "already exists". There the statement runs in a `DO` block under a
    /// transaction-scoped advisory lock, so that the second session finds
    /// the first one's table.
    pub fn create_table_once(self, create: String) -> String {
        match self {
            Dialect::Postgres => {
                // A dollar-quote tag the statement (which holds quoted
                // names of the user's choice) does not contain.
                let tag = (0u32..)
                    .map(|n| {
                        if n == 0 {
                            "$flakeid$".to_owned()
                        } else {
                            format!("$flakeid{n}$")
                        }
                    })
                    .find(|tag| !create.contains(tag.as_str()))
                    .unwrap_or_default();
                format!(
                    "DO {tag} BEGIN PERFORM pg_advisory_xact_lock({DDL_LOCK_KEY}); {create}; END {tag}"
                )
            }
            Dialect::MySql | Dialect::Sqlite => create,
        }
    }

    /// `statements` (each one statement without its `;`) as a script for
    /// the database's command-line client (`psql`, `mariadb`, `sqlite3`):
    /// each ends with `;`, and on MySQL/MariaDB the statements holding a
    /// `;` (bodies of functions, triggers and `BEGIN NOT ATOMIC` blocks)
    /// are wrapped in `DELIMITER` lines with a delimiter no statement
    /// contains.
    ///
    /// ```
    /// use flakeid_sql::Dialect;
    ///
    /// let statements = ["SELECT 1".to_owned(), "BEGIN NOT ATOMIC SELECT 2; END".to_owned()];
    /// assert_eq!(Dialect::Postgres.script(&statements[..1]), "SELECT 1;\n");
    /// assert_eq!(
    ///     Dialect::MySql.script(&statements),
    ///     "SELECT 1;\nDELIMITER $$\nBEGIN NOT ATOMIC SELECT 2; END$$\nDELIMITER ;\n"
    /// );
    /// ```
    pub fn script(self, statements: &[String]) -> String {
        if self != Dialect::MySql {
            return self.batch(statements);
        }
        // A delimiter that occurs in no statement.
        let mut delimiter = "$$".to_owned();
        while statements.iter().any(|s| s.contains(&delimiter)) {
            delimiter.push('$');
        }
        let mut out = String::new();
        for s in statements {
            if s.contains(';') {
                out.push_str(&format!(
                    "DELIMITER {delimiter}\n{s}{delimiter}\nDELIMITER ;\n"
                ));
            } else {
                out.push_str(s);
                out.push_str(";\n");
            }
        }
        out
    }

    /// `statements` as one batch for a program that sends it to the server
    /// at once: Diesel's migration files (`up.sql`, run by
    /// `batch_execute`), `sqlx::raw_sql`, SeaORM's `execute_unprepared`.
    /// Each statement ends with `;`; no client directive (`DELIMITER`) is
    /// written, since the server reads a body's `;` as part of its
    /// statement.
    ///
    /// ```
    /// use flakeid_sql::Dialect;
    ///
    /// let statements = ["SELECT 1".to_owned(), "BEGIN NOT ATOMIC SELECT 2; END".to_owned()];
    /// assert_eq!(Dialect::MySql.batch(&statements), "SELECT 1;\nBEGIN NOT ATOMIC SELECT 2; END;\n");
    /// ```
    pub fn batch(self, statements: &[String]) -> String {
        let mut out = String::new();
        for s in statements {
            out.push_str(s);
            out.push_str(";\n");
        }
        out
    }

    /// The database's name, for messages.
    const fn label(self) -> &'static str {
        match self {
            Dialect::Postgres => "PostgreSQL",
            Dialect::MySql => "MySQL/MariaDB",
            Dialect::Sqlite => "SQLite",
        }
    }

    /// `name` as a quoted identifier, or why the database would not
    /// keep it exactly.
    pub fn identifier(self, role: &'static str, name: &str) -> Result<String, SqlNameError> {
        let dialect = self.label();
        let owned = || name.to_owned();
        if name.is_empty() {
            return Err(SqlNameError::Empty { role, dialect });
        }
        if name.contains('\0') {
            return Err(SqlNameError::Nul {
                role,
                name: owned(),
                dialect,
            });
        }
        match self {
            Self::Postgres => {
                if name.len() > POSTGRES_MAX_NAME_BYTES {
                    return Err(SqlNameError::TooLong {
                        role,
                        name: owned(),
                        dialect,
                        len: name.len(),
                        max: POSTGRES_MAX_NAME_BYTES,
                        unit: "bytes",
                    });
                }
            }
            Self::MySql => {
                let chars = name.chars().count();
                if chars > MYSQL_MAX_NAME_CHARS {
                    return Err(SqlNameError::TooLong {
                        role,
                        name: owned(),
                        dialect,
                        len: chars,
                        max: MYSQL_MAX_NAME_CHARS,
                        unit: "characters",
                    });
                }
                if let Some(character) = name.chars().find(|&c| u32::from(c) > 0xFFFF) {
                    return Err(SqlNameError::CharacterAboveBmp {
                        role,
                        name: owned(),
                        character,
                    });
                }
                if name.ends_with(' ') {
                    return Err(SqlNameError::TrailingSpace {
                        role,
                        name: owned(),
                    });
                }
            }
            Self::Sqlite => {
                let reserved = name
                    .get(..7)
                    .is_some_and(|prefix| prefix.eq_ignore_ascii_case("sqlite_"));
                if reserved {
                    return Err(SqlNameError::ReservedPrefix {
                        role,
                        name: owned(),
                    });
                }
            }
        }
        Ok(self.quote(name))
    }

    /// `text` as a string literal that reads the same in every escaping
    /// mode. `'` is doubled (read as one `'` in every mode); a text with a
    /// backslash, which some modes read as an escape and others not, is
    /// written in a form whose reading does not depend on the mode.
    pub fn literal(self, text: &str) -> String {
        let plain = || format!("'{}'", text.replace('\'', "''"));
        if !text.contains('\\') {
            return plain();
        }
        match self {
            // E'' strings always read backslash escapes.
            Self::Postgres => format!("E'{}'", text.replace('\\', "\\\\").replace('\'', "''")),
            // A hex literal with a character set is a string, no escapes.
            Self::MySql => {
                let hex: String = text.bytes().map(|b| format!("{b:02X}")).collect();
                format!("_utf8mb4 X'{hex}'")
            }
            // SQLite has no backslash escapes.
            Self::Sqlite => plain(),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// A value bound to a placeholder, or read from a column.
///
/// ```
/// use flakeid_sql::{SqlRow, SqlType, SqlValue};
///
/// // An executor reads each column of a query's row as a value of its type.
/// static COLUMNS: [(&str, SqlType); 2] = [("max_id", SqlType::BigInt), ("name", SqlType::Text)];
/// let row = SqlRow::new(&COLUMNS, vec![SqlValue::BigInt(1_000), SqlValue::Text("orders".into())]);
/// assert_eq!((row.i64("max_id"), row.text("name")), (Some(1_000), Some("orders")));
/// let nulls = SqlRow::new(&COLUMNS, vec![SqlValue::Null, SqlValue::Null]);
/// assert_eq!((nulls.i64("max_id"), nulls.text("name")), (None, None));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SqlValue {
    /// `TEXT` / `VARCHAR`.
    Text(String),
    /// `BIGINT`.
    BigInt(i64),
    /// `INTEGER`.
    Int(i32),
    /// `NULL` (read only: no statement binds it).
    Null,
}

/// The type of a column a query returns.
///
/// ```
/// use flakeid_sql::{SqlType, SqlValue};
///
/// /// A driver's column value (text here) as the statement's column type asks.
/// fn read(ty: SqlType, raw: Option<&str>) -> Result<SqlValue, std::num::ParseIntError> {
///     Ok(match (ty, raw) {
///         (_, None) => SqlValue::Null,
///         (SqlType::BigInt, Some(v)) => SqlValue::BigInt(v.parse()?),
///         (_, Some(v)) => SqlValue::Text(v.to_owned()),
///     })
/// }
/// assert_eq!(read(SqlType::BigInt, Some("42"))?, SqlValue::BigInt(42));
/// assert_eq!(read(SqlType::Text, Some("orders"))?, SqlValue::Text("orders".into()));
/// assert_eq!(read(SqlType::BigInt, None)?, SqlValue::Null);
/// # Ok::<(), std::num::ParseIntError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SqlType {
    /// `BIGINT` (`INTEGER` on SQLite), read as [`SqlValue::BigInt`] or
    /// [`SqlValue::Null`].
    BigInt,
    /// `TEXT` / `VARCHAR`, read as [`SqlValue::Text`] or [`SqlValue::Null`].
    Text,
}

/// A statement, its values in placeholder order, and the columns a query
/// returns.
///
/// ```
/// use flakeid_sql::{Dialect, SqlType, SqlValue, SqlWriter};
///
/// // Values are bound, one per placeholder (`?` on SQLite), not written into the SQL.
/// let mut insert = SqlWriter::new(Dialect::Sqlite);
/// insert.push("INSERT INTO counters (name, n) VALUES (").bind(SqlValue::Text("orders".into()));
/// insert.push(", ").bind(SqlValue::BigInt(0)).push(")");
/// let insert = insert.finish();
/// assert_eq!(insert.sql, "INSERT INTO counters (name, n) VALUES (?, ?)");
/// assert_eq!(insert.values, [SqlValue::Text("orders".into()), SqlValue::BigInt(0)]);
/// assert!(insert.columns.is_empty() && !insert.reads_insert_id); // not a query
///
/// // A query names the columns of its rows (`$1` on PostgreSQL).
/// static COLUMNS: [(&str, SqlType); 1] = [("n", SqlType::BigInt)];
/// let mut query = SqlWriter::new(Dialect::Postgres);
/// query.push("SELECT n FROM counters WHERE name = ").bind(SqlValue::Text("orders".into()));
/// query.returns(&COLUMNS);
/// let query = query.finish();
/// assert_eq!(query.sql, "SELECT n FROM counters WHERE name = $1");
/// assert_eq!(query.columns, &COLUMNS[..]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SqlStatement {
    /// The SQL text, with the dialect's placeholders.
    pub sql: String,
    /// One value per placeholder, in order.
    pub values: Vec<SqlValue>,
    /// For a query: the columns each row holds, by name and type, in the
    /// order a row's values come in (see [`SqlExecutor::query`]). Empty
    /// for other statements.
    pub columns: &'static [(&'static str, SqlType)],
    /// MySQL/MariaDB: the statement sets `LAST_INSERT_ID(expr)`, and the
    /// executor reports the connection's `LAST_INSERT_ID()` after it, read
    /// on the same connection (see [`Executed::last_insert_id`]).
    pub reads_insert_id: bool,
}

impl SqlStatement {
    /// MySQL/MariaDB: reads the connection's `LAST_INSERT_ID()` (one
    /// `BIGINT` column `last_insert_id`), for executors whose driver does
    /// not report it with a statement's result: run it right after a
    /// statement with [`reads_insert_id`](Self::reads_insert_id), on the
    /// same connection.
    pub const MYSQL_LAST_INSERT_ID: &'static str =
        "SELECT CAST(LAST_INSERT_ID() AS SIGNED) AS `last_insert_id`";
}

/// Writes SQL text with numbered placeholders for one dialect (or, for
/// scripts, with the values written in as literals): how every statement
/// of flakeid's crates is built.
///
/// ```
/// use flakeid_sql::{Dialect, SqlValue, SqlWriter};
///
/// let mut bound = SqlWriter::new(Dialect::Postgres);
/// bound.push("DELETE FROM jobs WHERE queue = ").bind(SqlValue::Text("mail".into()));
/// bound.push(" AND attempts > ").bind(SqlValue::BigInt(3));
/// let bound = bound.finish();
/// assert_eq!(bound.sql, "DELETE FROM jobs WHERE queue = $1 AND attempts > $2");
/// assert_eq!(bound.values.len(), 2);
///
/// // For a script: the same values written into the text.
/// let mut script = SqlWriter::literal(Dialect::Postgres);
/// script.push("DELETE FROM jobs WHERE queue = ").bind(SqlValue::Text("it's".into()));
/// let script = script.finish();
/// assert_eq!(script.sql, "DELETE FROM jobs WHERE queue = 'it''s'");
/// assert!(script.values.is_empty());
/// ```
pub struct SqlWriter {
    dialect: Dialect,
    /// Values are written into the text, not bound.
    literal: bool,
    sql: String,
    values: Vec<SqlValue>,
    columns: &'static [(&'static str, SqlType)],
    reads_insert_id: bool,
}

impl SqlWriter {
    /// An empty statement for `dialect`, whose values are bound.
    pub fn new(dialect: Dialect) -> Self {
        SqlWriter {
            dialect,
            literal: false,
            sql: String::new(),
            values: Vec::new(),
            columns: &[],
            reads_insert_id: false,
        }
    }

    /// Appends `text` as it is: SQL, never a value (names go through
    /// [`Dialect::identifier`] first).
    pub fn push(&mut self, text: &str) -> &mut Self {
        self.sql.push_str(text);
        self
    }

    /// A writer for SQL scripts: values are written in as literals that
    /// read the same in every escaping mode, and the statement binds none.
    pub fn literal(dialect: Dialect) -> Self {
        SqlWriter {
            literal: true,
            ..SqlWriter::new(dialect)
        }
    }

    /// Appends `value`: the dialect's next placeholder, with the value
    /// bound to it (on a [`literal`](Self::literal) writer: the value as a
    /// literal, see [`Dialect::literal`]).
    pub fn bind(&mut self, value: SqlValue) -> &mut Self {
        if self.literal {
            let text = match &value {
                SqlValue::Text(t) => self.dialect.literal(t),
                SqlValue::BigInt(v) => v.to_string(),
                SqlValue::Int(v) => v.to_string(),
                SqlValue::Null => "NULL".to_owned(),
            };
            self.sql.push_str(&text);
            return self;
        }
        self.values.push(value);
        let p = self.dialect.placeholder(self.values.len());
        self.sql.push_str(&p);
        self
    }

    /// The statement is a query returning rows of these columns.
    pub fn returns(&mut self, columns: &'static [(&'static str, SqlType)]) -> &mut Self {
        self.columns = columns;
        self
    }

    /// The statement sets `LAST_INSERT_ID(expr)` (MySQL/MariaDB).
    pub fn reads_insert_id(&mut self) -> &mut Self {
        self.reads_insert_id = true;
        self
    }

    /// The statement written.
    pub fn finish(self) -> SqlStatement {
        SqlStatement {
            sql: self.sql,
            values: self.values,
            columns: self.columns,
            reads_insert_id: self.reads_insert_id,
        }
    }
}
