//! Reading the [catalog model](crate::catalog) from a database: the steps
//! every database shares, written once, and the one trait through which a
//! dialect gives what differs — its catalog queries' text and how their
//! rows map to the model.
//!
//! The queries name their columns from one vocabulary (`table_name`,
//! `column_type`, `on_delete` …), so that one mapping reads every
//! database's rows; a column a database does not have is left out of its
//! query and reads as absent.

use flakeid_sql::{AsyncSqlExecutor, SqlRow};
use flakeid_sql::{Dialect, SqlStatement, SqlType, SqlValue, SqlWriter};

use super::catalog::integer_width;
use super::catalog::{Catalog, ColumnAttributes, Increment, KeyTable, Reference, TableDefinition};
use super::error::AdoptError;
use super::{Adoption, mysql, postgres, sqlite};

/// One database's catalog: the text of the queries that read it and how
/// their rows map to the model. [`read_table`] runs them in order.
pub(crate) trait CatalogDialect {
    /// The database.
    const DIALECT: Dialect;
    /// The type a `CAST` to a 64-bit integer names; `None` where every
    /// integer is one (SQLite).
    const BIGINT: Option<&'static str>;
    /// Keys and references must have integer types (not on SQLite, whose
    /// types are affinities and whose keys hold 64-bit integers anyway).
    const INTEGER_TYPES: bool = true;
    /// Names match whatever their case, and the catalog's spelling is kept
    /// instead of the given one (SQLite).
    const NAMES_IGNORE_CASE: bool = false;

    /// The key column `table.column`, one row: `column_type` and `is_key`
    /// (1 when it is the table's whole primary key), with what
    /// [`increment`](Self::increment) reads, the column's attributes
    /// (`nullable`, `column_default`, `column_comment`) and, with
    /// [`NAMES_IGNORE_CASE`](Self::NAMES_IGNORE_CASE), `table_name` and
    /// `column_name`; `create_sql` where the table is rebuilt. No row when
    /// there is no such column.
    fn key_column(table: &str, column: &str) -> Result<Query, AdoptError>;

    /// How the key column of `row` (of [`key_column`](Self::key_column))
    /// is auto-incremented.
    fn increment(row: &SqlRow, key: &KeyTable) -> Result<Increment, AdoptError>;

    /// The largest value the key's auto-increment handed out (`issued`;
    /// no row or `NULL` when none), where the database keeps it.
    fn issued(row: &SqlRow, key: &KeyTable) -> Option<Query>;

    /// The foreign keys that reference the key, a row per foreign key, in
    /// the order of their schemas, tables and columns: `table_name`,
    /// `column_name` (its first column), `column_type`, `columns` (how
    /// many it has), with `constraint_name`, `schema_name` (`NULL` for the
    /// current one), `on_delete` …, where the database has them.
    fn foreign_keys(key: &KeyTable) -> Result<Query, AdoptError>;

    /// The reference a row of [`foreign_keys`](Self::foreign_keys) stands
    /// for.
    fn foreign_key(row: &SqlRow, key: &KeyTable) -> Result<Reference, AdoptError> {
        Reference::foreign_key(row, key, text(row, "constraint_name"))
    }

    /// The column `table.column` named with
    /// [`Adoption::reference`](crate::Adoption::reference), one row:
    /// `column_type` and the column's attributes.
    fn column(table: &str, column: &str) -> Result<Query, AdoptError>;

    /// Where the switch rebuilds the table (SQLite): the queries of its
    /// stored columns (`column_name`) and of its indexes' and triggers'
    /// statements (`statement`).
    fn definition(_key: &KeyTable) -> Option<(Query, Query)> {
        None
    }
}

/// A catalog query: its text, with `?` for each of the names bound to
/// it, and the columns of its rows.
pub(crate) struct Query {
    sql: String,
    binds: Vec<String>,
    columns: &'static [(&'static str, SqlType)],
}

