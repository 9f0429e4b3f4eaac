//! The adoption on SQLite: the catalog from `sqlite_master` and the
//! `pragma_*` table functions; the switch as a rebuild of each key table
//! (its `CREATE TABLE` text with the key's definition rewritten) in one
//! savepoint.

use super::catalog::{Catalog, Increment, KeyTable, Reference, TableDefinition};
use super::error::AdoptError;
use super::plan::Guard;
use super::read::columns::{COLUMN_NAME, COLUMN_TYPE, COLUMNS, CREATE_SQL, IS_KEY, ISSUED};
use super::read::columns::{ON_DELETE, STATEMENT, TABLE_NAME};
use super::read::{CatalogDialect, Query, text};
use super::sqlite_create::{rewrite, without_rowid};
use flakeid_sql::{Dialect, SqlRow, SqlType};

/// SQLite's catalog.
pub(crate) struct Sqlite;

impl CatalogDialect for Sqlite {
    const DIALECT: Dialect = Dialect::Sqlite;
    const BIGINT: Option<&'static str> = None;
    const INTEGER_TYPES: bool = false;
    const NAMES_IGNORE_CASE: bool = true;

    fn key_column(table: &str, column: &str) -> Result<Query, AdoptError> {
        Ok(Query::new(
            "SELECT m.name AS table_name, m.sql AS create_sql, c.name AS column_name, \
             c.type AS column_type, \
             (c.pk = 1 AND (SELECT count(*) FROM pragma_table_info(m.name) WHERE pk > 0) = 1) \
             AS is_key \
             FROM sqlite_master m JOIN pragma_table_info(m.name) c \
             WHERE m.type = 'table' AND m.name = ? COLLATE NOCASE AND c.name = ? COLLATE NOCASE",
            &[table, column],
            &KEY_COLUMN,
        ))
    }

    /// From the table's definition: `AUTOINCREMENT`, or an alias of the
    /// rowid.
    fn increment(row: &SqlRow, key: &KeyTable) -> Result<Increment, AdoptError> {
        let create = text(row, "create_sql");
        Ok(
            if rewrite(&create, &key.column, &key.table)?.autoincrement {
                Increment::AutoIncrement
            } else if key.column_type.eq_ignore_ascii_case("integer") && !without_rowid(&create) {
                Increment::RowId
            } else {
                Increment::None
            },
        )
    }

    /// `sqlite_sequence`, which only `AUTOINCREMENT` keeps (and creates).
    fn issued(_: &SqlRow, key: &KeyTable) -> Option<Query> {
        (key.increment == Increment::AutoIncrement).then(|| {
            Query::new(
                "SELECT seq AS issued FROM sqlite_sequence WHERE name = ?",
                &[&key.table],
                &ISSUED,
            )
        })
    }

    /// Every table's `pragma_foreign_key_list`.
    fn foreign_keys(key: &KeyTable) -> Result<Query, AdoptError> {
        Ok(Query::new(
            "SELECT m.name AS table_name, p.\"from\" AS column_name, \
             COALESCE((SELECT i.type FROM pragma_table_info(m.name) i WHERE i.name = p.\"from\"), '') \
             AS column_type, p.on_delete AS on_delete, \
             (SELECT count(*) FROM pragma_foreign_key_list(m.name) o WHERE o.id = p.id) AS columns \
             FROM sqlite_master m JOIN pragma_foreign_key_list(m.name) p \
             WHERE m.type = 'table' AND p.\"table\" = ? COLLATE NOCASE \
             AND (p.\"to\" IS NULL OR p.\"to\" = ? COLLATE NOCASE) \
             ORDER BY m.name, p.\"from\"",
            &[&key.table, &key.column],
            &FOREIGN_KEYS,
        ))
    }

    /// Named by its columns: SQLite's foreign keys have no names.
    fn foreign_key(row: &SqlRow, key: &KeyTable) -> Result<Reference, AdoptError> {
        let constraint = match row.i64("columns").unwrap_or(1) {
            1 => format!(
                "{}.{} → {}",
                text(row, "table_name"),
                text(row, "column_name"),
                key.table
            ),
            columns => format!("({columns} columns)"),
        };
        Reference::foreign_key(row, key, constraint)
    }

