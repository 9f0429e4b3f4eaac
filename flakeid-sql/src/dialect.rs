//! [`Dialect`]: how each database writes names, placeholders, its clock,
//! scripts and literals, and the limits it puts on names.

use core::fmt;

use crate::SqlNameError;

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
    pub(crate) const fn label(self) -> &'static str {
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
