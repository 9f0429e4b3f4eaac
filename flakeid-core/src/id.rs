//! Typed IDs: the [`FlakeId`] trait that ID newtypes (declared with
//! `#[flake_id]`) implement, and [`Decoded`] parts of an ID.
//!
//! CONTRACT (skeleton): the required items below are what `#[flake_id]`
//! emits; everything else is a provided method.

use core::fmt::{Debug, Display};
use core::hash::Hash;
use core::str::FromStr;

use crate::{ConfigError, Generator, IdError};

/// An application-assigned, time-ordered 64-bit ID stored as a signed
/// BIGINT in `1..=i64::MAX`.
pub trait FlakeId:
    Sized + Copy + Eq + Ord + Hash + Debug + Display + FromStr<Err = IdError> + Send + Sync + 'static
{
    /// The type's name (`"UserId"`), used in error messages.
    const NAME: &'static str;

    /// The generator IDs of this type come from, and whose layout decodes them.
    fn generator() -> Result<&'static Generator, ConfigError>;

    /// Wraps a value that has already been validated. Not a public API:
    /// use [`FlakeId::from_i64`].
    #[doc(hidden)]
    fn __from_valid(value: i64) -> Self;

    /// The ID as the `i64` stored in the database.
    fn get(self) -> i64;

    // ---- provided (CONTRACT: signatures fixed, bodies filled in) ----

    /// Checked conversion from a database or user value: `0`, negatives
    /// and values above the layout's largest ID are errors naming the value.
    fn from_i64(value: i64) -> Result<Self, IdError> {
        let _ = value;
        unimplemented!()
    }

    /// Checked conversion from an unsigned value (MySQL `BIGINT UNSIGNED`).
    fn from_u64(value: u64) -> Result<Self, IdError> {
        let _ = value;
        unimplemented!()
    }

    /// A fresh ID from [`FlakeId::generator`].
    ///
    /// # Panics
    /// When the process-wide generator is not configured (see
    /// [`crate::global`]) or cannot issue an ID; use
    /// [`FlakeId::try_generate`] to handle that as an error.
    fn generate() -> Self {
        unimplemented!()
    }

    /// A fresh ID, or why none could be issued.
    fn try_generate() -> Result<Self, crate::GenerateError> {
        unimplemented!()
    }

    /// The ID's time, node and sequence, decoded with its generator's layout.
    fn decode(self) -> Result<Decoded, ConfigError> {
        unimplemented!()
    }
}

/// An ID split into its parts, with its creation time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decoded {}
