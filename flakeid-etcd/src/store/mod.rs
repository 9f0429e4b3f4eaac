//! [`EtcdLeaseStore`]: the lease protocol's operations as etcd v3
//! transactions.

mod keys;

use core::ops::RangeInclusive;
use core::time::Duration;
use std::collections::BTreeSet;
use std::time::{SystemTime, UNIX_EPOCH};

use etcd_client::{Client, Compare, CompareOp, GetOptions, KeyValue, PutOptions, Txn, TxnOp};
use flakeid_lease::{
    AsyncLeaseStore, ClaimRequest, LeaseOptions, NodeRow, NodeTable, ReleaseRequest, RenewRequest,
    Renewal,
};
use flakeid_sql::StoreError;

use crate::error::EtcdLeaseError;
use keys::{NodeState, holder_value};

/// The lease protocol on etcd v3. See the [crate documentation](crate)
/// for its keys, transactions and what is guaranteed.
///
/// Implements [`AsyncLeaseStore`], like the SQL store, so
/// [`LeaseOptions::claim_async`](flakeid_lease::LeaseOptions::claim_async)
/// claims, renews and releases through it; [`crate::claim`] does that and
/// spawns the renewal on tokio.
#[derive(Clone)]
pub struct EtcdLeaseStore {
    client: Client,
    prefix: String,
}

impl core::fmt::Debug for EtcdLeaseStore {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("EtcdLeaseStore")
            .field("prefix", &self.prefix)
            .finish_non_exhaustive()
    }
}

/// The TTL to ask etcd for: whole seconds, rounded up (etcd counts leases
/// in seconds and may grant more, never less).
pub(crate) fn ttl_secs(ttl: Duration) -> i64 {
    let ms = ttl.as_millis().max(1);
    i64::try_from(ms.div_ceil(1000)).unwrap_or(i64::MAX)
}

impl EtcdLeaseStore {
    /// A store whose keys start with [`LeaseOptions::DEFAULT_TABLE`] (`flakeid_nodes/`).
    pub fn new(client: Client) -> Self {
        Self::with_prefix(client, LeaseOptions::DEFAULT_TABLE)
    }

    /// A store whose keys start with `prefix` and `/`.
    pub fn with_prefix(client: Client, prefix: &str) -> Self {
        EtcdLeaseStore {
            client,
            prefix: prefix.trim_end_matches('/').to_owned(),
        }
    }

    /// The client.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Grants an etcd lease of the request's TTL; `(id, granted ms)`.
    async fn grant(&self, ttl: Duration) -> Result<(i64, i64), EtcdLeaseError> {
        let resp = self
            .client
            .lease_client()
            .grant(ttl_secs(ttl), None)
            .await?;
        Ok((resp.id(), resp.ttl().saturating_mul(1000)))
    }

    async fn revoke_quietly(&self, lease: i64) {
        // An unused lease expires by itself; revoking only frees it sooner.
        let _ = self.client.lease_client().revoke(lease).await;
    }

    /// Resets the etcd lease to its granted TTL; whether it still existed.
    async fn keep_alive(&self, lease: i64) -> Result<bool, EtcdLeaseError> {
        match self.client.lease_client().keep_alive(lease).await {
            Ok(_) => Ok(true),
            // etcd answers TTL 0 for a lease that expired or was revoked.
            Err(etcd_client::Error::LeaseKeepAliveError(m)) if m == "lease not found" => Ok(false),
            Err(e) => Err(e.into()),
        }
    }

    async fn create_nodes(
        &self,
        space: &str,
        nodes: RangeInclusive<u64>,
    ) -> Result<(), EtcdLeaseError> {
        let free = Self::state_value(&NodeState::free())?;
        for _ in 0..ATTEMPTS {
            let existing = self
                .client
                .kv_client()
                .get(
                    self.node_prefix(space),
                    Some(GetOptions::new().with_prefix().with_keys_only()),
                )
                .await?;
            let have: BTreeSet<Vec<u8>> =
                existing.kvs().iter().map(|kv| kv.key().to_vec()).collect();
            let missing: Vec<u64> = nodes
                .clone()
                .filter(|n| !have.contains(self.node_key(space, *n).as_bytes()))
                .collect();
            let mut raced = false;
            for chunk in missing.chunks(CREATE_CHUNK) {
                let keys: Vec<String> = chunk.iter().map(|n| self.node_key(space, *n)).collect();
                let txn = Txn::new()
                    .when(
                        keys.iter()
                            .map(|k| Compare::create_revision(k.as_str(), CompareOp::Equal, 0))
                            .collect::<Vec<_>>(),
                    )
                    .and_then(
                        keys.iter()
                            .map(|k| TxnOp::put(k.as_str(), free.clone(), None))
                            .collect::<Vec<_>>(),
                    );
                if !self.client.kv_client().txn(txn).await?.succeeded() {
                    // Another claimant created some of them: read again.
                    raced = true;
                    break;
                }
            }
            if !raced {
                return Ok(());
            }
        }
        Err(EtcdLeaseError::Contended {
            operation: "create the node keys",
            attempts: ATTEMPTS,
        })
    }

