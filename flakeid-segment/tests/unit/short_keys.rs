//! Unit tests of `src/short_keys/config.rs`: the coprime step's arithmetic
//! (private helpers, so these run as the module's `tests`).

use super::*;

#[test]
fn inverse_and_gcd() {
    assert_eq!(gcd(12, 18), 6);
    assert_eq!(gcd(0, 7), 7);
    for n in 2..200u64 {
        for k in 1..n {
            if gcd(k, n) == 1 {
                assert_eq!(
                    u128::from(k) * u128::from(mod_inverse(k, n)) % u128::from(n),
                    1
                );
            }
        }
    }
}

#[test]
fn default_step_is_reduced_and_coprime() {
    let c = ShortKeyConfig::default();
    assert_eq!(ShortKeyConfig::DEFAULT_STEP, 202_652_143_553);
    assert_eq!(c.step(), 202_652_143_553 - 3 * 56_800_235_584);
    assert_eq!(gcd(c.step(), c.n()), 1);
}
