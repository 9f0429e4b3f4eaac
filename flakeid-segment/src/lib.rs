//! Segments: ranges of values handed out by one database row, served from
//! memory (Meituan Leaf's segment mode) — for keys that must be dense or
//! short rather than time-ordered, without a round trip to the database
//! per key.
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
//! * [`SegmentOptions`] — how to start a source on one row (step,
//!   prefetch share, retries, waits); [`SegmentIds`] — the running source,
//!   whose [`next_value`](SegmentIds::next_value) serves the values;
//!   [`StepPolicy`] — the adaptive step; [`SegmentError`].
//! * [`SegmentStore`] and [`AsyncSegmentStore`] — the fetch of a segment
//!   from a store. [`SqlSegmentStore`] runs it as SQL ([`SegmentSql`]:
//!   PostgreSQL, MySQL/MariaDB, SQLite) through a `flakeid-sql` executor;
//!   [`MemorySegmentStore`] keeps the rows in memory, for tests.
//! * [`DenseIds`] — the scheme of dense IDs; [`ShortKeys`] — short public
//!   keys, with their [`ShortKeyConfig`], [`Alphabet`] and the sources of
//!   their indices ([`Blocks`], [`LocalBlocks`], a [`SegmentIds`]).
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
//!   [`init_generator_ids`](flakeid_schemes::init_generator_ids))
//!   takes a generator ID no process has had, at start and whenever a
//!   counter runs out, across restarts.
//! * **Short keys**: [`ShortKeys::with_source`] maps values `1, 2, …` to
//!   key indices `0, 1, …`.
//!
//! Applications on SeaORM or Diesel start sources through `flakeid-seaorm`
//! or `flakeid-diesel` with their feature `segment`, which create the table,
//! run the fetches on the application's connections and re-export this
//! crate.
//!
//! ```
//! use flakeid_segment::{MemorySegmentStore, SegmentOptions};
//!
//! // A database row through flakeid-seaorm or flakeid-diesel in production.
//! let ids = SegmentOptions::new("orders").step(100).start(MemorySegmentStore::new())?;
//! let values: Vec<u64> = (0..250).map(|_| ids.next_value()).collect::<Result<_, _>>()?;
//! assert_eq!(values, (1..=250).collect::<Vec<u64>>());
//! # Ok::<(), flakeid_segment::SegmentError>(())
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
//! concurrent first fetches create one row). The SQL, per database, is
//! [`SegmentSql`]'s; `flakeid-seaorm` and `flakeid-diesel` create the table
//! (helper and migration) and run the fetches.
//!
//! # Double buffering
//!
//! A source holds at most two segments: the current one, served lock-free
//! (one compare-and-swap per value, like [`ShortKeys`]), and the next one. The taker
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
//!
//! # Features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `tokio` | no | segments fetched by tokio tasks ([`SegmentOptions::start_on_tokio`]) |
//! | `metrics` | no | the metrics below, through the `metrics` facade |
//!
//! # Telemetry
//!
//! With the feature `metrics`, segment sources record through the
//! `metrics` facade (install a recorder in the application before a source
//! is started: its handles are registered then; see
//! [`flakeid_core::telemetry`] for the generator's metrics):
//!
//! | name | kind | labels | meaning |
//! |---|---|---|---|
//! | `flakeid_segment_fetches_total` | counter | `segment`, `outcome` | segment fetches; `outcome`: `ok`, `failed`, `exhausted` |
//! | `flakeid_segment_waits_total` | counter | `segment` | times a caller found both segments used up and waited for a fetch |
//! | `flakeid_segment_values_left` | gauge | `segment` | values left in the segment being served and the fetched next one; set when a segment is installed or fetched and when the prefetch point is passed |
//!
//! `segment` is a segment's name, so the series are few. Serving a value
//! records nothing; fetches, waits and the prefetch point (once per
//! segment) are rare.
//!
//! The crate builds on `flakeid-core` (ID schemes and sources),
//! `flakeid-sql` (the SQL and the executors that run it) and
//! `flakeid-schemes` (the generator IDs of DecimalId).
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod cursor;
mod dense;
mod error;
mod memory;
mod short_keys;
mod source;
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

/// The crate's README (its registry page): its examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
mod readme {}
