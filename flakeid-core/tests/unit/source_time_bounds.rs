//! Unit tests of `src/source/time_bounds.rs` (private items; included with `#[path]` as its
//! `tests` module).

use super::*;

const MS: Duration = Duration::from_millis(1);

fn at(ms: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(ms)
}

#[test]
fn ticks_of_a_range_are_those_it_overlaps() {
    use Bound::*;
    // Ticks of 10 ms from 1,000 ms, ticks 0..=99.
    let span = |s, e| tick_span(1_000, 10, 99, s, e);
    assert_eq!(span(Included(at(1_000)), Excluded(at(1_020))), Ok(0..=1));
    assert_eq!(span(Included(at(1_000)), Included(at(1_020))), Ok(0..=2));
    assert_eq!(span(Included(at(1_009)), Excluded(at(1_011))), Ok(0..=1));
    assert_eq!(
        span(
            Excluded(at(1_009) + 999_999 * Duration::from_nanos(1)),
            Unbounded
        ),
        Ok(1..=99)
    );
    assert_eq!(span(Unbounded, Unbounded), Ok(0..=99));
    assert_eq!(span(Included(at(0)), Included(at(1_000))), Ok(0..=0));
    assert_eq!(span(Included(at(1_995)), Included(at(5_000))), Ok(99..=99));
    assert!(matches!(
        span(Included(at(0)), Excluded(at(1_000))),
        Err(TimeBoundsError::BeforeEpoch { .. })
    ));
    assert!(matches!(
        span(Included(at(2_000)), Unbounded),
        Err(TimeBoundsError::AfterEnd { end, .. }) if end == at(2_000)
    ));
    assert!(matches!(
        span(Included(at(1_500)), Excluded(at(1_500))),
        Err(TimeBoundsError::Empty { .. })
    ));
    assert_eq!(span(Included(at(1_500)), Included(at(1_500))), Ok(50..=50));
    assert!(span(Included(at(1_500) + MS), Included(at(1_500))).is_err());
}
