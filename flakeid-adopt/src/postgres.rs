//! The adoption on PostgreSQL: the catalog from `pg_class`,
//! `pg_attribute` and `pg_constraint`; the switch as one `DO` block under
//! `ACCESS EXCLUSIVE` locks.

use std::collections::BTreeMap;

use super::catalog::{Catalog, Increment, KeyTable, integer_width};
use super::error::AdoptError;
use super::plan::{CHECK, Guard, lock_order};
use super::read::columns::{COLUMN_DEFAULT, COLUMN_TYPE, COLUMNS, CONSTRAINT_NAME, ISSUED};
use super::read::columns::{COLUMN_NAME, IS_KEY, SCHEMA_NAME, TABLE_NAME};
use super::read::{CatalogDialect, Query, text};
use flakeid_id_function::IdFunction;
use flakeid_sql::{Dialect, SqlRow, SqlType};

/// PostgreSQL's catalog.
pub(crate) struct Postgres;

impl CatalogDialect for Postgres {
    const DIALECT: Dialect = Dialect::Postgres;
    const BIGINT: Option<&'static str> = Some("bigint");

    fn key_column(table: &str, column: &str) -> Result<Query, AdoptError> {
        let t = Self::DIALECT.identifier("table", table)?;
        Ok(Query::new(
            "SELECT format_type(a.atttypid, a.atttypmod) AS column_type, \
             a.attidentity::text AS identity, \
             pg_get_expr(d.adbin, d.adrelid) AS column_default, \
             pg_get_serial_sequence(?, ?) AS sequence_name, \
             CAST((SELECT count(*) FROM pg_index i WHERE i.indrelid = cl.oid AND i.indisprimary \
             AND i.indnkeyatts = 1 AND i.indkey[0] = a.attnum) AS bigint) AS is_key \
             FROM pg_class cl \
             JOIN pg_attribute a ON a.attrelid = cl.oid AND a.attnum > 0 AND NOT a.attisdropped \
             LEFT JOIN pg_attrdef d ON d.adrelid = cl.oid AND d.adnum = a.attnum \
             WHERE cl.oid = to_regclass(?) AND a.attname = ?",
            &[&t, column, &t, column],
            &KEY_COLUMN,
        ))
    }

    fn increment(row: &SqlRow, _: &KeyTable) -> Result<Increment, AdoptError> {
        let sequence = row.text("sequence_name").map(str::to_owned);
        let default = row.text("column_default").map(str::to_owned);
        Ok(match (text(row, "identity").as_str(), sequence, default) {
            ("a" | "d", Some(sequence), _) => Increment::Identity {
                always: text(row, "identity") == "a",
                sequence,
            },
            (_, Some(sequence), Some(default)) if default.starts_with("nextval(") => {
                Increment::Sequence { sequence, default }
            }
            _ => Increment::None,
        })
    }

    /// The column's sequence, even where it is no longer its default.
    fn issued(row: &SqlRow, _: &KeyTable) -> Option<Query> {
        // A name `pg_get_serial_sequence` wrote, quoted as needed.
        let seq = row.text("sequence_name")?;
        Some(Query::new(
            format!("SELECT CASE WHEN is_called THEN last_value END AS issued FROM {seq}"),
            &[],
            &ISSUED,
        ))
    }

    /// Every schema's; a partition's foreign keys once, as its parent's.
    fn foreign_keys(key: &KeyTable) -> Result<Query, AdoptError> {
        let (t, _) = key.identifiers(Self::DIALECT)?;
        Ok(Query::new(
            "SELECT con.conname::text AS constraint_name, \
             CASE WHEN n.nspname = current_schema() THEN NULL ELSE n.nspname::text END AS schema_name, \
             cl.relname::text AS table_name, a.attname::text AS column_name, \
             format_type(a.atttypid, a.atttypmod) AS column_type, \
             CAST(cardinality(con.conkey) AS bigint) AS columns \
             FROM pg_constraint con \
             JOIN pg_class cl ON cl.oid = con.conrelid \
             JOIN pg_namespace n ON n.oid = cl.relnamespace \
             JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = con.conkey[1] \
             WHERE con.contype = 'f' AND con.conparentid = 0 AND con.confrelid = to_regclass(?) \
             AND (SELECT k.attnum FROM pg_attribute k WHERE k.attrelid = con.confrelid \
             AND k.attname = ?) = ANY (con.confkey) \
             ORDER BY n.nspname, cl.relname, a.attname",
            &[&t, &key.column],
            &FOREIGN_KEYS,
        ))
    }

