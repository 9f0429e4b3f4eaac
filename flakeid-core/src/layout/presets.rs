//! Ready-made [`BitLayout`]s for well-known ID schemes.
//!
//! Every preset is a `const fn`: it costs nothing to call, and can
//! initialise a `static`. All presets fit [`Domain::BigInt`]
//! (`1..=2^63-1`, a positive signed BIGINT) except [`js_safe`], which fits
//! [`Domain::JsSafe`] (`1..=2^53-1`).
//!
//! | preset | time | node | sequence | order | IDs per node | nodes | time runs out |
//! |---|---|---|---|---|---|---|---|
//! | [`twitter`] | 41 × 1 ms | 5 datacenter + 5 worker | 12 | time·node·seq | 4,096/ms | 1,024 | 2080-07-10T17:30:30.209Z |
//! | [`discord`] | 41 × 1 ms | 5 worker + 5 process | 12 | time·node·seq | 4,096/ms | 1,024 | 2084-09-06T15:47:35.552Z |
//! | [`instagram`] | 40 × 1 ms | 13 shard | 10 | time·node·seq | 1,024/ms | 8,192 | 2046-06-27T17:00:49.497Z |
//! | [`sonyflake`] | 39 × 10 ms | 16 machine | 8 | time·seq·node | 25,600/s | 65,536 | 2188-11-16T03:28:58.880Z |
//! | [`tsid`] | 41 × 1 ms | 10 node | 12 | time·node·seq | 4,096/ms | 1,024 | 2089-09-06T15:47:35.552Z |
//! | [`lsid`] | 31 × 1 s | 16 machine | 16 | time·node·seq | 65,536/s | 65,536 | 2092-01-19T03:14:08Z |
//! | [`js_safe`] | 41 × 1 ms | 4 node | 8 | time·node·seq | 256/ms | 16 | 2093-09-06T15:47:35.552Z |
//! | [`js_safe_seconds`] | 31 × 1 s | 10 node | 12 | time·node·seq | 4,096/s | 1,024 | 2092-01-19T03:14:08Z |
//! | [`nonsequential`] | 40 × 1 ms | 10 generator | 13 | time·node·seq | 8,192/ms | 1,024 | 2058-11-03T19:53:47.776Z |
//!
//! ```
//! use flakeid_core::layout::{BitLayout, presets};
//! static LAYOUT: BitLayout = presets::sonyflake();
//! assert_eq!(LAYOUT.capacity_per_second(), 25_600.0);
//! ```

use crate::layout::bits::{BitLayout, Domain, FieldOrder, NodeField};

/// Twitter's Snowflake epoch, 2010-11-04T01:42:54.657Z.
pub(crate) const TWITTER_EPOCH_MILLIS: u64 = 1_288_834_974_657;
/// Discord's epoch, 2015-01-01T00:00:00Z.
pub(crate) const DISCORD_EPOCH_MILLIS: u64 = 1_420_070_400_000;
/// Instagram's epoch as used by the `next_id()` PL/pgSQL function in their
/// 2012 engineering post "Sharding & IDs at Instagram" (`our_epoch bigint :=
/// 1314220021721`), 2011-08-24T21:07:01.721Z.
pub(crate) const INSTAGRAM_EPOCH_MILLIS: u64 = 1_314_220_021_721;
/// Sonyflake's default start time, 2014-09-01T00:00:00Z.
pub(crate) const SONYFLAKE_EPOCH_MILLIS: u64 = 1_409_529_600_000;
/// TSID's epoch, 2020-01-01T00:00:00Z.
pub(crate) const TSID_EPOCH_MILLIS: u64 = 1_577_836_800_000;
/// The epoch of [`lsid`], [`js_safe`], [`js_safe_seconds`] and
/// [`nonsequential`], 2024-01-01T00:00:00Z.
pub(crate) const FLAKEID_EPOCH_MILLIS: u64 = 1_704_067_200_000;

