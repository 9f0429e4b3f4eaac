//! The adoption on SQLite: the catalog from `sqlite_master` and the
//! `pragma_*` table functions; the switch as a rebuild of each key table
//! (its `CREATE TABLE` text with the key's definition rewritten) in one
//! savepoint.

use super::catalog::{Catalog, ISSUED, Increment, KEYS};
use super::catalog::{ColumnDetails, KeyTable, Queries, Reference, SqliteTable, column_row, text};
use super::error::AdoptError;
use super::plan::{CHECK, Guard};
use flakeid_sql::AsyncSqlExecutor;
use flakeid_sql::{Dialect, SqlType};

/// Reads one key table, its definition and the columns that reference it.
pub(crate) async fn read_table<E: AsyncSqlExecutor>(
    q: &Queries<'_, E>,
    column: &str,
    named: &[(&str, &str)],
) -> Result<KeyTable, AdoptError> {
    let d = Dialect::Sqlite;
    let given = q.table;
    let rows = q
        .rows(
            "SELECT name AS table_name, sql AS create_sql, \
             (SELECT count(*) FROM pragma_table_info(?) WHERE pk > 0) AS key_columns \
             FROM sqlite_master WHERE type = 'table' AND name = ? COLLATE NOCASE",
            &[given, given],
            &TABLE,
        )
        .await?;
    let row = column_row(&rows, given, column)?;
    let table = text(row, "table_name");
    let create = text(row, "create_sql");
    let key_columns = row.i64("key_columns");
    let rows = q
        .rows(
            "SELECT name AS column_name, type AS column_type, pk AS pk \
             FROM pragma_table_info(?) WHERE name = ? COLLATE NOCASE",
            &[&table, column],
            &COLUMN,
        )
        .await?;
    let row = column_row(&rows, given, column)?;
    let column = text(row, "column_name");
    let column_type = text(row, "column_type");
    if row.i64("pk") != Some(1) || key_columns != Some(1) {
        return Err(AdoptError::NotTheKey { table, column });
    }
    let t = d.identifier("table", &table)?;
    let c = d.identifier("column", &column)?;
    let columns = q
        .rows(
            "SELECT name AS column_name FROM pragma_table_xinfo(?) WHERE hidden = 0 ORDER BY cid",
            &[&table],
            &COLUMNS,
        )
        .await?
        .iter()
        .map(|r| text(r, "column_name"))
        .collect();
    let autoincrement = rewrite(&create, &column, &table)?.autoincrement;
    let increment = if autoincrement {
        Increment::AutoIncrement
    } else if column_type.eq_ignore_ascii_case("integer") && !without_rowid(&create) {
        Increment::RowId
    } else {
        Increment::None
    };
    let keys = q
        .rows(
            &format!("SELECT min({c}) AS smallest, max({c}) AS largest FROM {t}"),
            &[],
            &KEYS,
        )
        .await?;
    let issued_up_to = if autoincrement {
        q.rows(
            "SELECT seq AS issued FROM sqlite_sequence WHERE name = ?",
            &[&table],
            &ISSUED,
        )
        .await?
        .first()
        .and_then(|r| r.i64("issued"))
    } else {
        None
    };
    let mut references = Vec::new();
    for r in q
        .rows(
            "SELECT m.name AS table_name, p.\"from\" AS column_name, \
             COALESCE((SELECT i.type FROM pragma_table_info(m.name) i WHERE i.name = p.\"from\"), '') \
             AS column_type, p.on_delete AS on_delete, \
             (SELECT count(*) FROM pragma_foreign_key_list(m.name) o WHERE o.id = p.id) AS columns \
             FROM sqlite_master m JOIN pragma_foreign_key_list(m.name) p \
             WHERE m.type = 'table' AND p.\"table\" = ? COLLATE NOCASE \
             AND (p.\"to\" IS NULL OR p.\"to\" = ? COLLATE NOCASE) \
             ORDER BY m.name, p.\"from\"",
            &[&table, &column],
            &FOREIGN_KEYS,
        )
        .await?
    {
        let constraint = match r.i64("columns").unwrap_or(1) {
            1 => format!("{}.{} → {table}", text(&r, "table_name"), text(&r, "column_name")),
            columns => format!("({columns} columns)"),
        };
        let on_delete = r.text("on_delete").map(str::to_owned);
        references.push(Reference::foreign_key(
            &r,
            (&table, &column),
            constraint,
            on_delete,
            ColumnDetails::default(),
        )?);
    }
    for &(ref_table, ref_column) in named {
        if references.iter().any(|r| {
            r.table.eq_ignore_ascii_case(ref_table) && r.column.eq_ignore_ascii_case(ref_column)
        }) {
            continue;
        }
        let rows = q
            .rows(
                "SELECT name AS column_name, type AS column_type, pk AS pk \
                 FROM pragma_table_info(?) WHERE name = ? COLLATE NOCASE",
                &[ref_table, ref_column],
                &COLUMN,
            )
            .await?;
        let row = column_row(&rows, ref_table, ref_column)?;
        references.push(Reference::named(
            ref_table,
            text(row, "column_name"),
            row,
            ColumnDetails::default(),
        ));
    }
    let indexes_and_triggers = q
        .rows(
            "SELECT sql AS statement FROM sqlite_master WHERE tbl_name = ? \
             AND type IN ('index', 'trigger') AND sql IS NOT NULL \
             ORDER BY type = 'trigger', name",
            &[&table],
            &STATEMENTS,
        )
        .await?
        .iter()
        .map(|r| text(r, "statement"))
        .collect();
    let keys = keys.first();
    Ok(KeyTable {
        table,
        column,
        column_type,
        increment,
        largest_key: keys.and_then(|r| r.i64("largest")),
        smallest_key: keys.and_then(|r| r.i64("smallest")),
        issued_up_to,
        references,
        details: ColumnDetails::default(),
        sqlite: Some(SqliteTable {
            create,
            columns,
            indexes_and_triggers,
        }),
    })
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
        let Some(s) = &t.sqlite else {
            continue;
        };
        let name = d.identifier("table", &t.table)?;
        let k = d.identifier("column", &t.column)?;
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

/// A `CREATE TABLE` text with its key column rewritten.
pub(crate) struct Rewritten {
    pub(crate) sql: String,
    /// The key had `AUTOINCREMENT`.
    pub(crate) autoincrement: bool,
}

/// Rewrites the definition of `column` in `create`: type `BIGINT` (`INT`
/// in a `STRICT` table), no `AUTOINCREMENT`, `NOT NULL`, and the check.
pub(crate) fn rewrite(create: &str, column: &str, table: &str) -> Result<Rewritten, AdoptError> {
    let fail = |reason: &str| AdoptError::Rewrite {
        table: table.to_owned(),
        reason: reason.to_owned(),
    };
    let toks = tokens(create);
    let open = toks
        .iter()
        .position(|t| t.text == "(")
        .ok_or_else(|| fail("no column list"))?;
    // The items of the column list: (first token, end token), exclusive.
    let mut depth = 0;
    let mut items = Vec::new();
    let mut start = open + 1;
    let mut close = None;
    for (i, t) in toks.iter().enumerate().skip(open) {
        match t.text {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    items.push((start, i));
                    close = Some(i);
                    break;
                }
            }
            "," if depth == 1 => {
                items.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
    }
    let close = close.ok_or_else(|| fail("the column list does not end"))?;
    let strict = toks[close + 1..]
        .iter()
        .any(|t| t.word().is_some_and(|w| w.eq_ignore_ascii_case("strict")));
    let (item_start, item_end) = items
        .iter()
        .copied()
        .find(|&(s, e)| {
            toks[s..e]
                .iter()
                .find(|t| !t.blank)
                .is_some_and(|t| t.name().eq_ignore_ascii_case(column))
        })
        .ok_or_else(|| fail("the key's column definition is not in the column list"))?;
    let item = &toks[item_start..item_end];
    let name_at = item
        .iter()
        .position(|t| !t.blank)
        .ok_or_else(|| fail("an empty column definition"))?;
    // The type: words (and one parenthesised size) before the first constraint.
    let mut type_end = name_at + 1;
    let mut i = name_at + 1;
    while i < item.len() {
        let t = &item[i];
        if t.blank {
            i += 1;
            continue;
        }
        match t.word() {
            Some(w) if !CONSTRAINT_WORDS.iter().any(|c| c.eq_ignore_ascii_case(w)) => {
                i += 1;
                type_end = i;
            }
            _ if t.text == "(" => {
                let mut depth = 0;
                while i < item.len() {
                    match item[i].text {
                        "(" => depth += 1,
                        ")" => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                i += 1;
                type_end = i;
                break;
            }
            _ => break,
        }
    }
    let mut out = String::new();
    for t in &toks[..item_start] {
        out.push_str(t.text);
    }
    for t in &item[..=name_at] {
        out.push_str(t.text);
    }
    out.push_str(if strict { " INT" } else { " BIGINT" });
    let mut autoincrement = false;
    let mut not_null = false;
    let mut previous_not = false;
    for t in &item[type_end..] {
        if t.word()
            .is_some_and(|w| w.eq_ignore_ascii_case("autoincrement"))
        {
            autoincrement = true;
            continue;
        }
        if let Some(w) = t.word() {
            not_null |= previous_not && w.eq_ignore_ascii_case("null");
            previous_not = w.eq_ignore_ascii_case("not");
        }
        out.push_str(t.text);
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    if !not_null {
        out.push_str(" NOT NULL");
    }
    let c = Dialect::Sqlite.quote(column);
    out.push_str(&format!(
        " CONSTRAINT {} CHECK ({c} > 0)",
        Dialect::Sqlite.quote(CHECK)
    ));
    // What followed the item (a separator's space, then the rest).
    let after_item = &toks[item_end..];
    let blank_tail: String = item[type_end..]
        .iter()
        .rev()
        .take_while(|t| t.blank)
        .map(|t| t.text)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    out.push_str(&blank_tail);
    for t in after_item {
        out.push_str(t.text);
    }
    Ok(Rewritten {
        sql: out,
        autoincrement,
    })
}

const SAVEPOINT: &str = "\"flakeid_adopt\"";
const CHECKS: &str = "\"flakeid_adopt_check\"";

static TABLE: [(&str, SqlType); 3] = [
    ("table_name", SqlType::Text),
    ("create_sql", SqlType::Text),
    ("key_columns", SqlType::BigInt),
];
static COLUMN: [(&str, SqlType); 3] = [
    ("column_name", SqlType::Text),
    ("column_type", SqlType::Text),
    ("pk", SqlType::BigInt),
];
static COLUMNS: [(&str, SqlType); 1] = [("column_name", SqlType::Text)];
static FOREIGN_KEYS: [(&str, SqlType); 5] = [
    ("table_name", SqlType::Text),
    ("column_name", SqlType::Text),
    ("column_type", SqlType::Text),
    ("on_delete", SqlType::Text),
    ("columns", SqlType::BigInt),
];
static STATEMENTS: [(&str, SqlType); 1] = [("statement", SqlType::Text)];

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
fn rebuild(table: &str, s: &SqliteTable, create: &str) -> Result<Vec<String>, AdoptError> {
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

/// Words that start a column constraint (and so end the type).
const CONSTRAINT_WORDS: &[&str] = &[
    "CONSTRAINT",
    "PRIMARY",
    "NOT",
    "NULL",
    "UNIQUE",
    "CHECK",
    "DEFAULT",
    "COLLATE",
    "REFERENCES",
    "GENERATED",
    "AS",
];

fn without_rowid(create: &str) -> bool {
    let words: Vec<String> = tokens(create)
        .iter()
        .filter_map(|t| t.word().map(str::to_ascii_lowercase))
        .collect();
    words
        .windows(2)
        .any(|w| w[0] == "without" && w[1] == "rowid")
}

/// A token of SQLite's SQL: a word, a quoted name or string, a punctuation
/// character, or blank (spaces and comments).
struct Token<'a> {
    text: &'a str,
    blank: bool,
}

impl Token<'_> {
    /// The token as a bare word.
    fn word(&self) -> Option<&str> {
        let first = self.text.chars().next()?;
        (first.is_alphanumeric() || first == '_').then_some(self.text)
    }

    /// The token as a name: unquoted.
    fn name(&self) -> String {
        let t = self.text;
        let (open, close) = match t.chars().next() {
            Some('"') => ('"', '"'),
            Some('`') => ('`', '`'),
            Some('\'') => ('\'', '\''),
            Some('[') => return t.trim_start_matches('[').trim_end_matches(']').to_owned(),
            _ => return t.to_owned(),
        };
        let inner = &t[1..t.len().saturating_sub(1).max(1)];
        inner.replace(&format!("{close}{close}"), &open.to_string())
    }
}

fn tokens(sql: &str) -> Vec<Token<'_>> {
    let bytes = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let c = bytes[i];
        let blank = match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r') {
                    i += 1;
                }
                true
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                true
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i = (i + 2).min(bytes.len());
                true
            }
            b'"' | b'`' | b'\'' => {
                i += 1;
                loop {
                    if i >= bytes.len() {
                        break;
                    }
                    if bytes[i] == c {
                        if bytes.get(i + 1) == Some(&c) {
                            i += 2;
                            continue;
                        }
                        i += 1;
                        break;
                    }
                    i += 1;
                }
                false
            }
            b'[' => {
                while i < bytes.len() && bytes[i] != b']' {
                    i += 1;
                }
                i = (i + 1).min(bytes.len());
                false
            }
            c if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 => {
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80)
                {
                    i += 1;
                }
                false
            }
            _ => {
                i += 1;
                false
            }
        };
        out.push(Token {
            text: &sql[start..i],
            blank,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rw(create: &str, column: &str) -> String {
        rewrite(create, column, "t").unwrap().sql
    }

    #[test]
    fn the_key_loses_autoincrement_and_the_rowid_alias() {
        let r = rewrite(
            "CREATE TABLE users (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL)",
            "id",
            "users",
        )
        .unwrap();
        assert!(r.autoincrement);
        assert_eq!(
            r.sql,
            "CREATE TABLE users (id BIGINT PRIMARY KEY NOT NULL CONSTRAINT \"flakeid_key_check\" \
             CHECK (\"id\" > 0), name TEXT NOT NULL)"
        );
    }

    #[test]
    fn quoted_names_sizes_comments_and_table_keys() {
        assert_eq!(
            rw(
                "CREATE TABLE \"a b\" (\n  \"Key\" int(10) NOT NULL, -- the key\n  x TEXT,\n  PRIMARY KEY (\"Key\")\n)",
                "key"
            ),
            "CREATE TABLE \"a b\" (\n  \"Key\" BIGINT NOT NULL CONSTRAINT \"flakeid_key_check\" \
             CHECK (\"key\" > 0), -- the key\n  x TEXT,\n  PRIMARY KEY (\"Key\")\n)"
        );
        assert_eq!(
            rw("CREATE TABLE t ([id] PRIMARY KEY, v ANY) STRICT", "id"),
            "CREATE TABLE t ([id] INT PRIMARY KEY NOT NULL CONSTRAINT \"flakeid_key_check\" \
             CHECK (\"id\" > 0), v ANY) STRICT"
        );
        assert!(rewrite("CREATE TABLE t (a INTEGER)", "id", "t").is_err());
        assert!(without_rowid(
            "CREATE TABLE t (id INT PRIMARY KEY) WITHOUT ROWID"
        ));
    }
}
