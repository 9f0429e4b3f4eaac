//! An [`IdFunction`]'s settings checked into a [`Plan`] (the numbers and
//! names its SQL uses), and the SQL both dialects' functions share.

use flakeid_core::layout::{FieldOrder, Layout};
use flakeid_lease::{LeaseOptions, LeaseSql};
use flakeid_sql::Dialect;

use crate::{IdFunction, IdFunctionError};

impl IdFunction {
    /// Checks every setting and works out the numbers the SQL uses.
    pub(crate) fn plan(&self) -> Result<Plan, IdFunctionError> {
        let d = self.dialect;
        if d == Dialect::Sqlite {
            return Err(IdFunctionError::UnsupportedDialect { dialect: d });
        }
        if self.space.contains('\0') {
            return Err(IdFunctionError::SpaceWithNul {
                space: self.space.clone(),
            });
        }
        let len = self.space.chars().count();
        if len == 0 || len > LeaseOptions::MAX_SPACE_LEN {
            return Err(IdFunctionError::BadSpace {
                space: self.space.clone(),
                len,
            });
        }
        let max_node = self.layout.max_node().min(i32::MAX as u64);
        if self.node > max_node {
            return Err(IdFunctionError::NodeOutOfRange {
                node: self.node,
                max: max_node,
            });
        }
        if self.max_wait > IdFunction::MAX_MAX_WAIT {
            return Err(IdFunctionError::InvalidOption {
                option: "max_wait",
                value: self.max_wait,
                reason: "a call waits at most one hour",
            });
        }
        if self.lock_timeout.is_zero() || self.lock_timeout > IdFunction::MAX_MAX_WAIT {
            return Err(IdFunctionError::InvalidOption {
                option: "lock_timeout",
                value: self.lock_timeout,
                reason: "the lock timeout is 1 s to 1 h",
            });
        }
        let state_name = self
            .state
            .clone()
            .unwrap_or_else(|| format!("{}_state", self.function));
        let state_role = match d {
            Dialect::Postgres => "state sequence",
            _ => "state table",
        };
        let lease = LeaseSql::with_table(d, &self.lease_table)?;
        let l = &self.layout;
        let seq_bits = l.sequence_bits();
        let (node_shift, seq_shift) = match l.order() {
            FieldOrder::NodeThenSequence => (seq_bits, 0),
            FieldOrder::SequenceThenNode => (0, l.node_bits()),
        };
        Ok(Plan {
            lease,
            function: d.identifier("function", &self.function)?,
            state: d.identifier(state_role, &state_name)?,
            state_name,
            clock: match &self.clock_function {
                Some(f) => format!("{}()", d.identifier("clock function", f)?),
                None => match d {
                    Dialect::Postgres => {
                        "CAST(FLOOR(EXTRACT(EPOCH FROM clock_timestamp()) * 1000) AS bigint)"
                            .to_owned()
                    }
                    // The statement's start (exact Unix time) plus the
                    // time since: NOW() and UTC_TIMESTAMP() stand still
                    // during a statement, SYSDATE() does not.
                    _ => "((CAST(FLOOR(@@timestamp * 1000000) AS SIGNED) \
                          + TIMESTAMPDIFF(MICROSECOND, NOW(6), SYSDATE(6))) DIV 1000)"
                        .to_owned(),
                },
            },
            epoch: l.epoch_millis(),
            tick: l.tick_millis(),
            cap: l.capacity_per_tick(),
            max_tick: l.max_tick(),
            time_mult: 1u64 << (seq_bits + l.node_bits()),
            node_term: self.node << node_shift,
            seq_mult: 1u64 << seq_shift,
            max_wait: u64::try_from(self.max_wait.as_millis()).unwrap_or(u64::MAX),
            lock_timeout: self.lock_timeout.as_secs()
                + u64::from(self.lock_timeout.subsec_nanos() > 0),
        })
    }

    pub(crate) fn lit(&self, text: &str) -> String {
        self.dialect.literal(text)
    }

    pub(crate) fn col(&self, name: &str) -> String {
        self.dialect.quote(name)
    }

    /// The lease table's statements (its name checked by [`plan`](Self::plan)).
    pub(crate) fn lease_sql<'p>(&self, p: &'p Plan) -> &'p LeaseSql {
        &p.lease
    }

    /// Frees the node's row, recording `last_time` (an SQL expression) as
    /// its high-water mark.
    pub(crate) fn release_update(&self, p: &Plan, last_time: &str) -> String {
        self.lease_sql(p)
            .release_script(&self.space, self.node, &self.owner(), last_time)
    }

    pub(crate) fn create_state(&self, p: &Plan) -> String {
        match self.dialect {
            // Positions run from 1: position 0 would be tick 0, sequence 0.
            // CACHE 1: every session's nextval continues the last one.
            Dialect::Postgres => format!(
                "CREATE SEQUENCE IF NOT EXISTS {} AS bigint MINVALUE 1 MAXVALUE {} START WITH 1 \
                 CACHE 1 NO CYCLE",
                p.state,
                p.max_position()
            ),
            _ => format!(
                "CREATE TABLE IF NOT EXISTS {} ({} BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY) \
                 ENGINE=InnoDB",
                p.state,
                self.col("pos")
            ),
        }
    }

    /// The last millisecond of the tick of position `position` (an SQL
    /// expression), the function's `high_water` when it is dropped.
    pub(crate) fn position_end(&self, p: &Plan, position: &str) -> String {
        let div = if self.dialect == Dialect::Postgres {
            "/"
        } else {
            "DIV"
        };
        format!(
            "{} + ({position} {div} {} + 1) * {} - 1",
            p.epoch, p.cap, p.tick
        )
    }
}

/// What the SQL is made of, checked.
pub(crate) struct Plan {
    /// The lease table's statements.
    pub(crate) lease: LeaseSql,
    pub(crate) function: String,
    pub(crate) state: String,
    pub(crate) state_name: String,
    pub(crate) clock: String,
    pub(crate) epoch: u64,
    pub(crate) tick: u64,
    /// Sequence values per tick.
    pub(crate) cap: u64,
    pub(crate) max_tick: u64,
    pub(crate) time_mult: u64,
    pub(crate) node_term: u64,
    pub(crate) seq_mult: u64,
    pub(crate) max_wait: u64,
    pub(crate) lock_timeout: u64,
}

impl Plan {
    /// The last position, `(max_tick + 1) × cap − 1` (at most `2^63 − 1`).
    pub(crate) fn max_position(&self) -> u64 {
        (self.max_tick + 1) * self.cap - 1
    }
}

#[cfg(test)]
#[path = "../tests/unit/plan.rs"]
mod tests;
