//! A small, self-contained pseudo-random source for the random parts of
//! some schemes (random low bits, random per-tick starting sequence).
//!
//! SplitMix64 (Steele, Lea, Flood 2014): the state advances by a fixed odd
//! constant and each output is a bijective mix of the state. It passes
//! BigCrush, needs no lock (advancing is one `fetch_add`), and is
//! reproducible from a seed, which the statistical tests rely on. Seeds
//! default to OS entropy through std's `RandomState` (SipHash keys drawn
//! from the operating system), so no dependency is needed.
//!
//! None of this is cryptographic: the values only have to look random and
//! be evenly spread; anyone who learns a seed can predict the values.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// SplitMix64's output function: a bijection on `u64`.
#[inline]
pub(crate) const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The `index`-th output of the SplitMix64 stream started at `seed`.
#[inline]
pub(crate) const fn nth(seed: u64, index: u64) -> u64 {
    mix(seed.wrapping_add(index.wrapping_add(1).wrapping_mul(GAMMA)))
}

/// Maps a uniform 64-bit value onto `0..n` (`n >= 1`) by multiply-high
/// (Lemire); the bias is below `n / 2^64`, far below anything measurable.
#[inline]
pub(crate) const fn below(x: u64, n: u64) -> u64 {
    ((x as u128 * n as u128) >> 64) as u64
}

/// A seed from OS entropy, mixed with the time so that two seeds drawn in
/// one process differ.
pub(crate) fn os_seed() -> u64 {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    RandomState::new().hash_one(nanos)
}

/// A SplitMix64 stream shared by threads: each `next` takes a distinct state.
#[derive(Debug)]
pub(crate) struct AtomicSplitMix {
    state: AtomicU64,
}

impl AtomicSplitMix {
    pub(crate) const fn new(seed: u64) -> Self {
        AtomicSplitMix {
            state: AtomicU64::new(seed),
        }
    }

    #[inline]
    pub(crate) fn next(&self) -> u64 {
        let s = self.state.fetch_add(GAMMA, Ordering::Relaxed);
        mix(s.wrapping_add(GAMMA))
    }
}

/// SplitMix64's increment (2^64 / golden ratio, odd).
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_reference_splitmix64() {
        // SplitMix64 seeded with 1234567, as computed by the published
        // reference algorithm.
        let s = AtomicSplitMix::new(1_234_567);
        assert_eq!(s.next(), 6_457_827_717_110_365_317);
        assert_eq!(s.next(), 3_203_168_211_198_807_973);
        assert_eq!(nth(1_234_567, 0), 6_457_827_717_110_365_317);
        assert_eq!(nth(1_234_567, 1), 3_203_168_211_198_807_973);
    }

    #[test]
    fn below_stays_in_range_and_spreads() {
        let mut counts = [0u32; 10];
        for i in 0..100_000 {
            let v = below(nth(7, i), 10);
            counts[v as usize] += 1;
        }
        // Each bucket expects 10,000 (sd ≈ 95); 600 is over 6 sd.
        assert!(
            counts.iter().all(|&c| c.abs_diff(10_000) < 600),
            "{counts:?}"
        );
        assert_eq!(below(u64::MAX, 8191), 8190);
        assert_eq!(below(0, 8191), 0);
    }
}
