//! Seeded deterministic simulations of the lease protocol (see each
//! module): they drive the protocol's own steps, which are private to this
//! crate, so they run as its unit tests.

mod renewal_simulation;
mod simulation;
