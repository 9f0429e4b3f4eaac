//! A space's rows as operators see them: [`NodeRow`] and [`NodeTable`].

use core::fmt;

use super::{AsyncLeaseStore, LeaseStore};
use crate::error::LeaseError;

/// One node's row, as operators see it.
///
/// ```
/// use flakeid_lease::NodeRow;
///
/// let row = NodeRow {
///     node: 3,
///     owner: Some("token-a".into()),
///     fence: 2,
///     lease_until_millis: 1_700_000_015_000,
///     high_water_millis: 1_700_000_015_000,
///     holder: Some("web-1/4242".into()),
/// };
/// assert!(row.is_held(1_700_000_000_000));
/// assert!(!row.is_held(1_700_000_020_000)); // its lease has ended by then
/// assert!(!row.is_reserved());
/// assert_eq!(row.high_water_ahead_millis(1_700_000_000_000), 15_000);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeRow {
    /// The node ID.
    pub node: u64,
    /// The current holder's token; `None` when the node is free.
    pub owner: Option<String>,
    /// How many times the node was claimed (the holder's generation).
    pub fence: u64,
    /// When the lease ends (Unix ms, store's clock); when it was released for a free node.
    pub lease_until_millis: i64,
    /// No ID of this node was or will be stamped later than this (Unix ms),
    /// by any holder so far.
    pub high_water_millis: u64,
    /// Host and process of the last holder.
    pub holder: Option<String>,
}

impl NodeRow {
    /// The `lease_until` of a node reserved for a writer outside the lease
    /// protocol (the database function of `flakeid-id-function`'s
    /// `IdFunction`): a lease that never ends, so no claim takes the node.
    pub const RESERVED_UNTIL_MILLIS: i64 = i64::MAX;

    /// Whether a live lease holds the node at the store's time `now_millis`.
    pub fn is_held(&self, now_millis: i64) -> bool {
        self.owner.is_some() && self.lease_until_millis >= now_millis
    }

    /// Whether the node is reserved for good for a writer outside the lease
    /// protocol (its lease ends at [`NodeRow::RESERVED_UNTIL_MILLIS`],
    /// as the database function of `flakeid-id-function`'s `IdFunction`
    /// sets it).
    pub fn is_reserved(&self) -> bool {
        self.owner.is_some() && self.lease_until_millis == Self::RESERVED_UNTIL_MILLIS
    }

    /// How far the node's `high_water` lies ahead of the store's time
    /// `now_millis` (0 when it does not). A free node's mark is normally
    /// behind the clock; one far ahead was left by a holder whose clock
    /// ran ahead, and holds every later holder back until the clock gets
    /// there (claims skip such nodes, see [`ClaimRequest::max_ahead_millis`](crate::ClaimRequest::max_ahead_millis)).
    pub fn high_water_ahead_millis(&self, now_millis: i64) -> u64 {
        let now = u64::try_from(now_millis).unwrap_or(0);
        self.high_water_millis.saturating_sub(now)
    }
}

/// The rows of one space, read in one statement.
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_lease::{LeaseOptions, LeaseStore, MemoryLeaseStore};
///
/// let mut store = MemoryLeaseStore::new();
/// let lease = LeaseOptions::new("orders", presets::twitter()).nodes(0..=3).claim(store.clone())?;
/// let table = store.list("orders")?;
/// assert_eq!((table.space.as_str(), table.rows.len()), ("orders", 4));
/// assert_eq!(table.held().map(|row| row.node).collect::<Vec<_>>(), [lease.node()]);
/// assert!(table.to_string().contains("1 of 4 nodes held")); // one line per node follows
/// lease.release_unused()?;
/// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeTable {
    /// The ID space.
    pub space: String,
    /// The store's clock when the rows were read (Unix ms); `None` when
    /// the space has no rows.
    pub now_millis: Option<i64>,
    /// The rows, by node ID.
    pub rows: Vec<NodeRow>,
}

impl NodeTable {
    /// Every row of `space` in `store`, for operators: [`LeaseStore::list`],
    /// its error reported as the space's.
    ///
    /// ```
    /// use flakeid_lease::{LeaseStore, MemoryLeaseStore, NodeTable};
    ///
    /// let mut store = MemoryLeaseStore::new();
    /// store.ensure_nodes("orders", 0..=1)?;
    /// assert_eq!(NodeTable::read(&mut store, "orders")?.rows.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error + Send + Sync>>(())
    /// ```
    ///
    /// # Errors
    /// [`LeaseError::Store`] naming the space, with the store's error.
    pub fn read(store: &mut impl LeaseStore, space: &str) -> Result<NodeTable, LeaseError> {
        store
            .list(space)
            .map_err(|source| LeaseError::store("list the nodes", space, source))
    }

    /// [`read`](Self::read) from an async store.
    ///
    /// # Errors
    /// [`LeaseError::Store`] naming the space, with the store's error.
    pub async fn read_async(
        store: &impl AsyncLeaseStore,
        space: &str,
    ) -> Result<NodeTable, LeaseError> {
        store
            .list(space)
            .await
            .map_err(|source| LeaseError::store("list the nodes", space, source))
    }

    /// The rows whose lease is live.
    pub fn held(&self) -> impl Iterator<Item = &NodeRow> {
        let now = self.now_millis.unwrap_or(i64::MIN);
        self.rows.iter().filter(move |r| r.is_held(now))
    }
}

/// A table for operators: one line per node.
///
/// ```
/// use flakeid_lease::{NodeRow, NodeTable};
///
/// let table = NodeTable {
///     space: "orders".into(),
///     now_millis: Some(1_700_000_000_000),
///     rows: vec![NodeRow {
///         node: 0,
///         owner: Some("9f…".into()),
///         fence: 3,
///         lease_until_millis: 1_700_000_012_000,
///         high_water_millis: 1_700_000_012_000,
///         holder: Some("web-1/4242".into()),
///     }],
/// };
/// assert_eq!(
///     table.to_string(),
///     "space \"orders\" at 1700000000000 ms (store clock): 1 of 1 nodes held\n\
///      node 0: held by web-1/4242, fence 3, lease ends in 12000 ms, high water 1700000012000 ms\n",
/// );
/// ```
impl fmt::Display for NodeTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let now = self.now_millis.unwrap_or(0);
        writeln!(
            f,
            "space {:?} at {now} ms (store clock): {} of {} nodes held",
            self.space,
            self.held().count(),
            self.rows.len()
        )?;
        for r in &self.rows {
            let holder = r.holder.as_deref().unwrap_or("-");
            let state = if r.is_reserved() {
                format!("reserved for {holder}, fence {}", r.fence)
            } else if r.is_held(now) {
                format!(
                    "held by {holder}, fence {}, lease ends in {} ms",
                    r.fence,
                    r.lease_until_millis - now
                )
            } else if r.owner.is_some() {
                format!(
                    "expired (last held by {holder}, fence {}) {} ms ago",
                    r.fence,
                    now - r.lease_until_millis
                )
            } else if r.fence == 0 {
                "free, never held".to_owned()
            } else {
                format!("free (last held by {holder}, fence {})", r.fence)
            };
            let ahead = r.high_water_ahead_millis(now);
            let ahead = if !r.is_held(now) && ahead > 0 {
                format!(" ({ahead} ms ahead of the store clock: unusable until then)")
            } else {
                String::new()
            };
            writeln!(
                f,
                "node {}: {state}, high water {} ms{ahead}",
                r.node, r.high_water_millis
            )?;
        }
        Ok(())
    }
}