/// Twitter Snowflake: 41 bits of milliseconds since 2010-11-04T01:42:54.657Z,
/// 5 bits `datacenter` + 5 bits `worker`, 12 bits sequence.
///
/// Capacity: 4,096 IDs per millisecond per node (4,096,000/s), 1,024 nodes.
/// The time bits run out at 2080-07-10T17:30:30.209Z.
///
/// ```
/// use flakeid_core::layout::presets;
/// let l = presets::twitter();
/// assert_eq!((l.time_bits(), l.node_bits(), l.sequence_bits()), (41, 10, 12));
/// ```
pub const fn twitter() -> BitLayout {
    BitLayout::from_parts_unchecked(
        41,
        1,
        TWITTER_EPOCH_MILLIS,
        TWITTER_NODE,
        12,
        FieldOrder::NodeThenSequence,
        Domain::BigInt,
    )
}

/// Discord snowflakes: milliseconds since 2015-01-01T00:00:00Z, 5 bits
/// `worker`, 5 bits `process`, 12 bits increment.
///
/// Discord documents 42 time bits in an unsigned 64-bit integer. The top
/// one of those stays 0 until 2084-09-06T15:47:35.552Z, so this preset
/// uses 41 time bits: every Discord ID issued before then composes and
/// decodes bit for bit the same, and every ID is a positive signed BIGINT.
///
/// Capacity: 4,096 IDs per millisecond per worker/process pair, 1,024
/// pairs. The time bits run out at 2084-09-06T15:47:35.552Z.
///
/// ```
/// use flakeid_core::layout::presets;
/// let l = presets::discord();
/// let id = 175_928_847_299_117_063; // Discord's documented example
/// let parts = l.decompose(id);
/// assert_eq!(l.split_node(parts.node)?, [("worker", 1), ("process", 0)]);
/// assert_eq!(parts.sequence, 7);
/// # Ok::<(), flakeid_core::layout::LayoutError>(())
/// ```
pub const fn discord() -> BitLayout {
    BitLayout::from_parts_unchecked(
        41,
        1,
        DISCORD_EPOCH_MILLIS,
        DISCORD_NODE,
        12,
        FieldOrder::NodeThenSequence,
        Domain::BigInt,
    )
}

/// Instagram: milliseconds since 2011-08-24T21:07:01.721Z (the epoch of
/// their PL/pgSQL `next_id()` function; the prose of the same post uses
/// 2011-01-01 for its worked example), 13 bits logical `shard`, 10 bits
/// sequence (a per-shard database sequence mod 1024).
///
/// Instagram's post gives the time 41 bits, shifted left by 23 in a signed
/// BIGINT: that is 64 bits, and IDs turn negative once the top time bit is
/// set, 2^40 ms after the epoch. This preset uses 40 time bits, so every ID
/// is positive and every ID Instagram's function issued before then
/// composes and decodes bit for bit the same (time at bit 23, shard at bit
/// 10).
///
/// Capacity: 1,024 IDs per millisecond per shard, 8,192 shards. The time
/// bits run out at 2046-06-27T17:00:49.497Z.
///
/// ```
/// use flakeid_core::layout::presets;
/// assert_eq!(presets::instagram().node_count(), 8192);
/// assert_eq!(presets::instagram().compose(1, 0, 0), 1 << 23);
/// ```
pub const fn instagram() -> BitLayout {
    BitLayout::from_parts_unchecked(
        40,
        1,
        INSTAGRAM_EPOCH_MILLIS,
        INSTAGRAM_NODE,
        10,
        FieldOrder::NodeThenSequence,
        Domain::BigInt,
    )
}

/// Sonyflake: 39 bits of 10 ms units since 2014-09-01T00:00:00Z, then
/// 8 bits sequence, then 16 bits `machine` (time | sequence | machine).
///
/// Capacity: 256 IDs per 10 ms per machine (25,600/s), 65,536 machines.
/// The time bits run out at 2188-11-16T03:28:58.880Z.
///
/// ```
/// use flakeid_core::layout::{FieldOrder, presets};
/// let l = presets::sonyflake();
/// assert_eq!(l.order(), FieldOrder::SequenceThenNode);
/// assert_eq!(l.compose(1, 2, 3), (1 << 24) | (3 << 16) | 2);
/// ```
pub const fn sonyflake() -> BitLayout {
    BitLayout::from_parts_unchecked(
        39,
        10,
        SONYFLAKE_EPOCH_MILLIS,
        SONYFLAKE_NODE,
        8,
        FieldOrder::SequenceThenNode,
        Domain::BigInt,
    )
}

