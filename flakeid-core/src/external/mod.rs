//! Integrations with other crates.
pub(crate) mod serde_support;
