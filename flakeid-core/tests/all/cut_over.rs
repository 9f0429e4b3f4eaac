//! ID types with a cut-over: keys from before a table switched to flake
//! keys are valid, decode as such, and count as older than every flake key
//! in time bounds. (A cut-over over a scheme's field rules is tested in
//! flakeid-schemes.)

use std::time::{Duration, UNIX_EPOCH};

use flakeid_core::{FlakeId, flake_id};

/// The first key of the Twitter layout at 2026-01-01T00:00:00Z.
const CUT_OVER: u64 = (1_767_225_600_000 - 1_288_834_974_657) << 22;

#[flake_id(cut_over = CUT_OVER)]
pub struct UserId(i64);

#[flake_id]
pub struct PlainId(i64);

fn at(ms: u64) -> std::time::SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

#[test]
fn keys_below_the_cut_over_decode_as_issued_before_flake_keys() {
    let old = UserId::from_i64(100_000).expect("an old key is valid");
    let d = old.decode();
    assert_eq!(
        (d.timestamp, d.parts, d.before_cut_over),
        (None, None, Some(CUT_OVER))
    );
    assert!(d.fields.is_empty());
    assert_eq!(
        d.to_string(),
        format!("100000 (issued before flake keys: below the cut-over {CUT_OVER})")
    );
    let first = UserId::from_u64(CUT_OVER).expect("the cut-over is a flake key");
    assert_eq!(first.decode().timestamp, Some(at(1_767_225_600_000)));
    assert_eq!(first.decode().before_cut_over, None);
    // A type without a cut-over reads the same small key as a 2010 time.
    assert!(
        PlainId::from_i64(100_000)
            .expect("valid")
            .decode()
            .timestamp
            .is_some()
    );
}

#[test]
fn old_keys_are_older_than_every_flake_key_in_time_bounds() {
    let t = 1_767_225_600_000u64; // the cut-over's millisecond
    // Reaching back to the epoch: every old key and the flake keys up to t1.
    let all = UserId::time_bounds(..at(t + 10)).expect("bounds");
    assert_eq!(all.start().get(), 1);
    assert_eq!(
        all.end().get() as u64,
        ((t + 10 - 1_288_834_974_657) << 22) - 1
    );
    // Ending before the first flake key, but reaching back: the old keys.
    let before = UserId::time_bounds(at(1_288_834_974_657)..at(t - 1_000)).expect("bounds");
    assert_eq!(
        (before.start().get(), before.end().get() as u64),
        (1, CUT_OVER - 1)
    );
    // Starting after the epoch: no old key.
    let later = UserId::time_bounds(at(t - 1_000)..at(t + 1)).expect("bounds");
    assert_eq!(later.start().get() as u64, CUT_OVER);
    assert_eq!(later.end().get() as u64, CUT_OVER + (1 << 22) - 1);
    // Entirely between the epoch and the cut-over: no key at all.
    let none = UserId::time_bounds(at(1_500_000_000_000)..at(1_600_000_000_000)).expect("bounds");
    assert!(none.is_empty(), "{none:?}");
    assert_eq!(none.start().get() as u64, CUT_OVER);
    // The same range without a cut-over holds the flake keys of that time.
    assert!(
        !PlainId::time_bounds(at(1_500_000_000_000)..at(1_600_000_000_000))
            .expect("bounds")
            .is_empty()
    );
}
