//! Time-ordered, unique, application-assigned 64-bit IDs.
//!
//! `flakeid-core` is what a `#[flake_id]` user depends on: ID types, the
//! generator that issues their values and everything it needs, with no
//! database in sight. At the crate root: the attribute ([`flake_id`]), the
//! [`FlakeId`] trait its types implement, the [`Generator`] and its
//! policies, clocks, and the errors. The rest lives in modules:
//!
//! * [`layout`] — how an ID is split into time, node and sequence fields:
//!   [`BitLayout`](layout::BitLayout) and its [`presets`](layout::presets),
//!   decimal-digit layouts, a random starting sequence per tick;
//!   [`encoding`] — the decimal, base62 and Crockford base32 text forms;
//!   [`IdScheme`] — what an ID is, for checking and decoding;
//!   [`IdSource`] — where IDs come from.
//! * [`global`] — the process's node ID (in code, from `FLAKEID_*`
//!   variables, or a Kubernetes ordinal: [`node`]) and the process-wide
//!   generator that `UserId::generate()` uses.
//! * [`runtime`] — what async code waits on: the runtime's timers, and the
//!   non-blocking core ([`runtime::Attempt`]) of the `*_async` calls.
//! * [`telemetry`] — what operators are told: metrics (feature `metrics`)
//!   and the generator's `tracing` events.
//! * [`interop`] — ID types as values of other crates (serde, sqlx,
//!   utoipa, schemars, async-graphql, ts-rs, specta), behind features.
//!
//! What only some users need lives in crates of its own, each built on
//! this one: `flakeid-lease` (node IDs leased from the application's
//! database, or kept in a local high-water file), `flakeid-segment`
//! (Leaf-style segments, dense IDs, short keys), `flakeid-schemes`
//! (DecimalId, TraceId, random keys, offset ranges, keyed permutations),
//! `flakeid-flake128` (128-bit flakes), `flakeid-id-function` (IDs issued
//! by the database), `flakeid-adopt` (auto-increment tables switched to
//! flake keys) and `flakeid-sql` (the SQL they share). The ORM crates
//! `flakeid-seaorm` and `flakeid-diesel` turn them on by feature.
//!
//! # Layers
//!
//! The modules form layers, listed from the bottom. A module imports only
//! from its own layer and the layers before it (no two folders import each
//! other); plumbing that two modules share moves down to a neutral module
//! both import. The workspace's `architecture` test reads this list and
//! checks every `crate::` path of the crate against it.
//!
//! 1. `fork`, `clock`, `runtime`, `telemetry` — the process, time, timers, what operators are told
//! 2. `encoding`, `layout` — text forms; how an ID is split into fields
//! 3. `error`, `decoded`, `policy` — shared errors, decoded IDs, a generator's policies
//! 4. `source`, `id` — schemes and sources of IDs, with the key bounds of a time range; ID types
//! 5. `generator` — the generator, its builder and ceiling
//! 6. `node` — node IDs from a Kubernetes ordinal; what node sources give the generator
//! 7. `global`, `interop` — the process-wide generator; other crates' traits
//! 8. `__private` — what `#[flake_id]` expands to, and what flakeid's other crates build on
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
//! | `sqlx-postgres`, `sqlx-mysql`, `sqlx-sqlite` | no | ID types as sqlx values of `BIGINT` / `BIGINT UNSIGNED` / `INTEGER` columns, read with the same checks as the ORM impls (see [`interop`]) |
//! | `tokio` | no | async generation on tokio's timer (`UserId::generate_async()`, [`Generator::next_id_async`], …; see [`runtime`]); turned on by `flakeid-seaorm` and `flakeid-diesel`'s `async` |
//! | `metrics` | no | the generator's metrics through the `metrics` facade ([`telemetry`]) |
//! | `utoipa`, `schemars` | no | ID types as OpenAPI / JSON Schema schemas: strings of decimal digits ([`interop`]) |
//! | `async-graphql` | no | ID types as GraphQL scalars named after the type (strings on the wire), `TryFrom<async_graphql::ID>`, connection cursors ([`interop`]) |
//! | `ts-rs` | no | ID types as TypeScript `string` aliases (`export type UserId = string;`, [`interop`]) |
//! | `specta` | no | ID types as named specta types defined as `string` (specta-typescript writes `export type UserId = string;`; requires specta `=2.0.0-rc.27`, [`interop`]) |
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
