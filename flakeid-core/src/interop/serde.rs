//! serde support (feature `serde`, on by default).
//!
//! IDs are written as decimal **strings** (`"175928847299117063"`), because
//! JavaScript numbers lose precision above 2^53. They are read from a
//! string in the strict canonical decimal form (see
//! [`TextForm::Decimal`](crate::encoding::TextForm::Decimal)) or from an integer.
//! Everything else is an error that names the value: floats, negative
//! numbers, zero, numbers above the layout's largest ID, whitespace, signs
//! (`"+1"`, `"-1"`), leading zeros, empty strings and non-digits.
//!
//! A type with a prefix ([`FlakeId::PREFIX`](crate::FlakeId::PREFIX),
//! `#[flake_id(prefix = "usr")]`) is written as its prefixed text
//! (`"usr_175928847299117063"`) and read from that text, any other string
//! (another type's prefix, none) being an error naming the value and the
//! expected prefix, or from an integer: a JSON number is the stored key,
//! which is how other programs hold it.
//!
//! Formats that are not human-readable (bincode, postcard …) read the
//! string with `deserialize_str`; self-describing ones use `deserialize_any`
//! so that both strings and integers are accepted.

use core::fmt;
use core::marker::PhantomData;

use ::serde::de::{self, Unexpected, Visitor};

use crate::FlakeId;

/// Serializes an ID as a decimal string.
pub fn serialize<I: FlakeId, S: ::serde::Serializer>(id: &I, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(id)
}

/// Deserializes an ID from a decimal string or an integer.
pub fn deserialize<'de, I: FlakeId, D: ::serde::Deserializer<'de>>(d: D) -> Result<I, D::Error> {
    let v = IdVisitor::<I>(PhantomData);
    if d.is_human_readable() {
        d.deserialize_any(v)
    } else {
        d.deserialize_str(v)
    }
}

struct IdVisitor<I>(PhantomData<I>);

impl<I: FlakeId> Visitor<'_> for IdVisitor<I> {
    type Value = I;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match I::PREFIX {
            None => write!(f, "a {} as a decimal string or a positive integer", I::NAME),
            Some(prefix) => write!(
                f,
                "a {} as a string `{}_…` or a positive integer",
                I::NAME,
                prefix.name()
            ),
        }
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<I, E> {
        crate::id::from_str(v).map_err(E::custom)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<I, E> {
        I::from_u64(v).map_err(E::custom)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<I, E> {
        I::from_i64(v).map_err(E::custom)
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<I, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) => Err(E::custom(crate::IdError::TooLarge {
                type_name: I::NAME,
                value: v,
                max: I::max_value(),
            })),
        }
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<I, E> {
        match u64::try_from(v) {
            Ok(v) => self.visit_u64(v),
            Err(_) if v < 0 => Err(E::custom(crate::IdError::Negative {
                type_name: I::NAME,
                value: v,
            })),
            Err(_) => Err(E::custom(crate::IdError::TooLarge {
                type_name: I::NAME,
                value: v.unsigned_abs(),
                max: I::max_value(),
            })),
        }
    }

    // Floats are never IDs, even when integral: `1e3` or `12.0` in JSON
    // means the value went through a float somewhere and may have lost digits.
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<I, E> {
        Err(E::invalid_type(Unexpected::Float(v), &self))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<I, E> {
        match core::str::from_utf8(v) {
            Ok(s) => self.visit_str(s),
            Err(_) => Err(E::invalid_value(Unexpected::Bytes(v), &self)),
        }
    }
}

/// `Serialize` / `Deserialize` impls for an ID type through
/// [`serialize`] and [`deserialize`]; `#[flake_id]` calls it as
/// `__private::impl_serde!(Type)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_serde {
    ($id:ty) => {
        impl $crate::__private::serde::Serialize for $id {
            fn serialize<S>(
                &self,
                serializer: S,
            ) -> $crate::__private::core::result::Result<S::Ok, S::Error>
            where
                S: $crate::__private::serde::Serializer,
            {
                $crate::__private::serialize(self, serializer)
            }
        }

        impl<'de> $crate::__private::serde::Deserialize<'de> for $id {
            fn deserialize<D>(
                deserializer: D,
            ) -> $crate::__private::core::result::Result<Self, D::Error>
            where
                D: $crate::__private::serde::Deserializer<'de>,
            {
                $crate::__private::deserialize(deserializer)
            }
        }
    };
}