/// TSID-like: milliseconds since 2020-01-01T00:00:00Z, 10 bits `node`,
/// 12 bits counter (TSID's 1,024-node setting).
///
/// TSID itself uses 42 time bits in 64 bits; its top bit stays 0 until
/// 2089-09-06T15:47:35.552Z. This preset uses 41 time bits so every ID is a
/// positive signed BIGINT; until that date its IDs have TSID's bit layout.
/// TSID starts each millisecond's counter at a random value; a flakeid
/// generator counts from 0, which keeps the full 4,096 IDs per millisecond.
///
/// Capacity: 4,096 IDs per millisecond per node, 1,024 nodes. The time bits
/// run out at 2089-09-06T15:47:35.552Z.
///
/// ```
/// use flakeid_core::layout::presets;
/// assert_eq!(presets::tsid().max_id(), i64::MAX as u64);
/// ```
pub const fn tsid() -> BitLayout {
    BitLayout::from_parts_unchecked(
        41,
        1,
        TSID_EPOCH_MILLIS,
        TSID_NODE,
        12,
        FieldOrder::NodeThenSequence,
        Domain::BigInt,
    )
}

/// LSID ("time + machine + increment"): seconds since
/// 2024-01-01T00:00:00Z (2024-01-01T00:00:00Z), 16 bits `machine`,
/// 16 bits increment.
///
/// The scheme as described has 32 bits of seconds, 64 bits in all; the top
/// bit would make IDs negative as signed BIGINTs after 68 years, so this
/// preset keeps 31 bits of seconds (68 years from its epoch).
///
/// Capacity: 65,536 IDs per second per machine, 65,536 machines. The time
/// bits run out at 2092-01-19T03:14:08Z.
///
/// ```
/// use flakeid_core::layout::presets;
/// assert_eq!(presets::lsid().capacity_per_second(), 65_536.0);
/// ```
pub const fn lsid() -> BitLayout {
    BitLayout::from_parts_unchecked(
        31,
        1000,
        FLAKEID_EPOCH_MILLIS,
        LSID_NODE,
        16,
        FieldOrder::NodeThenSequence,
        Domain::BigInt,
    )
}

/// JavaScript-safe: 41 bits of milliseconds since 2024-01-01T00:00:00Z
/// (2024-01-01T00:00:00Z), 4 bits `node`, 8 bits sequence; 53 bits in all,
/// so every ID is at most `2^53-1` (`Number.MAX_SAFE_INTEGER`) and survives
/// a JSON number in JavaScript.
///
/// Capacity: 256 IDs per millisecond per node (256,000/s), 16 nodes. The
/// time bits run out at 2093-09-06T15:47:35.552Z.
///
/// ```
/// use flakeid_core::layout::{Domain, presets};
/// let l = presets::js_safe();
/// assert_eq!(l.domain(), Domain::JsSafe);
/// assert_eq!(l.max_id(), 9_007_199_254_740_991);
/// ```
pub const fn js_safe() -> BitLayout {
    BitLayout::from_parts_unchecked(
        41,
        1,
        FLAKEID_EPOCH_MILLIS,
        JS_SAFE_NODE,
        8,
        FieldOrder::NodeThenSequence,
        Domain::JsSafe,
    )
}

/// JavaScript-safe with more nodes: 31 bits of seconds since
/// 2024-01-01T00:00:00Z (2024-01-01T00:00:00Z), 10 bits `node`, 12 bits
/// sequence; 53 bits in all, so every ID is at most `2^53-1`
/// (`Number.MAX_SAFE_INTEGER`).
///
/// Trades [`js_safe`]'s millisecond resolution for 64 times as many nodes.
/// Capacity: 4,096 IDs per second per node, 1,024 nodes. The time bits run
/// out at 2092-01-19T03:14:08Z.
///
/// ```
/// use flakeid_core::layout::{Domain, presets};
/// let l = presets::js_safe_seconds();
/// assert_eq!(l.domain(), Domain::JsSafe);
/// assert_eq!((l.node_count(), l.capacity_per_second()), (1024, 4096.0));
/// assert_eq!(l.max_id(), (1 << 53) - 1);
/// ```
pub const fn js_safe_seconds() -> BitLayout {
    BitLayout::from_parts_unchecked(
        31,
        1000,
        FLAKEID_EPOCH_MILLIS,
        JS_SAFE_SECONDS_NODE,
        12,
        FieldOrder::NodeThenSequence,
        Domain::JsSafe,
    )
}

