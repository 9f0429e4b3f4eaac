//! An in-memory lease store: the protocol without a database, for tests,
//! examples and benchmarks of one process. Clones share one table, as
//! connections share one database; its clock stands for the database's.
//! It coordinates nothing across processes.

use core::future::{Future, ready};
use core::ops::RangeInclusive;
use std::collections::BTreeMap;

use super::store::{
    AsyncLeaseStore, ClaimRequest, LeaseStore, NodeRow, NodeTable, ReleaseRequest, RenewRequest,
    Renewal,
};
use flakeid_core::{Clock, MonotonicClock};
use flakeid_sql::{MemoryRows, Outage, StoreError};

/// The lease table in memory: the protocol without a database, for tests,
/// examples and benchmarks of one process. Clones share one table, as
/// connections share one database; its clock stands for the database's.
/// It coordinates nothing across processes.
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_lease::{LeaseError, LeaseOptions, MemoryLeaseStore};
///
/// let store = MemoryLeaseStore::new();
/// let options = LeaseOptions::new("jobs", presets::twitter()).nodes(0..=0);
/// let first = options.clone().claim(store.clone())?;
/// // The only node is held: a second claimant is told how long to wait.
/// let err = options.claim(store.clone()).unwrap_err();
/// assert!(matches!(err, LeaseError::AllTaken { nodes: 1, .. }));
/// first.release_unused()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct MemoryLeaseStore {
    rows: MemoryRows<(String, u64), NodeRow>,
}

impl core::fmt::Debug for MemoryLeaseStore {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MemoryLeaseStore")
            .field("rows", &self.rows.lock().len())
            .finish_non_exhaustive()
    }
}

impl Default for MemoryLeaseStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryLeaseStore {
    /// An empty table whose clock is [`MonotonicClock`].
    pub fn new() -> Self {
        Self::with_clock(MonotonicClock::new())
    }

    /// An empty table whose lease times come from `clock` (a
    /// [`ManualClock`](flakeid_core::ManualClock) in tests of expiry).
    pub fn with_clock(clock: impl Clock) -> Self {
        MemoryLeaseStore {
            rows: MemoryRows::new(clock),
        }
    }

    /// A handle on the same table behind `outage`: while the outage is on,
    /// each of its calls fails with
    /// [`Unreachable`](flakeid_sql::Unreachable) and changes nothing, as a
    /// holder's connection cut off by a partition; this handle and the
    /// other handles are untouched. See [`Outage`].
    pub fn behind(&self, outage: &Outage) -> Self {
        Self {
            rows: self.rows.behind(outage),
        }
    }

    /// The rows of `space`.
    pub fn table(&self, space: &str) -> NodeTable {
        let rows: Vec<NodeRow> = self
            .rows
            .lock()
            .iter()
            .filter(|((s, _), _)| s == space)
            .map(|(_, r)| r.clone())
            .collect();
        NodeTable {
            space: space.to_owned(),
            now_millis: (!rows.is_empty()).then(|| self.rows.now_millis()),
            rows,
        }
    }

    fn ensure(&self, space: &str, nodes: RangeInclusive<u64>) {
        let mut rows = self.rows.lock();
        for node in nodes {
            rows.entry((space.to_owned(), node)).or_insert(NodeRow {
                node,
                owner: None,
                fence: 0,
                lease_until_millis: 0,
                high_water_millis: 0,
                holder: None,
            });
        }
    }

    fn claim(&self, r: &ClaimRequest<'_>) -> Option<NodeRow> {
        let now = self.rows.now_millis();
        let mut rows = self.rows.lock();
        let row = rows.get_mut(&(r.space.to_owned(), r.node))?;
        if row.owner.is_some() && row.lease_until_millis >= now
            || row.high_water_ahead_millis(now) > r.max_ahead_millis
        {
            return None;
        }
        row.owner = Some(r.owner.to_owned());
        row.holder = Some(r.holder.to_owned());
        row.fence += 1;
        row.lease_until_millis = now.saturating_add(ttl_millis(r.ttl));
        Some(row.clone())
    }

