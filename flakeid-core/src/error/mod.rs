//! The errors shared across the crate's layers: what a value, a source
//! and a configuration can get wrong, and the plain data they carry (why a
//! generator's node is fenced). Every error names the value that was
//! wrong. Errors of one module only live with that module; a scheme's own
//! generator errors reach [`GenerateError`] as a [`SchemeError`].

mod config;
mod fenced;
mod generate;
mod time_bounds;

use thiserror::Error;

pub use config::ConfigError;
pub use fenced::{FenceReason, Fenced};
pub use generate::{GenerateError, IdGenerateError};
pub use time_bounds::TimeBoundsError;

use crate::encoding::DecodeError;

/// A value that is not a valid ID (from a database, a string, JSON …).
///
/// ```
/// use flakeid_core::{flake_id, FlakeId, IdError};
///
/// #[flake_id]
/// pub struct UserId(i64);
///
/// assert_eq!(UserId::from_i64(0), Err(IdError::Zero { type_name: "UserId" }));
/// assert!(matches!(UserId::from_i64(-5), Err(IdError::Negative { value: -5, .. })));
/// let e = "12a".parse::<UserId>().unwrap_err();
/// assert!(matches!(e, IdError::Text { type_name: "UserId", .. }));
/// assert_eq!(
///     e.to_string(),
///     "not a valid UserId: invalid character 'a' at position 2 in decimal string \"12a\""
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum IdError {
    /// The value is zero; IDs start at 1.
    #[error("0 is not a valid {type_name}: IDs start at 1")]
    Zero {
        /// The ID type's name.
        type_name: &'static str,
    },
    /// The value is negative.
    #[error("{value} is not a valid {type_name}: IDs are positive")]
    Negative {
        /// The ID type's name.
        type_name: &'static str,
        /// The value.
        value: i128,
    },
    /// The value is larger than the layout's largest ID.
    #[error("{value} is not a valid {type_name}: the largest is {max}")]
    TooLarge {
        /// The ID type's name.
        type_name: &'static str,
        /// The value.
        value: u128,
        /// The largest valid ID.
        max: u64,
    },
    /// The value is in range but breaks a rule of the ID type's scheme
    /// (checked by [`IdScheme::check`](crate::IdScheme::check)), such as a
    /// DecimalId whose counter is 0.
    #[error("{value} is not a valid {type_name}: {source}")]
    Field {
        /// The ID type's name.
        type_name: &'static str,
        /// The value.
        value: u64,
        /// The field that is out of its range.
        #[source]
        source: FieldOutOfRange,
    },
    /// A text without the type's prefix (see
    /// [`FlakeId::PREFIX`](crate::FlakeId::PREFIX)): another type's, or none.
    #[error("{value:?} is not a {type_name}: expected prefix {expected}_")]
    Prefix {
        /// The ID type's name.
        type_name: &'static str,
        /// The text (shortened to its first 64 characters).
        value: String,
        /// The type's prefix, without its underscore.
        expected: &'static str,
    },
    /// A text form did not decode to a number.
    #[error("not a valid {type_name}: {source}")]
    Text {
        /// The ID type's name.
        type_name: &'static str,
        /// What was wrong with the text.
        #[source]
        source: DecodeError,
    },
}

