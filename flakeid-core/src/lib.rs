//! Time-ordered, unique, application-assigned IDs.
//!
//! `flakeid-core` is the database-independent heart of flakeid. What a
//! `#[flake_id]` user needs is at the crate root: the attribute
//! ([`flake_id`]), the [`FlakeId`] trait its types implement, the
//! [`Generator`] and its policies, clocks, and the errors. The rest lives
//! in modules, from what an ID *is* up to where it comes from:
//!
//! * [`layout`] — how an ID is split into time, node and sequence fields:
//!   [`BitLayout`](layout::BitLayout) and its [`presets`](layout::presets)
//!   (Twitter, Discord, Instagram, Sonyflake, TSID-like, LSID,
//!   JavaScript-safe), decimal-digit layouts, a random starting sequence
//!   per tick; [`encoding`] — the decimal, base62 and Crockford base32 text
//!   forms; [`IdScheme`] — what an ID is, for checking and decoding.
//! * [`Generator`] — the lock-free generator of one node of a layout,
//!   and the ceiling a node source keeps it under; [`IdSource`] — where
//!   IDs come from.
//! * [`schemes`] — ID sources beyond bit layouts: random keys, DecimalId,
//!   TraceId, per-location offset ranges; [`flake128`] — 128-bit flakes;
//!   [`public_id`] — IDs shown to the public (a keyed permutation, short
//!   keys).
//! * [`node`] — where a generator's node ID comes from: leased from a
//!   table in the application's database (fenced by a persisted ceiling),
//!   a local high-water file, a Kubernetes ordinal; [`segment`] — ranges of
//!   values handed out by a database row; [`sql`] — the dialects and
//!   statements both run (through what [`store`] asks of an ORM), and the
//!   lock that makes migrations at start-up safe; [`runtime`] — what
//!   async code waits on: the runtime's timers, and the non-blocking core
//!   ([`runtime::Attempt`]) of the `*_async` twins of the blocking calls;
//!   [`id_function`] — IDs issued by the database itself, on a node of the lease table, and read
//!   in SQL; [`adopt`] — existing tables switched from auto-increment keys
//!   to flake keys.
//! * [`telemetry`] — what operators are told: metrics (feature `metrics`)
//!   and the generator's `tracing` events.
//! * [`global`] — the process's node ID and the process-wide generators
//!   that `UserId::generate()` uses; [`interop`] — ID types as values of
//!   other crates (serde, sqlx, utoipa, schemars, async-graphql, ts-rs, specta).
//!
//! Shared errors are at the crate root; a module's own errors live with
//! it.
//!
//! # Layers
//!
//! The modules form layers, listed from the bottom. A module imports only
//! from its own layer (no two folders importing each other) and the layers
//! before it; plumbing that two modules share moves down to a neutral
//! module both import. A test (`tests/all/layers.rs`) reads this list and
//! checks every import of the crate against it.
//!
//! 1. `fork`, `rng`, `clock`, `runtime`, `cursor`, `telemetry` — the process, randomness, time, timers, a lock-free range of values, metrics and events for operators
//! 2. `encoding`, `layout` — text forms; how an ID is split into fields
//! 3. `error`, `decoded`, `policy` — shared errors, decoded IDs, a generator's policies
//! 4. `source`, `id` — schemes and sources of IDs (layouts among them, with the key bounds of a time range); ID types
//! 5. `generator` — the generator, its builder and ceiling
//! 6. `sql`, `store` — SQL dialects and statements; what a database store needs from an ORM
//! 7. `schemes`, `flake128`, `public_id` — schemes beyond bit layouts; 128-bit flakes; public IDs
//! 8. `node`, `segment` — node sources (leases, high-water files, ordinals); segments
//! 9. `id_function` — IDs issued by the database on a leased node
//! 10. `adopt` — existing tables switched from auto-increment keys to flake keys
//! 11. `global`, `interop` — the process-wide generators; other crates' traits
//! 12. `__private` — what `#[flake_id]` expands to
//!
//! # Generation guarantees
//!
//! A [`Generator`] never issues an ID twice or an ID of 0, issues strictly
//! increasing IDs, and never wraps past its layout's last tick (it fails
//! with [`GenerateError::TimeExhausted`]). It issues no ID in the tick it
//! was built in, so a process restarted at once with the same node ID does
//! not repeat its predecessor's IDs, and a copy of it in a forked child
//! refuses to issue ([`GenerateError::Forked`]). When a tick's sequence runs
//! out it waits, runs ahead by a bounded lead, or fails
//! ([`SequenceExhaustion`]); when the clock runs backwards it waits up to a
//! bound or fails ([`ClockRegression`]). The time decoded from an ID lies
//! within `[t − W − tick + 1 ms, t + L]` of the clock's reading `t` when it
//! was issued (`W` the catch-up window, 10 ms by default, which applies
//! only right after the generator used up a tick; `L` the run-ahead lead, 0
//! by default; the tick for truncation to the tick's start; see
//! [`Generator`] for batches and details).
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `serde` | yes | IDs serialize as decimal strings and deserialize from strings or integers |
//! | `macros` | yes | re-exports the `#[flake_id]` attribute |
//! | `diesel-postgres`, `diesel-mysql`, `diesel-sqlite` | no | [`Flake128`](flake128::Flake128) as a Diesel column: PostgreSQL `uuid` / `bytea`, MySQL `BINARY(16)`, SQLite `BLOB` (enabled for you by `flakeid-diesel`'s backend features) |
//! | `sea-orm` | no | [`Flake128`](flake128::Flake128) as a SeaORM column and key (enabled for you by `flakeid-seaorm`) |
//! | `sqlx-postgres`, `sqlx-mysql`, `sqlx-sqlite` | no | ID types as sqlx values of `BIGINT` / `BIGINT UNSIGNED` / `INTEGER` columns, read with the same checks as the ORM impls (see `interop::sqlx`); [`Flake128`](flake128::Flake128) as `uuid` / `BINARY(16)` / `BLOB` |
//! | `tokio` | no | async generation on tokio's timer (`UserId::generate_async()`, [`Generator::next_id_async`], …; see [`runtime`]), leases renewed and segments fetched by tokio tasks (`claim_on_tokio`, `start_on_tokio`); turned on by `flakeid-seaorm` and `flakeid-diesel`'s `async` |
//! | `utoipa`, `schemars` | no | ID types as OpenAPI / JSON Schema schemas: strings of decimal digits ([`interop`]); [`Flake128`](flake128::Flake128) as its canonical string |
//! | `async-graphql` | no | ID types as GraphQL scalars named after the type (strings on the wire), `TryFrom<async_graphql::ID>`, connection cursors ([`interop`]) |
//! | `ts-rs` | no | ID types as TypeScript `string` aliases (`export type UserId = string;`, [`interop`]) |
//! | `specta` | no | ID types as named specta types defined as `string` (specta-typescript writes `export type UserId = string;`; requires specta `=2.0.0-rc.27`, [`interop`]) |
//!
//! The column impls for [`Flake128`](flake128::Flake128) live here, behind features, because it
//! is this crate's type: the ORM crates may not implement ORM traits for it.
//! 64-bit ID types get theirs from `#[flake_id]` in your own crate.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

