//! Dense IDs record no time: they have no key bounds of a time range.

use std::ops::Bound::{Included, Unbounded};
use std::time::SystemTime;

use flakeid_core::{IdScheme, TimeBoundsError};
use flakeid_segment::DenseIds;

#[test]
fn dense_ids_have_no_time_bounds() {
    let now = SystemTime::now();
    let scheme: &dyn IdScheme = &DenseIds;
    let e = scheme.time_bounds(Included(now), Unbounded).unwrap_err();
    assert!(
        matches!(e, TimeBoundsError::NoTime { .. }),
        "{scheme:?}: {e:?}"
    );
    assert!(e.to_string().contains("record no time"), "{e}");
}
