//! Runnable examples of flakeid: `cargo run -p flakeid-examples --bin seaorm_quickstart`
//! and `--bin diesel_quickstart`, both on embedded SQLite; `--bin seaorm_leased`
//! and `--bin diesel_leased`, the same with a node ID leased from a table in
//! a SQLite file.
//!
//! The code blocks of the repository's README are compiled as doctests of
//! this crate, so the README cannot drift from the API.

#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
mod readme {}
