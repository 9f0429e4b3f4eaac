//! The adoption on MySQL/MariaDB: the catalog from `information_schema`
//! (`COLUMNS`, `KEY_COLUMN_USAGE`, `REFERENTIAL_CONSTRAINTS`); the switch as
//! `ALTER TABLE … MODIFY COLUMN` under `LOCK TABLES`, with foreign key
//! checks off.

use super::catalog::{Catalog, ColumnAttributes, Increment, KeyTable, Reference, schema_role};
use super::error::AdoptError;
use super::plan::{CHECK, Guard, lock_order};
use super::read::columns::{COLUMN_COMMENT, COLUMN_DEFAULT, COLUMN_NAME, COLUMN_TYPE, COLUMNS};
use super::read::columns::{CONSTRAINT_NAME, IS_KEY, ISSUED, NULLABLE, ON_DELETE};
use super::read::columns::{ON_UPDATE, REFERENCED_SCHEMA, SCHEMA_NAME, TABLE_NAME};
use super::read::{CatalogDialect, Query, text};
use flakeid_id_function::IdFunction;
use flakeid_sql::{Dialect, SqlRow, SqlType};

/// MySQL's and MariaDB's catalog.
pub(crate) struct MySql;

impl CatalogDialect for MySql {
    const DIALECT: Dialect = Dialect::MySql;
    const BIGINT: Option<&'static str> = Some("SIGNED");

    fn key_column(table: &str, column: &str) -> Result<Query, AdoptError> {
        Ok(Query::new(
            "SELECT c.COLUMN_TYPE AS column_type, c.EXTRA AS extra, c.IS_NULLABLE AS nullable, \
             c.COLUMN_DEFAULT AS column_default, c.COLUMN_COMMENT AS column_comment, \
             CAST(c.COLUMN_KEY = 'PRI' AND (SELECT COUNT(*) FROM information_schema.KEY_COLUMN_USAGE k \
             WHERE k.TABLE_SCHEMA = c.TABLE_SCHEMA AND k.TABLE_NAME = c.TABLE_NAME \
             AND k.CONSTRAINT_NAME = 'PRIMARY') = 1 AS SIGNED) AS is_key \
             FROM information_schema.COLUMNS c \
             WHERE c.TABLE_SCHEMA = DATABASE() AND c.TABLE_NAME = ? AND c.COLUMN_NAME = ?",
            &[table, column],
            &KEY_COLUMN,
        ))
    }

    fn increment(row: &SqlRow, _: &KeyTable) -> Result<Increment, AdoptError> {
        let extra = text(row, "extra").to_ascii_lowercase();
        Ok(if extra.contains("auto_increment") {
            Increment::AutoIncrement
        } else {
            Increment::None
        })
    }

    /// The table's next `AUTO_INCREMENT` value, less one.
    fn issued(_: &SqlRow, key: &KeyTable) -> Option<Query> {
        Some(Query::new(
            "SELECT CAST(AUTO_INCREMENT AS SIGNED) - 1 AS issued FROM information_schema.TABLES \
             WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND AUTO_INCREMENT > 1",
            &[&key.table],
            &ISSUED,
        ))
    }

