//! Integrations with other crates.
#[cfg(feature = "diesel")]
mod diesel_support;
#[cfg(feature = "serde")]
mod flake128_serde;
#[cfg(feature = "sea-orm")]
mod sea_orm_support;
#[cfg(feature = "serde")]
pub(crate) mod serde_support;
