//! What the database holds before the switch: each key column, how it is
//! auto-incremented, the largest key it issued, and every column that
//! references it. Read from the catalog, one file per dialect.

use flakeid_sql::{AsyncSqlExecutor, SqlRow};
use flakeid_sql::{SqlStatement, SqlType, SqlValue, SqlWriter};

use super::error::AdoptError;
use flakeid_sql::Dialect;

/// The tables of an [`Adoption`](crate::Adoption) as the database held them when
/// [`Adoption::read_catalog`](crate::Adoption::read_catalog) read it: what
/// [`Adoption::plan`](crate::Adoption::plan) writes the migration (and its down script) from.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Catalog {
    /// The database.
    pub dialect: Dialect,
    /// The key tables, in the order the adoption names them.
    pub tables: Vec<KeyTable>,
}

/// A table whose key switches to flake keys, as the catalog describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct KeyTable {
    /// The table.
    pub table: String,
    /// Its key column (the table's primary key, one column).
    pub column: String,
    /// The key column's type as the database writes it (`integer`,
    /// `int(11) unsigned`, `INTEGER`).
    pub column_type: String,
    /// How the database issues its keys today.
    pub increment: Increment,
    /// The largest key stored (`None` for an empty table).
    pub largest_key: Option<i64>,
    /// The smallest key stored (`None` for an empty table).
    pub smallest_key: Option<i64>,
    /// The largest value the table's auto-increment has handed out, stored
    /// or not (a PostgreSQL sequence's last value, SQLite's
    /// `sqlite_sequence`); `None` where the database keeps none or none was
    /// handed out.
    pub issued_up_to: Option<i64>,
    /// Every column that holds keys of this table: the columns of foreign
    /// keys that reference it, and the columns named with
    /// [`Adoption::reference`](crate::Adoption::reference).
    pub references: Vec<Reference>,
    /// What rewriting the column needs beyond its type.
    pub(crate) details: ColumnDetails,
    /// SQLite: what the table rebuild needs.
    pub(crate) sqlite: Option<SqliteTable>,
}

/// How a key column is auto-incremented before the switch.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Increment {
    /// PostgreSQL `GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY`.
    Identity {
        /// `ALWAYS` (true) or `BY DEFAULT`.
        always: bool,
        /// The identity's sequence (dropped with the identity).
        sequence: String,
    },
    /// PostgreSQL `serial` / `bigserial`, or any `DEFAULT nextval(…)`:
    /// the sequence stays (owned by the column) so that the down script
    /// can restore the default.
    Sequence {
        /// The sequence, as `pg_get_serial_sequence` names it.
        sequence: String,
        /// The column's default expression.
        default: String,
    },
    /// MySQL/MariaDB `AUTO_INCREMENT`, SQLite `AUTOINCREMENT`.
    AutoIncrement,
    /// SQLite `INTEGER PRIMARY KEY` without `AUTOINCREMENT`: an alias of
    /// the rowid, which an insert without a key fills with the largest
    /// rowid + 1.
    RowId,
    /// No auto-increment: the application already assigns keys.
    None,
}

/// A column holding keys of a key table.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Reference {
    /// The table's schema (PostgreSQL) or database (MySQL/MariaDB) when it
    /// is not the connection's current one.
    pub schema: Option<String>,
    /// The referencing table.
    pub table: String,
    /// The referencing column.
    pub column: String,
    /// The column's type as the database writes it.
    pub column_type: String,
    /// The foreign key constraint; `None` for a column named with
    /// [`Adoption::reference`](crate::Adoption::reference) that no foreign key declares.
    pub constraint: Option<String>,
    /// SQLite: the foreign key's `ON DELETE` action (`NO ACTION`,
    /// `CASCADE` …).
    pub on_delete: Option<String>,
    /// What rewriting the column needs beyond its type.
    pub(crate) details: ColumnDetails,
}

/// MySQL/MariaDB: what `MODIFY COLUMN` must state again, since it replaces
/// the whole column definition.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct ColumnDetails {
    pub(crate) nullable: bool,
    /// The default as `information_schema.COLUMNS` writes it.
    pub(crate) default: Option<String>,
    pub(crate) comment: Option<String>,
    /// A reference's foreign key as `ADD CONSTRAINT` states it again
    /// (`FOREIGN KEY (…) REFERENCES … ON DELETE … ON UPDATE …`): MariaDB
    /// refuses to change a column's type under a foreign key, even with
    /// the checks off, so the switch drops it and adds it again.
    pub(crate) foreign_key: Option<String>,
}