/// The "nonsequential key" layout in the signed BIGINT domain: 40 bits of
/// milliseconds since 2024-01-01T00:00:00Z (2024-01-01T00:00:00Z),
/// 10 bits `generator`, 13 bits in which the published scheme puts a random
/// number (`1..=8191`).
///
/// The published scheme shifts Unix milliseconds by 23, which makes every
/// key since 2004 negative as a signed BIGINT; this preset keeps the low 23
/// bits and uses a custom epoch so keys stay in `1..=2^63-1`. Issue keys
/// with random low bits through
/// `RandomKeyGenerator` of the `flakeid-schemes` crate (they can
/// collide), or with a sequence through a [`Generator`](crate::Generator)
/// (they cannot).
///
/// Capacity: 8,192 IDs per millisecond per generator with a sequence
/// (random numbers: see `RandomKeys` in `flakeid-schemes`), 1,024
/// generators. The time bits run out at 2058-11-03T19:53:47.776Z.
///
/// ```
/// use flakeid_core::layout::presets;
/// let l = presets::nonsequential();
/// assert_eq!(l.compose(1, 1, 1), (1 << 23) + (1 << 13) + 1);
/// assert_eq!(l.max_id(), i64::MAX as u64);
/// ```
pub const fn nonsequential() -> BitLayout {
    BitLayout::from_parts_unchecked(
        40,
        1,
        FLAKEID_EPOCH_MILLIS,
        NONSEQUENTIAL_NODE,
        13,
        FieldOrder::NodeThenSequence,
        Domain::BigInt,
    )
}

/// A layout as an operator would name it: `the twitter layout`, `the
/// discord layout with epoch 1704067200000 ms`, or its fields.
///
/// ```
/// use flakeid_core::layout::presets;
/// assert_eq!(presets::describe(&presets::discord()), "the discord layout");
/// let later = presets::lsid().with_epoch_millis(1_735_689_600_000)?;
/// assert_eq!(presets::describe(&later), "the lsid layout with epoch 1735689600000 ms");
/// # Ok::<(), flakeid_core::layout::LayoutError>(())
/// ```
pub fn describe(layout: &BitLayout) -> String {
    use crate::layout::Layout;
    for (name, make) in ALL {
        if make() == *layout {
            return format!("the {name} layout");
        }
    }
    for (name, make) in ALL {
        if make().with_epoch_millis(layout.epoch_millis()).as_ref() == Ok(layout) {
            return format!("the {name} layout with epoch {} ms", layout.epoch_millis());
        }
    }
    format!("a custom layout ({layout:?})")
}

/// All presets with their function's name, for tools and tests that list them.
///
/// ```
/// use flakeid_core::layout::presets;
/// let (name, make) = presets::ALL[0];
/// assert_eq!((name, make()), ("twitter", presets::twitter()));
/// ```
pub const ALL: &[(&str, Preset)] = &[
    ("twitter", twitter),
    ("discord", discord),
    ("instagram", instagram),
    ("sonyflake", sonyflake),
    ("tsid", tsid),
    ("lsid", lsid),
    ("js_safe", js_safe),
    ("js_safe_seconds", js_safe_seconds),
    ("nonsequential", nonsequential),
];

const TWITTER_NODE: &[NodeField] = &[NodeField::new("datacenter", 5), NodeField::new("worker", 5)];
const DISCORD_NODE: &[NodeField] = &[NodeField::new("worker", 5), NodeField::new("process", 5)];
const INSTAGRAM_NODE: &[NodeField] = &[NodeField::new("shard", 13)];
const SONYFLAKE_NODE: &[NodeField] = &[NodeField::new("machine", 16)];
const TSID_NODE: &[NodeField] = &[NodeField::new("node", 10)];
const LSID_NODE: &[NodeField] = &[NodeField::new("machine", 16)];
const JS_SAFE_NODE: &[NodeField] = &[NodeField::new("node", 4)];
const JS_SAFE_SECONDS_NODE: &[NodeField] = &[NodeField::new("node", 10)];
const NONSEQUENTIAL_NODE: &[NodeField] = &[NodeField::new("generator", 10)];

/// A preset's constructor.
type Preset = fn() -> BitLayout;

#[cfg(test)]
#[path = "../../tests/unit/layout_presets.rs"]
mod tests;
