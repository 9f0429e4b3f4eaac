//! What an adoption runs: the plan, written by each dialect from the
//! catalog model, and what the dialects' migrations share — the proof that
//! every key is below the cut-over, the name of the key's check and the
//! order of the table locks.

use std::time::SystemTime;

use flakeid_sql::Dialect;

use super::catalog::{Catalog, Increment};
use super::cut_over::{first_key_sql, too_large};
use super::error::AdoptError;
use super::{Adoption, mysql, postgres, sqlite};

/// The plan of `adoption` for the tables `catalog` describes, at `now`
/// (see [`Adoption::plan`]).
pub(crate) fn plan(
    adoption: &Adoption,
    catalog: &Catalog,
    now: SystemTime,
) -> Result<AdoptionPlan, AdoptError> {
    if adoption.tables.is_empty() || catalog.tables.is_empty() {
        return Err(AdoptError::NoTables);
    }
    if catalog.dialect != adoption.dialect {
        return Err(AdoptError::DialectMismatch {
            adoption: adoption.dialect,
            database: catalog.dialect,
        });
    }
    if let Some(f) = &adoption.id_function {
        if f.dialect() != adoption.dialect {
            return Err(AdoptError::IdFunctionMismatch {
                what: "is written for another database",
            });
        }
        if f.layout() != &adoption.layout {
            return Err(AdoptError::IdFunctionMismatch {
                what: "issues IDs of another layout",
            });
        }
    }
    let cut_over = adoption.cut_over_at(now)?;
    for t in &catalog.tables {
        if let Some(key) = t.smallest_key.filter(|&k| k <= 0) {
            return Err(AdoptError::KeyNotPositive {
                table: t.table.clone(),
                column: t.column.clone(),
                key,
            });
        }
        let largest = t.largest_key.max(t.issued_up_to);
        if let Some(largest) = largest.filter(|&l| l >= 0 && l.unsigned_abs() >= cut_over) {
            return Err(too_large(adoption, t, largest, cut_over, now));
        }
    }
    let guard = Guard {
        cut_over,
        first_key_now: first_key_sql(adoption),
    };
    let (up, down) = match adoption.dialect {
        Dialect::Postgres => postgres::plan(catalog, &guard, adoption.id_function.as_ref())?,
        Dialect::MySql => mysql::plan(catalog, &guard, adoption.id_function.as_ref())?,
        Dialect::Sqlite => sqlite::plan(catalog, &guard)?,
    };
    Ok(AdoptionPlan {
        dialect: adoption.dialect,
        cut_over,
        catalog: catalog.clone(),
        up,
        down,
    })
}

/// What an [`Adoption`] runs: the statements of the switch and of its way
/// back, written from a [`Catalog`] and proven against it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdoptionPlan {
    dialect: Dialect,
    cut_over: u64,
    catalog: Catalog,
    up: Vec<String>,
    down: Vec<String>,
}

impl AdoptionPlan {
    /// The cut-over: every existing key is below it, every flake key from
    /// now on at or above it. Declare it on the ID types:
    /// `#[flake_id(cut_over = N)]`.
    pub fn cut_over(&self) -> u64 {
        self.cut_over
    }

    /// The dialect.
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The catalog the plan was written from.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The statements of the switch, to run in order on one connection
    /// (see the [crate documentation](crate#what-runs-per-database)).
    pub fn up(&self) -> &[String] {
        &self.up
    }

    /// The statements that restore the catalog's schema (see
    /// [Down scripts](crate#down-scripts)).
    pub fn down(&self) -> &[String] {
        &self.down
    }

    /// What the plan does, one line each, for the top of a script as SQL
    /// comments: each table with its key, auto-increment, largest key and
    /// references, and the cut-over to declare.
    pub fn summary(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for t in &self.catalog.tables {
            let largest = t
                .largest_key
                .map_or_else(|| "no rows".to_owned(), |k| format!("keys up to {k}"));
            lines.push(format!(
                "{}.{}: {} ({}), {largest}",
                t.table,
                t.column,
                t.column_type,
                describe_increment(&t.increment)
            ));
            for r in &t.references {
                let table = match &r.schema {
                    Some(s) => format!("{s}.{}", r.table),
                    None => r.table.clone(),
                };
                let by = match &r.constraint {
                    Some(c) => format!("foreign key {c}"),
                    None => "named, no foreign key".to_owned(),
                };
                lines.push(format!(
                    "  referenced by {table}.{} ({}, {by})",
                    r.column, r.column_type
                ));
            }
        }
        lines.push(format!(
            "cut-over {0}: every existing key is below it; declare #[flake_id(cut_over = {0})]",
            self.cut_over
        ));
        lines
    }
}

/// The proof's SQL: the cut-over, and the first key at the database's
/// clock.
pub(crate) struct Guard {
    pub(crate) cut_over: u64,
    pub(crate) first_key_now: String,
}

impl Guard {
    /// The message of the refusal for `table.column`.
    pub(crate) fn too_large(&self, table: &str, column: &str) -> String {
        format!(
            "flakeid: {table}.{column} holds a key at or above the cut-over {}; nothing was changed",
            self.cut_over
        )
    }

    /// The message of the refusal for a cut-over above the first key now.
    pub(crate) fn in_future(&self) -> String {
        format!(
            "flakeid: the cut-over {} is above the first key the layout issues now; nothing was \
             changed",
            self.cut_over
        )
    }
}

/// The name of the check every key gets (names of checks are per table).
pub(crate) const CHECK: &str = "flakeid_key_check";

/// The tables to lock, referencing tables before the tables they
/// reference (the order in which a writer locks them: the row it inserts,
/// then the rows its foreign keys read).
pub(crate) fn lock_order(order: &[(String, Vec<String>)]) -> Vec<String> {
    let mut all: Vec<String> = Vec::new();
    for (key, referencing) in order {
        for t in referencing.iter().chain(std::iter::once(key)) {
            if !all.contains(t) {
                all.push(t.clone());
            }
        }
    }
    // `x` must come before `y` when `x` references `y`.
    let references = |x: &String, y: &String| {
        order
            .iter()
            .any(|(key, referencing)| key == y && key != x && referencing.contains(x))
    };
    let mut out: Vec<String> = Vec::new();
    while !all.is_empty() {
        let next = all
            .iter()
            .position(|x| !all.iter().any(|y| y != x && references(y, x)))
            .unwrap_or(0);
        out.push(all.remove(next));
    }
    out
}

#[cfg(test)]
#[path = "../tests/unit/plan.rs"]
mod tests;

fn describe_increment(i: &Increment) -> String {
    match i {
        Increment::Identity { always: true, .. } => "identity, always".to_owned(),
        Increment::Identity { .. } => "identity, by default".to_owned(),
        Increment::Sequence { sequence, .. } => format!("default from sequence {sequence}"),
        Increment::AutoIncrement => "auto-increment".to_owned(),
        Increment::RowId => "alias of the rowid".to_owned(),
        Increment::None => "no auto-increment".to_owned(),
    }
}
