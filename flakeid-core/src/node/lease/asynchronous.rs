//! A lease on an async store, renewed by a future the caller spawns.

use core::future::Future;
use core::pin::Pin;
use core::time::Duration;
use std::sync::Arc;
use std::time::Instant;

use super::claim::Round;
use super::error::LeaseError;
use super::holder::{Core, Holding, Next, lease_accessors};
use super::options::LeaseOptions;
use super::store::{AsyncLeaseStore, ReleaseRequest};
use crate::clock::{Clock, MonotonicClock};
use crate::generator::GeneratorBuilder;
use crate::layout::{BitLayout, Layout};
use crate::node::{LeasedGenerator, sealable};
use crate::runtime::{Sleep, timeout};

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
        let (lease, renewal) = self.claim_async(store, crate::runtime::TokioSleep).await?;
        tokio::spawn(renewal);
        Ok(lease)
    }

    /// [`claim`](Self::claim) for an async store. Returns the lease and
    /// the renewal future, which the caller spawns on its runtime (it ends
    /// when the lease is released, dropped or lost; it also moves the lease
    /// to a new node when it is lost, see [`heal`](Self::heal)); `runtime`
    /// provides its timers.
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
        store
            .ensure_nodes(&plan.options.space, plan.nodes.clone())
            .await
            .map_err(|e| plan.store_error("insert the node rows", e))?;
        let started = Instant::now();
        let won = loop {
            match plan.claim_round(&store).await? {
                Round::Won(won) => break won,
                Round::NoneFree(table) => {
                    runtime
                        .sleep(plan.retry_after(&table, started.elapsed())?)
                        .await;
                }
            }
        };
        let core = Core::new(plan, won);
        let store = Arc::new(store);
        let runtime = Arc::new(runtime);
        let renewal = renew_async(core.clone(), store.clone(), runtime.clone());
        let lease = AsyncNodeLease {
            core,
            store,
            sleep: BoxedSleep::new(runtime),
        };
        Ok((lease, renewal))
    }
}

/// A held node lease on an async store, renewed by the future returned
/// with it (see [`LeaseOptions::claim_async`]). Release it with
/// [`release`](Self::release); dropping it stops the renewal and the
/// generator, and the row frees itself after the TTL.
pub struct AsyncNodeLease<S, L = BitLayout, C = MonotonicClock> {
    core: Arc<Core<L, C>>,
    store: Arc<S>,
    sleep: BoxedSleep,
}

impl<S, L, C> core::fmt::Debug for AsyncNodeLease<S, L, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(&self.core, f)
    }
}

impl<S: AsyncLeaseStore, L: Layout + Clone, C: Clock + Clone> AsyncNodeLease<S, L, C> {
    lease_accessors!();

    /// The store the lease is kept in.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// See [`NodeLease::release`](super::NodeLease::release); returns
    /// within the TTL whatever the store does.
    ///
    /// # Errors
    /// As [`NodeLease::release`](super::NodeLease::release).
    pub async fn release<G: LeasedGenerator + ?Sized>(
        self,
        generator: &G,
    ) -> Result<u64, LeaseError> {
        let (holding, mark) = self.core.finish(Some(sealable(generator)))?;
        self.release_with(&holding, mark).await
    }

    /// See [`NodeLease::release_unused`](super::NodeLease::release_unused).
    ///
    /// # Errors
    /// As [`NodeLease::release_unused`](super::NodeLease::release_unused).
    pub async fn release_unused(self) -> Result<u64, LeaseError> {
        let (holding, mark) = self.core.finish(None)?;
        self.release_with(&holding, mark).await
    }

    async fn release_with(&self, holding: &Holding, high_water: u64) -> Result<u64, LeaseError> {
        let ttl = self.core.plan.options.ttl;
        let request = self.core.release_request(holding, high_water);
        let result = timeout(&self.sleep, ttl, self.store.release(&request))
            .await
            .unwrap_or_else(|| Err(format!("the store did not answer within {ttl:?}").into()));
        self.core.released(holding, high_water, result)
    }
}

impl<S, L, C> Drop for AsyncNodeLease<S, L, C> {
    fn drop(&mut self) {
        self.core.dropped();
    }
}

/// The renewal future: renews every interval until the lease stops or is
/// lost, and moves to a new node when it is lost and the process-wide
/// generator waits. A renewal that takes longer than the interval counts as
/// failed (and is dropped); the ceiling is raised only by renewals that
/// completed.
async fn renew_async<S, L, C, R>(core: Arc<Core<L, C>>, store: Arc<S>, runtime: Arc<R>)
where
    S: AsyncLeaseStore + 'static,
    L: Layout + Clone,
    C: Clock + Clone,
    R: Sleep,
{
    let every = core.plan.options.renew_every;
    loop {
        runtime.sleep(every).await;
        let Some((holding, ceiling)) = core.renewal() else {
            return;
        };
        let request = core.renew_request(&holding, ceiling);
        let result = match timeout(&*runtime, every, store.renew(&request)).await {
            Some(result) => result,
            None => Err(format!("no answer within {every:?}").into()),
        };
        match core.renewed(&holding, ceiling, result) {
            Next::Renew => {}
            Next::Stop => return,
            Next::Move => move_async(&core, &*store, &*runtime).await,
        }
    }
}

/// Claims a new node for the process-wide generator, reading the table
/// every [`LeaseOptions::POLL_EVERY`] until one is won or the lease stops.
/// A round the store does not finish within the TTL is given up and tried
/// again.
async fn move_async<S, L, C, R>(core: &Arc<Core<L, C>>, store: &S, runtime: &R)
where
    S: AsyncLeaseStore,
    L: Layout + Clone,
    C: Clock + Clone,
    R: Sleep,
{
    let ttl = core.plan.options.ttl;
    while core.is_moving() {
        match timeout(runtime, ttl, core.plan.claim_round(store)).await {
            Some(Ok(Round::Won(won))) => {
                if let Err(won) = core.moved(won) {
                    let _ = timeout(
                        runtime,
                        ttl,
                        store.release(&ReleaseRequest {
                            space: &core.plan.options.space,
                            node: won.node,
                            owner: &core.plan.owner,
                            fence: won.row.fence,
                            high_water_millis: won.row.high_water_millis,
                        }),
                    )
                    .await;
                }
                return;
            }
            Some(Ok(Round::NoneFree(_))) => {}
            Some(Err(e)) => core.move_failed(&e),
            None => core.move_failed(&LeaseError::Renewal {
                node: core.holding().node,
                message: format!("claiming a new node got no answer within {ttl:?}"),
            }),
        }
        runtime.sleep(LeaseOptions::POLL_EVERY).await;
    }
}

/// A sleep of the runtime's, as a boxed future.
type SleepFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

/// A runtime's timers behind a pointer, so that the lease type does not
/// name the runtime.
#[derive(Clone)]
struct BoxedSleep(Arc<dyn Fn(Duration) -> SleepFuture + Send + Sync>);

impl BoxedSleep {
    fn new<R: Sleep>(runtime: Arc<R>) -> Self {
        BoxedSleep(Arc::new(move |d| {
            let runtime = runtime.clone();
            Box::pin(async move { runtime.sleep(d).await })
        }))
    }
}

impl Sleep for BoxedSleep {
    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        (self.0)(duration)
    }
}