    fn column(table: &str, column: &str) -> Result<Query, AdoptError> {
        Ok(Query::new(
            "SELECT name AS column_name, type AS column_type \
             FROM pragma_table_info(?) WHERE name = ? COLLATE NOCASE",
            &[table, column],
            &COLUMN,
        ))
    }

    fn definition(key: &KeyTable) -> Option<(Query, Query)> {
        let columns = Query::new(
            "SELECT name AS column_name FROM pragma_table_xinfo(?) WHERE hidden = 0 ORDER BY cid",
            &[&key.table],
            &STORED_COLUMNS,
        );
        let statements = Query::new(
            "SELECT sql AS statement FROM sqlite_master WHERE tbl_name = ? \
             AND type IN ('index', 'trigger') AND sql IS NOT NULL \
             ORDER BY type = 'trigger', name",
            &[&key.table],
            &STATEMENTS,
        );
        Some((columns, statements))
    }
}

/// The up and down statements.
pub(crate) fn plan(
    catalog: &Catalog,
    guard: &Guard,
) -> Result<(Vec<String>, Vec<String>), AdoptError> {
    let d = Dialect::Sqlite;
    let mut checks: Vec<(String, String)> = Vec::new();
    let mut rebuilds = Vec::new();
    let mut rebuilds_back = Vec::new();
    let mut actions = Vec::new();
    let mut helper_names = Vec::new();
    for t in &catalog.tables {
        let Some(s) = &t.definition else {
            continue;
        };
        let (name, k) = t.identifiers(d)?;
        let mut largest = format!("(SELECT COALESCE(max({k}), 0) FROM {name})");
        if t.increment == Increment::AutoIncrement {
            largest = format!(
                "max({largest}, (SELECT COALESCE(max(seq), 0) FROM sqlite_sequence WHERE name = {}))",
                d.literal(&t.table)
            );
        }
        checks.push((
            format!("{largest} < {}", guard.cut_over),
            guard.too_large(&t.table, &t.column),
        ));
        let rewritten = rewrite(&s.create, &t.column, &t.table)?.sql;
        let helpers = helper_indexes(t, &mut helper_names)?;
        rebuilds.extend(helpers.iter().cloned());
        rebuilds.extend(rebuild(&t.table, s, &rewritten)?);
        rebuilds_back.extend(helpers);
        rebuilds_back.extend(rebuild(&t.table, s, &s.create)?);
        for r in &t.references {
            let action = r.on_delete.as_deref().unwrap_or("NO ACTION");
            if !action.eq_ignore_ascii_case("NO ACTION") {
                actions.push(format!("{}.{} (ON DELETE {action})", r.table, r.column));
            }
        }
    }
    checks.push((
        format!("{} <= {}", guard.cut_over, guard.first_key_now),
        guard.in_future(),
    ));
    if !actions.is_empty() {
        checks.push((
            "(SELECT foreign_keys FROM pragma_foreign_keys) = 0".to_owned(),
            format!(
                "flakeid: foreign key enforcement is on, and dropping the table to rebuild it \
                 would run the actions of {}: run the migration with PRAGMA foreign_keys = OFF; \
                 nothing was changed",
                actions.join(", ")
            ),
        ));
    }
    let proof = checks.len();
    let fk_check = (
        "NOT EXISTS (SELECT 1 FROM pragma_foreign_key_check)".to_owned(),
        "flakeid: a foreign key is violated after the rebuild; nothing was changed".to_owned(),
    );
    checks.push(fk_check.clone());
    let mut up = begin();
    up.extend(create_checks(&checks));
    up.push(run_checks(&checks[..proof], 1));
    let drop_helpers: Vec<String> = helper_names
        .iter()
        .map(|n| format!("DROP INDEX IF EXISTS {n}"))
        .collect();
    up.extend(rebuilds);
    up.extend(drop_helpers.iter().cloned());
    up.push(run_checks(&checks[proof..], proof + 1));
    up.push(format!("DROP TABLE temp.{CHECKS}"));
    up.push(format!("RELEASE {SAVEPOINT}"));
    let mut down = begin();
    down.extend(create_checks(std::slice::from_ref(&fk_check)));
    down.extend(rebuilds_back);
    down.extend(drop_helpers);
    down.push(run_checks(std::slice::from_ref(&fk_check), 1));
    down.push(format!("DROP TABLE temp.{CHECKS}"));
    down.push(format!("RELEASE {SAVEPOINT}"));
    Ok((up, down))
}

