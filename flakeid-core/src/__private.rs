//! Items used by code that `#[flake_id]` generates. Not a public API: no
//! semver guarantees.
//!
//! Generated code calls exactly these items, through fully qualified paths.

pub use ::core;

use crate::encoding::decimal;
use crate::{ConfigError, FlakeId, IdError, IdSource};

/// What a `generator = path` function may return a reference to: any
/// [`IdSource`], or a `dyn IdSource` chosen at run time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an ID source",
    label = "returned by the `generator = ...` function",
    note = "a `generator = ...` function returns `Result<&'static G, flakeid_core::ConfigError>` \
            where `G` implements `flakeid_core::IdSource` (a `Generator`, `DecimalIdGenerator`, \
            `TraceIdGenerator`, `RandomKeyGenerator` ...)"
)]
pub trait AsIdSource {
    /// `self` as a trait object.
    fn as_id_source(&'static self) -> &'static dyn IdSource;
}

impl<G: IdSource> AsIdSource for G {
    fn as_id_source(&'static self) -> &'static dyn IdSource {
        self
    }
}

impl AsIdSource for dyn IdSource {
    fn as_id_source(&'static self) -> &'static dyn IdSource {
        self
    }
}

/// `FlakeId::generator` of `#[flake_id(generator = path)]`: the function's
/// result as a `dyn IdSource`.
#[inline]
pub fn id_source<G: AsIdSource + ?Sized>(
    generator: Result<&'static G, ConfigError>,
) -> Result<&'static dyn IdSource, ConfigError> {
    generator.map(AsIdSource::as_id_source)
}

/// `FlakeId::generator` of `#[flake_id]`: the process-wide generator,
/// configured from the environment on first use.
#[inline]
pub fn global_source() -> Result<&'static dyn IdSource, ConfigError> {
    Ok(crate::global::generator()?)
}

/// `FlakeId::validator` of `#[flake_id]`: the process-wide generator if it
/// is installed, without configuring it.
#[inline]
pub fn global_validator() -> Option<&'static dyn IdSource> {
    crate::global::get().map(|g| g as &'static dyn IdSource)
}

/// `Display` for an ID: its decimal value.
pub fn display<I: FlakeId>(id: &I, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
    core::fmt::Display::fmt(&id.get(), f)
}

/// `FromStr` for an ID: the strict canonical decimal form of
/// [`encoding::decimal`](crate::encoding::decimal) (ASCII digits only; no
/// sign, whitespace or leading zeros), then [`FlakeId::from_u64`].
///
/// ```
/// use flakeid_core::{FlakeId, IdError};
/// # #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
/// # struct Id(i64);
/// # impl FlakeId for Id {
/// #     const NAME: &'static str = "Id";
/// #     fn generator() -> Result<&'static dyn flakeid_core::IdSource, flakeid_core::ConfigError> { Err(flakeid_core::ConfigError::MissingNodeId) }
/// #     fn __from_valid(v: i64) -> Self { Id(v) }
/// #     fn get(self) -> i64 { self.0 }
/// # }
/// # impl std::fmt::Display for Id { fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { flakeid_core::__private::display(self, f) } }
/// # impl std::str::FromStr for Id { type Err = IdError; fn from_str(s: &str) -> Result<Self, IdError> { flakeid_core::__private::from_str(s) } }
/// assert_eq!(flakeid_core::__private::from_str::<Id>("12")?, Id(12));
/// let err = flakeid_core::__private::from_str::<Id>("-12").unwrap_err();
/// assert_eq!(err.to_string(), "not a valid Id: invalid character '-' at position 0 in decimal string \"-12\"");
/// # Ok::<(), IdError>(())
/// ```
pub fn from_str<I: FlakeId>(s: &str) -> Result<I, IdError> {
    let v = decimal::decode(s).map_err(|source| IdError::Text {
        type_name: I::NAME,
        source,
    })?;
    I::from_u64(v)
}

#[cfg(feature = "serde")]
pub use ::serde;

#[cfg(feature = "serde")]
pub use crate::external::serde_support::{deserialize, serialize};

/// `Serialize` / `Deserialize` for an ID type. Expands to nothing because
/// flakeid-core was built without its `serde` feature.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_serde {
    ($id:ty) => {};
}

#[doc(hidden)]
pub use crate::__flakeid_core_impl_serde as impl_serde;
