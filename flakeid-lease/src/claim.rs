//! Claiming a node: one round over the free nodes of the space, and what
//! to do when none was won. Written once, for async stores; the blocking
//! handle runs it on a store whose calls complete at once (see
//! `blocking.rs`).

use core::time::Duration;

use super::error::LeaseError;
use super::options::Plan;
use super::store::{
    AsyncLeaseStore, ClaimRequest, NodeRow, NodeTable, ReleaseRequest, RenewRequest, Renewal,
};
use flakeid_core::Clock;
use flakeid_core::layout::Layout;
use flakeid_sql::StoreError;

/// A node won by a claim round, with its first ceiling persisted.
#[derive(Debug, Clone)]
pub(super) struct Won {
    pub(super) node: u64,
    /// The row after the claim: the new fence, the previous holders'
    /// high-water mark, the lease's end.
    pub(super) row: NodeRow,
    /// The first ceiling, persisted as `high_water`.
    pub(super) ceiling_millis: u64,
}

/// How a claim round ended.
#[derive(Debug)]
pub(super) enum Round {
    Won(Won),
    /// Nothing free: the table as read at the start of the round.
    NoneFree(NodeTable),
}

impl<L: Layout + Clone, C: Clock + Clone> Plan<L, C> {
    pub(super) fn store_error(&self, operation: &str, source: StoreError) -> LeaseError {
        LeaseError::store(operation, &self.options.space, source)
    }

    /// The nodes in the order this claimant tries them: from its random
    /// start on, wrapping around.
    pub(super) fn candidates(&self) -> impl Iterator<Item = u64> + use<L, C> {
        let (first, count) = (
            *self.nodes.start(),
            *self.nodes.end() - *self.nodes.start() + 1,
        );
        let start = self.start;
        (0..count).map(move |i| first + (start + i) % count)
    }