    /// Every database's.
    fn foreign_keys(key: &KeyTable) -> Result<Query, AdoptError> {
        Ok(Query::new(
            "SELECT k.CONSTRAINT_NAME AS constraint_name, \
             CASE WHEN k.TABLE_SCHEMA = DATABASE() THEN NULL ELSE k.TABLE_SCHEMA END AS schema_name, \
             k.REFERENCED_TABLE_SCHEMA AS referenced_schema, \
             rc.DELETE_RULE AS on_delete, rc.UPDATE_RULE AS on_update, \
             k.TABLE_NAME AS table_name, k.COLUMN_NAME AS column_name, \
             c.COLUMN_TYPE AS column_type, c.IS_NULLABLE AS nullable, \
             c.COLUMN_DEFAULT AS column_default, c.COLUMN_COMMENT AS column_comment, \
             CAST((SELECT COUNT(*) FROM information_schema.KEY_COLUMN_USAGE k2 \
             WHERE k2.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND k2.TABLE_NAME = k.TABLE_NAME \
             AND k2.CONSTRAINT_NAME = k.CONSTRAINT_NAME) AS SIGNED) AS columns \
             FROM information_schema.KEY_COLUMN_USAGE k \
             JOIN information_schema.REFERENTIAL_CONSTRAINTS rc \
             ON rc.CONSTRAINT_SCHEMA = k.CONSTRAINT_SCHEMA AND rc.TABLE_NAME = k.TABLE_NAME \
             AND rc.CONSTRAINT_NAME = k.CONSTRAINT_NAME \
             JOIN information_schema.COLUMNS c ON c.TABLE_SCHEMA = k.TABLE_SCHEMA \
             AND c.TABLE_NAME = k.TABLE_NAME AND c.COLUMN_NAME = k.COLUMN_NAME \
             WHERE k.REFERENCED_TABLE_SCHEMA = DATABASE() AND k.REFERENCED_TABLE_NAME = ? \
             AND k.REFERENCED_COLUMN_NAME = ? \
             ORDER BY k.TABLE_SCHEMA, k.TABLE_NAME, k.COLUMN_NAME",
            &[&key.table, &key.column],
            &FOREIGN_KEYS,
        ))
    }

    /// Its actions checked: the switch states them again when it adds the
    /// foreign key back.
    fn foreign_key(row: &SqlRow, key: &KeyTable) -> Result<Reference, AdoptError> {
        rule(row, "on_delete")?;
        rule(row, "on_update")?;
        Reference::foreign_key(row, key, text(row, "constraint_name"))
    }

