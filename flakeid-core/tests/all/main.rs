//! flakeid-core's tests that need no process of their own, one module per
//! folder of `src/` (one binary: one link step). Tests that configure the
//! process-wide generator, fork, or lock host-wide files run in binaries of
//! their own: `global_process.rs`, `global_sources.rs`,
//! `generator_process.rs` and `flake128_host_lock.rs`. The loom model check
//! of the generator is in the workspace's `loom-tests/` crate.

mod adopt {
    mod cut_over;
}
mod encoding {
    #[cfg(feature = "serde")]
    mod serde;
    mod text;
}
mod flake128;
mod generator {
    mod guarantees;
    mod manual_clock;
    mod threads;
}
mod global {
    mod env;
}
mod id;
mod id_function;
mod layers;
mod layout {
    mod bits;
    mod decimal_digits;
    mod js_safe;
}
mod node {
    mod capacity;
    mod fleet;
    mod lease;
}
mod public_id {
    mod permute;
    mod short_keys;
}
mod schemes {
    mod decimal_id;
    mod random;
    mod trace;
}
mod segment;
mod source;
mod sql;
mod time_bounds;
