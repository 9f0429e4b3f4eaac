//! Finding the ID error inside Diesel's errors.

use diesel::result::Error;
use flakeid_core::IdError;

/// The [`IdError`] that made Diesel fail to load a row, if that is why:
/// a stored 0, a negative value or a value the ID type's scheme does not
/// hold. Diesel's own message names only the field; this names the type
/// and the value.
///
/// ```
/// use diesel::result::Error;
/// use flakeid_diesel::{find_id_error, flakeid_core::IdError};
///
/// let err = Error::DeserializationError(Box::new(IdError::Zero { type_name: "UserId" }));
/// assert_eq!(find_id_error(&err), Some(&IdError::Zero { type_name: "UserId" }));
/// assert_eq!(find_id_error(&Error::NotFound), None);
/// ```
pub fn find_id_error(err: &Error) -> Option<&IdError> {
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = current {
        if let Some(found) = e.downcast_ref::<IdError>() {
            return Some(found);
        }
        // `DeserializationError`'s `source()` skips the boxed error itself.
        current = match e.downcast_ref::<Error>() {
            Some(Error::DeserializationError(inner)) => Some(&**inner),
            _ => e.source(),
        };
    }
    None
}
