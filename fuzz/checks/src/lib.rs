//! The property each fuzz target of `fuzz/` checks, one module per target.
//!
//! Each target's `check` takes the fuzzer's bytes and panics when the code
//! under test breaks the target's property: a round trip that does not come
//! back, an input refused that the rules accept (or accepted that they
//! refuse, compared with an oracle written apart from the code), a refusal
//! that is not the typed error naming the value, state left behind by a
//! refused input, or a panic of the code itself. The cargo-fuzz targets
//! (`fuzz/fuzz_targets/<name>.rs`) call exactly these functions, and the
//! test `tests/fuzz_corpus.rs` feeds every file of `fuzz/corpus/<name>/` to
//! them on stable Rust, so an input that once failed is checked on every
//! test run.
//!
//! Text targets read their bytes as UTF-8 (invalid sequences as U+FFFD);
//! the others read the small formats their modules describe, chosen so
//! that corpus files stay readable (lines, `NUL`-separated arguments, an
//! HTTP request's head and body).

mod ids;
mod input;
mod oracle;
mod sql_lex;

pub mod cli_args;
pub mod decode_base62;
pub mod decode_crockford;
pub mod decode_decimal;
pub mod decode_i64;
pub mod env_config;
pub mod flake128_text;
pub mod graphql_scalar;
pub mod id_from_str;
pub mod id_prefixed;
pub mod id_serde_json;
pub mod prost_json;
pub mod rfc3339_epoch;
pub mod service_router;
pub mod sql_names;
pub mod time_bounds;

/// A fuzz target: its name (of its file in `fuzz/fuzz_targets/` and of its
/// corpus folder `fuzz/corpus/<name>/`) and its check.
#[derive(Debug, Clone, Copy)]
pub struct Target {
    /// The target's name.
    pub name: &'static str,
    /// Panics when the input breaks the target's property.
    pub check: fn(&[u8]),
}

/// Every fuzz target (`scripts/fuzz.sh all` runs them in the order of
/// their file names).
pub const TARGETS: &[Target] = &[
    Target {
        name: "id_from_str",
        check: id_from_str::check,
    },
    Target {
        name: "id_serde_json",
        check: id_serde_json::check,
    },
    Target {
        name: "id_prefixed",
        check: id_prefixed::check,
    },
    Target {
        name: "decode_decimal",
        check: decode_decimal::check,
    },
    Target {
        name: "decode_base62",
        check: decode_base62::check,
    },
    Target {
        name: "decode_crockford",
        check: decode_crockford::check,
    },
    Target {
        name: "rfc3339_epoch",
        check: rfc3339_epoch::check,
    },
    Target {
        name: "decode_i64",
        check: decode_i64::check,
    },
    Target {
        name: "flake128_text",
        check: flake128_text::check,
    },
    Target {
        name: "time_bounds",
        check: time_bounds::check,
    },
    Target {
        name: "graphql_scalar",
        check: graphql_scalar::check,
    },
    Target {
        name: "prost_json",
        check: prost_json::check,
    },
    Target {
        name: "env_config",
        check: env_config::check,
    },
    Target {
        name: "cli_args",
        check: cli_args::check,
    },
    Target {
        name: "sql_names",
        check: sql_names::check,
    },
    Target {
        name: "service_router",
        check: service_router::check,
    },
];
