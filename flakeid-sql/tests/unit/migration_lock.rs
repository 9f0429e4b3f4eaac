//! Unit tests of `src/migration_lock.rs`: the MySQL lock's statements and
//! the columns they read (private, so these run as the module's `tests`).

use super::*;

#[test]
fn mysql_names_the_lock_after_the_database() {
    let lock = MigrationLock::named("app");
    let take = lock.try_lock(Dialect::MySql).unwrap();
    assert_eq!(
        take.sql,
        "SELECT CAST(COALESCE(GET_LOCK(LEFT(CONCAT(?, '.', COALESCE(DATABASE(), '')), 64), 0), 0) AS SIGNED) AS locked"
    );
    assert_eq!(take.values, [SqlValue::Text("app".into())]);
    let release = lock.unlock(Dialect::MySql).unwrap();
    assert_eq!(
        release.sql,
        "SELECT CAST(COALESCE(RELEASE_LOCK(LEFT(CONCAT(?, '.', COALESCE(DATABASE(), '')), 64)), 0) AS SIGNED) AS released"
    );
    assert_eq!(release.columns, RELEASED);
}
