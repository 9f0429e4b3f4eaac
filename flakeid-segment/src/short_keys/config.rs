//! [`ShortKeyConfig`]: everything that fixes a key sequence, and the
//! arithmetic of its coprime step.

use super::{Alphabet, ShortKeyError};
use flakeid_core::__private::excerpt;

/// Everything that fixes a key sequence: alphabet, length, step and offset.
///
/// **Never change a configuration in use**: keys from a different
/// configuration are a different sequence and may repeat earlier ones.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ShortKeyConfig {
    alphabet: Alphabet,
    length: u32,
    pub(super) n: u64,
    step: u64,
    /// `step⁻¹ mod n`, for [`index_of`](Self::index_of).
    inverse: u64,
    offset: u64,
}

impl Default for ShortKeyConfig {
    /// Six characters of `0-9A-Za-z` (`n = 62^6`), step
    /// `67·71·73·79·83·89 mod 62^6 = 32,251,436,801`, offset 0.
    fn default() -> Self {
        match ShortKeyConfig::new(Alphabet::base62(), ShortKeyConfig::DEFAULT_LENGTH) {
            Ok(c) => c,
            Err(_) => unreachable!("the default configuration is valid"),
        }
    }
}

impl ShortKeyConfig {
    /// Keys of `length` characters of `alphabet`, with the default step
    /// ([`ShortKeyConfig::DEFAULT_STEP`] reduced modulo `n`) and offset 0.
    ///
    /// # Errors
    /// [`ShortKeyError::TooManyKeys`] when `length` is 0 or
    /// `alphabet.len()^length` exceeds `u64::MAX`;
    /// [`ShortKeyError::StepNotCoprime`] when the default step shares a
    /// factor with `n` (alphabets whose size has a prime factor in
    /// 67, 71, 73, 79, 83, 89: choose a step with [`with_step`](Self::with_step)).
    ///
    /// ```
    /// use flakeid_segment::{Alphabet, ShortKeyConfig};
    /// let config = ShortKeyConfig::new(Alphabet::base62(), 7)?;
    /// assert_eq!(config.n(), 3_521_614_606_208);
    /// # Ok::<(), flakeid_segment::ShortKeyError>(())
    /// ```
    pub fn new(alphabet: Alphabet, length: u32) -> Result<Self, ShortKeyError> {
        Self::build(alphabet, length, None)
    }

    /// Keys of `length` characters of `alphabet` with step `k` and offset 0.
    ///
    /// # Errors
    /// [`ShortKeyError::TooManyKeys`] as for [`new`](Self::new);
    /// [`ShortKeyError::StepNotCoprime`] unless `1 <= k < n` and `gcd(k, n) = 1`.
    ///
    /// ```
    /// use flakeid_segment::{Alphabet, ShortKeyConfig, ShortKeyError};
    /// // 67 characters: the default step is a multiple of 67, so pick one.
    /// let alphabet = Alphabet::new(&(b'!'..b'!' + 67).map(char::from).collect::<String>())?;
    /// assert!(matches!(ShortKeyConfig::new(alphabet.clone(), 4), Err(ShortKeyError::StepNotCoprime { .. })));
    /// let config = ShortKeyConfig::with_alphabet_and_step(alphabet, 4, 1_000_003)?;
    /// assert_eq!(config.step(), 1_000_003);
    /// # Ok::<(), ShortKeyError>(())
    /// ```
    pub fn with_alphabet_and_step(
        alphabet: Alphabet,
        length: u32,
        k: u64,
    ) -> Result<Self, ShortKeyError> {
        Self::build(alphabet, length, Some(k))
    }

    fn build(alphabet: Alphabet, length: u32, step: Option<u64>) -> Result<Self, ShortKeyError> {
        let too_many = ShortKeyError::TooManyKeys {
            alphabet: alphabet.len(),
            length,
        };
        if length == 0 {
            return Err(too_many);
        }
        let n = (alphabet.len() as u64)
            .checked_pow(length)
            .ok_or(too_many)?;
        let mut config = ShortKeyConfig {
            alphabet,
            length,
            n,
            step: 1,
            inverse: 1,
            offset: 0,
        };
        config.set_step(step.unwrap_or(ShortKeyConfig::DEFAULT_STEP % n))?;
        Ok(config)
    }

