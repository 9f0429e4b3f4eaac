//! flakeid-flake128's tests that need no process of their own (one binary:
//! one link step). The host-wide lock of a MAC-derived worker is checked
//! with real processes in `host_lock.rs`, a binary of its own.

mod flake128;
mod layout;
mod time_bounds;