    async fn claim(&self, r: &ClaimRequest<'_>) -> Result<Option<NodeRow>, EtcdLeaseError> {
        let snap = self.snapshot(r.space, r.node).await?;
        if snap.holder.is_some() {
            return Ok(None);
        }
        let previous = snap
            .state
            .as_ref()
            .map_or_else(NodeState::free, |(s, _)| s.clone());
        let (lease, granted_ms) = self.grant(r.ttl).await?;
        let fence = previous.fence + 1;
        let lease_until = wall_ms().saturating_add(granted_ms);
        let state = NodeState {
            fence,
            high_water: previous.high_water,
            owner: Some(r.owner.to_owned()),
            holder: Some(r.holder.to_owned()),
            lease_until,
            ttl_ms: granted_ms,
        };
        let holder_key = self.holder_key(r.space, r.node);
        let txn = Txn::new()
            .when([
                self.state_unchanged(r.space, r.node, &snap.state),
                Compare::create_revision(holder_key.as_str(), CompareOp::Equal, 0),
            ])
            .and_then([
                TxnOp::put(
                    holder_key.as_str(),
                    holder_value(fence, r.owner),
                    Some(PutOptions::new().with_lease(lease)),
                ),
                TxnOp::put(
                    self.node_key(r.space, r.node),
                    Self::state_value(&state)?,
                    None,
                ),
            ]);
        if !self.client.kv_client().txn(txn).await?.succeeded() {
            self.revoke_quietly(lease).await;
            return Ok(None);
        }
        Ok(Some(NodeRow {
            node: r.node,
            owner: Some(r.owner.to_owned()),
            fence,
            lease_until_millis: lease_until,
            high_water_millis: previous.high_water,
            holder: Some(r.holder.to_owned()),
        }))
    }

    async fn renew_node(&self, r: &RenewRequest<'_>) -> Result<bool, EtcdLeaseError> {
        let expected = holder_value(r.fence, r.owner);
        for _ in 0..ATTEMPTS {
            let snap = self.snapshot(r.space, r.node).await?;
            let Some((state, _)) = &snap.state else {
                return Ok(false);
            };
            let mut next = state.clone();
            next.high_water = state.high_water.max(r.ceiling_millis);
            match &snap.holder {
                Some((value, _, _)) if *value != expected => return Ok(false),
                Some((_, _, lease)) => {
                    if !self.keep_alive(*lease).await? {
                        // Expired just now: read again (the key is gone).
                        continue;
                    }
                    next.lease_until = wall_ms().saturating_add(state.ttl_ms);
                    let holder_key = self.holder_key(r.space, r.node);
                    let txn = Txn::new()
                        .when([
                            Compare::value(
                                holder_key.as_str(),
                                CompareOp::Equal,
                                expected.as_str(),
                            ),
                            Compare::lease(holder_key.as_str(), CompareOp::Equal, *lease),
                            self.state_unchanged(r.space, r.node, &snap.state),
                        ])
                        .and_then([TxnOp::put(
                            self.node_key(r.space, r.node),
                            Self::state_value(&next)?,
                            None,
                        )]);
                    if self.client.kv_client().txn(txn).await?.succeeded() {
                        return Ok(true);
                    }
                }
                None => {
                    // The etcd lease expired and nobody claimed the node
                    // since (the fence is still ours): take it up again
                    // under a new etcd lease, as the SQL store renews a
                    // row whose lease ran out unclaimed.
                    if state.owner.as_deref() != Some(r.owner) || state.fence != r.fence {
                        return Ok(false);
                    }
                    let (lease, granted_ms) = self.grant(r.ttl).await?;
                    next.lease_until = wall_ms().saturating_add(granted_ms);
                    next.ttl_ms = granted_ms;
                    let holder_key = self.holder_key(r.space, r.node);
                    let txn = Txn::new()
                        .when([
                            Compare::create_revision(holder_key.as_str(), CompareOp::Equal, 0),
                            self.state_unchanged(r.space, r.node, &snap.state),
                        ])
                        .and_then([
                            TxnOp::put(
                                holder_key.as_str(),
                                expected.as_str(),
                                Some(PutOptions::new().with_lease(lease)),
                            ),
                            TxnOp::put(
                                self.node_key(r.space, r.node),
                                Self::state_value(&next)?,
                                None,
                            ),
                        ]);
                    if self.client.kv_client().txn(txn).await?.succeeded() {
                        return Ok(true);
                    }
                    self.revoke_quietly(lease).await;
                }
            }
        }
        Err(EtcdLeaseError::Contended {
            operation: "renew",
            attempts: ATTEMPTS,
        })
    }

