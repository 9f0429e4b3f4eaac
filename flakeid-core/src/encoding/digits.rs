//! The positional number systems every text form reads and writes: one
//! fixed-width writer, one fixed-width reader and one lenient reader for
//! any alphabet.

use super::error::{DecodeError, excerpt};

/// A text form's digits: its name (for errors), alphabet (in value order;
/// its length is the radix), fixed width, and the value of each character
/// it reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Digits {
    pub(crate) name: &'static str,
    pub(crate) alphabet: &'static [u8],
    /// The characters of a fixed-width `u64` (`usize::MAX`: no fixed width).
    pub(crate) width: usize,
    /// The value of a character, aliases included; `None` outside the form.
    pub(crate) digit: fn(char) -> Option<u64>,
    /// A character the lenient reader skips wherever it is (Crockford's hyphen).
    pub(crate) separator: Option<char>,
}

impl Digits {
    /// `value` as exactly [`width`](Self::width) digits, most significant
    /// first (padded with the zero digit).
    pub(crate) fn encode(&self, value: u64) -> String {
        let mut out = vec![self.alphabet[0]; self.width];
        let mut v = value;
        for slot in out.iter_mut().rev() {
            *slot = self.alphabet[(v % self.radix()) as usize];
            v /= self.radix();
        }
        out.into_iter().map(char::from).collect()
    }

    /// Exactly [`width`](Self::width) digits, at most `u64::MAX`.
    ///
    /// # Errors
    /// [`DecodeError`] naming the input: empty, a character outside the form
    /// (with its position), a length other than the width, or a value above
    /// `u64::MAX`.
    pub(crate) fn decode_fixed(&self, input: &str) -> Result<u64, DecodeError> {
        if input.is_empty() {
            return Err(DecodeError::Empty {
                encoding: self.name,
            });
        }
        // The width's digits may hold more than 64 bits: collect them in a
        // u128, then check that the value fits.
        let mut value: u128 = 0;
        let mut len = 0usize;
        for (position, c) in input.chars().enumerate() {
            let d = self.digit_at(input, c, position)?;
            if position < self.width {
                value = value * u128::from(self.radix()) + u128::from(d);
            }
            len += 1;
        }
        if len != self.width {
            return Err(DecodeError::Length {
                encoding: self.name,
                input: excerpt(input),
                len,
                expected: self.width,
            });
        }
        u64::try_from(value).map_err(|_| self.overflow(input))
    }

    /// 1 to [`width`](Self::width) digits (separators skipped and not
    /// counted), read as if padded with zeros on the left.
    ///
    /// # Errors
    /// [`DecodeError`] naming the input: empty (or only separators), a
    /// character outside the form (with its position), more digits than the
    /// width, or a value above `u64::MAX`.
    pub(crate) fn decode_lenient(&self, input: &str) -> Result<u64, DecodeError> {
        let mut value: u64 = 0;
        let mut digits = 0usize;
        for (position, c) in input.chars().enumerate() {
            if Some(c) == self.separator {
                continue;
            }
            let d = self.digit_at(input, c, position)?;
            digits += 1;
            if digits > self.width {
                return Err(DecodeError::TooLong {
                    encoding: self.name,
                    input: excerpt(input),
                    len: input.chars().filter(|&c| Some(c) != self.separator).count(),
                    max: self.width,
                });
            }
            value = value
                .checked_mul(self.radix())
                .and_then(|v| v.checked_add(d))
                .ok_or_else(|| self.overflow(input))?;
        }
        if digits == 0 {
            return Err(DecodeError::Empty {
                encoding: self.name,
            });
        }
        Ok(value)
    }

    fn radix(&self) -> u64 {
        self.alphabet.len() as u64
    }

    /// `c`'s value, or the error naming it and its `position` in `input`.
    fn digit_at(&self, input: &str, c: char, position: usize) -> Result<u64, DecodeError> {
        (self.digit)(c).ok_or_else(|| DecodeError::InvalidChar {
            encoding: self.name,
            input: excerpt(input),
            character: c,
            position,
        })
    }

    fn overflow(&self, input: &str) -> DecodeError {
        DecodeError::Overflow {
            encoding: self.name,
            input: excerpt(input),
        }
    }
}

#[cfg(test)]
#[path = "../../tests/unit/encoding_digits.rs"]
mod tests;
