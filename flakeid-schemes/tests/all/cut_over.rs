//! An ID type over a scheme with a cut-over: keys from before the table
//! switched to flake keys need not follow the scheme's field rules. (The
//! cut-over itself is tested in flakeid-core.)

use flakeid_core::layout::{BitLayout, presets};
use flakeid_core::{FlakeId, flake_id};
use flakeid_schemes::RandomKeys;

fn random_keys() -> RandomKeys<BitLayout> {
    RandomKeys(presets::nonsequential())
}

/// Random keys refuse a random part of 0; old keys need not follow that rule.
#[flake_id(scheme = random_keys, cut_over = 1 << 40)]
pub struct CouponId(i64);

#[test]
fn old_keys_skip_the_schemes_field_rules() {
    // Random part 0: not a random key, but a fine key from before the switch.
    let old = 1u64 << 20;
    assert!(CouponId::from_u64(old).is_ok());
    assert!(CouponId::from_u64((1 << 40) + (1 << 20)).is_err());
}