impl Query {
    pub(crate) fn new(
        sql: impl Into<String>,
        binds: &[&str],
        columns: &'static [(&'static str, SqlType)],
    ) -> Self {
        Query {
            sql: sql.into(),
            binds: binds.iter().map(|&b| b.to_owned()).collect(),
            columns,
        }
    }

    /// The statement for `dialect`: placeholders numbered where it numbers
    /// them.
    fn statement(&self, dialect: Dialect) -> SqlStatement {
        let mut w = SqlWriter::new(dialect);
        let mut parts = self.sql.split('?');
        if let Some(first) = parts.next() {
            w.push(first);
        }
        for (i, part) in parts.enumerate() {
            let text = self.binds.get(i).cloned().unwrap_or_default();
            w.bind(SqlValue::Text(text));
            w.push(part);
        }
        w.returns(self.columns);
        w.finish()
    }
}

/// The columns of the catalog queries' rows: one name for one thing in
/// every database.
pub(crate) mod columns {
    use flakeid_sql::SqlType;

    pub(crate) const TABLE_NAME: (&str, SqlType) = ("table_name", SqlType::Text);
    pub(crate) const COLUMN_NAME: (&str, SqlType) = ("column_name", SqlType::Text);
    pub(crate) const COLUMN_TYPE: (&str, SqlType) = ("column_type", SqlType::Text);
    pub(crate) const IS_KEY: (&str, SqlType) = ("is_key", SqlType::BigInt);
    pub(crate) const NULLABLE: (&str, SqlType) = ("nullable", SqlType::Text);
    pub(crate) const COLUMN_DEFAULT: (&str, SqlType) = ("column_default", SqlType::Text);
    pub(crate) const COLUMN_COMMENT: (&str, SqlType) = ("column_comment", SqlType::Text);
    pub(crate) const CONSTRAINT_NAME: (&str, SqlType) = ("constraint_name", SqlType::Text);
    pub(crate) const SCHEMA_NAME: (&str, SqlType) = ("schema_name", SqlType::Text);
    pub(crate) const REFERENCED_SCHEMA: (&str, SqlType) = ("referenced_schema", SqlType::Text);
    pub(crate) const ON_DELETE: (&str, SqlType) = ("on_delete", SqlType::Text);
    pub(crate) const ON_UPDATE: (&str, SqlType) = ("on_update", SqlType::Text);
    /// How many columns a foreign key has.
    pub(crate) const COLUMNS: (&str, SqlType) = ("columns", SqlType::BigInt);
    pub(crate) const CREATE_SQL: (&str, SqlType) = ("create_sql", SqlType::Text);
    pub(crate) const STATEMENT: (&str, SqlType) = ("statement", SqlType::Text);

    /// The rows of [`keys`](super::keys).
    pub(crate) static KEYS: [(&str, SqlType); 2] =
        [("smallest", SqlType::BigInt), ("largest", SqlType::BigInt)];
    /// The rows of [`issued`](super::CatalogDialect::issued).
    pub(crate) static ISSUED: [(&str, SqlType); 1] = [("issued", SqlType::BigInt)];
}

/// Reads the adoption's tables through `db`, each in its dialect's
/// catalog.
pub(crate) async fn read_catalog<E: AsyncSqlExecutor>(
    adoption: &Adoption,
    db: &E,
) -> Result<Catalog, AdoptError> {
    let dialect = db.dialect();
    if dialect != adoption.dialect {
        return Err(AdoptError::DialectMismatch {
            adoption: adoption.dialect,
            database: dialect,
        });
    }
    let mut tables = Vec::new();
    for key in &adoption.tables {
        let named: Vec<(&str, &str)> = adoption
            .references
            .iter()
            .filter(|r| r.key_table == key.table)
            .map(|r| (r.table.as_str(), r.column.as_str()))
            .collect();
        let (table, column) = (key.table.as_str(), key.column.as_str());
        tables.push(match dialect {
            Dialect::Postgres => {
                read_table::<postgres::Postgres, _>(db, table, column, &named).await?
            }
            Dialect::MySql => read_table::<mysql::MySql, _>(db, table, column, &named).await?,
            Dialect::Sqlite => read_table::<sqlite::Sqlite, _>(db, table, column, &named).await?,
        });
    }
    Ok(Catalog { dialect, tables })
}

