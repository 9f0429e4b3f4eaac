//! Test support: database fixtures.
