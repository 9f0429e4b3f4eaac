//! Flake IDs as Diesel column types.
