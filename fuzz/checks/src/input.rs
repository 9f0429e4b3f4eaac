//! Reading a fuzzer's bytes: as text, or as a stream of small numbers for
//! the structured targets.

use std::borrow::Cow;

/// `data` as text: UTF-8, with invalid sequences read as U+FFFD (so that
/// every input reaches the code under test as the `&str` it takes).
pub(crate) fn text(data: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(data)
}

/// Numbers read one after the other from the front of the input; once it
/// runs out, every number is 0. Little-endian, as `arbitrary` reads them.
#[derive(Debug)]
pub(crate) struct Bytes<'a> {
    data: &'a [u8],
}

impl<'a> Bytes<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        Bytes { data }
    }

    pub(crate) fn u8(&mut self) -> u8 {
        let [first, rest @ ..] = self.data else {
            return 0;
        };
        self.data = rest;
        *first
    }

    pub(crate) fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub(crate) fn u32(&mut self) -> u32 {
        u32::from(self.u16()) | (u32::from(self.u16()) << 16)
    }

    pub(crate) fn u64(&mut self) -> u64 {
        u64::from(self.u32()) | (u64::from(self.u32()) << 32)
    }

    pub(crate) fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// What is left, as text.
    pub(crate) fn rest(self) -> Cow<'a, str> {
        text(self.data)
    }
}