    fn column(table: &str, column: &str) -> Result<Query, AdoptError> {
        Ok(Query::new(
            "SELECT COLUMN_TYPE AS column_type, IS_NULLABLE AS nullable, \
             COLUMN_DEFAULT AS column_default, COLUMN_COMMENT AS column_comment \
             FROM information_schema.COLUMNS \
             WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?",
            &[table, column],
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
    let d = Dialect::MySql;
    let mut order: Vec<(String, Vec<String>)> = Vec::new();
    let mut alters: Vec<(String, Vec<String>, Vec<String>)> = Vec::new();
    let mut proof = String::new();
    let mut narrow = String::new();
    let mut defaults = Vec::new();
    let mut drop_defaults = Vec::new();
    // MariaDB refuses to change a column's type under a foreign key (even
    // with the checks off, since 10.4.31 / 10.5.22 / 10.6.15 / 10.11.5,
    // MDEV-31086): the foreign keys go first and come back last, unchecked.
    let mut drop_fks = Vec::new();
    let mut add_fks = Vec::new();
    let mut change = |table: &str, up: String, down: String| match alters
        .iter_mut()
        .find(|(t, ..)| t == table)
    {
        Some((_, u, d)) => {
            u.push(up);
            d.push(down);
        }
        None => alters.push((table.to_owned(), vec![up], vec![down])),
    };
    for t in &catalog.tables {
        let (name, k) = t.identifiers(d)?;
        let auto = if t.increment == Increment::AutoIncrement {
            " AUTO_INCREMENT"
        } else {
            ""
        };
        change(
            &name,
            format!(
                "MODIFY COLUMN {k} {}, ADD CONSTRAINT {} CHECK ({k} > 0)",
                definition(&widened(&t.column_type), &t.attributes, true),
                d.quote(CHECK)
            ),
            format!(
                "DROP CONSTRAINT IF EXISTS {}, MODIFY COLUMN {k} {}{auto}",
                d.quote(CHECK),
                definition(&t.column_type, &t.attributes, true)
            ),
        );
        narrow.push_str(&narrowing(&name, &k, &t.column_type));
        proof.push_str(&format!(
            "  SELECT CAST(MAX({k}) AS SIGNED) INTO v_largest FROM {name};\n  \
             IF v_largest >= {cut_over} THEN\n    \
             SET v_message = LEFT(CONCAT({before}, v_largest, {after}), {MESSAGE_CHARS});\n    \
             SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_message;\n  END IF;\n",
            cut_over = guard.cut_over,
            before = d.literal(&format!("flakeid: {}.{} holds the key ", t.table, t.column)),
            after = d.literal(&format!(
                ", at or above the cut-over {}; nothing was changed",
                guard.cut_over
            )),
        ));
        let mut referencing = Vec::new();
        for r in &t.references {
            let rt = r.qualified_table(d)?;
            let rc = d.identifier("column", &r.column)?;
            referencing.push(rt.clone());
            if let Some(c) = &r.constraint {
                let c = d.identifier("constraint", c)?;
                let fk = foreign_key(r, &rc, &name, &k)?;
                drop_fks.push(format!("ALTER TABLE {rt} DROP FOREIGN KEY {c}"));
                add_fks.push(format!("ALTER TABLE {rt} ADD CONSTRAINT {c} {fk}"));
            }
            change(
                &rt,
                format!(
                    "MODIFY COLUMN {rc} {}",
                    definition(&widened(&r.column_type), &r.attributes, false)
                ),
                format!(
                    "MODIFY COLUMN {rc} {}",
                    definition(&r.column_type, &r.attributes, false)
                ),
            );
            narrow.push_str(&narrowing(&rt, &rc, &r.column_type));
        }
        order.push((name.clone(), referencing));
        if let Some(f) = f {
            defaults.extend(f.column_default(&t.table, &t.column)?);
            drop_defaults.extend(f.drop_column_default(&t.table, &t.column)?);
        }
    }
    proof.push_str(&format!(
        "  IF {cut_over} > {first} THEN\n    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = {message};\n  \
         END IF;\n",
        cut_over = guard.cut_over,
        first = guard.first_key_now,
        message = d.literal(&message(&guard.in_future())),
    ));
    let proof = format!(
        "BEGIN NOT ATOMIC\n  DECLARE v_largest BIGINT;\n  DECLARE v_message VARCHAR({MESSAGE_CHARS});\n\
         {proof}END"
    );
    let tables = lock_order(&order);
    let lock = format!(
        "LOCK TABLES {}",
        tables
            .iter()
            .map(|t| format!("{t} WRITE"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let checks_off = [
        format!("SET {SAVED_CHECKS} = @@FOREIGN_KEY_CHECKS"),
        "SET FOREIGN_KEY_CHECKS = 0".to_owned(),
    ];
    let checks_back = format!("SET FOREIGN_KEY_CHECKS = {SAVED_CHECKS}");
    // The proof once before anything changes (so that a refusal leaves no
    // ID function behind), then again under the lock.
    let mut up = vec![proof.clone()];
    if let Some(f) = f {
        up.extend(f.install()?);
    }
    up.push(lock.clone());
    up.push(proof);
    up.extend(checks_off.iter().cloned());
    let mut down = Vec::new();
    if !narrow.is_empty() {
        down.push(format!(
            "BEGIN NOT ATOMIC\n  DECLARE v_message VARCHAR({MESSAGE_CHARS});\n{narrow}END"
        ));
    }
    down.push(lock);
    down.extend(checks_off);
    down.extend(drop_defaults);
    up.extend(drop_fks.iter().cloned());
    down.extend(drop_fks);
    for t in &tables {
        if let Some((_, u, back)) = alters.iter().find(|(name, ..)| name == t) {
            up.push(format!("ALTER TABLE {t} {}", u.join(", ")));
            down.push(format!("ALTER TABLE {t} {}", back.join(", ")));
        }
    }
    up.extend(add_fks.iter().cloned());
    down.extend(add_fks);
    up.extend(defaults);
    up.push(checks_back.clone());
    up.push("UNLOCK TABLES".to_owned());
    down.push(checks_back);
    down.push("UNLOCK TABLES".to_owned());
    if let Some(f) = f {
        down.extend(f.uninstall()?);
    }
    Ok((up, down))
}

/// `SIGNAL`'s message holds 128 characters.
const MESSAGE_CHARS: usize = 128;
/// Where the session's foreign key checks are kept while they are off.
const SAVED_CHECKS: &str = "@flakeid_foreign_key_checks";

static KEY_COLUMN: [(&str, SqlType); 6] = [
    COLUMN_TYPE,
    ("extra", SqlType::Text),
    NULLABLE,
    COLUMN_DEFAULT,
    COLUMN_COMMENT,
    IS_KEY,
];
static FOREIGN_KEYS: [(&str, SqlType); 12] = [
    CONSTRAINT_NAME,
    REFERENCED_SCHEMA,
    ON_DELETE,
    ON_UPDATE,
    SCHEMA_NAME,
    TABLE_NAME,
    COLUMN_NAME,
    COLUMN_TYPE,
    NULLABLE,
    COLUMN_DEFAULT,
    COLUMN_COMMENT,
    COLUMNS,
];
static COLUMN: [(&str, SqlType); 4] = [COLUMN_TYPE, NULLABLE, COLUMN_DEFAULT, COLUMN_COMMENT];

/// A foreign key's referential action (`column` of a row of the foreign
/// keys' query), checked to be one.
fn rule(row: &SqlRow, column: &str) -> Result<(), AdoptError> {
    let action = text(row, column);
    match action.as_str() {
        "RESTRICT" | "CASCADE" | "SET NULL" | "NO ACTION" | "SET DEFAULT" => Ok(()),
        _ => Err(AdoptError::UnknownRule {
            table: text(row, "table_name"),
            constraint: text(row, "constraint_name"),
            rule: action,
        }),
    }
}

/// The foreign key of `r`, whose column `rc` references the key `k` of
/// `key_table`, as `ADD CONSTRAINT` states it again.
fn foreign_key(r: &Reference, rc: &str, key_table: &str, k: &str) -> Result<String, AdoptError> {
    let d = Dialect::MySql;
    // The key table as the referencing table's foreign key names it.
    let parent = match &r.schema {
        Some(_) => format!(
            "{}.{key_table}",
            d.identifier(
                schema_role(d),
                r.referenced_schema.as_deref().unwrap_or_default()
            )?
        ),
        None => key_table.to_owned(),
    };
    Ok(format!(
        "FOREIGN KEY ({rc}) REFERENCES {parent} ({k}) ON DELETE {} ON UPDATE {}",
        r.on_delete.as_deref().unwrap_or_default(),
        r.on_update.as_deref().unwrap_or_default(),
    ))
}

/// The 64-bit type for `column_type`: `BIGINT`, `UNSIGNED` kept.
fn widened(column_type: &str) -> String {
    if column_type.to_ascii_lowercase().contains("unsigned") {
        "BIGINT UNSIGNED".to_owned()
    } else {
        "BIGINT".to_owned()
    }
}

/// A column's definition for `MODIFY COLUMN`: type, nullability, default,
/// comment.
fn definition(column_type: &str, attributes: &ColumnAttributes, key: bool) -> String {
    let d = Dialect::MySql;
    let mut out = column_type.to_owned();
    out.push_str(if key || !attributes.nullable {
        " NOT NULL"
    } else {
        " NULL"
    });
    if let Some(default) = attributes.default.as_ref().filter(|_| !key) {
        out.push_str(&format!(" DEFAULT {default}"));
    }
    if let Some(comment) = &attributes.comment {
        out.push_str(&format!(" COMMENT {}", d.literal(comment)));
    }
    out
}

/// The down script's check that `column` of `table` fits `column_type`
/// again (empty for 64-bit types).
fn narrowing(table: &str, column: &str, column_type: &str) -> String {
    let t = column_type.to_ascii_lowercase();
    let unsigned = t.contains("unsigned");
    let bits = match t.split(['(', ' ']).next().unwrap_or_default() {
        "tinyint" => 8,
        "smallint" => 16,
        "mediumint" => 24,
        "int" | "integer" => 32,
        _ => return String::new(),
    };
    let max: i64 = if unsigned {
        (1 << bits) - 1
    } else {
        (1 << (bits - 1)) - 1
    };
    format!(
        "  IF (SELECT MAX({column}) FROM {table}) > {max} THEN\n    \
         SET v_message = {message};\n    \
         SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_message;\n  END IF;\n",
        message = Dialect::MySql.literal(&message(&format!(
            "flakeid: {table}.{column} holds values beyond {column_type}; nothing was changed"
        ))),
    )
}

/// `text` cut to what `SIGNAL` keeps.
fn message(text: &str) -> String {
    text.chars().take(MESSAGE_CHARS).collect()
}

#[cfg(test)]
#[path = "../tests/unit/mysql.rs"]
mod tests;
