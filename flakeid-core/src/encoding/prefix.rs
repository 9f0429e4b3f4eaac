//! Type prefixes: an ID type's text as `usr_2124913425938116608`, the
//! type's prefix, an underscore, and the number in one of the text forms.
//!
//! A prefix follows [TypeID](https://github.com/jetify-com/typeid/tree/main/spec)'s
//! rule for its type prefix, except that it is never empty: 1 to 63
//! characters, lowercase ASCII letters `a-z` and underscores `_`, starting
//! and ending with a letter ([`Prefix::RULE`]). None of the text forms has
//! an underscore, so the last `_` of an ID's text always separates the
//! prefix from the number.

use super::TextForm;

/// The type prefix of an ID type's text and the text form of its number
/// (`#[flake_id(prefix = "usr", text = base62)]`; see
/// [`FlakeId::PREFIX`](crate::FlakeId::PREFIX)).
///
/// With base62 and Crockford base32, which write a fixed number of
/// characters in ASCII order, the texts of one type sort as strings like
/// their keys do ([`sorts_like_keys`](Prefix::sorts_like_keys)); decimal
/// text does not (`usr_10` sorts before `usr_9`).
///
/// ```
/// use flakeid_core::encoding::{Prefix, TextForm};
///
/// const USERS: Prefix = Prefix::new("usr", TextForm::Base62);
/// let text = USERS.encode(9_007_199_254_740_993);
/// assert_eq!(text, "usr_00fFgnDxSe9");
/// assert_eq!(USERS.number_part(&text), Some("00fFgnDxSe9"));
/// assert_eq!(USERS.number_part("ord_00fFgnDxSe9"), None);
/// assert!(USERS.sorts_like_keys());
/// assert!(!Prefix::new("usr", TextForm::Decimal).sorts_like_keys());
/// assert!(Prefix::is_valid("line_item") && !Prefix::is_valid("LineItem"));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Prefix {
    name: &'static str,
    form: TextForm,
}

impl Prefix {
    /// TypeID's rule for a (non-empty) type prefix, as error messages state it.
    pub const RULE: &'static str = "a prefix is 1 to 63 characters, lowercase ASCII letters `a-z` \
                                    and underscores `_`, starting and ending with a letter \
                                    (TypeID's rule)";

    /// The prefix `name`, its number written in `form`.
    ///
    /// # Panics
    /// If `name` breaks [`RULE`](Prefix::RULE); in a constant (as
    /// `#[flake_id(prefix = …)]` writes it, after checking the rule with an
    /// error at the attribute), that is a compile error.
    pub const fn new(name: &'static str, form: TextForm) -> Prefix {
        assert!(Prefix::is_valid(name), "{}", Prefix::RULE);
        Prefix { name, form }
    }

    /// Whether `name` follows [`RULE`](Prefix::RULE).
    pub const fn is_valid(name: &str) -> bool {
        let bytes = name.as_bytes();
        if bytes.is_empty() || bytes.len() > 63 {
            return false;
        }
        if !bytes[0].is_ascii_lowercase() || !bytes[bytes.len() - 1].is_ascii_lowercase() {
            return false;
        }
        let mut i = 0;
        while i < bytes.len() {
            if !(bytes[i].is_ascii_lowercase() || bytes[i] == b'_') {
                return false;
            }
            i += 1;
        }
        true
    }

    /// The prefix, without its underscore (`"usr"`).
    pub const fn name(self) -> &'static str {
        self.name
    }

    /// The text form of the number after the prefix.
    pub const fn form(self) -> TextForm {
        self.form
    }

    /// Whether the texts of one type sort as strings like their keys do:
    /// `true` for the fixed-width forms, base62 and Crockford base32.
    pub const fn sorts_like_keys(self) -> bool {
        self.form.width().is_some()
    }

    /// `value` as `name_number`.
    pub fn encode(self, value: u64) -> String {
        let mut text = String::with_capacity(self.name.len() + 21);
        text.push_str(self.name);
        text.push('_');
        text.push_str(&self.form.encode(value));
        text
    }

    /// The text after the last underscore of `text` (to read in
    /// [`form`](Prefix::form)), or `None` when what comes before it is not
    /// this prefix (or `text` has no underscore): `usr_item_12` is not a
    /// `usr_` ID.
    pub fn number_part(self, text: &str) -> Option<&str> {
        text.rsplit_once('_')
            .and_then(|(prefix, number)| (prefix == self.name).then_some(number))
    }
}

#[cfg(test)]
#[path = "../../tests/unit/encoding_prefix.rs"]
mod tests;
