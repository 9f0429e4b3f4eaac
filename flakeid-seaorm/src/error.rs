//! The error type of this crate, and how it travels inside SeaORM's [`DbErr`].
//!
//! SeaORM's traits return [`DbErr`] (or [`TryGetError`](sea_orm::TryGetError)),
//! so an [`Error`] is carried as the source of a [`DbErr::TryIntoErr`] (the
//! only variant that keeps a typed source). [`Error::find`] gets it back.

use std::sync::Arc;

use flakeid_core::{GenerateError, IdError, TimeBoundsError};
#[cfg(feature = "migration")]
use flakeid_sql::MigrationLockTimeout;
use sea_orm::DbErr;

/// What went wrong between a flake ID and the database.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A value read from the database is not a valid ID of the column's type
    /// (`0`, negative, above the layout's largest ID, or above `i64::MAX`
    /// in a `BIGINT UNSIGNED` column).
    #[error("column {column} holds {value}, which is not a valid {id_type}: {source}")]
    InvalidStoredId {
        /// The ID type, e.g. `"UserId"`.
        id_type: &'static str,
        /// The column as the query named it (or its position).
        column: String,
        /// The value read, in decimal.
        value: String,
        /// Why the value was refused.
        #[source]
        source: IdError,
    },
    /// A model's primary key holds a value that is not an ID of its type.
    #[error("the primary key of `{table}` holds {value}, which is not a valid {id_type}")]
    InvalidKeyValue {
        /// The ID type.
        id_type: &'static str,
        /// The table.
        table: String,
        /// The value, as SeaORM printed it.
        value: String,
    },
    /// No ID could be generated for a new row (generator not configured,
    /// clock moved backwards under a failing policy, …).
    #[error("cannot assign a new {id_type} to a row of `{table}`: {source}")]
    Generate {
        /// The ID type.
        id_type: &'static str,
        /// The table the row was meant for.
        table: String,
        /// Why the generator refused.
        #[source]
        source: GenerateError,
    },
    /// The database generated the key of an inserted row (an `INSERT` that
    /// left the key out). Flake ID keys are assigned by the application, so
    /// such a key is refused rather than taken for an ID.
    #[error(
        "the database generated key {value} for a {id_type} column, but {id_type} keys are \
         assigned by the application: the INSERT left the key out; insert with \
         `ActiveModel::insert`/`save` or `Entity::insert_with_id`/`insert_many_with_ids`"
    )]
    DatabaseGeneratedKey {
        /// The ID type.
        id_type: &'static str,
        /// The key the database reported.
        value: u64,
    },
    /// `save` or `update` of a model whose key is `Set` to an ID that no
    /// row of the table has, and that this process did not give with
    /// `assign_id` (or has forgotten, see
    /// [`REMEMBERED_KEYS`](crate::REMEMBERED_KEYS)): SeaORM would `UPDATE`
    /// nothing. Nothing was written.
    #[error(
        "no row of `{table}` has the key {value}, so saving this {id_type} key would UPDATE \
         nothing: store a new row with `insert` (ActiveModel or ActiveModelEx), or give its key \
         with `assign_id()`, which `save` then inserts; update a row that exists"
    )]
    KeyNotStored {
        /// The ID type.
        id_type: &'static str,
        /// The table.
        table: String,
        /// The key.
        value: i64,
    },
    /// The entity's primary key does not have exactly one column.
    #[error("`{table}` must have a single-column primary key to receive flake IDs")]
    NotSingleKey {
        /// The table.
        table: String,
    },
    /// A range of times has no key bounds for the ID type (see
    /// [`IssuedIn`](crate::IssuedIn)): its scheme records no time, or the
    /// range is empty or outside the layout's time.
    #[error("no {id_type} bounds for the range of times: {source}")]
    TimeBounds {
        /// The ID type.
        id_type: &'static str,
        /// Why the range has no bounds.
        #[source]
        source: TimeBoundsError,
    },
    /// A migration run did not get its lock in time (see
    /// `flakeid_seaorm::migration`, feature `migration`).
    #[error(transparent)]
    #[cfg(feature = "migration")]
    MigrationLock(#[from] MigrationLockTimeout),
    /// A JSON document field could not be read into the model.
    #[error("JSON field `{field}` for `{table}`: {message}")]
    Json {
        /// The table.
        table: String,
        /// The field, as a path (`department_id`, `items[2].id`).
        field: String,
        /// What was wrong, with the value when serde reported it.
        message: String,
    },
}

impl Error {
    /// Finds an [`Error`] carried inside a [`DbErr`] returned by SeaORM.
    ///
    /// ```
    /// use flakeid_seaorm::Error;
    /// use sea_orm::DbErr;
    ///
    /// let err: DbErr = Error::NotSingleKey { table: "orders".into() }.into();
    /// assert!(matches!(Error::find(&err), Some(Error::NotSingleKey { .. })));
    /// assert!(Error::find(&DbErr::RecordNotInserted).is_none());
    /// ```
    pub fn find(err: &DbErr) -> Option<&Error> {
        // The `Arc` in `TryIntoErr` is itself the error's `source()`, and its
        // own `source()` skips the value inside: look inside explicitly.
        let mut current: Option<&(dyn std::error::Error + 'static)> = Some(err);
        while let Some(e) = current {
            if let Some(found) = e.downcast_ref::<Error>() {
                return Some(found);
            }
            if let Some(DbErr::TryIntoErr { source, .. }) = e.downcast_ref::<DbErr>()
                && let Some(found) = source.downcast_ref::<Error>()
            {
                return Some(found);
            }
            current = e.source();
        }
        None
    }

    fn id_type(&self) -> &'static str {
        match self {
            Error::InvalidStoredId { id_type, .. }
            | Error::InvalidKeyValue { id_type, .. }
            | Error::Generate { id_type, .. }
            | Error::DatabaseGeneratedKey { id_type, .. }
            | Error::TimeBounds { id_type, .. }
            | Error::KeyNotStored { id_type, .. } => id_type,
            Error::NotSingleKey { .. } | Error::Json { .. } => "flake ID",
            #[cfg(feature = "migration")]
            Error::MigrationLock(_) => "flake ID",
        }
    }
}

impl From<Error> for DbErr {
    fn from(e: Error) -> DbErr {
        let from = match &e {
            Error::InvalidStoredId { .. } => "database value",
            Error::InvalidKeyValue { .. }
            | Error::NotSingleKey { .. }
            | Error::KeyNotStored { .. } => "primary key",
            Error::Generate { .. } => "flake ID generator",
            Error::DatabaseGeneratedKey { .. } => "database-generated key",
            Error::Json { .. } => "JSON",
            Error::TimeBounds { .. } => "time range",
            #[cfg(feature = "migration")]
            Error::MigrationLock(_) => "migration lock",
        };
        DbErr::TryIntoErr {
            from,
            into: e.id_type(),
            source: Arc::new(e),
        }
    }
}
