//! The function on MariaDB: a stored function over an InnoDB
//! `AUTO_INCREMENT` counter, serialised by `GET_LOCK`, and the trigger
//! that fills a key column.

use crate::IdFunction;
use crate::plan::Plan;
use flakeid_sql::{MYSQL_MAX_MESSAGE_CHARS, SqlNameError};

impl IdFunction {
    /// `DEFAULT 0` and a `BEFORE INSERT` trigger filling `column` of
    /// `table` (quoted as `t` and `c`) when an insert gives it no value.
    pub(super) fn mariadb_column_default(
        &self,
        p: &Plan,
        table: &str,
        column: &str,
        t: &str,
        c: &str,
    ) -> Result<Vec<String>, SqlNameError> {
        let trigger = self
            .dialect
            .identifier("trigger", &trigger_name(table, column))?;
        Ok(vec![
            format!("ALTER TABLE {t} ALTER COLUMN {c} SET DEFAULT 0"),
            format!(
                "CREATE OR REPLACE TRIGGER {trigger} BEFORE INSERT ON {t} FOR EACH ROW \
                 BEGIN IF NEW.{c} IS NULL OR NEW.{c} = 0 THEN SET NEW.{c} = {}(); END IF; END",
                p.function
            ),
        ])
    }

    /// Drops the trigger of [`mariadb_column_default`](Self::mariadb_column_default).
    pub(super) fn mariadb_drop_trigger(
        &self,
        table: &str,
        column: &str,
    ) -> Result<String, SqlNameError> {
        Ok(format!(
            "DROP TRIGGER IF EXISTS {}",
            self.dialect
                .identifier("trigger", &trigger_name(table, column))?
        ))
    }

    /// Takes the node's row for good, unless a live lease holds it.
    pub(super) fn mariadb_reserve(&self, p: &Plan) -> String {
        let message = message(&format!(
            "flakeid: node {} of space {} is held by a live lease; pick a node no \
             application process uses",
            self.node, self.space
        ));
        format!(
            "BEGIN NOT ATOMIC\n  DECLARE v_message VARCHAR(128) DEFAULT {};\n  {};\n  \
             IF ROW_COUNT() = 0 THEN\n    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_message;\n  \
             END IF;\nEND",
            self.lit(&message),
            self.lease_sql(p)
                .reserve_script(&self.space, self.node, &self.owner(), &self.holder()),
        )
    }

