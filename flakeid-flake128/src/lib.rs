//! 128-bit flakes (Boundary's `flake`, .NET's Rustflakes): 64 bits of
//! milliseconds since 1970, 48 bits of worker ID (a MAC address by
//! default), 16 bits of sequence — time-ordered keys that need no node ID
//! to be configured, for tables that can afford 16-byte keys (a `uuid` or
//! `BINARY(16)` column) or that exchange flakes with systems already
//! issuing them.
//!
//! * [`Flake128`] — the typed value: text forms, bytes, decoding.
//! * [`Flake128Layout`] — its layout, so a
//!   [`Generator<Flake128Layout>`](flakeid_core::Generator) of `flakeid-core`
//!   issues flakes with the same guarantees as 64-bit IDs (unique, strictly
//!   increasing, never zero, a [`ClockRegression`](flakeid_core::ClockRegression)
//!   policy for clocks running backwards).
//! * [`Flake128Generator`] ([`Flake128GeneratorBuilder`]) — a generator
//!   whose worker ID is the machine's MAC address, locked host-wide;
//!   [`Flake128Error`].
//!
//! # Workers
//!
//! A worker must not be used by two generators at once: they would issue
//! the same flakes in the same millisecond. [`Flake128Generator::new`] takes
//! the worker from the MAC address, as Boundary's flake does, and holds a
//! host-wide lock on it for its lifetime, so that a second process on the
//! same host (which has the same MAC address) gets
//! [`Flake128Error::WorkerInUse`] instead of duplicate flakes; see
//! [`Flake128Generator`] for what the lock covers. With an explicit worker
//! ([`Flake128GeneratorBuilder::worker`], or
//! `Generator::builder(Flake128Layout, worker)`) no lock is taken and the
//! caller guarantees the worker's uniqueness.
//!
//! A flake is wider than a SQL `BIGINT`. Store it in 16 bytes, big-endian
//! ([`Flake128::to_bytes`]): PostgreSQL's `uuid` and MySQL's `BINARY(16)`
//! compare bytes in order, so the database orders flakes by number, which
//! is creation time. `NUMERIC(39)` / `DECIMAL(39)` hold
//! [`Flake128::to_decimal`] too.
//!
//! The same 16 bytes are what its column impls read and write: Diesel
//! (`diesel-*` features), SeaORM (`sea-orm`) and sqlx (`sqlx-postgres`:
//! `uuid`, `bytea` and `uuid[]`; `sqlx-mysql`: `BINARY(16)`;
//! `sqlx-sqlite`: `BLOB`). With `utoipa` / `schemars` its API schema is its
//! canonical string (see [`interop`](flakeid_core::interop)). These impls
//! live here, behind features, because `Flake128` is this crate's type:
//! the ORM crates may not implement ORM traits for it. (64-bit ID types get
//! theirs from `#[flake_id]` in your own crate.)
//!
//! # Text forms
//!
//! * Canonical (`Display`, `FromStr`, serde): 32 lowercase hex digits in
//!   UUID groups, `0189f7a2-5c3e-0000-0242-ac1100020000` — exactly how
//!   PostgreSQL prints the `uuid` column holding the same bytes. Fixed width
//!   and lowercase, so the strings sort like the numbers.
//! * Decimal ([`Flake128::to_decimal`], [`Flake128::parse_decimal`]): up to
//!   39 digits, as Rustflakes' .NET `decimal` and SQL `DECIMAL(39)` hold it.
//!
//! Parsing is strict: only the canonical spelling of each form is accepted
//! (no uppercase hex, no braces, no missing hyphens, no signs, no leading
//! zeros), so a flake has exactly one spelling per form.
//!
//! ```
//! use flakeid_core::Generator;
//! use flakeid_flake128::{Flake128, Flake128Layout};
//!
//! let generator = Generator::builder(Flake128Layout, 0x0242_ac11_0002).build()?;
//! let a = Flake128::generate(&generator)?;
//! let b = Flake128::generate(&generator)?;
//! assert!(b > a);
//! assert_eq!(b.worker(), 0x0242_ac11_0002);
//! assert!(a.to_string() < b.to_string());
//! assert!(a.to_bytes() < b.to_bytes());
//! assert_eq!(a.to_string().parse::<Flake128>()?, a);
//! assert_eq!(Flake128::from_bytes(a.to_bytes())?, a);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `serde` | yes | `Flake128` serializes as its canonical string and deserializes from it |
//! | `diesel` | no | the Diesel column impls, for the backends below |
//! | `diesel-postgres`, `diesel-mysql`, `diesel-sqlite` | no | `Flake128` as a Diesel column (each turns on `diesel`): PostgreSQL `uuid` / `bytea`, MySQL/MariaDB `BINARY(16)`, SQLite `BLOB` (turned on for you by `flakeid-diesel`'s feature `flake128` with its backend features) |
//! | `sea-orm` | no | `Flake128` as a SeaORM column and key: PostgreSQL `uuid`, MySQL/MariaDB `binary(16)`, SQLite `BLOB` (turned on for you by `flakeid-seaorm`'s feature `flake128`) |
//! | `sqlx-postgres`, `sqlx-mysql`, `sqlx-sqlite` | no | `Flake128` as an sqlx value: PostgreSQL `uuid`, `bytea` and `uuid[]`; MySQL/MariaDB `BINARY(16)`; SQLite `BLOB` |
//! | `utoipa`, `schemars` | no | `Flake128` as an OpenAPI / JSON Schema schema named `Flake128`: its canonical string |
//!
//! The crate builds on `flakeid-core`: its generator, clocks and policies
//! issue the flakes.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