    /// Uses step `k` instead of the default.
    ///
    /// # Errors
    /// [`ShortKeyError::StepNotCoprime`] unless `1 <= k < n` and `gcd(k, n) = 1`.
    ///
    /// ```
    /// use flakeid_segment::{Alphabet, ShortKeyConfig, ShortKeyError};
    /// // n = 5 (one character of a 5-letter alphabet), k = 3.
    /// let five = ShortKeyConfig::new(Alphabet::new("01234")?, 1)?.with_step(3)?;
    /// let keys: Vec<u64> = (0..5).map(|i| five.key_at(i)).collect::<Result<_, _>>()?;
    /// assert_eq!(keys, [0, 3, 1, 4, 2]);
    /// assert!(five.key_at(5).is_err()); // the sixth key would repeat the first
    /// assert!(matches!(
    ///     ShortKeyConfig::default().with_step(62),
    ///     Err(ShortKeyError::StepNotCoprime { gcd: 62, .. })
    /// ));
    /// # Ok::<(), ShortKeyError>(())
    /// ```
    pub fn with_step(mut self, k: u64) -> Result<Self, ShortKeyError> {
        self.set_step(k)?;
        Ok(self)
    }

    fn set_step(&mut self, k: u64) -> Result<(), ShortKeyError> {
        let n = self.n;
        let g = gcd(k, n);
        if k == 0 || k >= n || g != 1 {
            // n = 1 (one key) admits no step in 1..n; that case never reaches
            // here because an alphabet has at least 2 characters.
            return Err(ShortKeyError::StepNotCoprime {
                step: k,
                n,
                gcd: if k == 0 { n } else { g },
            });
        }
        self.step = k;
        self.inverse = mod_inverse(k, n);
        Ok(())
    }

    /// Starts the sequence at key `offset` instead of 0 (`key(0) = offset`).
    ///
    /// # Errors
    /// [`ShortKeyError::OffsetOutOfRange`] unless `offset < n`.
    pub fn with_offset(mut self, offset: u64) -> Result<Self, ShortKeyError> {
        if offset >= self.n {
            return Err(ShortKeyError::OffsetOutOfRange { offset, n: self.n });
        }
        self.offset = offset;
        Ok(self)
    }

    /// The number of distinct keys: `alphabet.len()^length`.
    pub fn n(&self) -> u64 {
        self.n
    }

    /// The step `k`.
    pub fn step(&self) -> u64 {
        self.step
    }

    /// The first key, `key(0)`.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The key length in characters.
    pub fn length(&self) -> u32 {
        self.length
    }

    /// The alphabet.
    pub fn alphabet(&self) -> &Alphabet {
        &self.alphabet
    }

    /// The key at sequence position `index`: `(offset + index·k) mod n`.
    ///
    /// # Errors
    /// [`ShortKeyError::IndexOutOfRange`] for `index >= n`: from there on the
    /// keys repeat.
    ///
    /// ```
    /// use flakeid_segment::ShortKeyConfig;
    /// let config = ShortKeyConfig::default();
    /// assert_eq!(config.key_at(0)?, 0);
    /// assert_eq!(config.key_at(1)?, 32_251_436_801);
    /// assert!(config.key_at(config.n()).is_err());
    /// # Ok::<(), flakeid_segment::ShortKeyError>(())
    /// ```
    pub fn key_at(&self, index: u64) -> Result<u64, ShortKeyError> {
        if index >= self.n {
            return Err(ShortKeyError::IndexOutOfRange { index, n: self.n });
        }
        let n = u128::from(self.n);
        let key = (u128::from(self.offset) + u128::from(index) * u128::from(self.step)) % n;
        // Below n, which is a u64.
        Ok(key as u64)
    }

    /// The sequence position of `key`: the inverse of [`key_at`](Self::key_at).
    ///
    /// # Errors
    /// [`ShortKeyError::KeyOutOfRange`] for `key >= n`.
    ///
    /// ```
    /// use flakeid_segment::ShortKeyConfig;
    /// let config = ShortKeyConfig::default();
    /// let key = config.key_at(123_456)?;
    /// assert_eq!(config.index_of(key)?, 123_456);
    /// # Ok::<(), flakeid_segment::ShortKeyError>(())
    /// ```
    pub fn index_of(&self, key: u64) -> Result<u64, ShortKeyError> {
        if key >= self.n {
            return Err(ShortKeyError::KeyOutOfRange { key, n: self.n });
        }
        let n = u128::from(self.n);
        let diff = (u128::from(key) + n - u128::from(self.offset)) % n;
        Ok((diff * u128::from(self.inverse) % n) as u64)
    }

