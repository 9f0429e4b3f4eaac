//! The migration lock: the statements that take and release it, and how
//! long a replica waits for it.

use std::time::Duration;

use flakeid_sql::{Dialect, MigrationLock, SqlValue};

#[test]
fn postgres_binds_the_key() {
    let lock = MigrationLock::named("app");
    let release = lock.unlock(Dialect::Postgres).unwrap();
    assert_eq!(
        release.sql,
        "SELECT CAST(CASE WHEN pg_advisory_unlock($1) THEN 1 ELSE 0 END AS BIGINT) AS released"
    );
    assert_eq!(release.values, [SqlValue::BigInt(lock.key())]);
}

#[test]
fn retries_never_pass_the_wait() {
    let lock = MigrationLock::new().wait(Duration::from_millis(1_000));
    let mut waited = Duration::ZERO;
    let mut attempt = 0;
    while let Some(pause) = lock.retry_after(attempt, waited) {
        assert!(pause <= MigrationLock::MAX_PAUSE);
        waited += pause;
        attempt += 1;
    }
    assert_eq!(waited, Duration::from_millis(1_000));
    assert_eq!(
        lock.retry_after(u32::MAX, Duration::ZERO),
        Some(MigrationLock::MAX_PAUSE)
    );
}
