//! Errors of 128-bit flakes and of finding a worker ID.

use thiserror::Error;

use flakeid_core::ConfigError;

/// A value that is not a valid [`Flake128`](crate::Flake128):
/// zero, a part out of range, or a text or byte form that does not decode;
/// or a [`Flake128Generator`](crate::Flake128Generator) that
/// cannot be built.
///
/// ```
/// use flakeid_flake128::{Flake128, Flake128Error};
///
/// assert_eq!(Flake128::from_u128(0), Err(Flake128Error::Zero));
/// let e = Flake128::parse("not a flake").unwrap_err();
/// assert!(matches!(e, Flake128Error::Length { form: "hex", len: 11, expected: 36, .. }));
/// assert!(matches!(
///     Flake128::from_parts(1_700_000_000_000, 1 << 48, 0),
///     Err(Flake128Error::PartOutOfRange { part: "worker", .. })
/// ));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum Flake128Error {
    /// The value is zero; flakes start at 1.
    #[error("0 is not a valid Flake128: flakes start at 1")]
    Zero,
    /// A part given to `Flake128::from_parts` is larger than its field holds.
    #[error("Flake128 {part} {value} does not fit its field: the largest is {max}")]
    PartOutOfRange {
        /// `"worker"` or `"sequence"`.
        part: &'static str,
        /// The value given.
        value: u64,
        /// The field's largest value.
        max: u64,
    },
    /// A byte slice is not 16 bytes long.
    #[error("a Flake128 is 16 bytes, got {len}")]
    ByteLength {
        /// The slice's length.
        len: usize,
    },
    /// A text form is empty.
    #[error("empty Flake128 {form} string")]
    Empty {
        /// `"hex"` or `"decimal"`.
        form: &'static str,
    },
    /// A text form has the wrong length.
    #[error("Flake128 {form} string {input:?} is {len} characters long; expected {expected}")]
    Length {
        /// `"hex"` or `"decimal"`.
        form: &'static str,
        /// The input (shortened to its first 64 characters).
        input: String,
        /// Its length in characters.
        len: usize,
        /// The expected length (the longest accepted length for decimal).
        expected: usize,
    },
    /// A text form holds a character that is not allowed where it is.
    #[error(
        "invalid character {character:?} at position {position} in Flake128 {form} string {input:?} (expected {expected})"
    )]
    InvalidChar {
        /// `"hex"` or `"decimal"`.
        form: &'static str,
        /// The input (shortened to its first 64 characters).
        input: String,
        /// The offending character.
        character: char,
        /// Its position, counted in characters from 0.
        position: usize,
        /// What was expected there.
        expected: &'static str,
    },
    /// A decimal string has a leading zero (only the canonical form is accepted).
    #[error("Flake128 decimal string {input:?} has a leading zero")]
    LeadingZero {
        /// The input (shortened to its first 64 characters).
        input: String,
    },
    /// A decimal string is larger than `2^128 - 1`.
    #[error("Flake128 decimal string {input:?} is larger than 2^128 - 1")]
    Overflow {
        /// The input (shortened to its first 64 characters).
        input: String,
    },
    /// Another generator on this host holds the MAC-derived worker: its
    /// process holds the worker's lock.
    #[error(
        "Flake128 worker {:#014x} (MAC address {}) is in use on this host: another generator \
         holds the lock {lock_path}; two generators with one worker would issue the same \
         flakes in the same millisecond. Give each process its own worker explicitly \
         (Flake128Generator::builder().worker(..))",
        worker, crate::node::format_mac(*worker)
    )]
    WorkerInUse {
        /// The worker ID (the MAC address).
        worker: u64,
        /// The lock (a directory) another generator holds.
        lock_path: String,
    },
    /// The worker's lock could not be created, opened or locked.
    #[error(
        "cannot lock Flake128 worker {worker:#014x} with {lock_path}: {message}; \
         give the worker explicitly if this host has no usable lock directory"
    )]
    WorkerLock {
        /// The worker ID (the MAC address).
        worker: u64,
        /// The lock (a directory).
        lock_path: String,
        /// The operating system's message.
        message: String,
    },
    /// No worker ID from a MAC address: the network interface directory
    /// could not be read.
    #[error(
        "no Flake128 worker from a MAC address: cannot read network interfaces in {path}: {message}"
    )]
    InterfacesUnreadable {
        /// The directory (normally `/sys/class/net`).
        path: String,
        /// The operating system's message.
        message: String,
    },
    /// No worker ID from a MAC address: no interface other than loopback
    /// has a usable (non-zero) MAC address.
    #[error(
        "no Flake128 worker from a MAC address: no network interface in {path} has a non-zero \
         MAC address (loopback excluded); configure the worker ID explicitly"
    )]
    NoMacAddress {
        /// The directory searched.
        path: String,
    },
    /// No worker ID from a MAC address: an interface's address is not six
    /// colon-separated hex bytes.
    #[error(
        "no Flake128 worker from a MAC address: {value:?} is not a MAC address (expected six \
         colon-separated hex bytes)"
    )]
    InvalidMac {
        /// The text that was read.
        value: String,
    },
    /// The generator could not be configured.
    #[error(transparent)]
    Config(#[from] ConfigError),
}
