//! Unit tests of `src/read.rs` (private items; included with `#[path]` as
//! its `tests` module).

use super::*;

#[test]
fn placeholders_are_numbered_for_postgres() {
    static COLUMNS: [(&str, SqlType); 1] = [("x", SqlType::Text)];
    let q = Query::new("SELECT ? AS x WHERE ? = ?", &["a", "b", "c"], &COLUMNS);
    let s = q.statement(Dialect::Postgres);
    assert_eq!(s.sql, "SELECT $1 AS x WHERE $2 = $3");
    assert_eq!(
        s.values,
        ["a", "b", "c"].map(|t| SqlValue::Text(t.to_owned()))
    );
    assert_eq!(q.statement(Dialect::MySql).sql, "SELECT ? AS x WHERE ? = ?");
}
