//! [`Alphabet`]: the characters short keys are written with.

use core::fmt;

use super::ShortKeyError;

/// A validated alphabet: 2 to 95 distinct printable ASCII characters.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Alphabet {
    pub(super) chars: Vec<u8>,
    /// Digit value of each ASCII byte, or `u8::MAX` for bytes not in the alphabet.
    pub(super) values: [u8; 128],
}

impl Alphabet {
    /// Validates `chars` as an alphabet (digit values in the given order).
    ///
    /// # Errors
    /// [`ShortKeyError::AlphabetTooShort`], [`ShortKeyError::AlphabetNotAscii`]
    /// (control characters and spaces included) or
    /// [`ShortKeyError::AlphabetDuplicate`].
    ///
    /// ```
    /// use flakeid_segment::{Alphabet, ShortKeyError};
    /// assert_eq!(Alphabet::new("0123456789abcdef")?.len(), 16);
    /// assert_eq!(Alphabet::new("abca"), Err(ShortKeyError::AlphabetDuplicate { character: 'a' }));
    /// # Ok::<(), ShortKeyError>(())
    /// ```
    pub fn new(chars: &str) -> Result<Self, ShortKeyError> {
        let mut values = [u8::MAX; 128];
        let mut bytes = Vec::with_capacity(chars.len());
        for (position, c) in chars.chars().enumerate() {
            if !c.is_ascii_graphic() {
                return Err(ShortKeyError::AlphabetNotAscii {
                    character: c,
                    position,
                });
            }
            let b = c as u8;
            if values[usize::from(b)] != u8::MAX {
                return Err(ShortKeyError::AlphabetDuplicate { character: c });
            }
            // At most 94 graphic ASCII characters, so the position fits a u8.
            values[usize::from(b)] = position as u8;
            bytes.push(b);
        }
        if bytes.len() < 2 {
            return Err(ShortKeyError::AlphabetTooShort { len: bytes.len() });
        }
        Ok(Alphabet {
            chars: bytes,
            values,
        })
    }

    /// `0-9A-Za-z`.
    pub fn base62() -> Self {
        match Alphabet::new(Alphabet::BASE62) {
            Ok(a) => a,
            Err(_) => unreachable!("Alphabet::BASE62 is a valid alphabet"),
        }
    }

    /// The number of characters (the base).
    pub fn len(&self) -> usize {
        self.chars.len()
    }

    /// Always `false`: an alphabet has at least two characters.
    pub fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    /// The characters, in digit order.
    pub fn as_str(&self) -> &str {
        // Only ASCII bytes were stored.
        core::str::from_utf8(&self.chars).unwrap_or_default()
    }
}

impl fmt::Debug for Alphabet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Alphabet").field(&self.as_str()).finish()
    }
}

impl Alphabet {
    /// The default alphabet: `0-9A-Za-z`, in ASCII order.
    pub const BASE62: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
}
