//! Flake IDs as first-class [Diesel](https://diesel.rs) 2.3 keys.
//!
//! Declare an ID type once with this crate's `#[flake_id]` (it emits the
//! Diesel impls; `flakeid_core::flake_id` does not): it becomes a Diesel
//! column type for `BigInt` (PostgreSQL, MySQL/MariaDB, SQLite) and, on
//! MySQL, for `Unsigned<BigInt>`:
//!
//! ```
//! use diesel::prelude::*;
//! use flakeid_diesel::flake_id;
//!
//! #[flake_id]
//! pub struct UserId(i64);
//!
//! diesel::table! {
//!     users (id) {
//!         id -> BigInt,
//!         name -> Text,
//!     }
//! }
//!
//! #[derive(Queryable, Selectable, Insertable, Debug, PartialEq)]
//! #[diesel(table_name = users)]
//! struct User {
//!     id: UserId,
//!     name: String,
//! }
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use flakeid_diesel::flakeid_core::{global, Generator};
//! use flakeid_diesel::flakeid_core::layout::presets;
//! // Once at start-up: this process's node ID (unique among writers).
//! global::init(Generator::builder(presets::twitter(), 1))?;
//! let mut conn = SqliteConnection::establish(":memory:")?;
//! // `CHECK (id > 0)`: the database itself refuses a key that is not an ID.
//! diesel::sql_query(
//!     "CREATE TABLE users (id BIGINT PRIMARY KEY NOT NULL CHECK (id > 0), name TEXT NOT NULL)",
//! )
//! .execute(&mut conn)?;
//!
//! // The application assigns the key before the insert: nothing to read back.
//! let alice = User { id: UserId::generate()?, name: "alice".into() };
//! diesel::insert_into(users::table).values(&alice).execute(&mut conn)?;
//!
//! let found: User = users::table.find(alice.id).select(User::as_select()).first(&mut conn)?;
//! assert_eq!(found, alice);
//! assert!(diesel::sql_query("INSERT INTO users (id, name) VALUES (0, 'zero')")
//!     .execute(&mut conn)
//!     .is_err());
//! # Ok(()) }
//! ```
//!
//! # What an ID type gets
//!
//! * `ToSql`/`FromSql`/`AsExpression`/`Queryable` for `BigInt` on every
//!   backend, `Nullable<BigInt>` through Diesel's `Option` impls, and
//!   `Unsigned<BigInt>` on MySQL (feature `mysql`). So the type works as a
//!   primary key, a foreign key, an `Option<_>` foreign key, in
//!   `Identifiable`/`Associations` (`belonging_to`, `grouped_by`), in `find`,
//!   `eq`, `eq_any` and `RETURNING`, with sync Diesel and `diesel-async`.
//! * Values read back are validated: `0`, negative numbers and values above
//!   the layout's largest ID fail with `diesel::result::Error::DeserializationError`,
//!   holding a [`flakeid_core::IdError`] naming the type and the value
//!   (Diesel's own message names only the field); [`find_id_error`] finds
//!   it. Nothing panics on stored data.
//!
//! # Assigning IDs
//!
//! Diesel has no insert hooks, so the application assigns the key when it
//! builds the row: `NewUser { id: UserId::generate()?, name }`. Named
//! fields keep two values of one type from being swapped by position, so
//! `#[flake_id]` on a model writes no constructor: it checks that the key
//! is an ID type. ID types deliberately do not implement `Default`: a
//! `#[serde(default)]` or `..Default::default()` would then mint IDs
//! silently, e.g. for a request that forgot to send one.
//!
//! With diesel-async, take IDs with the async twins,
//! `UserId::generate_async().await?` and
//! `UserId::generate_many_async(n).await?` (flakeid-core's `tokio` feature,
//! which this crate's `async` feature turns on): where the generator has
//! to wait, the task waits on tokio's timer instead of holding the
//! runtime's thread.
//!
//! For many rows, take IDs from the generator's batch API
//! ([`FlakeId::generate_many`], which reserves them from a
//! [`Generator`](flakeid_core::Generator) in one atomic step) and insert with
//! one `insert_into(..).values(&rows)`: children can reference the parents'
//! IDs at once, nothing is read back. Mind the bind-parameter limits
//! (PostgreSQL and MySQL 65 535, SQLite 32 766 per statement): rows × columns must
//! stay under them, else insert in chunks (`rows.chunks(n)`).
//!
//! # Cyclic references
//!
//! Since keys exist before rows do, rows that reference each other (a
//! department's head is one of its employees) can be written in one
//! transaction without reading anything back:
//!
//! * PostgreSQL and SQLite: declare the foreign keys `DEFERRABLE INITIALLY
//!   DEFERRED`; insert in any order, the keys are checked at `COMMIT`.
//! * MySQL/MariaDB have no deferred constraints: insert the row whose
//!   reference is nullable with `NULL`, insert the other rows, then
//!   `UPDATE` the reference, all in the transaction. Prefer this to
//!   `SET FOREIGN_KEY_CHECKS = 0`, which also skips checking every other
//!   row written meanwhile and never re-checks them.
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `macros` | yes | the `#[flake_id]` attribute with Diesel impls |
//! | `postgres`, `mysql`, `sqlite` | no | Diesel's backends (not its connections: choose `diesel/postgres`, `diesel/mysql` or `diesel-async` in your application); any combination works |
//! | `async` | no | flakeid's SQL on `diesel-async` connections (`AsyncDieselExecutor`), async generation on tokio's timer, and with `lease`, node leases renewed by a tokio task (`lease_async`) |
//! | `lease` | no | node IDs leased from a table in the application's database (`lease`, renewed by a thread), on `flakeid-lease`, re-exported as `flakeid_diesel::flakeid_lease` |
//! | `segment` | no | Leaf-style segments from a database row (`segment`), on `flakeid-segment`, re-exported as `flakeid_diesel::flakeid_segment` |
//! | `flake128` | no | `Flake128` as a Diesel column for the enabled backends, from `flakeid-flake128`, re-exported as `flakeid_diesel::flakeid_flake128` |
//!
//! flakeid's SQL runs on Diesel connections through [`DieselExecutor`]
//! (`flakeid-sql`, re-exported as `flakeid_diesel::flakeid_sql`), with or
//! without features; [`migration`] runs Diesel's migrations under a lock.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod backend;
#[cfg(feature = "async")]
mod backend_async;
mod convert;
mod error;
mod executor;
#[cfg(feature = "lease")]
pub mod lease;
#[cfg(all(feature = "lease", feature = "async"))]
pub mod lease_async;
mod macros;
pub mod migration;
#[cfg(feature = "segment")]
pub mod segment;
mod time_filter;

