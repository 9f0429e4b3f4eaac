//! Unit tests of `src/decoded.rs` (private items; included with `#[path]` as its
//! `tests` module).

use super::*;

#[test]
fn display_without_node_fields_or_time() {
    let l = BitLayout::builder()
        .time_bits(41)
        .sequence_bits(12)
        .epoch_millis(0)
        .build()
        .unwrap();
    let d = Decoded::new(&l, (1000 << 12) | 3);
    assert_eq!(
        d.to_string(),
        "4096003 (1970-01-01T00:00:01.000Z, tick 1000, sequence 3)"
    );
    let untimed = Decoded::from_fields(7, None, vec![(Cow::Borrowed("counter"), 7)]);
    assert_eq!(untimed.to_string(), "7 (counter 7)");
    let old = Decoded::of_key_before_cut_over(42, 1_000);
    assert_eq!(
        old.to_string(),
        "42 (issued before flake keys: below the cut-over 1000)"
    );
}
