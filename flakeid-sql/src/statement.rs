//! A statement and its parts: [`SqlStatement`] (SQL text, values, the
//! columns a query returns), written by [`SqlWriter`]; [`SqlValue`] and
//! [`SqlType`].

use crate::Dialect;

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
    /// order a row's values come in (see [`SqlExecutor::query`](crate::SqlExecutor::query)). Empty
    /// for other statements.
    pub columns: &'static [(&'static str, SqlType)],
    /// MySQL/MariaDB: the statement sets `LAST_INSERT_ID(expr)`, and the
    /// executor reports the connection's `LAST_INSERT_ID()` after it, read
    /// on the same connection (see [`Executed::last_insert_id`](crate::Executed::last_insert_id)).
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
