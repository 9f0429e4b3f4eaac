//! Where each key's values come from, and when.
//!
//! A writer creates rows one by one and writes them in batches. Keys made
//! *at row creation* ([`Key::FlakeRow`], [`Key::UuidV7`]) carry the row's
//! creation time. In a service, rows arrive over time: a batch of 1,000
//! rows created at 250 rows/ms by four instances spans 16 ms, and the four
//! instances' batches of the same 16 ms interleave in key order. The
//! benchmark inserts as fast as the server allows, so it does not wait for
//! rows to arrive; instead each row gets the creation time it would have at
//! a steady rate ([`Config::creation_rate`](super::config::Config::creation_rate)):
//! row `i` of a writer is created at `t0 + i · writers / rate` ms, `t0`
//! being the common start. flakeid's generator reads that time from a
//! [`ManualClock`], UUIDv7 gets it as its timestamp. Keys reserved *at
//! write time* ([`Key::FlakeBatch`]) come from a generator on the real clock
//! when the batch is written. The writers' batch boundaries are staggered
//! ([`batch_sizes`](super::worker::batch_sizes)), as in a service whose
//! instances did not start in the same instant.

use std::sync::Arc;

use flakeid_core::layout::{BitLayout, FieldOrder};
use flakeid_core::layout::{Layout, presets};
use flakeid_core::{Generator, ManualClock};
use uuid::{ContextV7, Timestamp, Uuid};

use super::DbBenchError;
use super::config::Key;

/// A row's key as the writer holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyValue {
    /// The server assigns it.
    Server,
    /// A flakeid (positive `i64`).
    Flake(i64),
    /// A UUID.
    Uuid(Uuid),
}

impl KeyValue {
    /// The flakeid key, if that is what it is.
    pub fn flake(self) -> Option<i64> {
        match self {
            KeyValue::Flake(id) => Some(id),
            _ => None,
        }
    }

    /// The UUID, if that is what it is.
    pub fn uuid(self) -> Option<Uuid> {
        match self {
            KeyValue::Uuid(id) => Some(id),
            _ => None,
        }
    }
}

/// One row: the key and three payload columns (about 90 bytes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The primary key.
    pub key: KeyValue,
    /// The writer's number (0-based).
    pub writer: i32,
    /// The row's number within its writer, from 0.
    pub seq: i64,
    /// 64 characters of text.
    pub body: String,
}

impl Row {
    /// Row `seq` of `writer`, without its key yet.
    pub fn new(writer: i32, seq: i64) -> Row {
        Row {
            key: KeyValue::Server,
            writer,
            seq,
            body: format!("writer {writer:04} row {seq:012} -----------------------------------"),
        }
    }
}

/// Makes one writer's keys.
pub struct KeyMaker {
    key: Key,
    /// Milliseconds since the Unix epoch at the common start.
    t0_millis: u64,
    writers: u64,
    rate: u64,
    /// [`Key::FlakeBatch`]: the real clock.
    at_write: Option<Generator>,
    /// [`Key::FlakeRow`]: the simulated creation clock.
    at_creation: Option<CreationClock>,
    uuid_context: ContextV7,
}

impl KeyMaker {
    /// The key maker of the writer with flakeid node `node`, one of
    /// `writers`, rows created at `rate` rows/ms by all writers together
    /// from `t0_millis` on.
    ///
    /// # Errors
    /// If flakeid rejects the node ID.
    pub fn new(
        key: Key,
        node: u64,
        writers: usize,
        rate: u64,
        t0_millis: u64,
    ) -> Result<KeyMaker, DbBenchError> {
        let at_write = match key {
            Key::FlakeBatch => Some(Generator::builder(presets::twitter(), node).build()?),
            _ => None,
        };
        let at_creation = match key {
            Key::FlakeRow | Key::FlakeRowSeqNode => {
                // A generator issues nothing in the tick it was built in: built
                // one tick before the first row is created, it stamps row 0 with t0.
                let clock = Arc::new(ManualClock::new(t0_millis.saturating_sub(1)));
                let layout = if key == Key::FlakeRowSeqNode {
                    twitter_sequence_then_node()?
                } else {
                    presets::twitter()
                };
                let generator = Generator::builder(layout, node)
                    .clock(Arc::clone(&clock))
                    .build()?;
                Some((generator, clock))
            }
            _ => None,
        };
        Ok(KeyMaker {
            key,
            t0_millis,
            writers: writers as u64,
            rate,
            at_write,
            at_creation,
            uuid_context: ContextV7::new(),
        })
    }

    /// Creation time of this writer's row `seq`, in microseconds since the
    /// Unix epoch.
    pub fn created_at_micros(&self, seq: u64) -> u64 {
        self.t0_millis * 1000 + seq * self.writers * 1000 / self.rate
    }

    /// The key of row `seq` as it is created.
    ///
    /// # Errors
    /// If flakeid cannot issue an ID.
    pub fn on_create(&mut self, seq: u64) -> Result<KeyValue, DbBenchError> {
        Ok(match self.key {
            Key::Db | Key::PgUuidV7 | Key::FlakeBatch => KeyValue::Server,
            Key::UuidV4 => KeyValue::Uuid(Uuid::new_v4()),
            Key::FlakeRow | Key::FlakeRowSeqNode => {
                let micros = self.created_at_micros(seq);
                let (generator, clock) = self
                    .at_creation
                    .as_ref()
                    .ok_or_else(|| DbBenchError::Argument("no creation clock".to_owned()))?;
                clock.set(micros / 1000);
                KeyValue::Flake(as_i64(generator.next_id()?))
            }
            Key::UuidV7 => {
                let micros = self.created_at_micros(seq);
                let ts = Timestamp::from_unix(
                    &self.uuid_context,
                    micros / 1_000_000,
                    ((micros % 1_000_000) * 1000) as u32,
                );
                KeyValue::Uuid(Uuid::new_v7(ts))
            }
        })
    }

