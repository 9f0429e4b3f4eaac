//! Unit tests of `src/permute.rs`: the Feistel rounds' halves (private,
//! so these run as the module's `tests`).

use super::*;

#[test]
fn feistel_halves_are_inverse_on_the_full_width() {
    let p = Permutation::i63(42);
    for x in [0, 1, u64::MAX, 1 << 63, 0x0123_4567_89ab_cdef] {
        assert_eq!(p.backward(p.forward(x)), x);
    }
}