/// Reads the key table `table.column` and the columns that reference its
/// key (with the columns `named` as holding its keys) from `D`'s catalog.
pub(crate) async fn read_table<D: CatalogDialect, E: AsyncSqlExecutor>(
    db: &E,
    table: &str,
    column: &str,
    named: &[(&str, &str)],
) -> Result<KeyTable, AdoptError> {
    let reader = Reader::<D, E> {
        db,
        table,
        dialect: std::marker::PhantomData,
    };
    let key_rows = reader.rows(&D::key_column(table, column)?).await?;
    let row = column_row(&key_rows, table, column)?;
    let mut key = KeyTable {
        table: name::<D>(row, "table_name", table),
        column: name::<D>(row, "column_name", column),
        column_type: text(row, "column_type"),
        increment: Increment::None,
        largest_key: None,
        smallest_key: None,
        issued_up_to: None,
        references: Vec::new(),
        attributes: ColumnAttributes::of(row),
        definition: None,
    };
    if row.i64("is_key") != Some(1) {
        return Err(AdoptError::NotTheKey {
            table: key.table,
            column: key.column,
        });
    }
    if D::INTEGER_TYPES {
        integer(&key.table, &key.column, &key.column_type)?;
    }
    key.increment = D::increment(row, &key)?;
    let keys = reader.rows(&keys::<D>(&key)?).await?;
    key.smallest_key = keys.first().and_then(|r| r.i64("smallest"));
    key.largest_key = keys.first().and_then(|r| r.i64("largest"));
    if let Some(query) = D::issued(row, &key) {
        let issued = reader.rows(&query).await?;
        key.issued_up_to = issued.first().and_then(|r| r.i64("issued"));
    }
    for r in reader.rows(&D::foreign_keys(&key)?).await? {
        key.references.push(D::foreign_key(&r, &key)?);
    }
    for &(ref_table, ref_column) in named {
        let same = |a: &str, b: &str| a == b || (D::NAMES_IGNORE_CASE && a.eq_ignore_ascii_case(b));
        if key
            .references
            .iter()
            .any(|r| r.schema.is_none() && same(&r.table, ref_table) && same(&r.column, ref_column))
        {
            continue;
        }
        let rows = reader.rows(&D::column(ref_table, ref_column)?).await?;
        let r = column_row(&rows, ref_table, ref_column)?;
        let ref_column = name::<D>(r, "column_name", ref_column);
        key.references
            .push(Reference::named(ref_table, ref_column, r));
    }
    if D::INTEGER_TYPES {
        for r in &key.references {
            integer(&r.table, &r.column, &r.column_type)?;
        }
    }
    if let Some((columns, statements)) = D::definition(&key) {
        let texts = |rows: Vec<SqlRow>, name| rows.iter().map(|r| text(r, name)).collect();
        key.definition = Some(TableDefinition {
            create: text(row, "create_sql"),
            columns: texts(reader.rows(&columns).await?, "column_name"),
            indexes_and_triggers: texts(reader.rows(&statements).await?, "statement"),
        });
    }
    Ok(key)
}

impl ColumnAttributes {
    /// The attributes in `row`: `nullable` (`YES`), `column_default` (the
    /// text `NULL` for none), `column_comment` (empty for none); none of
    /// them where the row has no such column.
    fn of(row: &SqlRow) -> Self {
        ColumnAttributes {
            nullable: row.text("nullable") == Some("YES"),
            default: row
                .text("column_default")
                .filter(|v| !v.eq_ignore_ascii_case("null"))
                .map(str::to_owned),
            comment: row
                .text("column_comment")
                .filter(|c| !c.is_empty())
                .map(str::to_owned),
        }
    }
}

