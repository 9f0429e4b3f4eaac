//! The permute scheme; see [`Permutation`].

use core::fmt;

use flakeid_core::layout::Domain;
use thiserror::Error;

/// Keyed, reversible permutations of an ID domain, for public IDs that
/// reveal neither creation time nor volume.
///
/// Time-ordered IDs tell anyone who sees them when a row was created and,
/// from two of them, roughly how many rows were created in between. Keep
/// the time-ordered ID as the stored primary key (it keeps the index
/// compact) and show the world [`Permutation::encode`] of it instead;
/// [`Permutation::decode`] turns a public ID back into the key. Both are
/// bijections of `1..=max`, so public IDs are unique, never 0, and stay in
/// the same domain (`1..=2^63 − 1` fits a `BIGINT`, `1..=2^53 − 1` a
/// JavaScript number).
///
/// # Construction
///
/// A balanced Feistel network of [`Permutation::ROUNDS`] rounds over `2h` bits, where
/// `2h` is the width of `max` rounded up to an even number (64 bits for the
/// 63-bit domain, 54 for the 53-bit one). Each round function is a
/// multiply-xorshift mix (SplitMix64's finalizer) of the half-block plus a
/// round key; the round keys are derived from a 128-bit key. A Feistel
/// network is a permutation of `0..2^2h` whatever its round function, and
/// its inverse runs the rounds backwards. **Cycle-walking** restricts it to
/// `1..=max`: a result of 0 or above `max` is permuted again until it lands
/// in the domain. Walking stays inside the cycle of the starting value, so
/// the result is a bijection of `1..=max`; as `max >= 2^(2h − 2)`, on
/// average fewer than 4 (at most 2 for the full 63-bit domain) passes are
/// needed.
///
/// # Obfuscation, not encryption
///
/// This hides order and volume from casual observers; it is **not** a
/// cipher. The round function is not cryptographic and the key is
/// recoverable by a determined attacker who has many pairs of stored and
/// public IDs. Do not use it to protect secrets, access tokens or
/// unguessable links: use a real cipher (a format-preserving encryption
/// mode such as FF1 over AES) or random values (UUIDv4) for that. Rotating
/// the key changes every public ID.
///
/// ```
/// use flakeid_schemes::Permutation;
///
/// let p = Permutation::i63(0x5eed_0f_c0ffee_u128);
/// let public: Vec<u64> = (1..=5).map(|id| p.encode(id)).collect::<Result<_, _>>()?;
/// assert!(public.windows(2).any(|w| w[0] > w[1])); // consecutive IDs no longer look consecutive
/// for (id, &pub_id) in (1..=5).zip(&public) {
///     assert!((1..=i64::MAX as u64).contains(&pub_id));
///     assert_eq!(p.decode(pub_id)?, id);
/// }
/// # Ok::<(), flakeid_schemes::PermuteError>(())
/// ```
///
/// The permutation itself: a keyed bijection of `1..=max`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Permutation {
    max: u64,
    half_bits: u32,
    half_mask: u64,
    round_keys: [u64; Permutation::ROUNDS],
}

impl fmt::Debug for Permutation {
    // The round keys stay out of logs.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Permutation")
            .field("max", &self.max)
            .field("width_bits", &(2 * self.half_bits))
            .finish_non_exhaustive()
    }
}

