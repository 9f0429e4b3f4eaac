//! SQL for one location's counter; see [`LocationRange`](crate::LocationRange).

use super::LocationRange;
use flakeid_sql::{Dialect, MYSQL_MAX_MESSAGE_CHARS, SqlNameError};

/// SQL that gives one location of [`OffsetRanges`](crate::OffsetRanges)
/// a counter confined to its range.
///
/// Each function returns one statement, or statements separated by `;`
/// where noted, without a trailing `;`.
///
/// | database | counter | refuses past the range |
/// |---|---|---|
/// | PostgreSQL | [`postgres_create_sequence`](Self::postgres_create_sequence) / [`postgres_next_value`](Self::postgres_next_value) | `nextval` fails: "reached maximum value of sequence" (SQLSTATE 2200H) |
/// | MariaDB ≥ 10.3 | [`mariadb_create_sequence`](Self::mariadb_create_sequence) / [`mariadb_next_value`](Self::mariadb_next_value) | `NEXT VALUE FOR` fails: "Sequence … has run out" (error 4084) |
/// | MySQL 8 (no sequences) | `AUTO_INCREMENT` from [`mysql_auto_increment_start`](Self::mysql_auto_increment_start) | the insert fails in the trigger of [`mysql_range_trigger`](Self::mysql_range_trigger) (SQLSTATE 45000) |
/// | SQLite (no sequences) | a one-row table from [`sqlite_create_counter`](Self::sqlite_create_counter) / [`sqlite_next_value`](Self::sqlite_next_value) | the update fails its `CHECK` constraint |
///
/// Sequences hand out each value once, even to transactions that roll back
/// (so a range can have gaps); the SQLite counter table gives values back
/// when the transaction that took them rolls back, and serialises writers
/// (take the value in the transaction that inserts the row).
///
/// # Names
///
/// Every name is written as a quoted identifier of its database
/// (`"…"` with `"` doubled on PostgreSQL and SQLite, `` `…` `` with `` ` ``
/// doubled on MySQL/MariaDB), and a name that goes into a string literal
/// (PostgreSQL's `nextval('…')`, the MySQL trigger's message) is written
/// so that it reads the same in every escaping mode: PostgreSQL with
/// `standard_conforming_strings` on or off, MySQL/MariaDB with or without
/// `NO_BACKSLASH_ESCAPES`. So the object gets exactly the name given,
/// whatever characters it holds (quotes, backslashes, `;`, comment
/// markers), and no name can end the statement or add to it.
///
/// A name the database cannot keep exactly is refused with a
/// [`SqlNameError`] naming it:
///
/// | database | refused |
/// |---|---|
/// | all | empty names, names holding NUL |
/// | PostgreSQL | names longer than 63 bytes (PostgreSQL would cut them silently) |
/// | MySQL/MariaDB | names longer than 64 characters, characters above U+FFFF (e.g. emoji), a trailing space |
/// | SQLite | counter table names starting with `sqlite_` (any case) |
///
/// Names outside ASCII need the connection's character set to be UTF-8
/// (`utf8mb4` on MySQL/MariaDB), the default of sqlx and Diesel.
impl LocationRange {
    /// PostgreSQL: a `bigint` sequence that starts at the range's start and
    /// fails after its last value.
    ///
    /// # Errors
    /// [`SqlNameError`] for a name PostgreSQL would not keep exactly (see
    /// [Names](crate::LocationRange#names)).
    ///
    /// ```
    /// use flakeid_schemes::OffsetRanges;
    /// let range = OffsetRanges::decimal(2, 5)?.range(1)?;
    /// assert_eq!(
    ///     range.postgres_create_sequence("orders_loc1")?,
    ///     r#"CREATE SEQUENCE "orders_loc1" AS bigint START WITH 100 MINVALUE 100 MAXVALUE 199 NO CYCLE"#
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn postgres_create_sequence(&self, name: &str) -> Result<String, SqlNameError> {
        Ok(format!(
            "CREATE SEQUENCE {} AS bigint START WITH {start} MINVALUE {start} MAXVALUE {last} NO CYCLE",
            Dialect::Postgres.identifier("sequence", name)?,
            start = self.start,
            last = self.last()
        ))
    }