/// SQLite: the table's definition, columns, indexes and triggers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SqliteTable {
    /// `CREATE TABLE …` as `sqlite_master` keeps it.
    pub(crate) create: String,
    /// The stored columns (not generated ones), in order.
    pub(crate) columns: Vec<String>,
    /// `CREATE INDEX` / `CREATE TRIGGER` statements of the table, indexes
    /// first.
    pub(crate) indexes_and_triggers: Vec<String>,
}

impl Reference {
    /// The foreign key of `row` (its `table_name`, `column_name`,
    /// `column_type`, `columns`, and `schema_name` where the dialect has
    /// schemas) that references `key_table.key_column`; an error for a
    /// foreign key of several columns.
    pub(crate) fn foreign_key(
        row: &SqlRow,
        (key_table, key_column): (&str, &str),
        constraint: String,
        on_delete: Option<String>,
        details: ColumnDetails,
    ) -> Result<Self, AdoptError> {
        let columns = row.i64("columns").unwrap_or(1);
        if columns != 1 {
            return Err(AdoptError::CompositeReference {
                table: text(row, "table_name"),
                constraint,
                key_table: key_table.to_owned(),
                key_column: key_column.to_owned(),
                columns,
            });
        }
        Ok(Reference {
            schema: row.text("schema_name").map(str::to_owned),
            table: text(row, "table_name"),
            column: text(row, "column_name"),
            column_type: text(row, "column_type"),
            constraint: Some(constraint),
            on_delete,
            details,
        })
    }

    /// The referencing table as a statement names it: qualified with its
    /// schema (PostgreSQL) or database (MySQL/MariaDB) when it has one.
    pub(crate) fn qualified_table(&self, d: Dialect) -> Result<String, AdoptError> {
        Ok(match &self.schema {
            Some(s) => {
                let role = if d == Dialect::MySql {
                    "database"
                } else {
                    "schema"
                };
                format!(
                    "{}.{}",
                    d.identifier(role, s)?,
                    d.identifier("table", &self.table)?
                )
            }
            None => d.identifier("table", &self.table)?,
        })
    }

    /// The column `table.column` of the `column_type` in `row`, named with
    /// [`Adoption::reference`](crate::Adoption::reference) and referencing
    /// the key without a foreign key.
    pub(crate) fn named(table: &str, column: String, row: &SqlRow, details: ColumnDetails) -> Self {
        Reference {
            schema: None,
            table: table.to_owned(),
            column,
            column_type: text(row, "column_type"),
            constraint: None,
            on_delete: None,
            details,
        }
    }
}

/// Runs the catalog's queries for one key table.
pub(crate) struct Queries<'a, E> {
    pub(crate) dialect: Dialect,
    pub(crate) db: &'a E,
    pub(crate) table: &'a str,
}

impl<E: AsyncSqlExecutor> Queries<'_, E> {
    /// Rows of `sql` with `columns`, `texts` bound to its placeholders
    /// (written `?` and numbered for PostgreSQL).
    pub(crate) async fn rows(
        &self,
        sql: &str,
        texts: &[&str],
        columns: &'static [(&'static str, SqlType)],
    ) -> Result<Vec<SqlRow>, AdoptError> {
        let statement = self.statement(sql, texts, columns);
        self.db
            .query(&statement)
            .await
            .map_err(|e| AdoptError::Database {
                table: self.table.to_owned(),
                source: Box::new(e),
            })
    }

    fn statement(
        &self,
        sql: &str,
        texts: &[&str],
        columns: &'static [(&'static str, SqlType)],
    ) -> SqlStatement {
        let mut w = SqlWriter::new(self.dialect);
        let mut parts = sql.split('?');
        if let Some(first) = parts.next() {
            w.push(first);
        }
        for (i, part) in parts.enumerate() {
            let text = texts.get(i).copied().unwrap_or_default();
            w.bind(SqlValue::Text(text.to_owned()));
            w.push(part);
        }
        w.returns(columns);
        w.finish()
    }
}