    fn row_of<'a>(
        rows: &'a mut BTreeMap<(String, u64), NodeRow>,
        space: &str,
        node: u64,
        owner: &str,
        fence: u64,
    ) -> Option<&'a mut NodeRow> {
        rows.get_mut(&(space.to_owned(), node))
            .filter(|row| row.owner.as_deref() == Some(owner) && row.fence == fence)
    }

    fn renew_row(&self, r: &RenewRequest<'_>) -> Renewal {
        let now = self.rows.now_millis();
        let mut rows = self.rows.lock();
        let Some(row) = Self::row_of(&mut rows, r.space, r.node, r.owner, r.fence) else {
            return Renewal::Lost;
        };
        let now_u = u64::try_from(now).unwrap_or(0);
        if r.ceiling_millis.saturating_sub(now_u) > r.max_ahead_millis {
            return Renewal::ClockAhead {
                store_now_millis: now,
            };
        }
        row.lease_until_millis = now.saturating_add(ttl_millis(r.ttl));
        row.high_water_millis = row.high_water_millis.max(r.ceiling_millis);
        Renewal::Renewed
    }

    fn release_row(&self, r: &ReleaseRequest<'_>) -> bool {
        let now = self.rows.now_millis();
        let mut rows = self.rows.lock();
        let Some(row) = Self::row_of(&mut rows, r.space, r.node, r.owner, r.fence) else {
            return false;
        };
        row.owner = None;
        row.lease_until_millis = now;
        row.high_water_millis = r.high_water_millis;
        true
    }
}

fn ttl_millis(ttl: core::time::Duration) -> i64 {
    i64::try_from(ttl.as_millis()).unwrap_or(i64::MAX)
}

impl LeaseStore for MemoryLeaseStore {
    fn ensure_nodes(&mut self, space: &str, nodes: RangeInclusive<u64>) -> Result<(), StoreError> {
        self.rows.reach()?;
        self.ensure(space, nodes);
        Ok(())
    }

    fn try_claim(&mut self, request: &ClaimRequest<'_>) -> Result<Option<NodeRow>, StoreError> {
        self.rows.reach()?;
        Ok(self.claim(request))
    }

    fn renew(&mut self, request: &RenewRequest<'_>) -> Result<Renewal, StoreError> {
        self.rows.reach()?;
        Ok(self.renew_row(request))
    }

    fn release(&mut self, request: &ReleaseRequest<'_>) -> Result<bool, StoreError> {
        self.rows.reach()?;
        Ok(self.release_row(request))
    }

    fn list(&mut self, space: &str) -> Result<NodeTable, StoreError> {
        self.rows.reach()?;
        Ok(self.table(space))
    }
}

impl AsyncLeaseStore for MemoryLeaseStore {
    fn ensure_nodes(
        &self,
        space: &str,
        nodes: RangeInclusive<u64>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        ready(self.rows.reach().map(|()| self.ensure(space, nodes)))
    }

    fn try_claim(
        &self,
        request: &ClaimRequest<'_>,
    ) -> impl Future<Output = Result<Option<NodeRow>, StoreError>> + Send {
        ready(self.rows.reach().map(|()| self.claim(request)))
    }

    fn renew(
        &self,
        request: &RenewRequest<'_>,
    ) -> impl Future<Output = Result<Renewal, StoreError>> + Send {
        ready(self.rows.reach().map(|()| self.renew_row(request)))
    }

    fn release(
        &self,
        request: &ReleaseRequest<'_>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        ready(self.rows.reach().map(|()| self.release_row(request)))
    }

    fn list(&self, space: &str) -> impl Future<Output = Result<NodeTable, StoreError>> + Send {
        ready(self.rows.reach().map(|()| self.table(space)))
    }
}
