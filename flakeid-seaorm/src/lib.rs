//! Flake IDs as SeaORM column types.
