//! The process-wide default generator (skeleton).
