//! flakeid-core's tests that need no process of their own, one module per
//! folder of `src/` (one binary: one link step). Tests that configure the
//! process-wide generator or fork run in binaries of their own:
//! `global_process.rs`, `global_sources.rs` and `generator_process.rs`.
//! The loom model check of the generator is in the workspace's
//! `loom-tests/` crate. What builds on the generator in the other crates
//! (leases, segments, schemes, 128-bit flakes) is tested in those crates.

/// An ID type written by hand, as `#[flake_id]` writes one (the trait's
/// required items, `Display`, `FromStr`): `$name`, of the layout `$layout`
/// (a function returning it), its IDs from `$source` (an expression of
/// type `Result<&'static dyn IdSource, ConfigError>`).
macro_rules! hand_written_id {
    ($name:ident, layout = $layout:path, source = $source:expr) => {
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        struct $name(i64);

        impl flakeid_core::FlakeId for $name {
            const NAME: &'static str = stringify!($name);
            fn scheme() -> &'static dyn flakeid_core::IdScheme {
                static LAYOUT: std::sync::LazyLock<flakeid_core::layout::BitLayout> =
                    std::sync::LazyLock::new($layout);
                &*LAYOUT
            }
            fn source() -> Result<&'static dyn flakeid_core::IdSource, flakeid_core::ConfigError> {
                $source
            }
            fn __from_valid(value: i64) -> Self {
                $name(value)
            }
            fn get(self) -> i64 {
                self.0
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                flakeid_core::__private::display(self, f)
            }
        }

        impl std::str::FromStr for $name {
            type Err = flakeid_core::IdError;
            fn from_str(s: &str) -> Result<Self, flakeid_core::IdError> {
                flakeid_core::__private::from_str(s)
            }
        }
    };
}

/// The source of a hand-written ID type: a generator of `$layout` for
/// `$node`, built once.
macro_rules! generator_source {
    ($layout:expr, $node:expr) => {{
        static G: std::sync::OnceLock<Result<flakeid_core::Generator, flakeid_core::ConfigError>> =
            std::sync::OnceLock::new();
        G.get_or_init(|| flakeid_core::Generator::builder($layout, $node).build())
            .as_ref()
            .map(|g| g as &dyn flakeid_core::IdSource)
            .map_err(Clone::clone)
    }};
}

mod cut_over;
mod encoding {
    #[cfg(feature = "serde")]
    mod serde;
    mod text;
}
mod generator {
    mod events;
    mod guarantees;
    mod manual_clock;
    mod resume;
    mod threads;
}
mod global {
    mod env;
    mod moves;
}
mod id;
mod layout {
    mod bits;
    mod js_safe;
}
mod prefix;
mod runtime;
mod source;
mod support;
#[cfg(feature = "metrics")]
mod telemetry;
mod time_bounds;
