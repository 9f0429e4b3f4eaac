//! Where a generator's node ID comes from, and what keeps it unique.
//!
//! A [`Generator`](crate::Generator) never repeats an ID of its own. IDs of
//! two processes differ only if their node IDs differ, and IDs of one node
//! across restarts differ only if each run starts after the last time the
//! previous one used. Node sources make those properties hold, and differ
//! in which of them they enforce:
//!
//! | source | unique node IDs across processes | restart, clock stepped back between runs | what it needs |
//! |---|---|---|---|
//! | fixed, from the environment ([`global`](crate::global), `FLAKEID_NODE_ID`) | **hint**: whoever deploys must keep them distinct | build tick only (see [`Generator`](crate::Generator)) | nothing |
//! | Kubernetes StatefulSet ordinal ([`Ordinal`]) | **hint**: unique while the controller works as designed | as fixed | a StatefulSet |
//! | local high-water file (`HighWaterFileOptions`, in the `flakeid-lease` crate) | one process per file on one machine (lock file); nothing across machines | **yes**, on that machine | a writable disk |
//! | lease in the application's database (`LeaseOptions`, in the `flakeid-lease` crate; on etcd: `flakeid-etcd`) | **fence**: a held node has one holder; a holder that lost it stops | **yes**, wherever the next holder runs | a table every writer can reach |
//!
//! A fixed node ID is enough when one process (or a known, fixed set of
//! processes, each configured with its own ID) writes the IDs and the clock
//! is not stepped back across restarts. Lease when processes come and go
//! (autoscaling, rolling deploys, several replicas of one image), when a
//! mistake in configuration must not produce duplicate keys, or when clock
//! steps across restarts are possible: the `flakeid-lease` crate says how
//! leases work and what they guarantee (its `LeaseOptions`, "The lease
//! protocol").
//!
//! This module holds what this crate knows of node sources: [`Ordinal`],
//! and [`LeasedGenerator`], what a node source's `release` takes. A source
//! that enforces more starts the generator after the node's high-water
//! mark ([`GeneratorBuilder::resume_after`](crate::GeneratorBuilder::resume_after))
//! and keeps it under a ceiling it persists first.

mod kubernetes;
pub(crate) mod leased;

pub use kubernetes::{Ordinal, OrdinalError};
pub use leased::LeasedGenerator;
pub(crate) use leased::sealed;
