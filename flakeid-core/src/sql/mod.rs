//! SQL text that flakeid runs in the application's database, per dialect.
//!
//! The ORM crates execute these statements; they never write SQL of their
//! own. [`lease`] holds the lease table's statements and the store that
//! runs them through an executor an ORM crate supplies.

pub mod lease;

use core::fmt;

/// The SQL dialects flakeid writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
    /// use flakeid_core::sql::Dialect;
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
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dialect::Postgres => "PostgreSQL",
            Dialect::MySql => "MySQL/MariaDB",
            Dialect::Sqlite => "SQLite",
        })
    }
}

/// A value bound to a placeholder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SqlValue {
    /// `TEXT` / `VARCHAR`.
    Text(String),
    /// `BIGINT`.
    BigInt(i64),
    /// `INTEGER`.
    Int(i32),
}

/// A statement and its values, in placeholder order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SqlStatement {
    /// The SQL text, with the dialect's placeholders.
    pub sql: String,
    /// One value per placeholder, in order.
    pub values: Vec<SqlValue>,
}

/// Writes SQL text with numbered placeholders for one dialect.
struct SqlWriter {
    dialect: Dialect,
    sql: String,
    values: Vec<SqlValue>,
}

impl SqlWriter {
    fn new(dialect: Dialect) -> Self {
        SqlWriter {
            dialect,
            sql: String::new(),
            values: Vec::new(),
        }
    }

    fn push(&mut self, text: &str) -> &mut Self {
        self.sql.push_str(text);
        self
    }

    fn bind(&mut self, value: SqlValue) -> &mut Self {
        self.values.push(value);
        let p = self.dialect.placeholder(self.values.len());
        self.sql.push_str(&p);
        self
    }

    fn finish(self) -> SqlStatement {
        SqlStatement {
            sql: self.sql,
            values: self.values,
        }
    }
}