    pub(super) fn claim_request(&self, node: u64) -> ClaimRequest<'_> {
        ClaimRequest {
            space: &self.options.space,
            node,
            owner: &self.owner,
            holder: &self.holder,
            ttl: self.options.ttl,
            max_ahead_millis: self.max_ahead_millis,
        }
    }

    pub(super) fn renew_request(
        &self,
        node: u64,
        fence: u64,
        ceiling_millis: u64,
    ) -> RenewRequest<'_> {
        RenewRequest {
            space: &self.options.space,
            node,
            owner: &self.owner,
            fence,
            ttl: self.options.ttl,
            ceiling_millis,
            max_ahead_millis: self.max_ahead_millis,
        }
    }

    /// Whether a claim of `row` can succeed by the table's clock `now`:
    /// free or expired, and its mark not too far ahead.
    fn claimable(&self, row: &NodeRow, now: i64) -> bool {
        self.nodes.contains(&row.node)
            && !row.is_held(now)
            && row.high_water_ahead_millis(now) <= self.max_ahead_millis
    }

    /// The first ceiling of a won node: the lead ahead of the clock, or
    /// the previous holders' mark if that is later (the generator starts
    /// after the mark; the ceiling rises past it with the clock).
    pub(super) fn first_ceiling(&self, row: &NodeRow) -> u64 {
        self.options
            .clock
            .now_millis()
            .saturating_add(self.lead_millis)
            .max(row.high_water_millis)
    }

    /// One round: reads the table, then tries the nodes that are free by
    /// its clock, in this claimant's order, each with one compare-and-set,
    /// and persists the first ceiling of the node won.
    ///
    /// A node taken over between the claim and its first ceiling (possible
    /// only with a TTL shorter than a round trip) is skipped.
    ///
    /// # Errors
    /// [`LeaseError::Store`]; [`LeaseError::ClockAhead`] when the store
    /// refuses the first ceiling (the node is released at once).
    pub(super) async fn claim_round<S: AsyncLeaseStore>(
        &self,
        store: &S,
    ) -> Result<Round, LeaseError> {
        let space = &self.options.space;
        let table = NodeTable::read_async(store, space).await?;
        let now = table.now_millis.unwrap_or(i64::MIN);
        let mut free: Vec<u64> = table
            .rows
            .iter()
            .filter(|r| self.claimable(r, now))
            .map(|r| r.node)
            .collect();
        free.sort_unstable();
        for node in self.candidates().filter(|n| free.binary_search(n).is_ok()) {
            let claimed = store
                .try_claim(&self.claim_request(node))
                .await
                .map_err(|e| self.store_error(&format!("claim node {node}"), e))?;
            let Some(row) = claimed else { continue };
            let ceiling_millis = self.first_ceiling(&row);
            let renewal = store
                .renew(&self.renew_request(node, row.fence, ceiling_millis))
                .await
                .map_err(|e| {
                    self.store_error(
                        &format!(
                            "persist the first ceiling of node {node} (fence {}; the row frees \
                             itself after the TTL)",
                            row.fence
                        ),
                        e,
                    )
                })?;
            match renewal {
                Renewal::Renewed => {
                    return Ok(Round::Won(Won {
                        node,
                        row,
                        ceiling_millis,
                    }));
                }
                Renewal::ClockAhead { store_now_millis } => {
                    // Free the node for others at once; the clock is this
                    // holder's problem, not the node's.
                    let _ = store
                        .release(&ReleaseRequest {
                            space,
                            node,
                            owner: &self.owner,
                            fence: row.fence,
                            high_water_millis: row.high_water_millis,
                        })
                        .await;
                    let error = self.clock_ahead(node, ceiling_millis, store_now_millis);
                    tracing::error!(
                        target: super::events::TARGET,
                        space = %space,
                        node,
                        fence = row.fence,
                        owner = %self.owner,
                        holder = %self.holder,
                        error = %error,
                        "node lease claim refused: this holder's clock runs ahead of the store's by more than the allowed skew"
                    );
                    return Err(error);
                }
                _ => continue,
            }
        }
        Ok(Round::NoneFree(table))
    }

    /// The error of a ceiling the store refused as too far ahead.
    pub(super) fn clock_ahead(
        &self,
        node: u64,
        ceiling_millis: u64,
        store_now_millis: i64,
    ) -> LeaseError {
        let holder_millis = ceiling_millis.saturating_sub(self.lead_millis);
        LeaseError::ClockAhead {
            space: self.options.space.clone(),
            node,
            holder: self.holder.clone(),
            holder_millis,
            store_millis: store_now_millis,
            max_skew: self.options.max_clock_skew,
        }
    }

    /// How long to wait before the next round, or the error once the wait
    /// for a node is over.
    pub(super) fn retry_after(
        &self,
        table: &NodeTable,
        waited: Duration,
    ) -> Result<Duration, LeaseError> {
        let remaining = self.options.wait_for_node.saturating_sub(waited);
        if remaining.is_zero() {
            return Err(self.all_taken(table, waited));
        }
        // A released node shows in the table at once: read it often. (One
        // statement per poll, however many nodes the space has.)
        Ok(super::LeaseOptions::POLL_EVERY
            .min(remaining)
            .max(Duration::from_millis(1)))
    }

    /// [`LeaseError::AllTaken`] for `table`.
    fn all_taken(&self, table: &NodeTable, waited: Duration) -> LeaseError {
        let now = table.now_millis.unwrap_or(0);
        let ours = || table.rows.iter().filter(|r| self.nodes.contains(&r.node));
        let held = || ours().filter(|r| r.is_held(now));
        let reserved = held().filter(|r| r.is_reserved()).count() as u64;
        let ahead: Vec<&NodeRow> = ours()
            .filter(|r| !r.is_held(now) && r.high_water_ahead_millis(now) > self.max_ahead_millis)
            .collect();
        let first = held()
            .filter(|r| !r.is_reserved())
            .min_by_key(|r| r.lease_until_millis);
        let (node, expires_in) = match (first, held().find(|r| r.is_reserved())) {
            (Some(r), _) => {
                let ms = u64::try_from(r.lease_until_millis.saturating_sub(now)).unwrap_or(0);
                (r.node, Duration::from_millis(ms))
            }
            (None, Some(r)) => (r.node, Duration::MAX),
            (None, None) => (*self.nodes.start(), Duration::ZERO),
        };
        LeaseError::AllTaken {
            space: self.options.space.clone(),
            nodes: *self.nodes.end() - *self.nodes.start() + 1,
            first: *self.nodes.start(),
            last: *self.nodes.end(),
            reserved,
            ahead_of_clock: ahead.len() as u64,
            ahead_until_millis: ahead.iter().map(|r| r.high_water_millis).min().unwrap_or(0),
            node,
            expires_in,
            waited,
        }
    }
}