const SAVEPOINT: &str = "\"flakeid_adopt\"";
const CHECKS: &str = "\"flakeid_adopt_check\"";

static KEY_COLUMN: [(&str, SqlType); 5] =
    [TABLE_NAME, CREATE_SQL, COLUMN_NAME, COLUMN_TYPE, IS_KEY];
static FOREIGN_KEYS: [(&str, SqlType); 5] =
    [TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, ON_DELETE, COLUMNS];
static COLUMN: [(&str, SqlType); 2] = [COLUMN_NAME, COLUMN_TYPE];
static STORED_COLUMNS: [(&str, SqlType); 1] = [COLUMN_NAME];
static STATEMENTS: [(&str, SqlType); 1] = [STATEMENT];

fn begin() -> Vec<String> {
    vec![
        format!("SAVEPOINT {SAVEPOINT}"),
        "PRAGMA defer_foreign_keys = ON".to_owned(),
    ]
}

/// A temporary table whose insert trigger raises check `i`'s message
/// (numbered from 1) when a row `(i, false)` is inserted: SQLite's SQL has
/// no other way to raise an error.
fn create_checks(checks: &[(String, String)]) -> Vec<String> {
    let d = Dialect::Sqlite;
    let mut raises = String::new();
    for (i, (_, message)) in checks.iter().enumerate() {
        raises.push_str(&format!(
            "\n  SELECT RAISE(ABORT, {}) WHERE NEW.\"check\" = {} AND NOT NEW.\"ok\";",
            d.literal(message),
            i + 1
        ));
    }
    vec![
        format!("CREATE TEMP TABLE {CHECKS} (\"check\" INTEGER NOT NULL, \"ok\" INTEGER NOT NULL)"),
        format!("CREATE TEMP TRIGGER {CHECKS} BEFORE INSERT ON {CHECKS} BEGIN{raises}\nEND"),
    ]
}

/// Runs `checks`, numbered from `first`.
fn run_checks(checks: &[(String, String)], first: usize) -> String {
    let rows = checks
        .iter()
        .enumerate()
        .map(|(i, (condition, _))| format!("({}, COALESCE({condition}, 0))", first + i))
        .collect::<Vec<_>>()
        .join(", ");
    format!("INSERT INTO temp.{CHECKS} (\"check\", \"ok\") VALUES {rows}")
}

/// Indexes on the columns referencing `t`'s key, for the rebuild: with
/// foreign key enforcement on, dropping the table and inserting its rows
/// again looks up the referencing rows of every key, a scan of the
/// referencing table per key without an index. Named in `names` to be
/// dropped after the rebuilds (`IF EXISTS`: a referencing table rebuilt
/// meanwhile took its own with it).
fn helper_indexes(t: &KeyTable, names: &mut Vec<String>) -> Result<Vec<String>, AdoptError> {
    let d = Dialect::Sqlite;
    let mut out = Vec::new();
    for r in &t.references {
        let name = d.quote(&format!("flakeid_adopt_{}", names.len() + 1));
        out.push(format!(
            "CREATE INDEX IF NOT EXISTS {name} ON {} ({})",
            d.identifier("table", &r.table)?,
            d.identifier("column", &r.column)?
        ));
        names.push(name);
    }
    Ok(out)
}

/// The statements that rebuild `table` as `create` defines it.
fn rebuild(table: &str, s: &TableDefinition, create: &str) -> Result<Vec<String>, AdoptError> {
    let d = Dialect::Sqlite;
    let name = d.identifier("table", table)?;
    let hold = d.quote(&format!("flakeid_adopt_{table}"));
    let columns = s
        .columns
        .iter()
        .map(|c| d.quote(c))
        .collect::<Vec<_>>()
        .join(", ");
    let mut out = vec![
        format!("CREATE TEMP TABLE {hold} AS SELECT * FROM {name}"),
        format!("DROP TABLE {name}"),
        create.to_owned(),
        format!("INSERT INTO {name} ({columns}) SELECT {columns} FROM temp.{hold}"),
        format!("DROP TABLE temp.{hold}"),
    ];
    out.extend(s.indexes_and_triggers.iter().cloned());
    Ok(out)
}
