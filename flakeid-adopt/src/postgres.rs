//! The adoption on PostgreSQL: the catalog from `pg_class`,
//! `pg_attribute` and `pg_constraint`; the switch as one `DO` block under
//! `ACCESS EXCLUSIVE` locks.

use std::collections::BTreeMap;

use super::catalog::{Catalog, ISSUED, Increment, KEYS};
use super::catalog::{ColumnDetails, KeyTable, Queries, Reference};
use super::catalog::{column_row, integer_key, integer_width, integers, text};
use super::error::AdoptError;
use super::plan::{CHECK, Guard, lock_order};
use flakeid_id_function::IdFunction;
use flakeid_sql::AsyncSqlExecutor;
use flakeid_sql::{Dialect, SqlType};

/// Reads one key table and the columns that reference its key.
pub(crate) async fn read_table<E: AsyncSqlExecutor>(
    q: &Queries<'_, E>,
    column: &str,
    named: &[(&str, &str)],
) -> Result<KeyTable, AdoptError> {
    let d = Dialect::Postgres;
    let table = q.table;
    let t = d.identifier("table", table)?;
    let c = d.identifier("column", column)?;
    let rows = q
        .rows(
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
            &KEY_COLUMNS,
        )
        .await?;
    let row = column_row(&rows, table, column)?;
    let column_type = text(row, "column_type");
    integer_key(table, column, row.i64("is_key") == Some(1), &column_type)?;
    let sequence = row.text("sequence_name").map(str::to_owned);
    let default = row.text("column_default").map(str::to_owned);
    let increment = match (text(row, "identity").as_str(), sequence.clone(), default) {
        ("a" | "d", Some(sequence), _) => Increment::Identity {
            always: text(row, "identity") == "a",
            sequence,
        },
        (_, Some(sequence), Some(default)) if default.starts_with("nextval(") => {
            Increment::Sequence { sequence, default }
        }
        _ => Increment::None,
    };
    let keys = q
        .rows(
            &format!("SELECT CAST(min({c}) AS bigint) AS smallest, CAST(max({c}) AS bigint) AS largest FROM {t}"),
            &[],
            &KEYS,
        )
        .await?;
    let issued_up_to = match &sequence {
        // A name `pg_get_serial_sequence` wrote, quoted as needed.
        Some(seq) => q
            .rows(
                &format!("SELECT CASE WHEN is_called THEN last_value END AS issued FROM {seq}"),
                &[],
                &ISSUED,
            )
            .await?
            .first()
            .and_then(|r| r.i64("issued")),
        None => None,
    };
    let mut references = Vec::new();
    for r in q
        .rows(
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
            &[&t, column],
            &FOREIGN_KEYS,
        )
        .await?
    {
        let constraint = text(&r, "constraint_name");
        references.push(Reference::foreign_key(
            &r,
            (table, column),
            constraint,
            None,
            ColumnDetails::default(),
        )?);
    }
    for &(ref_table, ref_column) in named {
        if references
            .iter()
            .any(|r| r.schema.is_none() && r.table == ref_table && r.column == ref_column)
        {
            continue;
        }
        let rt = d.identifier("table", ref_table)?;
        let rows = q
            .rows(
                "SELECT format_type(a.atttypid, a.atttypmod) AS column_type FROM pg_attribute a \
                 WHERE a.attrelid = to_regclass(?) AND a.attname = ? AND a.attnum > 0 \
                 AND NOT a.attisdropped",
                &[&rt, ref_column],
                &COLUMN_TYPE,
            )
            .await?;
        let row = column_row(&rows, ref_table, ref_column)?;
        references.push(Reference::named(
            ref_table,
            ref_column.to_owned(),
            row,
            ColumnDetails::default(),
        ));
    }
    integers(&references)?;
    let keys = keys.first();
    Ok(KeyTable {
        table: table.to_owned(),
        column: column.to_owned(),
        column_type,
        increment,
        largest_key: keys.and_then(|r| r.i64("largest")),
        smallest_key: keys.and_then(|r| r.i64("smallest")),
        issued_up_to,
        references,
        details: ColumnDetails::default(),
        sqlite: None,
    })
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
        let name = d.identifier("table", &t.table)?;
        let k = d.identifier("column", &t.column)?;
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

static KEY_COLUMNS: [(&str, SqlType); 5] = [
    ("column_type", SqlType::Text),
    ("identity", SqlType::Text),
    ("column_default", SqlType::Text),
    ("sequence_name", SqlType::Text),
    ("is_key", SqlType::BigInt),
];
static FOREIGN_KEYS: [(&str, SqlType); 6] = [
    ("constraint_name", SqlType::Text),
    ("schema_name", SqlType::Text),
    ("table_name", SqlType::Text),
    ("column_name", SqlType::Text),
    ("column_type", SqlType::Text),
    ("columns", SqlType::BigInt),
];
static COLUMN_TYPE: [(&str, SqlType); 1] = [("column_type", SqlType::Text)];

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
