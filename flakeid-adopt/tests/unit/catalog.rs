//! Unit tests of `src/catalog.rs` (private items; included with `#[path]`
//! as its `tests` module).

use super::*;

#[test]
fn integer_types_are_recognised() {
    assert_eq!(integer_width("bigint"), Some(true));
    assert_eq!(integer_width("int(10) unsigned"), Some(false));
    assert_eq!(integer_width("INTEGER"), Some(false));
    assert_eq!(integer_width("numeric(20,0)"), None);
    assert_eq!(integer_width("text"), None);
}