impl Reference {
    /// The foreign key `constraint` of a row of
    /// [`foreign_keys`](CatalogDialect::foreign_keys) that references
    /// `key`; an error for a foreign key of several columns.
    pub(crate) fn foreign_key(
        row: &SqlRow,
        key: &KeyTable,
        constraint: String,
    ) -> Result<Self, AdoptError> {
        let columns = row.i64("columns").unwrap_or(1);
        if columns != 1 {
            return Err(AdoptError::CompositeReference {
                table: text(row, "table_name"),
                constraint,
                key_table: key.table.clone(),
                key_column: key.column.clone(),
                columns,
            });
        }
        let optional = |name| row.text(name).map(str::to_owned);
        Ok(Reference {
            schema: optional("schema_name"),
            table: text(row, "table_name"),
            column: text(row, "column_name"),
            column_type: text(row, "column_type"),
            constraint: Some(constraint),
            on_delete: optional("on_delete"),
            on_update: optional("on_update"),
            referenced_schema: optional("referenced_schema"),
            attributes: ColumnAttributes::of(row),
        })
    }

    /// The column `table.column` of `row` (of
    /// [`column`](CatalogDialect::column)), named with
    /// [`Adoption::reference`](crate::Adoption::reference) and referencing
    /// the key without a foreign key.
    fn named(table: &str, column: String, row: &SqlRow) -> Self {
        Reference {
            schema: None,
            table: table.to_owned(),
            column,
            column_type: text(row, "column_type"),
            constraint: None,
            on_delete: None,
            on_update: None,
            referenced_schema: None,
            attributes: ColumnAttributes::of(row),
        }
    }
}

/// The text column `name` of `row`, or an empty string.
pub(crate) fn text(row: &SqlRow, name: &str) -> String {
    row.text(name).unwrap_or_default().to_owned()
}

/// The query of the smallest and the largest key: `smallest`, `largest`.
fn keys<D: CatalogDialect>(key: &KeyTable) -> Result<Query, AdoptError> {
    let (t, c) = key.identifiers(D::DIALECT)?;
    let bigint = |aggregate: &str| match D::BIGINT {
        Some(ty) => format!("CAST({aggregate}({c}) AS {ty})"),
        None => format!("{aggregate}({c})"),
    };
    Ok(Query::new(
        format!(
            "SELECT {} AS smallest, {} AS largest FROM {t}",
            bigint("min"),
            bigint("max")
        ),
        &[],
        &columns::KEYS,
    ))
}

/// Runs one key table's catalog queries.
struct Reader<'a, D, E> {
    db: &'a E,
    /// The key table, for the errors.
    table: &'a str,
    dialect: std::marker::PhantomData<D>,
}

impl<D: CatalogDialect, E: AsyncSqlExecutor> Reader<'_, D, E> {
    async fn rows(&self, query: &Query) -> Result<Vec<SqlRow>, AdoptError> {
        self.db
            .query(&query.statement(D::DIALECT))
            .await
            .map_err(|e| AdoptError::Database {
                table: self.table.to_owned(),
                source: Box::new(e),
            })
    }
}

/// A name as the catalog spells it in `row`'s column `name`, with
/// [`NAMES_IGNORE_CASE`](CatalogDialect::NAMES_IGNORE_CASE); `given`
/// otherwise.
fn name<D: CatalogDialect>(row: &SqlRow, name: &str, given: &str) -> String {
    if D::NAMES_IGNORE_CASE {
        text(row, name)
    } else {
        given.to_owned()
    }
}

/// The catalog's row of the column `table.column`: the first of `rows`,
/// or [`AdoptError::NoSuchColumn`] when there is none.
fn column_row<'r>(rows: &'r [SqlRow], table: &str, column: &str) -> Result<&'r SqlRow, AdoptError> {
    rows.first().ok_or_else(|| AdoptError::NoSuchColumn {
        table: table.to_owned(),
        column: column.to_owned(),
    })
}

/// Checks that the `column_type` of `table.column` holds integers.
fn integer(table: &str, column: &str, column_type: &str) -> Result<(), AdoptError> {
    match integer_width(column_type) {
        Some(_) => Ok(()),
        None => Err(AdoptError::NotAnInteger {
            table: table.to_owned(),
            column: column.to_owned(),
            column_type: column_type.to_owned(),
        }),
    }
}

#[cfg(test)]
#[path = "../tests/unit/read.rs"]
mod tests;
