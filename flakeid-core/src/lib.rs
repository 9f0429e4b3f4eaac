//! Time-ordered, unique, application-assigned IDs.
//!
//! `flakeid-core` is the database-independent heart of flakeid:
//!
//! * [`layout`] — how an ID is split into time, node and sequence fields
//!   ([`BitLayout`] and its presets: Twitter, Discord, Instagram, Sonyflake,
//!   TSID-like, LSID, JavaScript-safe).
//! * [`clock`] — where time comes from ([`Clock`], [`MonotonicClock`],
//!   [`ManualClock`] for tests).
//! * [`generator`] — the lock-free [`Generator`] and its policies for
//!   sequence exhaustion and clock regression.
//! * [`id`] — the [`FlakeId`] trait that typed ID newtypes implement, and
//!   [`Decoded`] parts of an ID.
//! * [`encoding`] — base62 and Crockford base32 text forms.
//! * [`global`] — the process-wide default generator used by
//!   `UserId::generate()`.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

pub mod clock;
pub mod encoding;
mod error;
pub mod generator;
pub mod global;
pub mod id;
pub mod layout;

#[cfg(feature = "serde")]
mod external;

pub use clock::{Clock, ManualClock, MonotonicClock};
pub use error::{ConfigError, DecodeError, GenerateError, IdError, LayoutError};
pub use generator::{ClockRegression, Generator, GeneratorBuilder, SequenceExhaustion};
pub use id::{Decoded, FlakeId};
pub use layout::{BitLayout, Layout, Parts};

#[cfg(feature = "macros")]
pub use flakeid_macros::flake_id;

/// Items used by code that `#[flake_id]` generates. Not a public API.
#[doc(hidden)]
pub mod __private;
