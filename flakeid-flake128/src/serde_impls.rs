//! serde support for [`Flake128`] (feature `serde`, on by default).
//!
//! A flake is written as its canonical string
//! (`"0189f7a2-5c3e-0000-0242-ac1100020000"`) in every format, and read back
//! from that string only (strictly, as [`Flake128::parse`] does): 128-bit
//! numbers do not survive JSON parsers, and one spelling keeps stored data
//! comparable.

use core::fmt;

use serde::de::{self, Visitor};

use crate::Flake128;

impl serde::Serialize for Flake128 {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let text = self.to_text_array();
        s.serialize_str(core::str::from_utf8(&text).map_err(serde::ser::Error::custom)?)
    }
}

impl<'de> serde::Deserialize<'de> for Flake128 {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(FlakeVisitor)
    }
}

struct FlakeVisitor;

impl Visitor<'_> for FlakeVisitor {
    type Value = Flake128;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a Flake128 as a string like \"0189f7a2-5c3e-0000-0242-ac1100020000\"")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Flake128, E> {
        Flake128::parse(v).map_err(E::custom)
    }
}
