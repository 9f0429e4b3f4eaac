//! A lease on an async store, renewed by a future the caller spawns.

use core::future::Future;
use std::sync::Arc;
use std::time::Instant;

use super::error::LeaseError;
use super::holder::{Lease, Shared, lease_accessors};
use super::options::LeaseOptions;
use super::store::AsyncLeaseStore;
use crate::clock::{Clock, MonotonicClock};
use crate::generator::{Ceiling, Generator, GeneratorBuilder};
use crate::layout::{BitLayout, Layout};
use crate::store::{Sleep, timeout};

impl<L: Layout + Clone, C: Clock + Clone> LeaseOptions<L, C> {
    /// [`claim_async`](Self::claim_async) with tokio's timers, spawning the
    /// renewal as a tokio task (feature `tokio`). Call it from within a tokio
    /// runtime; the task ends when the lease is released, dropped or lost.
    ///
    /// # Errors
    /// As [`claim`](Self::claim).
    #[cfg(feature = "tokio")]
    pub async fn claim_on_tokio<S: AsyncLeaseStore + 'static>(
        self,
        store: S,
    ) -> Result<AsyncNodeLease<S, L, C>, LeaseError> {
        let (lease, renewal) = self.claim_async(store, crate::store::TokioSleep).await?;
        tokio::spawn(renewal);
        Ok(lease)
    }

    /// [`claim`](Self::claim) for an async store. Returns the lease and
    /// the renewal future, which the caller spawns on its runtime (it ends
    /// when the lease is released, dropped or lost); `runtime` provides
    /// its timers.
    ///
    /// # Errors
    /// As [`claim`](Self::claim).
    pub async fn claim_async<S: AsyncLeaseStore + 'static, R: Sleep>(
        self,
        store: S,
        runtime: R,
    ) -> Result<
        (
            AsyncNodeLease<S, L, C>,
            impl Future<Output = ()> + Send + 'static,
        ),
        LeaseError,
    > {
        let plan = self.plan()?;
        let space = plan.options.space.clone();
        store
            .ensure_nodes(&space, plan.nodes.clone())
            .await
            .map_err(|e| plan.store_error("insert the node rows", e))?;
        let started = Instant::now();
        loop {
            for node in plan.candidates() {
                let claimed = store
                    .try_claim(&plan.claim_request(node))
                    .await
                    .map_err(|e| plan.store_error(&format!("claim node {node}"), e))?;
                let Some(claimed) = claimed else { continue };
                let ceiling = plan.first_ceiling(&claimed);
                let renewed = store
                    .renew(&plan.renew_request(node, &claimed, ceiling))
                    .await;
                if plan.first_renewal(node, &claimed, renewed)? {
                    let (lease, shared) = plan.into_lease(node, claimed, ceiling);
                    let store = Arc::new(store);
                    let renewal = renew_async(shared.clone(), store.clone(), runtime);
                    return Ok((AsyncNodeLease { lease, store }, renewal));
                }
            }
            let table = store
                .list(&space)
                .await
                .map_err(|e| plan.store_error("list the nodes", e))?;
            match plan.retry_after(&table, started.elapsed()) {
                Ok(delay) => runtime.sleep(delay).await,
                Err(e) => return Err(e),
            }
        }
    }
}

/// A held node lease on an async store, renewed by the future returned
/// with it (see [`LeaseOptions::claim_async`]). Release it with
/// [`release`](Self::release); dropping it stops the renewal and the
/// generator, and the row frees itself after the TTL.
pub struct AsyncNodeLease<S, L = BitLayout, C = MonotonicClock> {
    lease: Lease<L, C>,
    store: Arc<S>,
}

impl<S, L, C> core::fmt::Debug for AsyncNodeLease<S, L, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AsyncNodeLease")
            .field("space", &self.lease.shared.space)
            .field("node", &self.lease.shared.node)
            .field("fence", &self.lease.shared.fence)
            .field("ceiling_millis", &self.lease.shared.ceiling.millis())
            .finish_non_exhaustive()
    }
}

impl<S: AsyncLeaseStore, L: Layout + Clone, C: Clock + Clone> AsyncNodeLease<S, L, C> {
    lease_accessors!();

    /// The store the lease is kept in.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// See [`NodeLease::release`](super::NodeLease::release).
    ///
    /// # Errors
    /// As [`NodeLease::release`](super::NodeLease::release).
    pub async fn release<L2: Layout, C2: Clock>(
        mut self,
        generator: &Generator<L2, C2>,
    ) -> Result<u64, LeaseError> {
        let high_water = self.lease.finish(Some(generator))?;
        let result = self
            .store
            .release(&self.lease.release_request(high_water))
            .await;
        self.lease.released(result).map(|_| high_water)
    }

    /// See [`NodeLease::release_unused`](super::NodeLease::release_unused).
    ///
    /// # Errors
    /// As [`NodeLease::release_unused`](super::NodeLease::release_unused).
    pub async fn release_unused(mut self) -> Result<u64, LeaseError> {
        let high_water = self.lease.finish(None::<&Generator>)?;
        let result = self
            .store
            .release(&self.lease.release_request(high_water))
            .await;
        self.lease.released(result).map(|_| high_water)
    }
}

/// The renewal future: renews every interval until stopped or lost. A
/// renewal that takes longer than the interval counts as failed (and is
/// dropped); the ceiling is raised only by renewals that completed.
async fn renew_async<S: AsyncLeaseStore + 'static, C: Clock, R: Sleep>(
    shared: Arc<Shared<C>>,
    store: Arc<S>,
    runtime: R,
) {
    loop {
        runtime.sleep(shared.renew_every).await;
        if shared.is_stopped() {
            return;
        }
        let ceiling = shared.next_ceiling();
        let request = shared.renew_request(ceiling);
        let result = match timeout(&runtime, shared.renew_every, store.renew(&request)).await {
            Some(result) => result,
            None => Err(format!("no answer within {:?}", shared.renew_every).into()),
        };
        if !shared.renewed(ceiling, result) {
            return;
        }
    }
}