    fn column(table: &str, column: &str) -> Result<Query, AdoptError> {
        let t = Self::DIALECT.identifier("table", table)?;
        Ok(Query::new(
            "SELECT format_type(a.atttypid, a.atttypmod) AS column_type FROM pg_attribute a \
             WHERE a.attrelid = to_regclass(?) AND a.attname = ? AND a.attnum > 0 \
             AND NOT a.attisdropped",
            &[&t, column],
            &COLUMN,
        ))
    }
}

/// The up and down statements.
pub(crate) fn plan(
    catalog: &Catalog,
    guard: &Guard,
    f: Option<&IdFunction>,
) -> Result<(Vec<String>, Vec<String>), AdoptError> {
    let d = Dialect::Postgres;
    let mut changes: BTreeMap<String, Change> = BTreeMap::new();
    let mut order: Vec<(String, Vec<String>)> = Vec::new();
    let mut proof = String::new();
    let mut after = Vec::new();
    let mut restore = Vec::new();
    for t in &catalog.tables {
        let (name, k) = t.identifiers(d)?;
        let key_change = changes.entry(name.clone()).or_default();
        if integer_width(&t.column_type) == Some(false) {
            key_change.up.push(format!("ALTER COLUMN {k} TYPE bigint"));
            key_change.rewrite = true;
            key_change
                .narrow
                .push((k.clone(), t.column_type.clone(), max_of(&t.column_type)));
        }
        match &t.increment {
            Increment::Identity { always, .. } => {
                key_change
                    .up
                    .push(format!("ALTER COLUMN {k} DROP IDENTITY"));
                let kind = if *always { "ALWAYS" } else { "BY DEFAULT" };
                restore.push(format!(
                    "ALTER TABLE {name} ALTER COLUMN {k} ADD GENERATED {kind} AS IDENTITY"
                ));
                restore.push(format!(
                    "PERFORM setval(pg_get_serial_sequence({}, {}), \
                     (SELECT COALESCE(max({k}), 0) + 1 FROM {name}), false)",
                    d.literal(&name),
                    d.literal(&t.column)
                ));
            }
            Increment::Sequence { sequence, default } => {
                key_change.up.push(format!("ALTER COLUMN {k} DROP DEFAULT"));
                restore.push(format!(
                    "ALTER TABLE {name} ALTER COLUMN {k} SET DEFAULT {default}"
                ));
                restore.push(format!(
                    "PERFORM setval({}, GREATEST((SELECT COALESCE(max({k}), 1) FROM {name}), \
                     (SELECT last_value FROM {sequence})), true)",
                    d.literal(sequence)
                ));
            }
            _ => {}
        }
        if let Some(f) = f {
            key_change
                .up
                .push(format!("ALTER COLUMN {k} SET DEFAULT {}", f.call()?));
        }
        key_change
            .down
            .push(format!("DROP CONSTRAINT IF EXISTS {}", d.quote(CHECK)));
        if f.is_some()
            || matches!(
                t.increment,
                Increment::Identity { .. } | Increment::Sequence { .. }
            )
        {
            key_change
                .down
                .push(format!("ALTER COLUMN {k} DROP DEFAULT"));
        }
        if let Some(seq) = match &t.increment {
            Increment::Identity { sequence, .. } | Increment::Sequence { sequence, .. } => {
                Some(sequence)
            }
            _ => None,
        } {
            proof.push_str(&format!(
                "  IF (SELECT CASE WHEN is_called THEN last_value END FROM {seq}) >= {k_over} THEN\n    \
                 RAISE EXCEPTION '%', format({message}, (SELECT last_value FROM {seq}));\n  END IF;\n",
                k_over = guard.cut_over,
                message = d.literal(&format!(
                    "flakeid: the sequence of {}.{} handed out %s, at or above the cut-over {}; \
                     nothing was changed",
                    t.table, t.column, guard.cut_over
                )),
            ));
        }
        proof.push_str(&format!(
            "  IF (SELECT max({k}) FROM {name}) >= {cut_over} THEN\n    \
             RAISE EXCEPTION '%', format({message}, (SELECT max({k}) FROM {name}));\n  END IF;\n",
            cut_over = guard.cut_over,
            message = d.literal(&format!(
                "flakeid: {}.{} holds the key %s, at or above the cut-over {}; nothing was changed",
                t.table, t.column, guard.cut_over
            )),
        ));
        let mut referencing = Vec::new();
        for r in &t.references {
            let rt = r.qualified_table(d)?;
            let rc = d.identifier("column", &r.column)?;
            referencing.push(rt.clone());
            if integer_width(&r.column_type) == Some(false) {
                let change = changes.entry(rt).or_default();
                change.up.push(format!("ALTER COLUMN {rc} TYPE bigint"));
                change.rewrite = true;
                change
                    .narrow
                    .push((rc.clone(), r.column_type.clone(), max_of(&r.column_type)));
            }
        }
        order.push((name.clone(), referencing));
        // The check: during the rewrite, or NOT VALID and validated after.
        let change = changes.entry(name.clone()).or_default();
        let check = format!("ADD CONSTRAINT {} CHECK ({k} > 0)", d.quote(CHECK));
        if change.rewrite {
            change.up.push(check);
        } else {
            change.up.push(format!("{check} NOT VALID"));
            after.push(format!(
                "ALTER TABLE {name} VALIDATE CONSTRAINT {}",
                d.quote(CHECK)
            ));
        }
    }
    let locked = lock_order(&order);
    let lock = format!(
        "  LOCK TABLE {} IN ACCESS EXCLUSIVE MODE;\n",
        locked.join(", ")
    );
    proof.push_str(&format!(
        "  IF {cut_over} > {first} THEN\n    RAISE EXCEPTION '%', {message};\n  END IF;\n",
        cut_over = guard.cut_over,
        first = guard.first_key_now,
        message = d.literal(&guard.in_future()),
    ));
    let mut alters = String::new();
    let mut down_alters = String::new();
    let mut narrow = String::new();
    for name in &locked {
        let Some(change) = changes.get(name) else {
            continue;
        };
        if !change.up.is_empty() {
            alters.push_str(&format!("  ALTER TABLE {name} {};\n", change.up.join(", ")));
        }
        let mut down = change.down.clone();
        for (column, ty, max) in &change.narrow {
            down.push(format!("ALTER COLUMN {column} TYPE {ty}"));
            narrow.push_str(&format!(
                "  IF (SELECT max(abs({column})) FROM {name}) > {max} THEN\n    \
                 RAISE EXCEPTION '%', {message};\n  END IF;\n",
                message = d.literal(&format!(
                    "flakeid: {name}.{column} holds values beyond {ty}: flake keys do not fit it \
                     any more; nothing was changed"
                )),
            ));
        }
        if !down.is_empty() {
            down_alters.push_str(&format!("  ALTER TABLE {name} {};\n", down.join(", ")));
        }
    }
    // The proof once before anything changes (so that a refusal leaves no
    // ID function behind), then again under the locks.
    let mut up = vec![do_block(&proof)];
    if let Some(f) = f {
        up.extend(f.install()?);
    }
    up.push(do_block(&format!("{lock}{proof}{alters}")));
    up.extend(after);
    let mut restore_text = String::new();
    for s in &restore {
        restore_text.push_str(&format!("  {s};\n"));
    }
    let mut down = vec![do_block(&format!(
        "{lock}{narrow}{down_alters}{restore_text}"
    ))];
    if let Some(f) = f {
        down.extend(f.uninstall()?);
    }
    Ok((up, down))
}