#[cfg(feature = "diesel")]
mod diesel_impls;
mod error;
mod generator;
mod layout;
mod node;
#[cfg(any(feature = "utoipa", feature = "schemars"))]
mod schema_impls;
#[cfg(feature = "sea-orm")]
mod sea_orm_impls;
#[cfg(feature = "serde")]
mod serde_impls;
#[cfg(any(
    feature = "sqlx-postgres",
    feature = "sqlx-mysql",
    feature = "sqlx-sqlite"
))]
mod sqlx_impls;
mod text;

use std::ops::{RangeBounds, RangeInclusive};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use flakeid_core::__private::layout_bounds;
use flakeid_core::layout::Parts;
use flakeid_core::{Clock, GenerateError, Generator, TimeBoundsError};

pub use error::Flake128Error;
pub use generator::{Flake128Generator, Flake128GeneratorBuilder};
pub use layout::Flake128Layout;

/// A 128-bit flake: a non-zero `u128` whose order is creation order.
///
/// `Ord` compares the numbers, which is time order (then worker, then
/// sequence). See the [crate documentation](crate) for its forms.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
// Diesel's own derive writes the `AsExpression` impls (see `diesel_impls.rs`).
#[cfg_attr(feature = "diesel", derive(diesel::expression::AsExpression))]
#[cfg_attr(feature = "diesel", diesel(sql_type = diesel::sql_types::Binary))]
#[cfg_attr(
    feature = "diesel-postgres",
    diesel(sql_type = diesel::sql_types::Uuid)
)]
pub struct Flake128(u128);

