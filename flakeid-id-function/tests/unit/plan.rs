//! Unit tests of `src/plan.rs`: the composition constants an ID function
//! computes (private, so these run as the module's `tests`).

use super::*;
use flakeid_core::layout::presets;

fn pg() -> IdFunction {
    IdFunction::new(Dialect::Postgres, "orders", presets::twitter(), 5)
}

#[test]
fn composition_constants_follow_the_field_order() {
    let twitter = pg().plan().unwrap();
    assert_eq!(
        (
            twitter.time_mult,
            twitter.node_term,
            twitter.seq_mult,
            twitter.cap
        ),
        (1 << 22, 5 << 12, 1, 4096)
    );
    let sony = IdFunction::new(Dialect::Postgres, "s", presets::sonyflake(), 3)
        .plan()
        .unwrap();
    assert_eq!(
        (
            sony.time_mult,
            sony.node_term,
            sony.seq_mult,
            sony.cap,
            sony.tick
        ),
        (1 << 24, 3, 1 << 16, 256, 10)
    );
    assert_eq!(twitter.max_position(), (1 << 53) - 1);
}
