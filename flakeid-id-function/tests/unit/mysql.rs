//! Unit tests of `src/mysql.rs`: MariaDB's error messages (a private
//! helper, so these run as the module's `tests`).

use super::*;

#[test]
fn long_messages_fit_mysql() {
    let m = message(&"x".repeat(300));
    assert_eq!(m.chars().count(), MYSQL_MAX_MESSAGE_CHARS);
}