    /// Sets the keys of a batch about to be written: [`Key::FlakeBatch`]
    /// reserves them in one step; other keys already have theirs.
    ///
    /// # Errors
    /// If flakeid cannot issue the IDs.
    pub fn on_write(&mut self, rows: &mut [Row]) -> Result<(), DbBenchError> {
        if let Some(generator) = &self.at_write {
            let ids = generator.next_batch(rows.len())?;
            for (row, id) in rows.iter_mut().zip(ids) {
                row.key = KeyValue::Flake(as_i64(id));
            }
        }
        Ok(())
    }
}

/// Twitter's layout with the sequence above the node: time | sequence | node.
///
/// # Errors
/// Never for these constants; the builder's error otherwise.
pub fn twitter_sequence_then_node() -> Result<BitLayout, DbBenchError> {
    BitLayout::builder()
        .time_bits(41)
        .node_bits(10)
        .sequence_bits(12)
        .epoch_millis(presets::twitter().epoch_millis())
        .order(FieldOrder::SequenceThenNode)
        .build()
        .map_err(|e| DbBenchError::Argument(format!("layout time·seq·node: {e}")))
}

/// A generator reading a clock the key maker sets, and that clock.
type CreationClock = (
    Generator<flakeid_core::layout::BitLayout, Arc<ManualClock>>,
    Arc<ManualClock>,
);

/// flakeid's bit layouts keep the top bit 0, so every ID fits an `i64`.
fn as_i64(id: u64) -> i64 {
    i64::try_from(id).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    const T0: u64 = 1_800_000_000_000;

    #[test]
    fn rows_created_over_time_interleave_between_writers() {
        // Four writers, 250 rows/ms: a writer's row i is created at i · 4 / 250 ms.
        let mut a = KeyMaker::new(Key::FlakeRow, 1, 4, 250, T0).unwrap();
        let mut b = KeyMaker::new(Key::FlakeRow, 2, 4, 250, T0).unwrap();
        let ids_a: Vec<i64> = (0..1000)
            .map(|i| a.on_create(i).unwrap().flake().unwrap())
            .collect();
        let ids_b: Vec<i64> = (0..1000)
            .map(|i| b.on_create(i).unwrap().flake().unwrap())
            .collect();
        let layout = presets::twitter();
        let span = |ids: &[i64]| {
            let first = layout.decompose(ids[0] as u64).tick;
            let last = layout.decompose(ids[999] as u64).tick;
            last - first
        };
        // 1,000 rows at 62.5 rows/ms per writer span 16 ms (ticks 0..=15).
        assert_eq!(span(&ids_a), 15);
        assert_eq!(span(&ids_b), 15);
        // The two batches overlap in key order: neither lies wholly above the other.
        assert!(ids_a[0] < ids_b[999] && ids_b[0] < ids_a[999]);
        assert!(ids_a.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn batches_reserved_at_write_are_consecutive() {
        let mut maker = KeyMaker::new(Key::FlakeBatch, 3, 4, 250, T0).unwrap();
        let mut rows: Vec<Row> = (0..1000).map(|i| Row::new(2, i)).collect();
        for (i, row) in rows.iter_mut().enumerate() {
            row.key = maker.on_create(i as u64).unwrap();
            assert_eq!(row.key, KeyValue::Server, "no key before the write");
        }
        maker.on_write(&mut rows).unwrap();
        let ids: Vec<i64> = rows.iter().map(|r| r.key.flake().unwrap()).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        let layout = presets::twitter();
        assert!(ids.iter().all(|&id| layout.decompose(id as u64).node == 3));
    }

    #[test]
    fn uuid7_carries_the_creation_time() {
        let mut maker = KeyMaker::new(Key::UuidV7, 1, 4, 250, T0).unwrap();
        let first = maker.on_create(0).unwrap().uuid().unwrap();
        let later = maker.on_create(1000).unwrap().uuid().unwrap();
        let millis = |u: Uuid| {
            let (s, n) = u.get_timestamp().unwrap().to_unix();
            s * 1000 + u64::from(n) / 1_000_000
        };
        assert_eq!(millis(first), T0);
        assert_eq!(millis(later), T0 + 16);
        assert!(first < later);
    }

    #[test]
    fn time_sequence_node_puts_the_writers_of_one_tick_side_by_side() {
        let mut a = KeyMaker::new(Key::FlakeRowSeqNode, 1, 4, 250, T0).unwrap();
        let mut b = KeyMaker::new(Key::FlakeRowSeqNode, 2, 4, 250, T0).unwrap();
        let (a0, b0) = (
            a.on_create(0).unwrap().flake().unwrap(),
            b.on_create(0).unwrap().flake().unwrap(),
        );
        let layout = twitter_sequence_then_node().unwrap();
        let (pa, pb) = (layout.decompose(a0 as u64), layout.decompose(b0 as u64));
        assert_eq!((pa.tick, pa.node, pb.node), (pb.tick, 1, 2));
        // Same tick and sequence: the node is the lowest field, so they are neighbours.
        assert_eq!(b0 - a0, 1);
    }

    #[test]
    fn bodies_are_64_characters() {
        assert_eq!(Row::new(3, 123_456).body.len(), 64);
    }
}
