//! What can be wrong with a configuration.

use thiserror::Error;

use crate::layout::LayoutError;

use super::SchemeError;

/// An invalid generator configuration (builder or environment).
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_core::{ConfigError, Generator};
///
/// // Twitter's layout has 10 node bits: node IDs 0..=1023.
/// let e = Generator::builder(presets::twitter(), 5000).build().unwrap_err();
/// assert_eq!(e, ConfigError::NodeOutOfRange { node: 5000, max: 1023 });
/// assert_eq!(e.to_string(), "node ID 5000 is out of range: the layout allows 0..=1023");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The node ID does not fit the layout's node field.
    #[error("node ID {node} is out of range: the layout allows 0..={max}")]
    NodeOutOfRange {
        /// The node ID given.
        node: u64,
        /// The largest node ID the layout holds.
        max: u64,
    },
    /// The layout's epoch is later than the clock's current time.
    #[error(
        "epoch {epoch_millis} ms is in the future (clock reads {now_millis} ms since the Unix epoch)"
    )]
    EpochInFuture {
        /// The epoch, in Unix milliseconds.
        epoch_millis: u64,
        /// The clock's reading, in Unix milliseconds.
        now_millis: u64,
    },
    /// The layout's time field is already used up at start-up.
    #[error(
        "the layout's time field ran out at {end_millis} ms since the Unix epoch (clock reads {now_millis} ms)"
    )]
    LayoutExpired {
        /// First Unix millisecond the layout cannot represent.
        end_millis: u64,
        /// The clock's reading, in Unix milliseconds.
        now_millis: u64,
    },
    /// The layout's sequence field is too wide for the generator's 64-bit state.
    #[error(
        "{sequences_per_tick} sequences per tick leave no room for the tick in the generator state"
    )]
    SequenceTooWide {
        /// The layout's sequences per tick.
        sequences_per_tick: u64,
    },
    /// An environment variable has a value that cannot be used.
    #[error("{var}={value:?} is invalid: {reason}")]
    InvalidEnv {
        /// The variable's name.
        var: &'static str,
        /// The value found.
        value: String,
        /// What was expected.
        reason: String,
    },
    /// No node ID is configured and development mode is off.
    #[error(
        "FLAKEID_NODE_ID is not set; set it to this process's unique node ID (or FLAKEID_DEV_MODE=1 for a random one in development)"
    )]
    MissingNodeId,
    /// The process-wide generator is already initialised with a different configuration.
    #[error("the process-wide generator is already initialised with a different configuration")]
    AlreadyInitialized,
    /// The layout has too few sequence values per tick for the scheme.
    #[error(
        "the layout has {sequences_per_tick} sequence values per tick; this generator needs at least {needed}"
    )]
    TooFewSequences {
        /// The layout's sequences per tick.
        sequences_per_tick: u64,
        /// The least the generator needs.
        needed: u64,
    },
    /// The layout could not be built from the configuration.
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// An ID type declared with `layout = …` (or `scheme = …`) and
    /// `source = …` got a source whose IDs its layout would read as other
    /// times or fields.
    #[error(
        "{type_name} is declared with {declared} but its `source = ...` issues IDs of {issued}: \
         its IDs would decode as other times and fields; declare the source's layout"
    )]
    SourceMismatch {
        /// The ID type.
        type_name: &'static str,
        /// The declared layout or scheme.
        declared: String,
        /// The layout or scheme of the source's IDs.
        issued: String,
    },
    /// An ID type declared without a layout uses Twitter's layout, but the
    /// process-wide generator was configured with another one.
    #[error(
        "{type_name} IDs use the twitter layout but the process-wide generator was configured \
         with {configured}: declare the type with `#[flake_id(layout = ...)]` for that layout, \
         or configure the twitter layout"
    )]
    LayoutMismatch {
        /// The ID type.
        type_name: &'static str,
        /// The process-wide generator's layout.
        configured: String,
    },
    /// A DecimalId scheme's process-wide source needs the counter its
    /// generator IDs come from.
    #[error(
        "DecimalId types draw generator IDs from a counter shared by the whole system: install \
         one with flakeid_core::global::init_generator_ids(..) at start-up"
    )]
    MissingGeneratorIds,
    /// A scheme's own generator could not be built (see [`SchemeError`]).
    #[error(transparent)]
    Scheme(SchemeError),
    /// Dense IDs come from a segment source, which needs a database: the
    /// process-wide configuration cannot build one.
    #[error(
        "dense IDs come from a segment source of your own: declare the type with \
         `#[flake_id(scheme = DenseIds::default, source = path::to::function)]`, the function \
         returning the source started at start-up"
    )]
    SegmentSourceRequired,
    /// An ID type's `source = …` function was called before the segment
    /// source it returns was started (for such functions to return).
    #[error(
        "no segment source is installed: start one at start-up (flakeid_seaorm::segment::start, \
         flakeid_diesel::segment::start) and keep it where the type's `source = ...` function \
         finds it"
    )]
    SegmentsNotStarted,
    /// A generator was already built from this lease (or high-water file):
    /// each generator needs its own lease.
    #[error(
        "a generator was already built from this node source: two generators under one node \
         lease would issue the same IDs; claim a lease per generator"
    )]
    CeilingInUse,
    /// The process-wide generator stamps under a node lease of one ID
    /// space; an ID type of another scheme would use the node ID without
    /// that lease's fence.
    #[error(
        "this process's node ID is leased for {leased}: an ID type of another scheme needs a \
         lease of its own (declare it with `source = ...` returning a generator built from that \
         lease)"
    )]
    LeasedForOneLayout {
        /// The leased generator's layout.
        leased: String,
    },
    /// A builder from a node source (a lease, a high-water file) was
    /// pointed at another node, an earlier resume point or another
    /// ceiling: its IDs could repeat those of the node's other holders.
    #[error(
        "`{setting}` is fixed by {fixed_by} and cannot be changed on its generator builder: \
         IDs of a node or time the source does not hold could repeat another holder's"
    )]
    FixedBySource {
        /// The builder method called: `"node"`, `"resume_after"` or `"ceiling"`.
        setting: &'static str,
        /// The node source, e.g. `the node lease of node 3 in space "orders"`.
        fixed_by: String,
    },
}
