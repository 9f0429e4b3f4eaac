//! Text forms of IDs, one module per encoding.
//!
//! * [`base62`] — 11 characters of `0-9A-Za-z`, for short URLs.
//! * [`crockford`] — 13 characters of Crockford's base32, for IDs people
//!   read aloud or type (case-insensitive, no `I`, `L`, `O`, `U`).
//! * [`decimal`] — the canonical decimal form that `Display`, `FromStr`
//!   and serde use.
//!
//! The base62 and Crockford encoders write a fixed number of characters
//! whose alphabets are in ASCII order, so comparing two encoded IDs as
//! strings (or bytes) gives the same order as comparing the numbers.

pub mod base62;
pub mod crockford;
pub mod decimal;

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
