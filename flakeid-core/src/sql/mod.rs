//! SQL text that flakeid runs in the application's database, per dialect.
//! The ORM crates execute these statements; they never write SQL of their
//! own.
//!
//! * [`lease`] — the node lease table's statements, and the store that
//!   runs them through an executor an ORM crate supplies.
//! * [`offset_range`] — per-location counters confined to their range.
//! * [`id_function`] — a PostgreSQL or MariaDB function that issues IDs
//!   of a layout and node as the key column's default.
//!
//! Every statement built from a name you supply quotes it for its
//! database, or refuses it with a [`SqlNameError`] (see [`offset_range`]'s
//! "Names" section for exactly what is quoted and refused).

mod error;
pub mod id_function;
pub mod lease;
pub mod offset_range;

pub use error::SqlNameError;

use core::fmt;

/// PostgreSQL keeps 63 bytes of a name (`NAMEDATALEN − 1`).
pub(crate) const POSTGRES_MAX_NAME_BYTES: usize = 63;
/// MySQL and MariaDB names hold 64 characters.
pub(crate) const MYSQL_MAX_NAME_CHARS: usize = 64;
/// MySQL's limit on a `SIGNAL`'s `MESSAGE_TEXT`, in characters.
pub(crate) const MYSQL_MAX_MESSAGE_CHARS: usize = 128;

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
    fn identifier(self, role: &'static str, name: &str) -> Result<String, SqlNameError> {
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
    fn literal(self, text: &str) -> String {
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
