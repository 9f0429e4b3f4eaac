//! Snowflake-family bit layouts. (skeleton)

/// A bit layout (skeleton).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BitLayout {}

/// Builder for [`BitLayout`] (skeleton).
#[derive(Debug, Clone)]
pub struct BitLayoutBuilder {}

/// Order of the node and sequence fields below the time field (skeleton).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldOrder {
    /// time | node | sequence (Twitter)
    NodeThenSequence,
    /// time | sequence | node (Sonyflake)
    SequenceThenNode,
}

/// A named part of the node field (skeleton).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeField {}
