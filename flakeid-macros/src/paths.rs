//! Paths to the runtime crates as the user's crate names them. (skeleton)
