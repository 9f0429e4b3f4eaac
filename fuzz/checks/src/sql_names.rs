//! Names (and texts) given to the SQL statement builders: quoted or
//! refused, never spliced.
//!
//! The input's first byte picks the dialect and the builder (the lease
//! table's statements and scripts, segment tables, offset ranges'
//! sequences, counters and triggers, the database ID function, the decode
//! functions, the migration lock); the rest is up to seven names,
//! separated by NUL bytes. Property: each statement written with the
//! fuzzed names has, token by token as the server lexes it
//! (`sql_lex`), the shape of the same statement written
//! with plain names (only quoted identifiers and string literals differ),
//! and nothing is left unterminated; or the builder refuses with a typed
//! error. [`Dialect::quote`] and [`Dialect::literal`] give one token that
//! reads back as the name or text, and [`Dialect::identifier`] refuses
//! exactly the names its rules list.

use core::fmt::Display;

use flakeid_core::layout::presets;
use flakeid_id_function::{DecodeFunctions, IdFunction, IdPart};
use flakeid_lease::LeaseSql;
use flakeid_schemes::{LocationRange, OffsetRanges};
use flakeid_segment::SegmentSql;
use flakeid_sql::{Dialect, MigrationLock, SqlNameError};

use crate::input::Bytes;
use crate::sql_lex::{Tok, lex, shape};

const DIALECTS: [Dialect; 3] = [Dialect::Postgres, Dialect::MySql, Dialect::Sqlite];
const PLAIN: [&str; 7] = ["n0", "n1", "n2", "n3", "n4", "n5", "n6"];

type Built = Result<Vec<String>, String>;

pub fn check(data: &[u8]) {
    let mut input = Bytes::new(data);
    let pick = input.u8();
    let d = DIALECTS[usize::from(pick % 3)];
    let rest = input.rest();
    let mut names: Vec<&str> = rest.split('\0').collect();
    names.resize(PLAIN.len(), "");
    let names: [&str; 7] = names[..7].try_into().expect("seven names");

    quoting(d, names[0]);
    let build: fn(Dialect, [&str; 7]) -> Built = match (pick / 3) % 6 {
        0 => lease,
        1 => segment,
        2 => offset_range,
        3 => id_function,
        4 => decode_functions,
        _ => migration_lock,
    };
    let plain = build(d, PLAIN);
    match (build(d, names), plain) {
        (Ok(fuzzed), Ok(plain)) => {
            assert_eq!(fuzzed.len(), plain.len(), "{d:?} {names:?}: {fuzzed:#?}");
            for (f, p) in fuzzed.iter().zip(&plain) {
                let got = shape(d, f);
                assert!(
                    !got.iter().any(|t| matches!(t, Tok::Bad(_))),
                    "{d:?} {names:?}: {f}"
                );
                assert_eq!(
                    got,
                    shape(d, p),
                    "{d:?} {names:?}: a name changed the statement's shape:\n{f}\nplain:\n{p}"
                );
            }
        }
        (Err(e), _) => assert!(!e.is_empty()),
        // The builder refuses the dialect itself (SQLite has no stored functions).
        (Ok(fuzzed), Err(e)) => {
            panic!("{d:?} {names:?}: plain names refused ({e}), fuzzed ones not: {fuzzed:?}")
        }
    }
}

fn text<E: Display>(e: E) -> String {
    e.to_string()
}

/// `quote`, `literal` and `identifier` of `name` alone.
fn quoting(d: Dialect, name: &str) {
    let quoted = d.quote(name);
    assert_eq!(
        lex(d, &quoted),
        [Tok::Ident(name.to_owned())],
        "{d:?} quote of {name:?}: {quoted}"
    );
    let literal = d.literal(name);
    assert_eq!(
        lex(d, &literal),
        [Tok::Str(Some(name.to_owned()))],
        "{d:?} literal of {name:?}: {literal}"
    );
    match (d.identifier("table", name), identifier_rule(d, name)) {
        (Ok(q), None) => assert_eq!(q, quoted),
        (Err(e), Some(rule)) => {
            assert_eq!(kind(&e), rule, "{d:?} {name:?}: {e}");
            assert!(!e.to_string().is_empty());
        }
        (got, rule) => panic!("{d:?} identifier {name:?}: got {got:?}, rule {rule:?}"),
    }
}

/// The rule of [`Dialect::identifier`] that refuses `name`, if any.
fn identifier_rule(d: Dialect, name: &str) -> Option<&'static str> {
    if name.is_empty() {
        return Some("Empty");
    }
    if name.contains('\0') {
        return Some("Nul");
    }
    match d {
        Dialect::Postgres if name.len() > 63 => Some("TooLong"),
        Dialect::MySql if name.chars().count() > 64 => Some("TooLong"),
        Dialect::MySql if name.chars().any(|c| c > '\u{FFFF}') => Some("CharacterAboveBmp"),
        Dialect::MySql if name.ends_with(' ') => Some("TrailingSpace"),
        Dialect::Sqlite
            if name.len() >= 7 && name.as_bytes()[..7].eq_ignore_ascii_case(b"sqlite_") =>
        {
            Some("ReservedPrefix")
        }
        _ => None,
    }
}

