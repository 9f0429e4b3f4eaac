//! flakeid-sql's tests of its public API (one binary: one link step). The
//! statements run on real servers in `flakeid-tests`.

mod migration_lock;