/// A field of an ID outside the range its scheme allows (see
/// [`IdScheme::check`](crate::IdScheme::check)).
///
/// ```
/// use std::borrow::Cow;
/// use flakeid_core::{Decoded, FieldOutOfRange, IdScheme};
///
/// /// Ticket numbers: `desk · 1,000,000 + n`, desks 1..=99, `n` counted from 1.
/// #[derive(Debug)]
/// struct Tickets;
///
/// impl IdScheme for Tickets {
///     fn max_id(&self) -> u64 { 99_999_999 }
///     fn check(&self, id: u64) -> Result<(), FieldOutOfRange> {
///         let (desk, n) = (id / 1_000_000, id % 1_000_000);
///         if desk == 0 {
///             return Err(FieldOutOfRange { field: "desk", value: desk, min: 1, max: 99 });
///         }
///         if n == 0 {
///             return Err(FieldOutOfRange { field: "n", value: n, min: 1, max: 999_999 });
///         }
///         Ok(())
///     }
///     fn decode(&self, id: u64) -> Decoded {
///         let fields = vec![(Cow::Borrowed("desk"), id / 1_000_000), (Cow::Borrowed("n"), id % 1_000_000)];
///         Decoded::from_fields(id, None, fields)
///     }
/// }
///
/// assert_eq!(Tickets.check(7_000_042), Ok(()));
/// // Numbers start at 1 at every desk: 7,000,000 has n = 0.
/// let e = Tickets.check(7_000_000).unwrap_err();
/// assert_eq!(e, FieldOutOfRange { field: "n", value: 0, min: 1, max: 999_999 });
/// assert_eq!(e.to_string(), "its n is 0, outside 1..=999999");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("its {field} is {value}, outside {min}..={max}")]
pub struct FieldOutOfRange {
    /// The field's name (`"counter"`, `"launch_id"` …).
    pub field: &'static str,
    /// The field's value in the ID.
    pub value: u64,
    /// The smallest value the scheme allows.
    pub min: u64,
    /// The largest value the scheme allows.
    pub max: u64,
}

/// An error of a scheme's own generator (a DecimalId generator's source
/// failing, a TraceId thread's counter running out …), passed on by an
/// [`IdSource`](crate::IdSource) as [`GenerateError::Scheme`].
///
/// The original error is its [`source`](std::error::Error::source) and can
/// be recovered with [`downcast_ref`](Self::downcast_ref). Two values are
/// equal when they share the same original error (clones of one another).
#[derive(Debug, Clone)]
pub struct SchemeError {
    scheme: &'static str,
    error: std::sync::Arc<dyn std::error::Error + Send + Sync + 'static>,
}

impl SchemeError {
    /// Wraps `error` of the generator of `scheme` (a short name such as `"DecimalId"`).
    pub fn new(
        scheme: &'static str,
        error: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        SchemeError {
            scheme,
            error: std::sync::Arc::new(error),
        }
    }

    /// The scheme's name.
    pub fn scheme(&self) -> &'static str {
        self.scheme
    }

    /// The original error, if it is an `E`.
    ///
    /// ```
    /// use flakeid_core::{GenerateError, SchemeError};
    ///
    /// /// The error of a scheme's own generator.
    /// #[derive(Debug, thiserror::Error)]
    /// enum TicketError {
    ///     #[error("desk {desk} has issued all its numbers")]
    ///     DeskFull { desk: u64 },
    /// }
    ///
    /// // What the scheme's `IdSource::next_id` returns.
    /// let e = GenerateError::Scheme(SchemeError::new("Ticket", TicketError::DeskFull { desk: 7 }));
    /// assert_eq!(e.to_string(), "the Ticket generator failed: desk 7 has issued all its numbers");
    /// let GenerateError::Scheme(scheme_error) = &e else { unreachable!() };
    /// assert_eq!(scheme_error.scheme(), "Ticket");
    /// assert!(matches!(scheme_error.downcast_ref::<TicketError>(), Some(TicketError::DeskFull { desk: 7 })));
    /// ```
    pub fn downcast_ref<E: std::error::Error + 'static>(&self) -> Option<&E> {
        self.error.downcast_ref::<E>()
    }
}

impl PartialEq for SchemeError {
    fn eq(&self, other: &Self) -> bool {
        self.scheme == other.scheme && std::sync::Arc::ptr_eq(&self.error, &other.error)
    }
}

impl Eq for SchemeError {}

impl core::fmt::Display for SchemeError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "the {} generator failed: {}", self.scheme, self.error)
    }
}

impl std::error::Error for SchemeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.error)
    }
}
