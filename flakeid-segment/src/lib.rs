//! Segments: ranges of values handed out by one database row, served from
//! memory (Meituan Leaf's segment mode).
//!
//! One row per name holds `max_id`, the last value handed out. A source
//! takes a *segment* by advancing the row in one atomic statement,
//! `max_id = max_id + step`, and owns the values `max_id − step + 1 ..=
//! max_id` that the statement returns: no other process, and no later
//! fetch, receives them. It then serves them from memory, one atomic step
//! per value, and fetches the next segment **in the background** once a
//! share of the current one is used (10 % by default, as Leaf), so callers
//! do not wait on the database while the buffer lasts.
//!
//! Three things use segments:
//!
//! * **Dense IDs** ([`DenseIds`], with `#[flake_id(scheme =
//!   DenseIds::default, source = …)]`): any value in `1..=2^63 − 1`,
//!   dense and ascending per process, with gaps after restarts, and no
//!   clock — for dense 64-bit keys without a round trip per row.
//! * **DecimalId generator IDs**: a [`SegmentIds`] is a
//!   [`GeneratorIdSource`](flakeid_schemes::GeneratorIdSource), so a
//!   [`DecimalIdGenerator`](flakeid_schemes::DecimalIdGenerator) (and
//!   [`global::init_generator_ids`](flakeid_core::global::init_generator_ids))
//!   takes a generator ID no process has had, at start and whenever a
//!   counter runs out, across restarts.
//! * **Short keys**: [`ShortKeys::with_source`](crate::short_keys::ShortKeys::with_source)
//!   maps values `1, 2, …` to key indices `0, 1, …`.
//!
//! ```
//! use crate::{MemorySegmentStore, SegmentOptions};
//!
//! // A database row through flakeid-seaorm or flakeid-diesel in production.
//! let ids = SegmentOptions::new("orders").step(100).start(MemorySegmentStore::new())?;
//! let values: Vec<u64> = (0..250).map(|_| ids.next_value()).collect::<Result<_, _>>()?;
//! assert_eq!(values, (1..=250).collect::<Vec<u64>>());
//! # Ok::<(), crate::SegmentError>(())
//! ```
//!
//! # The table
//!
//! ```text
//! flakeid_segments(name VARCHAR(191) PRIMARY KEY, max_id BIGINT, step BIGINT, updated_at BIGINT)
//! ```
//!
//! `step` is the last advance's step and `updated_at` its time (Unix ms,
//! the database's clock), for operators. The row is created by the first
//! fetch that finds none (`max_id` = the first value − 1, idempotently:
//! concurrent first fetches create one row). The SQL, per database, is in
//! [`sql::segment`](crate::segment); `flakeid-seaorm` and
//! `flakeid-diesel` create the table (helper and migration) and run the
//! fetches.
//!
//! # Double buffering
//!
//! A source holds at most two segments: the current one, served lock-free
//! (one compare-and-swap per value, like
//! [`ShortKeys`](crate::short_keys::ShortKeys)), and the next one. The taker
//! of the value at position `⌊share · len⌋` of the current segment asks
//! for the next; a thread (blocking stores, [`SegmentOptions::start`]:
//! Diesel) or a task (async stores, [`SegmentOptions::start_async`]:
//! SeaORM, spawned on tokio) fetches it while callers go on. When the
//! current segment is used up, the next takes over at once.
//!
//! A failed fetch is retried every [`retry_every`](SegmentOptions::retry_every)
//! (1 s by default). A database outage is therefore absorbed until both
//! segments are used up; then a caller waits up to
//! [`wait`](SegmentOptions::wait) (1 s by default) and gets
//! [`SegmentError::Unavailable`], naming the row, since when it has no
//! value, since when the fetch has been pending and the last database
//! error. The first fetch that gets through resumes service by itself.
//!
//! # The adaptive step
//!
//! As in Leaf, the step follows the rate ([`StepPolicy`]): a segment that
//! lasted under 15 minutes doubles the next step (up to
//! [`max_step`](SegmentOptions::max_step), 1,000,000 by default); one that
//! lasted over 30 minutes halves it, never below the configured
//! [`step`](SegmentOptions::step). "Lasted" is the time between the
//! starts of two successful fetches, by the source's clock; the first two
//! fetches (at start, and early in the first segment) use the configured
//! step. Failed attempts are tries at the same segment: an outage, however
//! many retries it takes, does not change the step.
//!
//! # What is guaranteed
//!
//! * **No value twice**, across processes and restarts: each fetch is one
//!   atomic statement on the row, and a source serves each value of its
//!   segments once (a forked child refuses: [`SegmentError::Forked`]).
//! * **Ascending per source**: a source's values increase (its segments
//!   come from one row that only grows). Sources on one row interleave.
//! * **Gaps**: the values of a source's segments that it did not serve
//!   when it stops (a crash, a restart, a fetch whose answer was lost) are
//!   never served: at most two segments per process. [`SegmentIds::stop`]
//!   then draining the source leaves none.
//! * **No clock**: values say nothing about time, and a clock stepped back
//!   changes nothing (the clock only times the adaptive step).
//! * A row cannot pass `2^63 − 1`. Near it, a step that no longer fits is
//!   cut to what the row has left, so every value up to `2^63 − 1` is
//!   handed out; then [`SegmentError::Exhausted`], for good.

mod cursor;
mod dense;
mod error;
mod memory;
mod source;
mod short_keys;
mod sql;
mod step;
mod store;

pub use dense::DenseIds;
pub use error::SegmentError;
pub use memory::MemorySegmentStore;
pub use short_keys::{
    AllocError, Alphabet, Block, BlockAllocator, Blocks, IndexSource, LocalBlocks, ShortKeyConfig,
    ShortKeyError, ShortKeys,
};
pub use source::{SegmentIds, SegmentOptions, SegmentStats};
pub use sql::{SegmentSql, SqlSegmentStore};
pub use step::StepPolicy;
pub use store::{AsyncSegmentStore, FetchRequest, Fetched, Segment, SegmentRow, SegmentStore};