    /// PostgreSQL: the expression taking the sequence's next value
    /// (`SELECT` it, or use it as the key column's `DEFAULT`).
    ///
    /// # Errors
    /// As [`postgres_create_sequence`](Self::postgres_create_sequence).
    ///
    /// ```
    /// use flakeid_schemes::LocationRange;
    /// assert_eq!(LocationRange::postgres_next_value("orders_loc1")?, r#"nextval('"orders_loc1"')"#);
    /// // A backslash is written so that it reads the same whatever
    /// // `standard_conforming_strings` is.
    /// assert_eq!(LocationRange::postgres_next_value(r"it\'s")?, r#"nextval(E'"it\\''s"')"#);
    /// # Ok::<(), flakeid_sql::SqlNameError>(())
    /// ```
    pub fn postgres_next_value(name: &str) -> Result<String, SqlNameError> {
        let dialect = Dialect::Postgres;
        Ok(format!(
            "nextval({})",
            dialect.literal(&dialect.identifier("sequence", name)?)
        ))
    }

    /// MariaDB (10.3 and later): a sequence that starts at the range's
    /// start and fails after its last value.
    ///
    /// # Errors
    /// [`SqlNameError`] for a name MariaDB would not keep exactly (see
    /// [Names](crate::LocationRange#names)).
    ///
    /// ```
    /// use flakeid_schemes::OffsetRanges;
    /// let range = OffsetRanges::decimal(2, 5)?.range(0)?;
    /// assert_eq!(
    ///     range.mariadb_create_sequence("orders_loc0")?,
    ///     "CREATE SEQUENCE `orders_loc0` START WITH 1 MINVALUE 1 MAXVALUE 99 INCREMENT BY 1 NOCYCLE"
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mariadb_create_sequence(&self, name: &str) -> Result<String, SqlNameError> {
        Ok(format!(
            "CREATE SEQUENCE {} START WITH {start} MINVALUE {start} MAXVALUE {last} INCREMENT BY 1 NOCYCLE",
            Dialect::MySql.identifier("sequence", name)?,
            start = self.start,
            last = self.last()
        ))
    }

    /// MariaDB: the expression taking the sequence's next value.
    ///
    /// # Errors
    /// As [`mariadb_create_sequence`](Self::mariadb_create_sequence).
    ///
    /// ```
    /// use flakeid_schemes::LocationRange;
    /// assert_eq!(LocationRange::mariadb_next_value("orders_loc0")?, "NEXT VALUE FOR `orders_loc0`");
    /// # Ok::<(), flakeid_sql::SqlNameError>(())
    /// ```
    pub fn mariadb_next_value(name: &str) -> Result<String, SqlNameError> {
        Ok(format!(
            "NEXT VALUE FOR {}",
            Dialect::MySql.identifier("sequence", name)?
        ))
    }

    /// MySQL 8 (and MariaDB): moves a table's `AUTO_INCREMENT` counter to
    /// the range's start. For a location that has its own server or table;
    /// explicit IDs inserted later move the counter too.
    ///
    /// # Errors
    /// [`SqlNameError`] for a name MySQL would not keep exactly (see
    /// [Names](crate::LocationRange#names)).
    ///
    /// ```
    /// use flakeid_schemes::OffsetRanges;
    /// let range = OffsetRanges::decimal(5, 20)?.range(2)?;
    /// assert_eq!(
    ///     range.mysql_auto_increment_start("orders")?,
    ///     "ALTER TABLE `orders` AUTO_INCREMENT = 200000"
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mysql_auto_increment_start(&self, table: &str) -> Result<String, SqlNameError> {
        Ok(format!(
            "ALTER TABLE {} AUTO_INCREMENT = {}",
            Dialect::MySql.identifier("table", table)?,
            self.start
        ))
    }

