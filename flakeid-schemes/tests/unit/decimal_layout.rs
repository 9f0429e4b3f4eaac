//! Unit tests of `src/decimal_layout.rs` (private items; included with `#[path]` as its
//! `tests` module).

use super::*;

#[test]
fn pow10_table() {
    assert_eq!(pow10(0), 1);
    assert_eq!(pow10(7), 10_000_000);
    assert_eq!(pow10(19), 10_000_000_000_000_000_000);
}

#[test]
fn missing_and_zero_settings() {
    let b = || DecimalLayout::builder().time_digits(5).sequence_digits(2);
    assert_eq!(b().build(), Err(LayoutError::Missing { setting: "epoch" }));
    assert_eq!(
        b().epoch_millis(0).sequence_digits(0).build(),
        Err(LayoutError::ZeroDigits { field: "sequence" })
    );
    assert!(matches!(
        b().epoch_millis(0).tick_millis(0).build(),
        Err(LayoutError::ZeroTick { .. })
    ));
    assert!(matches!(
        b().epoch_millis(u64::MAX - 10).build(),
        Err(LayoutError::TimeOverflow { .. })
    ));
    // Few time digits limit the time field before the domain does.
    let l = b().epoch_millis(0).build().unwrap();
    assert_eq!(l.max_tick(), 99_999);
    assert_eq!(l.max_id(), 9_999_999);
}