    /// Renders `key` as exactly [`length`](Self::length) characters.
    ///
    /// # Errors
    /// [`ShortKeyError::KeyOutOfRange`] for `key >= n`.
    ///
    /// ```
    /// use flakeid_segment::ShortKeyConfig;
    /// let config = ShortKeyConfig::default();
    /// assert_eq!(config.encode(0)?, "000000");
    /// assert_eq!(config.encode(61)?, "00000z");
    /// assert_eq!(config.encode(config.n() - 1)?, "zzzzzz");
    /// # Ok::<(), flakeid_segment::ShortKeyError>(())
    /// ```
    pub fn encode(&self, key: u64) -> Result<String, ShortKeyError> {
        if key >= self.n {
            return Err(ShortKeyError::KeyOutOfRange { key, n: self.n });
        }
        let base = self.alphabet.len() as u64;
        let mut out = vec![0u8; self.length as usize];
        let mut v = key;
        for slot in out.iter_mut().rev() {
            *slot = self.alphabet.chars[(v % base) as usize];
            v /= base;
        }
        Ok(out.into_iter().map(char::from).collect())
    }

    /// Parses a key of exactly [`length`](Self::length) alphabet characters.
    ///
    /// # Errors
    /// [`ShortKeyError::KeyLength`] or [`ShortKeyError::KeyChar`] naming the input.
    ///
    /// ```
    /// use flakeid_segment::{ShortKeyConfig, ShortKeyError};
    /// let config = ShortKeyConfig::default();
    /// assert_eq!(config.decode("00000z")?, 61);
    /// assert!(matches!(config.decode("00000"), Err(ShortKeyError::KeyLength { len: 5, .. })));
    /// assert!(matches!(config.decode("0000-0"), Err(ShortKeyError::KeyChar { character: '-', position: 4, .. })));
    /// # Ok::<(), ShortKeyError>(())
    /// ```
    pub fn decode(&self, text: &str) -> Result<u64, ShortKeyError> {
        let len = text.chars().count();
        if len != self.length as usize {
            return Err(ShortKeyError::KeyLength {
                input: excerpt(text),
                len,
                expected: self.length as usize,
            });
        }
        let base = self.alphabet.len() as u64;
        let mut v: u64 = 0;
        for (position, c) in text.chars().enumerate() {
            let d = u8::try_from(c)
                .ok()
                .and_then(|b| self.alphabet.values.get(usize::from(b)).copied())
                .filter(|&d| d != u8::MAX)
                .ok_or_else(|| ShortKeyError::KeyChar {
                    input: excerpt(text),
                    character: c,
                    position,
                })?;
            // length digits of base `base` are below n <= u64::MAX: no overflow.
            v = v * base + u64::from(d);
        }
        Ok(v)
    }
}

impl ShortKeyConfig {
    /// The default key length.
    pub const DEFAULT_LENGTH: u32 = 6;

    /// The default step before reduction modulo `n`: `67·71·73·79·83·89`, a
    /// product of primes larger than 62, hence coprime to `62^length`.
    pub const DEFAULT_STEP: u64 = 67 * 71 * 73 * 79 * 83 * 89;

    /// The longest block [`ShortKeys`](crate::ShortKeys) accepts: `2^40 − 1` indices (its state
    /// word keeps the position within the block in 40 bits).
    pub const MAX_BLOCK_LEN: u64 = crate::cursor::MAX_RANGE_LEN;
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `k⁻¹ mod n` for `gcd(k, n) = 1`, `n >= 2` (extended Euclid).
fn mod_inverse(k: u64, n: u64) -> u64 {
    let (mut r0, mut r1) = (i128::from(n), i128::from(k));
    let (mut t0, mut t1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    // r0 == 1 here; t0 is the inverse up to a multiple of n.
    t0.rem_euclid(i128::from(n)) as u64
}

#[cfg(test)]
#[path = "../../tests/unit/short_keys.rs"]
mod tests;