fn kind(e: &SqlNameError) -> &'static str {
    match e {
        SqlNameError::Empty { .. } => "Empty",
        SqlNameError::Nul { .. } => "Nul",
        SqlNameError::TooLong { .. } => "TooLong",
        SqlNameError::CharacterAboveBmp { .. } => "CharacterAboveBmp",
        SqlNameError::TrailingSpace { .. } => "TrailingSpace",
        SqlNameError::ReservedPrefix { .. } => "ReservedPrefix",
        _ => "another",
    }
}

/// The lease table's statements, and the scripts that write a space,
/// owner and holder into it as literals.
fn lease(d: Dialect, n: [&str; 7]) -> Built {
    let sql = LeaseSql::with_table(d, n[0]).map_err(text)?;
    Ok(vec![
        sql.create_table(),
        sql.drop_table(),
        sql.insert_node_script(n[1], 5),
        sql.reserve_script(n[1], 5, n[2], n[3]),
        sql.holder_script(n[1], 5),
        sql.high_water_if_held_script(n[1], 5, n[2]),
    ])
}

fn segment(d: Dialect, n: [&str; 7]) -> Built {
    let sql = SegmentSql::with_table(d, n[0]).map_err(text)?;
    Ok(vec![sql.create_table(), sql.drop_table()])
}

fn offset_range(d: Dialect, n: [&str; 7]) -> Built {
    let range = OffsetRanges::decimal(2, 5)
        .and_then(|r| r.range(1))
        .expect("location 1 of 5 ranges of 100");
    Ok(match d {
        Dialect::Postgres => vec![
            range.postgres_create_sequence(n[0]).map_err(text)?,
            LocationRange::postgres_next_value(n[0]).map_err(text)?,
        ],
        Dialect::MySql => vec![
            range.mariadb_create_sequence(n[0]).map_err(text)?,
            LocationRange::mariadb_next_value(n[0]).map_err(text)?,
            range.mysql_auto_increment_start(n[1]).map_err(text)?,
            range.mysql_range_trigger(n[2], n[1], n[3]).map_err(text)?,
        ],
        Dialect::Sqlite => vec![
            range.sqlite_create_counter(n[0]).map_err(text)?,
            LocationRange::sqlite_next_value(n[0]).map_err(text)?,
        ],
    })
}

/// The database ID function: its space (a literal), function, state,
/// lease table and clock function names, and the column it fills.
fn id_function(d: Dialect, n: [&str; 7]) -> Built {
    let f = IdFunction::new(d, n[0], presets::twitter(), 5)
        .function_name(n[1])
        .state_name(n[2])
        .lease_table(n[3])
        .clock_function(n[4]);
    let mut out = f.install().map_err(text)?;
    out.extend(f.uninstall().map_err(text)?);
    out.push(f.call().map_err(text)?);
    out.extend(f.column_default(n[5], n[6]).map_err(text)?);
    out.extend(f.drop_column_default(n[5], n[6]).map_err(text)?);
    Ok(out)
}

/// The decode functions: their prefix, a column they read, a field name.
fn decode_functions(d: Dialect, n: [&str; 7]) -> Built {
    let f = DecodeFunctions::new(d, presets::twitter()).prefix(n[0]);
    let mut out = Vec::new();
    if d != Dialect::Sqlite {
        out.extend(f.install().map_err(text)?);
        out.extend(f.uninstall().map_err(text)?);
        out.push(f.function(&IdPart::Time).map_err(text)?);
    }
    let column = d.quote(n[1]);
    for part in [
        IdPart::Time,
        IdPart::UnixMillis,
        IdPart::Field("worker".to_owned()),
    ] {
        out.push(format!(
            "SELECT {}",
            f.expression(&part, &column).map_err(text)?
        ));
    }
    // A field the layout lacks is refused, whatever its name.
    let other = format!("{}x", n[2]);
    if !["tick", "datacenter", "worker", "node", "sequence"].contains(&other.as_str()) {
        assert!(f.expression(&IdPart::Field(other), &column).is_err());
    }
    Ok(out)
}

fn migration_lock(d: Dialect, n: [&str; 7]) -> Built {
    let lock = MigrationLock::named(n[0]);
    Ok([lock.try_lock(d), lock.unlock(d)]
        .into_iter()
        .flatten()
        .map(|s| s.sql)
        .collect())
}