impl Permutation {
    /// A permutation of `1..=max` keyed by `key`.
    ///
    /// # Errors
    /// [`PermuteError::EmptyDomain`] for `max == 0`.
    ///
    /// ```
    /// use flakeid_schemes::Permutation;
    /// let p = Permutation::new(7, 1_000)?;
    /// let mut seen: Vec<u64> = (1..=1_000).map(|i| p.encode(i)).collect::<Result<_, _>>()?;
    /// seen.sort_unstable();
    /// assert_eq!(seen, (1..=1_000).collect::<Vec<u64>>());
    /// # Ok::<(), flakeid_schemes::PermuteError>(())
    /// ```
    pub const fn new(key: u128, max: u64) -> Result<Self, PermuteError> {
        if max == 0 {
            return Err(PermuteError::EmptyDomain);
        }
        let bits = 64 - max.leading_zeros();
        let half_bits = if bits < 2 { 1 } else { bits.div_ceil(2) };
        let half_mask = if half_bits == 32 {
            u32::MAX as u64
        } else {
            (1u64 << half_bits) - 1
        };
        let (lo, hi) = (key as u64, (key >> 64) as u64);
        let mut round_keys = [0u64; Permutation::ROUNDS];
        let mut i = 0;
        while i < Permutation::ROUNDS {
            let r = i as u64 + 1;
            round_keys[i] = mix(lo.wrapping_add(r.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
                ^ mix(hi ^ r.wrapping_mul(0xc2b2_ae3d_27d4_eb4f)).rotate_left(17);
            i += 1;
        }
        Ok(Permutation {
            max,
            half_bits,
            half_mask,
            round_keys,
        })
    }

    /// A permutation of `1..=2^63 − 1`, the positive `BIGINT`s.
    pub const fn i63(key: u128) -> Self {
        Self::for_domain(key, Domain::BigInt)
    }

    /// A permutation of `1..=2^53 − 1`, the integers a JavaScript number holds.
    ///
    /// ```
    /// use flakeid_schemes::Permutation;
    /// let p = Permutation::js_safe(1);
    /// assert!(p.encode(1)? <= (1 << 53) - 1);
    /// assert!(p.encode(1 << 53).is_err());
    /// # Ok::<(), flakeid_schemes::PermuteError>(())
    /// ```
    pub const fn js_safe(key: u128) -> Self {
        Self::for_domain(key, Domain::JsSafe)
    }

    /// A permutation of a layout [`Domain`]: `1..=2^63 − 1` or `1..=2^53 − 1`.
    pub const fn for_domain(key: u128, domain: Domain) -> Self {
        let max = (1u64 << domain.bits()) - 1;
        match Self::new(key, max) {
            Ok(p) => p,
            Err(_) => unreachable!(),
        }
    }

    /// The domain's largest value.
    pub const fn max(&self) -> u64 {
        self.max
    }

    /// Maps a stored ID to its public ID.
    ///
    /// # Errors
    /// [`PermuteError::OutOfDomain`] for 0 or values above [`max`](Self::max).
    pub fn encode(&self, id: u64) -> Result<u64, PermuteError> {
        self.check(id)?;
        let mut y = self.forward(id);
        while y == 0 || y > self.max {
            y = self.forward(y);
        }
        Ok(y)
    }

    /// Maps a public ID back to the stored ID.
    ///
    /// # Errors
    /// [`PermuteError::OutOfDomain`] for 0 or values above [`max`](Self::max).
    pub fn decode(&self, public: u64) -> Result<u64, PermuteError> {
        self.check(public)?;
        let mut x = self.backward(public);
        while x == 0 || x > self.max {
            x = self.backward(x);
        }
        Ok(x)
    }

    fn check(&self, value: u64) -> Result<(), PermuteError> {
        if value == 0 || value > self.max {
            Err(PermuteError::OutOfDomain {
                value,
                max: self.max,
            })
        } else {
            Ok(())
        }
    }

    #[inline]
    fn round(&self, half: u64, key: u64) -> u64 {
        mix(half.wrapping_add(key)) & self.half_mask
    }

    /// The Feistel network over `2 · half_bits` bits.
    fn forward(&self, x: u64) -> u64 {
        let (mut l, mut r) = (x >> self.half_bits, x & self.half_mask);
        for &k in &self.round_keys {
            (l, r) = (r, l ^ self.round(r, k));
        }
        (l << self.half_bits) | r
    }

    /// The inverse network: the rounds backwards.
    fn backward(&self, y: u64) -> u64 {
        let (mut l, mut r) = (y >> self.half_bits, y & self.half_mask);
        for &k in self.round_keys.iter().rev() {
            (l, r) = (r ^ self.round(l, k), l);
        }
        (l << self.half_bits) | r
    }
}

impl Permutation {
    /// Feistel rounds; 4 are the minimum for a pseudo-random permutation with
    /// ideal round functions, the extra ones make up for a cheap round function.
    pub const ROUNDS: usize = 8;
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

/// A value outside a keyed permutation's domain, or an empty domain.
///
/// ```
/// use flakeid_schemes::{Permutation, PermuteError};
///
/// let p = Permutation::new(7, 1_000)?;
/// assert_eq!(p.encode(0), Err(PermuteError::OutOfDomain { value: 0, max: 1_000 }));
/// let e = p.decode(1_001).unwrap_err();
/// assert_eq!(e.to_string(), "1001 is outside the permutation's domain 1..=1000");
/// assert_eq!(Permutation::new(7, 0).unwrap_err(), PermuteError::EmptyDomain);
/// # Ok::<(), PermuteError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum PermuteError {
    /// The value is 0 or larger than the domain's largest value.
    #[error("{value} is outside the permutation's domain 1..={max}")]
    OutOfDomain {
        /// The value given.
        value: u64,
        /// The domain's largest value.
        max: u64,
    },
    /// The domain's largest value is 0: the domain is empty.
    #[error("a permutation domain 1..=max needs max >= 1, got 0")]
    EmptyDomain,
}

/// SplitMix64's output function: a fast, well-mixing bijection of `u64`.
const fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
#[path = "../tests/unit/permute.rs"]
mod tests;