pub use backend::{DieselBackend, DieselStoreError};
#[cfg(feature = "async")]
pub use backend_async::{AsyncDieselBackend, AsyncDieselExecutor};
pub use error::find_id_error;
pub use executor::DieselExecutor;
pub use time_filter::IssuedIn;

pub use flakeid_core;
pub use flakeid_core::FlakeId;
#[cfg(feature = "flake128")]
pub use flakeid_flake128;
#[cfg(feature = "lease")]
pub use flakeid_lease;
/// `#[flake_id]` with Diesel's impls: ID types become `BigInt` column types
/// (see the crate docs).
#[cfg(feature = "macros")]
pub use flakeid_macros::diesel_flake_id as flake_id;
#[cfg(feature = "segment")]
pub use flakeid_segment;
pub use flakeid_sql;

/// Items used by code that `#[flake_id]` generates. Not a public API: no
/// semver guarantees.
#[doc(hidden)]
pub mod __private {
    pub use ::diesel;
    pub use ::flakeid_core;

    pub use crate::__flakeid_diesel_impl_id as impl_id;
    pub use crate::convert::{from_i64, from_u64, to_u64};

    /// Implemented by `impl_id!` for every ID type declared with Diesel
    /// impls; a Diesel model's key must be one.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` has no Diesel impls of an ID column",
        label = "not declared with `#[flake_id(diesel)]`",
        note = "declare it with `#[flakeid_diesel::flake_id]`, or `#[flake_id(diesel)]` from \
                flakeid-core; for both ORMs: `#[flake_id(seaorm, diesel)]`"
    )]
    pub trait DieselId {}
}

/// The crate's README (its registry page): its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
