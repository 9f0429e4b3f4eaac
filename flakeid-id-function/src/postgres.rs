//! The function on PostgreSQL: a `plpgsql` function over a sequence,
//! serialised by a session-level advisory lock.

use crate::IdFunction;
use crate::plan::Plan;

/// `body` between PostgreSQL dollar quotes whose tag occurs nowhere in it.
pub(super) fn dollar_quote(body: &str) -> String {
    let mut tag = "$flakeid$".to_owned();
    let mut n = 0u32;
    while body.contains(&tag) {
        n += 1;
        tag = format!("$flakeid{n}$");
    }
    format!("{tag}{body}{tag}")
}

/// The upper 32 bits of the PostgreSQL advisory lock key (`"flak"`); the
/// lower 32 bits are the state sequence's OID, so the key is the
/// sequence's alone within its database.
const ADVISORY_LOCK_PREFIX: u32 = u32::from_be_bytes(*b"flak");

impl IdFunction {
    /// Takes the node's row for good, unless a live lease holds it.
    pub(super) fn postgres_reserve(&self, p: &Plan) -> String {
        let lease = self.lease_sql(p);
        let body = format!(
            "\nBEGIN\n  {update};\n  IF NOT FOUND THEN\n    RAISE EXCEPTION \
             'flakeid: node % of space % is held by a live lease (holder %); the function \
             needs a node no application process uses', {node}, {space}, {held_by};\n  \
             END IF;\nEND\n",
            update = lease.reserve_script(&self.space, self.node, &self.owner(), &self.holder()),
            node = self.node,
            space = self.lit(&self.space),
            held_by = lease.holder_script(&self.space, self.node),
        );
        format!("DO {}", dollar_quote(&body))
    }

    pub(super) fn postgres_function(&self, p: &Plan) -> String {
        let state = self.lit(&p.state);
        let space = self.lit(&self.space);
        let function = self.lit(&self.function);
        let Plan {
            epoch,
            tick,
            cap,
            max_tick,
            time_mult,
            node_term,
            seq_mult,
            max_wait,
            ..
        } = *p;
        let node = self.node;
        let clock = &p.clock;
        let last_in_tick = cap - 1;
        let body = format!(
            r#"
DECLARE
  lock_key CONSTANT bigint := ({ADVISORY_LOCK_PREFIX}::bigint << 32) | CAST(CAST({state} AS regclass) AS oid)::bigint;
  v_high_water bigint;
  v_floor_tick bigint := 0;
  v_now_ms bigint;
  v_now_tick bigint;
  v_last bigint;
  v_pos bigint;
  v_waited bigint := 0;
  v_pause bigint;
  v_refusal text;
BEGIN
  -- The node's lease row: still reserved for this function, and the
  -- previous holders' high-water mark.
  {row} INTO v_high_water;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'flakeid: node % of space % is not reserved for function % in %: install it again',
      {node}, {space}, {function}, {lease_name};
  END IF;
  IF v_high_water >= {epoch} THEN
    v_floor_tick := (v_high_water - {epoch}) / {tick} + 1;
  END IF;
  -- Held only while this call runs, never until the transaction ends.
  PERFORM pg_advisory_lock(lock_key);
  BEGIN
    SELECT CASE WHEN s.is_called THEN s.last_value ELSE s.last_value - 1 END
      INTO v_last FROM {state_ident} AS s;
    v_now_ms := {clock};
    LOOP
      IF v_now_ms < {epoch} THEN
        v_refusal := format('flakeid: the clock (%s ms) is before the layout''s epoch (%s ms)', v_now_ms, {epoch});
        EXIT;
      END IF;
      IF v_now_ms < {epoch} + v_floor_tick * {tick} THEN
        v_refusal := format('flakeid: the clock (%s ms) is not after the high-water mark of node %s (%s ms), the last time its previous holders used',
          v_now_ms, {node}, v_high_water);
        EXIT;
      END IF;
      v_now_tick := (v_now_ms - {epoch}) / {tick};
      IF v_now_tick > {max_tick} THEN
        v_refusal := format('flakeid: the clock (%s ms) is past the end of the layout''s time field (%s ms)',
          v_now_ms, {end});
        EXIT;
      END IF;
      IF v_last / {cap} > v_now_tick THEN
        v_refusal := format('flakeid: the clock (%s ms) is behind the last ID of node %s (stamped %s ms)',
          v_now_ms, {node}, {epoch} + v_last / {cap} * {tick});
        EXIT;
      END IF;
      IF v_last / {cap} < v_now_tick THEN
        v_pos := GREATEST(v_now_tick * {cap}, 1);
        PERFORM setval({state}, v_pos, true);
        EXIT;
      END IF;
      IF v_last % {cap} < {last_in_tick} THEN
        v_pos := nextval({state});
        EXIT;
      END IF;
      -- Every sequence value of this tick is used: wait for the next tick.
      IF v_waited >= {max_wait} THEN
        v_refusal := format('flakeid: node %s used all %s IDs of the tick at %s ms, and the clock did not reach the next tick within %s ms',
          {node}, {cap}, {epoch} + v_now_tick * {tick}, {max_wait});
        EXIT;
      END IF;
      v_pause := LEAST(GREATEST({epoch} + (v_now_tick + 1) * {tick} - v_now_ms, 1), {max_wait} - v_waited);
      PERFORM pg_sleep(v_pause / 1000.0);
      v_waited := v_waited + v_pause;
      v_now_ms := {clock};
    END LOOP;
    PERFORM pg_advisory_unlock(lock_key);
  EXCEPTION WHEN OTHERS OR query_canceled THEN
    PERFORM pg_advisory_unlock(lock_key);
    RAISE;
  END;
  IF v_refusal IS NOT NULL THEN
    RAISE EXCEPTION '%', v_refusal;
  END IF;
  RETURN v_pos / {cap} * {time_mult} + {node_term} + v_pos % {cap} * {seq_mult};
END
"#,
            row = self
                .lease_sql(p)
                .high_water_if_held_script(&self.space, node, &self.owner()),
            lease_name = self.lit(&self.lease_table),
            state_ident = p.state,
            end = self.layout.end_millis(),
        );
        format!(
            "CREATE OR REPLACE FUNCTION {}() RETURNS bigint LANGUAGE plpgsql VOLATILE \
             PARALLEL UNSAFE SET search_path FROM CURRENT AS {}",
            p.function,
            dollar_quote(&body)
        )
    }

    pub(super) fn postgres_release(&self, p: &Plan) -> String {
        let body = format!(
            "\nDECLARE\n  v_last bigint := 0;\nBEGIN\n  IF to_regclass({state}) IS NOT NULL THEN\n    \
             SELECT CASE WHEN s.is_called THEN s.last_value ELSE 0 END INTO v_last FROM {ident} AS s;\n  \
             END IF;\n  {update};\nEND\n",
            state = self.lit(&p.state),
            ident = p.state,
            update = self.release_update(p, &self.position_end(p, "v_last")),
        );
        format!("DO {}", dollar_quote(&body))
    }
}
