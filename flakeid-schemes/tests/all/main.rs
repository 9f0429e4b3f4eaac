//! flakeid-schemes' tests that need no process of their own (one binary:
//! one link step). The schemes' generators after `fork()` are checked in
//! `fork.rs`, a binary of its own.

mod cut_over;
mod decimal_id;
mod decimal_layout;
mod id_types;
mod offset_range;
mod permute;
mod random;
mod random_start;
mod runtime;
mod source;
mod support;
mod time_bounds;
mod trace;
