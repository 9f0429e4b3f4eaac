//! Helpers that several modules of this binary use. The file
//! `config_errors.rs` is also compiled into `global_process.rs` (a binary
//! of its own) with `#[path]`.

use std::sync::Arc;

use flakeid_core::layout::{BitLayout, presets};
use flakeid_core::{Generator, GeneratorBuilder, ManualClock};

pub(crate) mod capture;
pub(crate) mod config_errors;

/// 2023-11-14T22:13:20Z in Unix ms: where the manual clocks of most tests start.
pub(crate) const T0: u64 = 1_700_000_000_000;

/// A builder of a Twitter-layout generator for `node` on `clock`.
pub(crate) fn twitter_on(
    clock: &Arc<ManualClock>,
    node: u64,
) -> GeneratorBuilder<BitLayout, Arc<ManualClock>> {
    Generator::builder(presets::twitter(), node).clock(clock.clone())
}