impl Flake128 {
    /// Issues a fresh flake from `generator`, waiting as its policies allow.
    ///
    /// # Errors
    /// As [`Generator::next_id`]: e.g. [`GenerateError::ClockRegressed`] when
    /// the clock runs backwards further than the generator's
    /// [`ClockRegression`](flakeid_core::ClockRegression) policy tolerates.
    ///
    /// ```
    /// use flakeid_core::Generator;
    /// use flakeid_flake128::{Flake128, Flake128Layout};
    ///
    /// let generator = Generator::builder(Flake128Layout, 7).build()?;
    /// let flake = Flake128::generate(&generator)?;
    /// assert_eq!(flake.worker(), 7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn generate<C: Clock>(
        generator: &Generator<Flake128Layout, C>,
    ) -> Result<Self, GenerateError> {
        generator.next_id().map(Self::from_generated)
    }

    /// Issues a fresh flake if that is possible without waiting.
    ///
    /// # Errors
    /// As [`Generator::try_next_id`].
    pub fn try_generate<C: Clock>(
        generator: &Generator<Flake128Layout, C>,
    ) -> Result<Self, GenerateError> {
        generator.try_next_id().map(Self::from_generated)
    }

    /// A generator never issues 0 (it never issues tick 0, sequence 0), so
    /// no check is needed; `max(1)` keeps the invariant even if it did.
    fn from_generated(raw: u128) -> Self {
        Flake128(raw.max(1))
    }

    /// The flake with this number.
    ///
    /// # Errors
    /// [`Flake128Error::Zero`] for 0.
    ///
    /// ```
    /// use flakeid_flake128::{Flake128, Flake128Error};
    /// assert_eq!(Flake128::from_u128(42)?.as_u128(), 42);
    /// assert_eq!(Flake128::from_u128(0), Err(Flake128Error::Zero));
    /// # Ok::<(), Flake128Error>(())
    /// ```
    pub const fn from_u128(value: u128) -> Result<Self, Flake128Error> {
        if value == 0 {
            Err(Flake128Error::Zero)
        } else {
            Ok(Flake128(value))
        }
    }

    /// The flake's number.
    pub const fn as_u128(self) -> u128 {
        self.0
    }

    /// The flake stored in 16 big-endian bytes (as PostgreSQL `uuid` or
    /// MySQL `BINARY(16)` hold it).
    ///
    /// # Errors
    /// [`Flake128Error::Zero`] for sixteen zero bytes.
    ///
    /// ```
    /// use flakeid_flake128::Flake128;
    /// let mut bytes = [0u8; 16];
    /// bytes[15] = 1;
    /// assert_eq!(Flake128::from_bytes(bytes)?.as_u128(), 1);
    /// # Ok::<(), flakeid_flake128::Flake128Error>(())
    /// ```
    pub const fn from_bytes(bytes: [u8; 16]) -> Result<Self, Flake128Error> {
        Self::from_u128(u128::from_be_bytes(bytes))
    }

    /// The flake from a byte slice that must be exactly 16 bytes, big-endian
    /// (what a database driver returns for a `uuid` / `BINARY(16)` column).
    ///
    /// # Errors
    /// [`Flake128Error::ByteLength`] for any other length,
    /// [`Flake128Error::Zero`] for sixteen zero bytes.
    ///
    /// ```
    /// use flakeid_flake128::{Flake128, Flake128Error};
    /// assert_eq!(Flake128::from_slice(&[0, 1]), Err(Flake128Error::ByteLength { len: 2 }));
    /// ```
    pub fn from_slice(bytes: &[u8]) -> Result<Self, Flake128Error> {
        let array: [u8; 16] = bytes
            .try_into()
            .map_err(|_| Flake128Error::ByteLength { len: bytes.len() })?;
        Self::from_bytes(array)
    }

    /// The flake as 16 big-endian bytes: byte order is numeric order is time order.
    ///
    /// ```
    /// use flakeid_flake128::Flake128;
    /// let flake = Flake128::from_parts(1_700_000_000_000, 5, 1)?;
    /// assert_eq!(flake.to_bytes()[..8], 1_700_000_000_000u64.to_be_bytes());
    /// # Ok::<(), flakeid_flake128::Flake128Error>(())
    /// ```
    pub const fn to_bytes(self) -> [u8; 16] {
        self.0.to_be_bytes()
    }

    /// Builds a flake from milliseconds since 1970, a worker ID and a sequence number.
    ///
    /// # Errors
    /// [`Flake128Error::PartOutOfRange`] for a worker above `2^48 − 1` or a
    /// sequence above 65,535; [`Flake128Error::Zero`] when all parts are 0.
    ///
    /// ```
    /// use flakeid_flake128::Flake128;
    /// let flake = Flake128::from_parts(1_700_000_000_000, 0x0242_ac11_0002, 3)?;
    /// assert_eq!(flake.timestamp_millis(), 1_700_000_000_000);
    /// assert_eq!(flake.worker(), 0x0242_ac11_0002);
    /// assert_eq!(flake.sequence(), 3);
    /// assert!(Flake128::from_parts(0, 1 << 48, 0).is_err());
    /// # Ok::<(), flakeid_flake128::Flake128Error>(())
    /// ```
    pub const fn from_parts(
        millis: u64,
        worker: u64,
        sequence: u64,
    ) -> Result<Self, Flake128Error> {
        if worker > Flake128Layout::MAX_WORKER {
            return Err(Flake128Error::PartOutOfRange {
                part: "worker",
                value: worker,
                max: Flake128Layout::MAX_WORKER,
            });
        }
        if sequence >= Flake128Layout::SEQUENCES_PER_MILLI {
            return Err(Flake128Error::PartOutOfRange {
                part: "sequence",
                value: sequence,
                max: Flake128Layout::SEQUENCES_PER_MILLI - 1,
            });
        }
        Self::from_u128(Flake128Layout::pack(millis, worker, sequence))
    }

    /// Milliseconds since the Unix epoch at which the flake was issued.
    pub const fn timestamp_millis(self) -> u64 {
        Flake128Layout::unpack(self.0).0
    }

    /// The instant the flake was issued, or `None` when the time field is
    /// past what `SystemTime` represents on this platform.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use flakeid_flake128::Flake128;
    /// let flake = Flake128::from_parts(1_000, 1, 0)?;
    /// assert_eq!(flake.timestamp(), Some(UNIX_EPOCH + Duration::from_secs(1)));
    /// # Ok::<(), flakeid_flake128::Flake128Error>(())
    /// ```
    pub fn timestamp(self) -> Option<SystemTime> {
        UNIX_EPOCH.checked_add(Duration::from_millis(self.timestamp_millis()))
    }

    /// The smallest and largest flake whose millisecond holds an instant of
    /// `range` (`t0..t1`, `t0..=t1`, `t0..`, `..t1`): the key bounds of rows
    /// created in the range, exact for millisecond ends (see
    /// [`IdScheme::time_bounds`](flakeid_core::IdScheme::time_bounds) for the
    /// rules). The time runs from 1970 (the lower bound of a range starting
    /// then is the flake 1) to the last millisecond a generator stamps,
    /// [`Flake128Layout::MAX_MILLIS`].
    ///
    /// # Errors
    /// [`TimeBoundsError`]: the range is empty, ends before 1970 or starts
    /// after `MAX_MILLIS`.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use flakeid_flake128::Flake128;
    ///
    /// let t0 = UNIX_EPOCH + Duration::from_millis(1_750_000_000_000);
    /// let ids = Flake128::time_bounds(t0..t0 + Duration::from_secs(1))?;
    /// assert_eq!(*ids.start(), Flake128::from_parts(1_750_000_000_000, 0, 0)?);
    /// assert_eq!(*ids.end(), Flake128::from_parts(1_750_000_000_999, (1 << 48) - 1, 65_535)?);
    /// // In a `uuid` / `BINARY(16)` column: WHERE id BETWEEN lo AND hi, as bytes.
    /// assert!(ids.start().to_bytes() < ids.end().to_bytes());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn time_bounds(
        range: impl RangeBounds<SystemTime>,
    ) -> Result<RangeInclusive<Flake128>, TimeBoundsError> {
        let start = range.start_bound().cloned();
        let end = range.end_bound().cloned();
        let (lo, hi) = layout_bounds(&Flake128Layout, start, end, 0)?.into_inner();
        // Both are non-zero: the lower bound is at least 1.
        Ok(Flake128(lo)..=Flake128(hi))
    }

    /// The worker (node) ID, `0..=2^48 − 1`.
    pub const fn worker(self) -> u64 {
        Flake128Layout::unpack(self.0).1
    }

    /// The sequence number within the millisecond.
    pub const fn sequence(self) -> u16 {
        Flake128Layout::unpack(self.0).2 as u16
    }

    /// The flake's parts as a [`Layout`](flakeid_core::layout::Layout) reports them
    /// (`tick` is milliseconds since 1970).
    pub const fn parts(self) -> Parts {
        let (tick, node, sequence) = Flake128Layout::unpack(self.0);
        Parts {
            tick,
            node,
            sequence,
        }
    }
}

impl From<Flake128> for u128 {
    fn from(flake: Flake128) -> u128 {
        flake.0
    }
}

impl From<Flake128> for [u8; 16] {
    fn from(flake: Flake128) -> [u8; 16] {
        flake.to_bytes()
    }
}

impl TryFrom<u128> for Flake128 {
    type Error = Flake128Error;

    fn try_from(value: u128) -> Result<Self, Flake128Error> {
        Self::from_u128(value)
    }
}

impl TryFrom<[u8; 16]> for Flake128 {
    type Error = Flake128Error;

    fn try_from(bytes: [u8; 16]) -> Result<Self, Flake128Error> {
        Self::from_bytes(bytes)
    }
}

impl TryFrom<&[u8]> for Flake128 {
    type Error = Flake128Error;

    fn try_from(bytes: &[u8]) -> Result<Self, Flake128Error> {
        Self::from_slice(bytes)
    }
}

/// The crate's README (its registry page): its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