/// The catalog's row of the column `table.column`: the first of `rows`,
/// or [`AdoptError::NoSuchColumn`] when there is none.
pub(crate) fn column_row<'r>(
    rows: &'r [SqlRow],
    table: &str,
    column: &str,
) -> Result<&'r SqlRow, AdoptError> {
    rows.first().ok_or_else(|| AdoptError::NoSuchColumn {
        table: table.to_owned(),
        column: column.to_owned(),
    })
}

/// Checks that `table.column` is the table's key (`is_key`: its primary
/// key, of this one column) and that its `column_type` holds integers.
pub(crate) fn integer_key(
    table: &str,
    column: &str,
    is_key: bool,
    column_type: &str,
) -> Result<(), AdoptError> {
    if !is_key {
        return Err(AdoptError::NotTheKey {
            table: table.to_owned(),
            column: column.to_owned(),
        });
    }
    if integer_width(column_type).is_none() {
        return Err(AdoptError::NotAnInteger {
            table: table.to_owned(),
            column: column.to_owned(),
            column_type: column_type.to_owned(),
        });
    }
    Ok(())
}

/// The text column `name` of `row`, or an empty string.
pub(crate) fn text(row: &SqlRow, name: &str) -> String {
    row.text(name).unwrap_or_default().to_owned()
}

/// Whether a column type (as the catalog writes it) holds integers, and
/// whether it is already 64 bits wide.
pub(crate) fn integer_width(column_type: &str) -> Option<bool> {
    let t = column_type.to_ascii_lowercase();
    let base = t.split(['(', ' ']).next().unwrap_or_default();
    match base {
        "bigint" | "int8" | "bigserial" => Some(true),
        "integer" | "int" | "int4" | "smallint" | "int2" | "mediumint" | "tinyint" | "serial"
        | "smallserial" => Some(false),
        _ => None,
    }
}

/// The first of `references` whose column does not hold integers, as
/// the error.
pub(crate) fn integers(references: &[Reference]) -> Result<(), AdoptError> {
    match references
        .iter()
        .find(|r| integer_width(&r.column_type).is_none())
    {
        Some(r) => Err(AdoptError::NotAnInteger {
            table: r.table.clone(),
            column: r.column.clone(),
            column_type: r.column_type.clone(),
        }),
        None => Ok(()),
    }
}

/// The columns of a query for the smallest and largest key of a key table.
pub(crate) static KEYS: [(&str, SqlType); 2] =
    [("smallest", SqlType::BigInt), ("largest", SqlType::BigInt)];
/// The column of a query for the largest key the auto-increment handed out.
pub(crate) static ISSUED: [(&str, SqlType); 1] = [("issued", SqlType::BigInt)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_types_are_recognised() {
        assert_eq!(integer_width("bigint"), Some(true));
        assert_eq!(integer_width("int(10) unsigned"), Some(false));
        assert_eq!(integer_width("INTEGER"), Some(false));
        assert_eq!(integer_width("numeric(20,0)"), None);
        assert_eq!(integer_width("text"), None);
    }

    struct Nothing;

    impl AsyncSqlExecutor for Nothing {
        type Error = std::convert::Infallible;
        fn dialect(&self) -> Dialect {
            Dialect::Postgres
        }
        async fn execute(&self, _: &SqlStatement) -> Result<flakeid_sql::Executed, Self::Error> {
            Ok(flakeid_sql::Executed::default())
        }
        async fn query(&self, _: &SqlStatement) -> Result<Vec<SqlRow>, Self::Error> {
            Ok(Vec::new())
        }
    }

    #[test]
    fn placeholders_are_numbered_for_postgres() {
        static COLUMNS: [(&str, SqlType); 1] = [("x", SqlType::Text)];
        let q = Queries {
            dialect: Dialect::Postgres,
            db: &Nothing,
            table: "t",
        };
        let s = q.statement("SELECT ? AS x WHERE ? = ?", &["a", "b", "c"], &COLUMNS);
        assert_eq!(s.sql, "SELECT $1 AS x WHERE $2 = $3");
        assert_eq!(s.values.len(), 3);
    }
}
