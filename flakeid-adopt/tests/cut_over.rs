//! The cut-over through the public API: the first key of the layout a
//! clock skew before the planning time, a given cut-over checked against
//! the first key now, and the end of the layout's time.

use std::time::{Duration, UNIX_EPOCH};

use flakeid_adopt::{AdoptError, Adoption};
use flakeid_core::layout::presets;
use flakeid_sql::Dialect;

#[test]
fn the_cut_over_is_the_first_key_a_clock_skew_ago() {
    let a = Adoption::new(Dialect::Postgres, presets::twitter()).table("t", "id");
    let now = UNIX_EPOCH + Duration::from_millis(1_780_000_000_000);
    let skewed = (1_780_000_000_000 - 60_000 - 1_288_834_974_657) << 22;
    assert_eq!(a.cut_over_at(now).unwrap(), skewed);
    let exact = a.clone().clock_skew(Duration::ZERO);
    assert_eq!(
        exact.cut_over_at(now).unwrap(),
        exact.first_key(now).unwrap()
    );
    assert!(matches!(
        a.clone().cut_over(skewed + (1 << 40)).cut_over_at(now),
        Err(AdoptError::CutOverInFuture { .. })
    ));
    let ended = UNIX_EPOCH + Duration::from_secs(4_000_000_000);
    assert!(matches!(
        a.first_key(ended),
        Err(AdoptError::LayoutEnded { .. })
    ));
}
