//! Runnable examples of flakeid: `cargo run -p flakeid-examples --bin seaorm_quickstart`
//! on embedded SQLite; `--bin seaorm_leased`, the same with a node ID leased
//! from a table in a SQLite file; `--bin seaorm_seaography`, the quickstart's
//! entities as a seaography GraphQL schema. The Diesel examples are the package
//! `flakeid-examples-diesel` (`examples/diesel/`, `--bin diesel_quickstart`
//! and `--bin diesel_leased`), so that these build no Diesel.
//!
//! The Rust code blocks of the repository's README and of every chapter of
//! the guide (`docs/`) are compiled and run as doctests of this crate, so
//! neither can drift from the API. The documentation checker
//! (`tests/tests/docs.rs` of `flakeid-tests`) fails if a chapter with Rust
//! blocks is missing here.

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
mod readme {}

/// The guide's chapters, one module each.
#[cfg(doctest)]
mod guide {
    #[doc = include_str!("../../docs/SUMMARY.md")]
    mod summary {}
    #[doc = include_str!("../../docs/ids.md")]
    mod ids {}
    #[doc = include_str!("../../docs/node-ids.md")]
    mod node_ids {}
    #[doc = include_str!("../../docs/seaorm.md")]
    mod seaorm {}
    #[doc = include_str!("../../docs/diesel.md")]
    mod diesel {}
    #[doc = include_str!("../../docs/sqlx.md")]
    mod sqlx {}
    #[doc = include_str!("../../docs/index-size.md")]
    mod index_size {}
    #[doc = include_str!("../../docs/openapi.md")]
    mod openapi {}
    #[doc = include_str!("../../docs/api-layers.md")]
    mod api_layers {}
    #[doc = include_str!("../../docs/seaography.md")]
    mod seaography {}
    #[doc = include_str!("../../docs/service.md")]
    mod service {}
    #[doc = include_str!("../../docs/database-ids.md")]
    mod database_ids {}
    #[doc = include_str!("../../docs/adopt.md")]
    mod adopt {}
    #[doc = include_str!("../../docs/segments.md")]
    mod segments {}
    #[doc = include_str!("../../docs/cli.md")]
    mod cli {}
    #[doc = include_str!("../../docs/schemes.md")]
    mod schemes {}
    #[doc = include_str!("../../docs/crates.md")]
    mod crates {}
    #[doc = include_str!("../../docs/testing.md")]
    mod testing {}
}