    /// MySQL 8 (and MariaDB): a trigger that fails any insert whose
    /// `column` is outside the range, so the insert that would outgrow it
    /// is rolled back (SQLSTATE 45000).
    ///
    /// A trigger rather than a `CHECK` constraint because MySQL does not
    /// allow `CHECK` constraints on `AUTO_INCREMENT` columns; `AFTER INSERT`
    /// because a `BEFORE INSERT` trigger sees 0 for a value `AUTO_INCREMENT`
    /// has yet to assign. Needs a transactional engine (InnoDB) for the
    /// rollback.
    ///
    /// The error message is `<table>.<column> outside location N's range
    /// [start, end)`, or `value outside …` when the names would make it
    /// longer than the 128 characters MySQL allows.
    ///
    /// # Errors
    /// [`SqlNameError`] for a name MySQL would not keep exactly (see
    /// [Names](crate::LocationRange#names)).
    ///
    /// ```
    /// use flakeid_schemes::OffsetRanges;
    /// let range = OffsetRanges::decimal(2, 5)?.range(1)?;
    /// assert_eq!(
    ///     range.mysql_range_trigger("orders_in_range", "orders", "id")?,
    ///     "CREATE TRIGGER `orders_in_range` AFTER INSERT ON `orders` FOR EACH ROW \
    ///      IF NEW.`id` < 100 OR NEW.`id` >= 200 THEN \
    ///      SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'orders.id outside location 1''s range [100, 200)'; \
    ///      END IF"
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn mysql_range_trigger(
        &self,
        trigger: &str,
        table: &str,
        column: &str,
    ) -> Result<String, SqlNameError> {
        let dialect = Dialect::MySql;
        let trigger_name = dialect.identifier("trigger", trigger)?;
        let table_name = dialect.identifier("table", table)?;
        let column_name = dialect.identifier("column", column)?;
        let outside = format!(
            "outside location {}'s range [{}, {})",
            self.location, self.start, self.end
        );
        let mut message = format!("{table}.{column} {outside}");
        if message.chars().count() > MYSQL_MAX_MESSAGE_CHARS {
            message = format!("value {outside}");
        }
        Ok(format!(
            "CREATE TRIGGER {trigger_name} AFTER INSERT ON {table_name} FOR EACH ROW \
             IF NEW.{column_name} < {start} OR NEW.{column_name} >= {end} THEN \
             SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = {message}; \
             END IF",
            start = self.start,
            end = self.end,
            message = dialect.literal(&message),
        ))
    }

    /// SQLite: a one-row counter table holding the location's next value;
    /// its `CHECK` refuses to move past the range's end. Two statements,
    /// separated by `;`.
    ///
    /// # Errors
    /// [`SqlNameError`] for a name SQLite would not keep exactly (see
    /// [Names](crate::LocationRange#names)).
    ///
    /// ```
    /// use flakeid_schemes::OffsetRanges;
    /// let range = OffsetRanges::decimal(2, 5)?.range(1)?;
    /// assert_eq!(
    ///     range.sqlite_create_counter("orders_loc1")?,
    ///     "CREATE TABLE \"orders_loc1\" (next INTEGER NOT NULL CHECK (next >= 100 AND next <= 200)); \
    ///      INSERT INTO \"orders_loc1\" (next) VALUES (100)"
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sqlite_create_counter(&self, name: &str) -> Result<String, SqlNameError> {
        let name = Dialect::Sqlite.identifier("counter table", name)?;
        Ok(format!(
            "CREATE TABLE {name} (next INTEGER NOT NULL CHECK (next >= {start} AND next <= {end})); \
             INSERT INTO {name} (next) VALUES ({start})",
            start = self.start,
            end = self.end,
        ))
    }

    /// SQLite (3.35 and later): takes the counter's value and moves it on,
    /// in one statement that returns one row with the value (column `value`). Run it in the
    /// transaction that inserts the row.
    ///
    /// # Errors
    /// As [`sqlite_create_counter`](Self::sqlite_create_counter).
    ///
    /// ```
    /// use flakeid_schemes::LocationRange;
    /// assert_eq!(
    ///     LocationRange::sqlite_next_value("orders_loc1")?,
    ///     "UPDATE \"orders_loc1\" SET next = next + 1 RETURNING next - 1 AS value"
    /// );
    /// # Ok::<(), flakeid_sql::SqlNameError>(())
    /// ```
    pub fn sqlite_next_value(name: &str) -> Result<String, SqlNameError> {
        Ok(format!(
            "UPDATE {} SET next = next + 1 RETURNING next - 1 AS value",
            Dialect::Sqlite.identifier("counter table", name)?
        ))
    }
}