    async fn release_node(&self, r: &ReleaseRequest<'_>) -> Result<bool, EtcdLeaseError> {
        let expected = holder_value(r.fence, r.owner);
        for _ in 0..ATTEMPTS {
            let snap = self.snapshot(r.space, r.node).await?;
            let Some((state, _)) = &snap.state else {
                return Ok(false);
            };
            if state.owner.as_deref() != Some(r.owner) || state.fence != r.fence {
                return Ok(false);
            }
            let mut next = state.clone();
            next.owner = None;
            next.high_water = r.high_water_millis;
            next.lease_until = wall_ms();
            let holder_key = self.holder_key(r.space, r.node);
            let (holder_cmp, lease) = match &snap.holder {
                Some((value, _, _)) if *value != expected => return Ok(false),
                Some((_, rev, lease)) => (
                    Compare::mod_revision(holder_key.as_str(), CompareOp::Equal, *rev),
                    Some(*lease),
                ),
                None => (
                    Compare::create_revision(holder_key.as_str(), CompareOp::Equal, 0),
                    None,
                ),
            };
            let txn = Txn::new()
                .when([
                    holder_cmp,
                    self.state_unchanged(r.space, r.node, &snap.state),
                ])
                .and_then([
                    TxnOp::delete(holder_key.as_str(), None),
                    TxnOp::put(
                        self.node_key(r.space, r.node),
                        Self::state_value(&next)?,
                        None,
                    ),
                ]);
            if self.client.kv_client().txn(txn).await?.succeeded() {
                if let Some(lease) = lease {
                    self.revoke_quietly(lease).await;
                }
                return Ok(true);
            }
        }
        Err(EtcdLeaseError::Contended {
            operation: "release",
            attempts: ATTEMPTS,
        })
    }

    /// Every node of `space` as operators see it: held when its holder key
    /// exists (etcd's decision), with the holder's estimate of when its
    /// lease ends.
    pub(crate) async fn table(&self, space: &str) -> Result<NodeTable, EtcdLeaseError> {
        let txn = Txn::new().and_then([
            TxnOp::get(
                self.node_prefix(space),
                Some(GetOptions::new().with_prefix()),
            ),
            TxnOp::get(
                self.holder_prefix(space),
                Some(GetOptions::new().with_prefix()),
            ),
        ]);
        let resp = self.client.kv_client().txn(txn).await?;
        let now = wall_ms();
        let ops = resp.op_responses();
        let kvs = |i: usize| match ops.get(i) {
            Some(etcd_client::TxnOpResponse::Get(g)) => g.kvs().to_vec(),
            _ => Vec::new(),
        };
        let node_prefix = self.node_prefix(space);
        let holder_prefix = self.holder_prefix(space);
        let node_of = |kv: &KeyValue, prefix: &str| -> Result<u64, EtcdLeaseError> {
            let key = String::from_utf8_lossy(kv.key()).into_owned();
            key.strip_prefix(prefix)
                .and_then(|n| n.parse().ok())
                .ok_or(EtcdLeaseError::BadKey { key })
        };
        let mut holders = std::collections::BTreeMap::new();
        for kv in kvs(1) {
            let value = String::from_utf8_lossy(kv.value()).into_owned();
            let owner = value
                .split_once('/')
                .map_or(value.clone(), |(_, o)| o.to_owned());
            holders.insert(node_of(&kv, &holder_prefix)?, owner);
        }
        let mut rows = Vec::new();
        for kv in kvs(0) {
            let node = node_of(&kv, &node_prefix)?;
            let state = Self::parse_state(&kv)?;
            let owner = holders.get(&node).cloned();
            let lease_until = if owner.is_some() {
                // etcd says the lease lives: never show it as past.
                state.lease_until.max(now)
            } else {
                state.lease_until
            };
            rows.push(NodeRow {
                node,
                owner,
                fence: state.fence,
                lease_until_millis: lease_until,
                high_water_millis: state.high_water,
                holder: state.holder,
            });
        }
        Ok(NodeTable {
            space: space.to_owned(),
            now_millis: (!rows.is_empty()).then_some(now),
            rows,
        })
    }
}

impl AsyncLeaseStore for EtcdLeaseStore {
    async fn ensure_nodes(
        &self,
        space: &str,
        nodes: RangeInclusive<u64>,
    ) -> Result<(), StoreError> {
        Ok(self.create_nodes(space, nodes).await?)
    }

    async fn try_claim(&self, request: &ClaimRequest<'_>) -> Result<Option<NodeRow>, StoreError> {
        Ok(self.claim(request).await?)
    }

    /// etcd offers a client no clock, so a ceiling is never refused as
    /// ahead of it ([`Renewal::ClockAhead`]).
    async fn renew(&self, request: &RenewRequest<'_>) -> Result<Renewal, StoreError> {
        Ok(if self.renew_node(request).await? {
            Renewal::Renewed
        } else {
            Renewal::Lost
        })
    }

    async fn release(&self, request: &ReleaseRequest<'_>) -> Result<bool, StoreError> {
        Ok(self.release_node(request).await?)
    }

    async fn list(&self, space: &str) -> Result<NodeTable, StoreError> {
        Ok(self.table(space).await?)
    }
}

/// Node keys created per transaction (etcd refuses transactions of more
/// than 128 operations by default; each node takes a compare and a put).
const CREATE_CHUNK: usize = 50;
/// Attempts at one operation whose compare failed because another
/// operation of the same node came in between.
const ATTEMPTS: usize = 5;

fn wall_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

#[cfg(test)]
#[path = "../../tests/unit/store.rs"]
mod tests;
