//! Unit tests of `src/encoding/digits.rs` (private items; included with `#[path]` as its
//! `tests` module).

use super::super::{base62, crockford};
use super::*;

#[test]
fn every_reader_names_empty_input() {
    for digits in [base62::DIGITS, crockford::DIGITS] {
        for read in [Digits::decode_fixed, Digits::decode_lenient] {
            let empty = Err(DecodeError::Empty {
                encoding: digits.name,
            });
            assert_eq!(read(&digits, ""), empty, "{}", digits.name);
        }
    }
    // Only separators: no digit either.
    let empty = Err(DecodeError::Empty {
        encoding: crockford::DIGITS.name,
    });
    assert_eq!(crockford::DIGITS.decode_lenient("---"), empty);
}
