//! Key bounds of time ranges of 128-bit flakes (`Flake128::time_bounds`):
//! each millisecond's flakes, from 1970 to the end of their time.

use std::sync::Arc;
use std::time::{Duration, UNIX_EPOCH};

use flakeid_core::{Generator, ManualClock, TimeBoundsError};
use flakeid_flake128::{Flake128, Flake128Layout};

#[test]
fn flake128_bounds_hold_the_flakes_of_each_millisecond() {
    let at = |ms: u64| UNIX_EPOCH + Duration::from_millis(ms);
    let t = 1_750_000_000_000;
    let ids = Flake128::time_bounds(at(t)..at(t + 2)).unwrap();
    assert_eq!(*ids.start(), Flake128::from_parts(t, 0, 0).unwrap());
    assert_eq!(
        *ids.end(),
        Flake128::from_parts(t + 1, (1 << 48) - 1, 65_535).unwrap()
    );
    for (ms, inside) in [(t - 1, false), (t, true), (t + 1, true), (t + 2, false)] {
        let clock = Arc::new(ManualClock::new(ms - 1));
        let g = Generator::builder(Flake128Layout, 0x0242_ac11_0002)
            .clock(Arc::clone(&clock))
            .build()
            .unwrap();
        clock.set(ms);
        let flake = Flake128::generate(&g).unwrap();
        assert_eq!(ids.contains(&flake), inside, "{ms}");
    }
    // From 1970: the smallest flake is 1.
    let first = Flake128::time_bounds(..at(1)).unwrap();
    assert_eq!(first.start().as_u128(), 1);
    assert!(matches!(
        Flake128::time_bounds(..UNIX_EPOCH),
        Err(TimeBoundsError::BeforeEpoch { .. })
    ));
    let end = at(Flake128Layout::MAX_MILLIS + 1);
    assert!(matches!(
        Flake128::time_bounds(end..),
        Err(TimeBoundsError::AfterEnd { end: e, .. }) if e == end
    ));
}
