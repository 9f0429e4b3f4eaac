//! Shared code for the examples.