static KEY_COLUMN: [(&str, SqlType); 5] = [
    COLUMN_TYPE,
    ("identity", SqlType::Text),
    COLUMN_DEFAULT,
    ("sequence_name", SqlType::Text),
    IS_KEY,
];
static FOREIGN_KEYS: [(&str, SqlType); 6] = [
    CONSTRAINT_NAME,
    SCHEMA_NAME,
    TABLE_NAME,
    COLUMN_NAME,
    COLUMN_TYPE,
    COLUMNS,
];
static COLUMN: [(&str, SqlType); 1] = [COLUMN_TYPE];

/// One table's changes, in one `ALTER TABLE`.
#[derive(Default)]
struct Change {
    /// Clauses of the switch.
    up: Vec<String>,
    /// Clauses of the way back.
    down: Vec<String>,
    /// A column's type changes: the table is rewritten.
    rewrite: bool,
    /// Columns going back to a narrower type: `(column, type, largest value)`.
    narrow: Vec<(String, String, i64)>,
}

/// `body` as a `DO` block: one statement, one transaction.
fn do_block(body: &str) -> String {
    let mut tag = "$flakeid$".to_owned();
    let mut n = 0;
    while body.contains(&tag) {
        n += 1;
        tag = format!("$flakeid{n}$");
    }
    format!("DO {tag}\nBEGIN\n{body}END\n{tag}")
}

/// The largest value of a narrow integer type.
fn max_of(column_type: &str) -> i64 {
    match column_type.to_ascii_lowercase().as_str() {
        "smallint" | "int2" => i64::from(i16::MAX),
        _ => i64::from(i32::MAX),
    }
}