    pub(super) fn mariadb_function(&self, p: &Plan) -> String {
        let Plan {
            epoch,
            tick,
            cap,
            max_tick,
            time_mult,
            node_term,
            seq_mult,
            max_wait,
            lock_timeout,
            ..
        } = *p;
        let node = self.node;
        let clock = &p.clock;
        let not_reserved = message(&format!(
            "flakeid: node {node} of space {} is not reserved for function {}: install it again",
            self.space, self.function
        ));
        let pos = self.col("pos");
        format!(
            r#"CREATE OR REPLACE FUNCTION {function}() RETURNS BIGINT NOT DETERMINISTIC MODIFIES SQL DATA
BEGIN
  DECLARE v_lock VARCHAR(64) DEFAULT CONCAT('flakeid_', MD5(CONCAT(DATABASE(), '.', {state_name})));
  DECLARE v_high_water BIGINT DEFAULT NULL;
  DECLARE v_floor_tick BIGINT DEFAULT 0;
  DECLARE v_now_ms BIGINT;
  DECLARE v_now_tick BIGINT;
  DECLARE v_pos BIGINT;
  DECLARE v_waited BIGINT DEFAULT 0;
  DECLARE v_pause BIGINT;
  DECLARE v_refusal VARCHAR(128) DEFAULT NULL;
  DECLARE EXIT HANDLER FOR SQLEXCEPTION
  BEGIN
    DO RELEASE_LOCK(v_lock);
    RESIGNAL;
  END;
  -- The node's lease row: still reserved for this function, and the
  -- previous holders' high-water mark.
  SET v_high_water = ({row});
  IF v_high_water IS NULL THEN
    SET v_refusal = {not_reserved};
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_refusal;
  END IF;
  IF v_high_water >= {epoch} THEN
    SET v_floor_tick = (v_high_water - {epoch}) DIV {tick} + 1;
  END IF;
  -- A lock this session still holds can only be left by an interrupted call.
  WHILE IS_USED_LOCK(v_lock) <=> CONNECTION_ID() DO
    DO RELEASE_LOCK(v_lock);
  END WHILE;
  -- Held only while this call runs, never until the transaction ends.
  IF NOT (GET_LOCK(v_lock, {lock_timeout}) <=> 1) THEN
    SET v_refusal = 'flakeid: another session held the ID function''s lock for {lock_timeout} s';
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_refusal;
  END IF;
  -- The next position: AUTO_INCREMENT values are never given back.
  INSERT INTO {state} () VALUES ();
  SET v_pos = LAST_INSERT_ID();
  DELETE FROM {state} WHERE {state}.{pos} = v_pos;
  SET v_now_ms = {clock};
  issue: LOOP
    IF v_now_ms < {epoch} THEN
      SET v_refusal = LEFT(CONCAT('flakeid: the clock (', v_now_ms, ' ms) is before the layout''s epoch ({epoch} ms)'), {msg});
      LEAVE issue;
    END IF;
    IF v_now_ms < {epoch} + v_floor_tick * {tick} THEN
      SET v_refusal = LEFT(CONCAT('flakeid: the clock (', v_now_ms, ' ms) is not after the high-water mark of node {node} (',
        v_high_water, ' ms), the last time its previous holders used'), {msg});
      LEAVE issue;
    END IF;
    SET v_now_tick = (v_now_ms - {epoch}) DIV {tick};
    IF v_now_tick > {max_tick} THEN
      SET v_refusal = LEFT(CONCAT('flakeid: the clock (', v_now_ms, ' ms) is past the end of the layout''s time field ({end} ms)'), {msg});
      LEAVE issue;
    END IF;
    IF v_pos DIV {cap} < v_now_tick THEN
      -- Move the counter to the clock's tick.
      SET v_pos = GREATEST(v_now_tick * {cap}, 1);
      INSERT INTO {state} ({pos}) VALUES (v_pos);
      DELETE FROM {state} WHERE {state}.{pos} = v_pos;
      LEAVE issue;
    END IF;
    IF v_pos DIV {cap} = v_now_tick THEN
      LEAVE issue;
    END IF;
    IF (v_pos - 1) DIV {cap} > v_now_tick THEN
      SET v_refusal = LEFT(CONCAT('flakeid: the clock (', v_now_ms, ' ms) is behind the last ID of node {node} (stamped ',
        {epoch} + (v_pos - 1) DIV {cap} * {tick}, ' ms)'), {msg});
      LEAVE issue;
    END IF;
    -- Every sequence value of the clock's tick is used: v_pos is the
    -- first of the next tick; wait for it.
    IF v_waited >= {max_wait} THEN
      SET v_refusal = LEFT(CONCAT('flakeid: node {node} used all {cap} IDs of the tick at ', {epoch} + v_now_tick * {tick},
        ' ms, and the clock did not reach the next tick within {max_wait} ms'), {msg});
      LEAVE issue;
    END IF;
    SET v_pause = LEAST(GREATEST({epoch} + (v_now_tick + 1) * {tick} - v_now_ms, 1), {max_wait} - v_waited);
    DO SLEEP(v_pause / 1000);
    SET v_waited = v_waited + v_pause;
    SET v_now_ms = {clock};
  END LOOP issue;
  DO RELEASE_LOCK(v_lock);
  IF v_refusal IS NOT NULL THEN
    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = v_refusal;
  END IF;
  RETURN v_pos DIV {cap} * {time_mult} + {node_term} + v_pos MOD {cap} * {seq_mult};
END"#,
            function = p.function,
            state_name = self.lit(&p.state_name),
            state = p.state,
            row = self
                .lease_sql(p)
                .high_water_if_held_script(&self.space, node, &self.owner()),
            not_reserved = self.lit(&not_reserved),
            msg = MYSQL_MAX_MESSAGE_CHARS,
            end = self.layout.end_millis(),
        )
    }

    pub(super) fn mariadb_release(&self, p: &Plan) -> String {
        let pos = self.col("pos");
        format!(
            "BEGIN NOT ATOMIC\n  DECLARE v_next BIGINT DEFAULT 0;\n  \
             IF EXISTS (SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() \
             AND TABLE_NAME = {name}) THEN\n    \
             INSERT INTO {state} () VALUES ();\n    SET v_next = LAST_INSERT_ID();\n    \
             DELETE FROM {state} WHERE {state}.{pos} = v_next;\n  END IF;\n  {update};\nEND",
            name = self.lit(&p.state_name),
            state = p.state,
            update = self.release_update(p, &self.position_end(p, "v_next")),
        )
    }
}

/// `<table>_<column>_flakeid_<n>`, `n` the table name's length in
/// characters: without it the triggers of `a_b`.`c` and `a`.`b_c` would
/// share a name, and one would replace the other.
fn trigger_name(table: &str, column: &str) -> String {
    format!("{table}_{column}_flakeid_{}", table.chars().count())
}

/// `text` as a message MySQL's `SIGNAL` keeps (at most 128 characters).
fn message(text: &str) -> String {
    if text.chars().count() <= MYSQL_MAX_MESSAGE_CHARS {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(MYSQL_MAX_MESSAGE_CHARS - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
#[path = "../tests/unit/mysql.rs"]
mod tests;
