//! Unit tests of `src/plan.rs` (private items; included with `#[path]` as
//! its `tests` module).

use super::*;

#[test]
fn referencing_tables_are_locked_first() {
    let order = vec![
        (
            "\"users\"".to_owned(),
            vec!["\"posts\"".to_owned(), "\"comments\"".to_owned()],
        ),
        ("\"posts\"".to_owned(), vec!["\"comments\"".to_owned()]),
        ("\"comments\"".to_owned(), vec![]),
    ];
    assert_eq!(
        lock_order(&order),
        ["\"comments\"", "\"posts\"", "\"users\""]
    );
    // A table referencing itself does not stop the order.
    let own = vec![("\"tree\"".to_owned(), vec!["\"tree\"".to_owned()])];
    assert_eq!(lock_order(&own), ["\"tree\""]);
}
