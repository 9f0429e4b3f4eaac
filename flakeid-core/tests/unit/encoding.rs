//! Unit tests of `src/encoding/mod.rs` (private items; included with `#[path]` as its
//! `tests` module).

#[test]
fn excerpt_shortens_long_input() {
    assert_eq!(super::error::excerpt("abc"), "abc");
    let long = "é".repeat(100);
    let e = super::error::excerpt(&long);
    assert_eq!(e.chars().count(), 65);
    assert!(e.ends_with('…'));
}
