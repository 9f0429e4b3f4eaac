//! Where a generator's node ID comes from, and what keeps it unique.
//!
//! A [`Generator`](crate::Generator) never repeats an ID of its own. IDs of
//! two processes differ only if their node IDs differ, and IDs of one node
//! across restarts differ only if each run starts after the last time the
//! previous one used. This module provides node sources that make those
//! properties hold, and says which of them enforce them:
//!
//! | source | unique node IDs across processes | restart, clock stepped back between runs | what it needs |
//! |---|---|---|---|
//! | fixed, from the environment ([`global`](crate::global), `FLAKEID_NODE_ID`) | **hint**: whoever deploys must keep them distinct | build tick only (see [`generator`](crate::generator)) | nothing |
//! | Kubernetes StatefulSet ordinal ([`kubernetes`]) | **hint**: unique while the controller works as designed | as fixed | a StatefulSet |
//! | local high-water file ([`HighWaterFileOptions`]) | one process per file on one machine (lock file); nothing across machines | **yes**, on that machine | a writable disk |
//! | lease ([`LeaseOptions`]) in the application's database | **fence**: a held node has one holder; a holder that lost it stops | **yes**, wherever the next holder runs | a table every writer can reach |
//!
//! A fixed node ID is enough when one process (or a known, fixed set of
//! processes, each configured with its own ID) writes the IDs and the clock
//! is not stepped back across restarts. Lease when processes come and go
//! (autoscaling, rolling deploys, several replicas of one image), when a
//! mistake in configuration must not produce duplicate keys, or when clock
//! steps across restarts are possible.
//!
//! # The lease protocol
//!
//! One table, shared by many ID spaces (a space is one layout and epoch
//! whose IDs go into the same tables), one row per node:
//!
//! ```text
//! flakeid_nodes(space, node_id, owner, fence, lease_until, high_water, holder)
//!   primary key (space, node_id)
//! ```
//!
//! * `owner` is the holder's random token (`NULL` when free), `fence` its
//!   generation (+1 at every claim), `lease_until` the lease's end in ms by
//!   the **database's** clock, `high_water` (ms, the IDs' time base): no ID
//!   of the node was or will be stamped later by any holder so far,
//!   `holder` host/pid for operators.
//! * **Claim**: the node rows of the space are inserted (idempotently),
//!   then candidates are tried from a random node on, wrapping around, each
//!   with one compare-and-set: `UPDATE … SET owner = :me, fence = fence + 1,
//!   lease_until = <db now> + ttl WHERE space = :s AND node_id = :n AND
//!   (owner IS NULL OR lease_until < <db now>)`; one row changed means it
//!   was won. All taken is [`LeaseError::AllTaken`], saying how many nodes
//!   exist and when the first lease ends; [`LeaseOptions::wait_for_node`]
//!   keeps trying instead.
//! * **The ceiling**: the generator never stamps an ID later than its
//!   [`Ceiling`], and the ceiling is raised only to a time already written
//!   as `high_water`. Renewal sets `lease_until` and raises `high_water` to
//!   the new ceiling (the clock plus the ceiling lead) in one statement
//!   `WHERE owner = :me AND fence = :fence`: a holder that lost its row
//!   cannot renew. At the ceiling the generator waits or fails
//!   ([`CeilingWait`]) with [`Fenced`], naming the reason and since when.
//!   The check costs nothing per ID: it runs when the generator enters a
//!   new tick, not on the same-tick shortcut.
//! * **Hand-over**: the next holder's generator starts after the previous
//!   holders' `high_water` plus one tick
//!   ([`GeneratorBuilder::resume_after`](crate::GeneratorBuilder::resume_after)),
//!   whatever its own clock says. IDs of one node are therefore disjoint in
//!   time across holders: a restart in the same tick, a wall clock stepped
//!   back between runs, a predecessor that ran ahead of its clock, a holder
//!   paused past its lease that wakes up, none can repeat an ID. A clock
//!   more than one tick behind the mark is a clock regression
//!   ([`ClockRegression`](crate::ClockRegression) waits or fails).
//! * **Release** stops the generator, records the exact `high_water` (the
//!   last millisecond of the last tick it used, so a restarted process
//!   need not wait for the ceiling) and frees the row. A crashed holder's
//!   row frees itself when its lease expires.
//!
//! # What is guaranteed
//!
//! Whatever the clocks of holders and database do, and whether a holder
//! crashes, pauses (SIGSTOP, a VM paused) or loses the database: two
//! holders never stamp IDs of one node in the same tick, so no ID is
//! issued twice. This rests on the database's row-level atomicity, on each
//! holder writing a ceiling before using it, and on node IDs being leased
//! (not configured by hand) for every writer of the space.
//!
//! With the defaults (ceiling lead = TTL), a holder paused for longer than
//! its lease finds its clock beyond its ceiling when it wakes and stamps
//! nothing later than the moment it was paused. (In the moment before its
//! clock reading catches up — [`MonotonicClock`](crate::MonotonicClock)
//! publishes its reading from a thread that was paused too — it may still
//! issue IDs stamped with that stale time, before its ceiling, so they
//! repeat nothing the next holder issues.) A holder that cannot reach the database keeps issuing for
//! at most the ceiling lead after its last renewal, then fences (and
//! resumes when a renewal gets through, unless another holder took the
//! node meanwhile: then it fails with [`FenceReason::Lost`] for good).
//!
//! # Defaults
//!
//! | setting | default | why |
//! |---|---|---|
//! | [TTL](LeaseOptions::ttl) | [`DEFAULT_TTL`], 15 s | a crashed holder's node is free within 15 s; kanengo/ku uses 15 s, CosId 5 min |
//! | [renewal](LeaseOptions::renew_every) | [`DEFAULT_RENEW_EVERY`], 3 s | Leaf reports every 3 s, kanengo/ku renews every 3 s: four renewals may fail before the ceiling is reached |
//! | [ceiling lead](LeaseOptions::ceiling_lead) | the TTL | rides out a database outage as long as the lease lasts, and a holder paused past its lease is past its ceiling |
//! | [at the ceiling](LeaseOptions::at_ceiling) | wait up to 1 s | as the clock-regression default: a slow renewal is waited out, an outage is an error |
//! | [high-water file](HighWaterFileOptions) | lead 500 ms, written every 200 ms | a restart after a crash waits at most 0.5 s |
//!
//! # Stores
//!
//! [`LeaseStore`] (blocking) and [`AsyncLeaseStore`] are the protocol's
//! operations; [`SqlLeaseStore`](crate::sql::lease::SqlLeaseStore) runs
//! them as SQL on PostgreSQL, MySQL/MariaDB and SQLite through
//! `flakeid-seaorm` (renewed by a tokio task) and `flakeid-diesel`
//! (renewed by a thread with its own connection). [`MemoryLeaseStore`]
//! keeps the table in memory, for tests of one process.
//!
//! ```
//! use flakeid_core::{layout::presets, lease::{LeaseOptions, MemoryLeaseStore}, Layout};
//!
//! let store = MemoryLeaseStore::new();
//! let lease = LeaseOptions::new("users", presets::twitter()).claim(store.clone())?;
//! let generator = lease.generator_builder().build()?;
//! let id = generator.next_id()?;
//! let node = lease.node();
//! assert_eq!(generator.layout().decompose(id).node, node);
//! let mark = lease.release(&generator)?;
//! // The next holder of the node starts after `mark`.
//! let table = store.table("users");
//! let row = table.rows.iter().find(|r| r.node == node).unwrap();
//! assert_eq!(row.high_water_millis, mark);
//! assert!(row.owner.is_none());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod ceiling;
mod error;
mod file;
mod holder;
pub mod kubernetes;
mod memory;
mod store;

pub use ceiling::{Ceiling, CeilingWait, FenceReason, Fenced};
pub use error::{HighWaterFileError, LeaseError, OrdinalError, StoreError};
pub use file::{DEFAULT_FILE_EVERY, DEFAULT_FILE_LEAD, HighWaterFile, HighWaterFileOptions};
pub use holder::{
    AsyncNodeLease, DEFAULT_RENEW_EVERY, DEFAULT_TABLE, DEFAULT_TTL, LeaseOptions, MAX_SPACE_LEN,
    NodeLease, RESERVED_UNTIL_MILLIS,
};
pub use memory::MemoryLeaseStore;
pub use store::{
    AsyncLeaseStore, ClaimRequest, Claimed, LeaseStore, NodeRow, NodeTable, ReleaseRequest,
    RenewRequest, Sleep,
};
