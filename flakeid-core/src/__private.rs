//! Items used by code that `#[flake_id]` generates. Not a public API: no
//! semver guarantees.
//!
//! CONTRACT (skeleton): generated code calls exactly these items.

pub use ::core;

use crate::{FlakeId, IdError};

/// `Display` for an ID: its decimal value.
pub fn display<I: FlakeId>(id: &I, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
    core::fmt::Display::fmt(&id.get(), f)
}

/// `FromStr` for an ID: strict decimal (no sign, no whitespace), then [`FlakeId::from_i64`].
pub fn from_str<I: FlakeId>(s: &str) -> Result<I, IdError> {
    let _ = s;
    unimplemented!()
}

#[cfg(feature = "serde")]
pub use ::serde;

#[cfg(feature = "serde")]
pub use crate::external::serde_support::{deserialize, serialize};
