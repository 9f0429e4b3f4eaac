//! How a node source moves the process-wide generator to another node: the
//! two hooks between them. A lease that lost its node claims another one
//! and moves the generator there (`LeaseOptions::heal` in `flakeid-lease`);
//! the generator is the process-wide one
//! ([`ProcessGenerator`](crate::global::ProcessGenerator)), installed above
//! the node sources. The lease knows it only as a [`Movable`], which it
//! receives through the [`Attach`] hook that its generator builder carries.

use std::sync::Arc;

use super::Ceiling;
use crate::error::ConfigError;

/// Told by the process-wide generator that it issues the IDs of a node
/// source's generator, so that the source can move it to another node.
pub trait Attach: Send + Sync {
    /// `process` now issues the IDs of the source's generator.
    fn attach(&self, process: Arc<dyn Movable>);
}

/// The process-wide generator, as a node source that lost its node sees
/// it.
pub trait Movable: Send + Sync {
    /// A lease lost the node of `ceiling` and claims another: callers wait
    /// for the move. `false` (nothing changes) when the generator does not
    /// issue under `ceiling` or was released.
    fn begin_move(&self, ceiling: &Arc<Ceiling>) -> bool;

    /// The move did not happen (the lease was released or stopped meanwhile).
    fn abandon_move(&self);

    /// Moves to `node`: stops the current generator, builds one for `node`
    /// starting after `resume_after` (Unix ms) under `ceiling` with the
    /// same layout, clock and policies, and makes it current.
    ///
    /// # Errors
    /// The new generator's [`ConfigError`]; [`ConfigError::AlreadyInitialized`]
    /// once released. The current generator stays then.
    fn move_to(
        &self,
        node: u64,
        resume_after: u64,
        ceiling: Arc<Ceiling>,
    ) -> Result<(), ConfigError>;
}
