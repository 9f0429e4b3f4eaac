//! Unit tests of `src/layout/presets.rs` (private items; included with `#[path]` as its
//! `tests` module).

use super::*;
use std::time::Duration;

/// Each preset must be exactly what the validating builder produces.
#[test]
fn presets_pass_builder_validation() {
    for (name, preset) in ALL {
        let p = preset();
        let rebuilt = BitLayout::builder()
            .time_bits(p.time_bits() as u8)
            .tick(p.tick())
            .epoch(p.epoch())
            .node_fields(p.node_fields().iter().cloned())
            .sequence_bits(p.sequence_bits() as u8)
            .order(p.order())
            .domain(p.domain())
            .build()
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(rebuilt, p, "{name}");
        assert_eq!(
            p.total_bits(),
            p.domain().bits(),
            "{name} uses its whole domain"
        );
    }
}

fn ends(l: &BitLayout) -> u64 {
    l.end_millis()
}

#[test]
fn documented_capacities_and_ends() {
    assert_eq!(ends(&twitter()), 3_487_858_230_209);
    assert_eq!(ends(&discord()), 3_619_093_655_552);
    assert_eq!(ends(&instagram()), 2_413_731_649_497);
    assert_eq!(ends(&sonyflake()), 6_907_087_738_880);
    assert_eq!(ends(&tsid()), 3_776_860_055_552);
    assert_eq!(ends(&lsid()), 3_851_550_848_000);
    assert_eq!(ends(&js_safe()), 3_903_090_455_552);
    assert_eq!(ends(&js_safe_seconds()), 3_851_550_848_000);
    assert_eq!(ends(&nonsequential()), 2_803_578_827_776);
    assert_eq!(twitter().capacity_per_second(), 4_096_000.0);
    assert_eq!(instagram().capacity_per_tick(), 1024);
    assert_eq!(sonyflake().tick(), Duration::from_millis(10));
    assert_eq!(lsid().tick(), Duration::from_secs(1));
    assert_eq!(js_safe().capacity_per_second(), 256_000.0);
}
