//! The two keys of a node (see the [crate documentation](crate)): their
//! names, what the node key holds, and reading both from one revision.

use etcd_client::{Compare, CompareOp, KeyValue, Txn, TxnOp};
use serde::{Deserialize, Serialize};

use super::EtcdLeaseStore;
use crate::error::EtcdLeaseError;

/// The node key's value: what survives the holder's etcd lease.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct NodeState {
    /// The holder's generation: +1 at every claim.
    pub(super) fence: u64,
    /// No ID of the node was or will be stamped later (Unix ms).
    pub(super) high_water: u64,
    /// The token of the last holder (kept after release: a holder whose
    /// etcd lease expired unclaimed may still renew or release).
    pub(super) owner: Option<String>,
    /// Host and process of the last holder, for operators.
    pub(super) holder: Option<String>,
    /// The last holder's estimate of its lease's end: its wall clock when
    /// etcd answered plus the TTL etcd granted (Unix ms). For operators;
    /// etcd alone decides expiry.
    pub(super) lease_until: i64,
    /// The TTL etcd granted the last holder's lease (ms): a keep-alive
    /// resets the lease to it.
    pub(super) ttl_ms: i64,
}

impl NodeState {
    pub(super) fn free() -> Self {
        NodeState {
            fence: 0,
            high_water: 0,
            owner: None,
            holder: None,
            lease_until: 0,
            ttl_ms: 0,
        }
    }
}

impl EtcdLeaseStore {
    /// The node key of `node` in `space`: its fence, high-water mark and
    /// last holder (JSON), without an etcd lease.
    ///
    /// ```
    /// # async fn f(client: etcd_client::Client) {
    /// let store = flakeid_etcd::EtcdLeaseStore::new(client);
    /// assert_eq!(store.node_key("a/b", 7), "flakeid_nodes/a%2Fb/node/0000000007");
    /// # }
    /// ```
    pub fn node_key(&self, space: &str, node: u64) -> String {
        format!("{}/{}/node/{node:010}", self.prefix, segment(space))
    }

    /// The holder key of `node` in `space`: `<fence>/<owner>`, attached to
    /// the holder's etcd lease, so it exists exactly while that lease lives.
    pub fn holder_key(&self, space: &str, node: u64) -> String {
        format!("{}/{}/holder/{node:010}", self.prefix, segment(space))
    }

    pub(super) fn node_prefix(&self, space: &str) -> String {
        format!("{}/{}/node/", self.prefix, segment(space))
    }

    pub(super) fn holder_prefix(&self, space: &str) -> String {
        format!("{}/{}/holder/", self.prefix, segment(space))
    }

    pub(super) fn parse_state(kv: &KeyValue) -> Result<NodeState, EtcdLeaseError> {
        serde_json::from_slice(kv.value()).map_err(|e| EtcdLeaseError::BadValue {
            key: String::from_utf8_lossy(kv.key()).into_owned(),
            value: String::from_utf8_lossy(kv.value())
                .chars()
                .take(200)
                .collect(),
            reason: e.to_string(),
        })
    }

    pub(super) fn state_value(state: &NodeState) -> Result<Vec<u8>, EtcdLeaseError> {
        serde_json::to_vec(state).map_err(|e| EtcdLeaseError::Encode(e.to_string()))
    }

    /// Both keys of a node, from one revision.
    pub(super) async fn snapshot(
        &self,
        space: &str,
        node: u64,
    ) -> Result<Snapshot, EtcdLeaseError> {
        let txn = Txn::new().and_then([
            TxnOp::get(self.node_key(space, node), None),
            TxnOp::get(self.holder_key(space, node), None),
        ]);
        let resp = self.client.kv_client().txn(txn).await?;
        let mut state = None;
        let mut holder = None;
        for (i, op) in resp.op_responses().into_iter().enumerate() {
            let etcd_client::TxnOpResponse::Get(get) = op else {
                continue;
            };
            let Some(kv) = get.kvs().first() else {
                continue;
            };
            if i == 0 {
                state = Some((Self::parse_state(kv)?, kv.mod_revision()));
            } else {
                holder = Some((
                    String::from_utf8_lossy(kv.value()).into_owned(),
                    kv.mod_revision(),
                    kv.lease(),
                ));
            }
        }
        Ok(Snapshot { state, holder })
    }

    /// Compare: the node key is as read (or still absent).
    pub(super) fn state_unchanged(
        &self,
        space: &str,
        node: u64,
        state: &Option<(NodeState, i64)>,
    ) -> Compare {
        match state {
            Some((_, rev)) => {
                Compare::mod_revision(self.node_key(space, node), CompareOp::Equal, *rev)
            }
            None => Compare::create_revision(self.node_key(space, node), CompareOp::Equal, 0),
        }
    }
}

/// A node's two keys as read in one transaction.
pub(super) struct Snapshot {
    /// The node key: `None` when the node was never created.
    pub(super) state: Option<(NodeState, i64)>,
    /// The holder key: `(value, mod_revision, etcd lease)`, present while
    /// the holder's etcd lease lives.
    pub(super) holder: Option<(String, i64, i64)>,
}

/// The holder key's value: fence and owner token, compared byte for byte.
pub(super) fn holder_value(fence: u64, owner: &str) -> String {
    format!("{fence}/{owner}")
}

/// `space` as one key segment: `%` and `/` escaped, so that no space's
/// keys lie under another's prefix.
pub(super) fn segment(space: &str) -> String {
    space.replace('%', "%25").replace('/', "%2F")
}
