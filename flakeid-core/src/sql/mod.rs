//! SQL text the crate writes for you: every statement built from a name you
//! supply quotes it for its database, or refuses it with a
//! [`SqlNameError`] (see [`offset_range`]'s "Names" section for exactly
//! what is quoted and refused).
//!
//! * [`offset_range`] — per-location counters confined to their range.

mod error;
pub mod offset_range;

pub use error::SqlNameError;

/// The database a statement is written for.
#[derive(Clone, Copy)]
pub(crate) enum Dialect {
    /// PostgreSQL.
    Postgres,
    /// MySQL and MariaDB.
    MySql,
    /// SQLite.
    Sqlite,
}

/// PostgreSQL keeps 63 bytes of a name (`NAMEDATALEN − 1`).
pub(crate) const POSTGRES_MAX_NAME_BYTES: usize = 63;
/// MySQL and MariaDB names hold 64 characters.
pub(crate) const MYSQL_MAX_NAME_CHARS: usize = 64;
/// MySQL's limit on a `SIGNAL`'s `MESSAGE_TEXT`, in characters.
pub(crate) const MYSQL_MAX_MESSAGE_CHARS: usize = 128;

impl Dialect {
    const fn label(self) -> &'static str {
        match self {
            Self::Postgres => "PostgreSQL",
            Self::MySql => "MySQL/MariaDB",
            Self::Sqlite => "SQLite",
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
        let quote = match self {
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
                '"'
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
                '`'
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
                '"'
            }
        };
        let doubled: String = [quote, quote].iter().collect();
        Ok(format!("{quote}{}{quote}", name.replace(quote, &doubled)))
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
