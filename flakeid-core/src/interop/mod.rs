//! ID types in other crates' terms, each behind a feature of its own:
//!
//! | feature | what every `#[flake_id]` type gets |
//! |---|---|
//! | `serde` (default) | `Serialize`/`Deserialize` as a decimal string ([`encoding`](crate::encoding)) |
//! | `sqlx-postgres`, `sqlx-mysql`, `sqlx-sqlite` | `sqlx::Type`, `Encode`, `Decode` for that database ([`sqlx`]) |
//! | `utoipa` | `utoipa::PartialSchema` and `ToSchema`: a string of decimal digits ([`json_schema`]) |
//! | `schemars` | `schemars::JsonSchema`: the same schema ([`json_schema`]) |
//!
//! [`Flake128`](crate::flake128::Flake128) gets the same impls from these
//! features, as 16 bytes (`uuid`, `BINARY(16)`, `BLOB`) and as its
//! canonical string.
//!
//! The orphan rule allows these impls only in the crate that declares the
//! ID type, so `#[flake_id]` writes them there: it calls a macro of
//! flakeid-core for each integration, which expands to the impls when the
//! feature is on and to nothing when it is off. Turn a feature on by
//! depending on flakeid-core with it, also when you import the attribute
//! from `flakeid-seaorm` or `flakeid-diesel`:
//!
//! ```toml
//! flakeid-core = { version = "0.1", features = ["sqlx-postgres", "utoipa"] }
//! ```

pub mod json_schema;
#[cfg(feature = "schemars")]
pub mod schemars;
#[cfg(any(
    feature = "sqlx-postgres",
    feature = "sqlx-mysql",
    feature = "sqlx-sqlite"
))]
pub mod sqlx;
#[cfg(feature = "utoipa")]
pub mod utoipa;
