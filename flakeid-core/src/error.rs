//! Typed errors. Every error names the value that was wrong.
use thiserror::Error;

/// An invalid layout configuration.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum LayoutError {}

/// A value that is not a valid ID (from a database, a string, JSON …).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum IdError {}

/// A text form (decimal, base62, Crockford base32) that does not decode.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DecodeError {}

/// A generator could not issue an ID.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum GenerateError {}

/// An invalid generator configuration (builder or environment).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ConfigError {}