// Lets `::flakeid_core::…` paths (as generated by `#[flake_id]`) resolve inside this crate too.
#[allow(unused_extern_crates)]
extern crate self as flakeid_core;

/// Builder setters: each `name(param: Type) => field = value;` (with its
/// doc comment) is a `pub fn name(mut self, param: Type) -> Self` setting
/// `self.field` to `value`. Defined before every module, so that each
/// builder of flakeid's crates writes its setters the same way (the other
/// crates reach it through [`__private`]).
#[doc(hidden)]
#[macro_export]
macro_rules! __setters {
    ($($(#[$attr:meta])* $name:ident($param:ident: $ty:ty) => $($field:ident).+ = $value:expr;)+) => {
        $(
            $(#[$attr])*
            pub fn $name(mut self, $param: $ty) -> Self {
                self.$($field).+ = $value;
                self
            }
        )+
    };
}

mod clock;
mod decoded;
pub mod encoding;
mod error;
mod fork;
mod generator;
pub mod global;
mod id;
pub mod interop;
pub mod layout;
pub mod node;
mod policy;
pub mod runtime;
mod source;
pub mod telemetry;

use __setters as setters;

pub use clock::{Clock, ManualClock, MonotonicClock};
pub use decoded::Decoded;
pub use error::{
    ConfigError, FenceReason, Fenced, FieldOutOfRange, GenerateError, IdError, IdGenerateError,
    SchemeError, TimeBoundsError,
};
pub use generator::{Generator, GeneratorBuilder, IdBatch};
pub use id::FlakeId;
pub use policy::{CeilingWait, ClockRegression, SequenceExhaustion};
pub use source::{GlobalScheme, IdScheme, IdSource, NodeConfig};

#[cfg(feature = "macros")]
pub use flakeid_macros::flake_id;

/// Items used by code that `#[flake_id]` generates. Not a public API.
#[doc(hidden)]
pub mod __private;

/// The crate's README (its registry page): its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
