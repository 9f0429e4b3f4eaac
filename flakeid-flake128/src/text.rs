//! The text forms of a [`Flake128`]: canonical (UUID-style hex) and
//! decimal, each with exactly one spelling per flake (see the
//! [crate documentation](crate#text-forms)).

use core::fmt;
use core::str::FromStr;

use flakeid_core::__private::excerpt;

use crate::{Flake128, Flake128Error};

impl Flake128 {
    /// The canonical form as a fixed array of ASCII bytes, without allocating.
    ///
    /// ```
    /// use flakeid_flake128::Flake128;
    /// let flake = Flake128::from_u128(0x0123_4567_89ab_cdef_0011_2233_4455_6677)?;
    /// assert_eq!(&flake.to_text_array(), b"01234567-89ab-cdef-0011-223344556677");
    /// # Ok::<(), flakeid_flake128::Flake128Error>(())
    /// ```
    pub const fn to_text_array(self) -> [u8; Flake128::TEXT_LEN] {
        let mut out = [b'-'; Flake128::TEXT_LEN];
        let mut pos = Flake128::TEXT_LEN;
        let mut v = self.0;
        while pos > 0 {
            pos -= 1;
            if pos == HYPHENS[0] || pos == HYPHENS[1] || pos == HYPHENS[2] || pos == HYPHENS[3] {
                continue;
            }
            out[pos] = HEX[(v & 0xf) as usize];
            v >>= 4;
        }
        out
    }

    /// Parses the canonical form: 32 lowercase hex digits in UUID groups
    /// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`. Same as `str::parse`.
    ///
    /// # Errors
    /// [`Flake128Error`] naming the input: empty, wrong length, a character
    /// that is not lowercase hex (or a missing hyphen), or the value 0.
    ///
    /// ```
    /// use flakeid_flake128::{Flake128, Flake128Error};
    /// let flake = Flake128::parse("00000000-0000-0001-0000-000000050001")?;
    /// assert_eq!((flake.timestamp_millis(), flake.worker(), flake.sequence()), (1, 5, 1));
    /// assert!(matches!(
    ///     Flake128::parse("00000000-0000-0001-0000-00000005000A"),
    ///     Err(Flake128Error::InvalidChar { character: 'A', position: 35, .. })
    /// ));
    /// # Ok::<(), Flake128Error>(())
    /// ```
    pub fn parse(s: &str) -> Result<Self, Flake128Error> {
        const FORM: &str = "hex";
        if s.is_empty() {
            return Err(Flake128Error::Empty { form: FORM });
        }
        let len = s.chars().count();
        if len != Flake128::TEXT_LEN || s.len() != Flake128::TEXT_LEN {
            return Err(Flake128Error::Length {
                form: FORM,
                input: excerpt(s),
                len,
                expected: Flake128::TEXT_LEN,
            });
        }
        let mut v: u128 = 0;
        for (position, &b) in s.as_bytes().iter().enumerate() {
            let (ok, expected) = if HYPHENS.contains(&position) {
                (b == b'-', "'-'")
            } else {
                match b {
                    b'0'..=b'9' => {
                        v = (v << 4) | u128::from(b - b'0');
                        (true, "")
                    }
                    b'a'..=b'f' => {
                        v = (v << 4) | u128::from(b - b'a' + 10);
                        (true, "")
                    }
                    _ => (false, "a lowercase hex digit"),
                }
            };
            if !ok {
                return Err(Flake128Error::InvalidChar {
                    form: FORM,
                    input: excerpt(s),
                    character: char::from(b),
                    position,
                    expected,
                });
            }
        }
        Self::from_u128(v)
    }

    /// The decimal form: 1 to 39 digits, no leading zeros.
    ///
    /// ```
    /// use flakeid_flake128::Flake128;
    /// let flake = Flake128::from_parts(1, 0, 0)?;
    /// assert_eq!(flake.to_decimal(), "18446744073709551616");
    /// # Ok::<(), flakeid_flake128::Flake128Error>(())
    /// ```
    pub fn to_decimal(self) -> String {
        self.0.to_string()
    }

    /// Parses the decimal form: 1 to 39 ASCII digits, no sign, no leading
    /// zero, at most `2^128 − 1`, not 0.
    ///
    /// # Errors
    /// [`Flake128Error`] naming the input and what was wrong with it.
    ///
    /// ```
    /// use flakeid_flake128::{Flake128, Flake128Error};
    /// assert_eq!(Flake128::parse_decimal("18446744073709551616")?.timestamp_millis(), 1);
    /// assert!(matches!(Flake128::parse_decimal("+1"), Err(Flake128Error::InvalidChar { .. })));
    /// assert!(matches!(Flake128::parse_decimal("01"), Err(Flake128Error::LeadingZero { .. })));
    /// assert!(matches!(
    ///     Flake128::parse_decimal("340282366920938463463374607431768211456"),
    ///     Err(Flake128Error::Overflow { .. })
    /// ));
    /// # Ok::<(), Flake128Error>(())
    /// ```
    pub fn parse_decimal(s: &str) -> Result<Self, Flake128Error> {
        const FORM: &str = "decimal";
        if s.is_empty() {
            return Err(Flake128Error::Empty { form: FORM });
        }
        let len = s.chars().count();
        if len > Flake128::MAX_DECIMAL_LEN {
            return Err(Flake128Error::Length {
                form: FORM,
                input: excerpt(s),
                len,
                expected: Flake128::MAX_DECIMAL_LEN,
            });
        }
        let mut v: u128 = 0;
        let mut overflow = false;
        for (position, c) in s.chars().enumerate() {
            let Some(d) = c.to_digit(10).filter(|_| c.is_ascii_digit()) else {
                return Err(Flake128Error::InvalidChar {
                    form: FORM,
                    input: excerpt(s),
                    character: c,
                    position,
                    expected: "a digit 0-9",
                });
            };
            match v.checked_mul(10).and_then(|x| x.checked_add(u128::from(d))) {
                Some(x) => v = x,
                None => overflow = true,
            }
        }
        if s.len() > 1 && s.starts_with('0') {
            return Err(Flake128Error::LeadingZero { input: excerpt(s) });
        }
        if overflow {
            return Err(Flake128Error::Overflow { input: excerpt(s) });
        }
        Self::from_u128(v)
    }
}

impl fmt::Display for Flake128 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = self.to_text_array();
        // The array holds only ASCII hex digits and hyphens.
        f.pad(core::str::from_utf8(&text).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for Flake128 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Flake128({self})")
    }
}

impl FromStr for Flake128 {
    type Err = Flake128Error;

    fn from_str(s: &str) -> Result<Self, Flake128Error> {
        Self::parse(s)
    }
}

impl Flake128 {
    /// Length of the canonical text form: 32 hex digits and 4 hyphens.
    pub const TEXT_LEN: usize = 36;

    /// The longest decimal form: `2^128 − 1` has 39 digits.
    pub const MAX_DECIMAL_LEN: usize = 39;
}

/// Byte positions of the hyphens in the canonical form (UUID groups 8-4-4-4-12).
const HYPHENS: [usize; 4] = [8, 13, 18, 23];
const HEX: &[u8; 16] = b"0123456789abcdef";
