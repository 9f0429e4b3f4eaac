//! Text forms of IDs, one module per encoding.
//!
//! * [`base62`] — 11 characters of `0-9A-Za-z`, for short URLs.
//! * [`crockford`] — 13 characters of Crockford's base32, for IDs people
//!   read aloud or type (written upper case without `I`, `L`, `O`, `U`;
//!   read case-insensitively with `I`/`L` as `1` and `O` as `0`).
//! * [`decimal`] — the canonical decimal form that `Display`, `FromStr`
//!   and serde use (IDs serialize as decimal strings; `serde_impls.rs`).
//!
//! The base62 and Crockford encoders write a fixed number of characters
//! whose alphabets are in ASCII order, so comparing two encoded IDs as
//! strings (or bytes) gives the same order as comparing the numbers.
//!
//! Each form has one spelling per value. `base62::decode` and
//! `crockford::decode` (and so [`FlakeId::from_base62`](crate::FlakeId::from_base62)
//! and [`FlakeId::from_crockford`](crate::FlakeId::from_crockford)) accept
//! exactly the fixed width — for Crockford, up to case and the `I`/`L`/`O`
//! aliases the specification defines — and reject a value above
//! `u64::MAX`; `decimal::decode` accepts no sign, whitespace or leading
//! zero. Where other spellings must be read (shorter strings, Crockford
//! with hyphens), [`base62::decode_lenient`] and
//! [`crockford::decode_lenient`] accept them; compare or store what
//! `encode` writes, not their input.

pub mod base62;
pub mod crockford;
pub mod decimal;
mod error;
#[cfg(feature = "serde")]
pub(crate) mod serde_impls;

pub use error::DecodeError;

/// The input as stored in a [`DecodeError`](crate::DecodeError): at most 64
/// characters, so that an error about a huge input stays small.
pub(crate) fn excerpt(input: &str) -> String {
    const MAX: usize = 64;
    match input.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &input[..cut]),
        None => input.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn excerpt_shortens_long_input() {
        assert_eq!(super::excerpt("abc"), "abc");
        let long = "é".repeat(100);
        let e = super::excerpt(&long);
        assert_eq!(e.chars().count(), 65);
        assert!(e.ends_with('…'));
    }
}
