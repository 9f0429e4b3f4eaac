//! Preset layouts (skeleton).
