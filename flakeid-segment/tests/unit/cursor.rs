//! Unit tests of `src/cursor.rs`: serving a range once, lock-free
//! (crate-private, so these run as the module's `tests`).

use super::*;

#[test]
fn serves_a_range_once_then_reports_empty() {
    let c = Cursor::new();
    let Take::Empty(seen) = c.take() else {
        panic!("a new cursor is empty")
    };
    assert_eq!(seen, c.state());
    c.install(10, 3, 1);
    let taken: Vec<Take> = (0..3).map(|_| c.take()).collect();
    assert_eq!(
        taken,
        [
            Take::Value {
                value: 10,
                triggered: false
            },
            Take::Value {
                value: 11,
                triggered: true
            },
            Take::Value {
                value: 12,
                triggered: false
            },
        ]
    );
    assert!(matches!(c.take(), Take::Empty(_)));
    assert_eq!(c.current(), Some((10, 3, 3)));
}
