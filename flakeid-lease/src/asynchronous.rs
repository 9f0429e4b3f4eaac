//! A lease on an async store, renewed by a future the caller spawns.

use core::future::Future;
use core::pin::Pin;
use core::task::Poll;
use core::time::Duration;
use std::sync::Arc;
use std::time::Instant;

use super::claim::Round;
use super::error::LeaseError;
use super::holder::{Core, Holding, Next, lease_accessors};
use super::options::LeaseOptions;
use super::store::{AsyncLeaseStore, ReleaseRequest, Renewal};
use flakeid_core::__private::sealable;
use flakeid_core::__private::timeout;
use flakeid_core::GeneratorBuilder;
use flakeid_core::layout::{BitLayout, Layout};
use flakeid_core::node::LeasedGenerator;
use flakeid_core::runtime::Sleep;
use flakeid_core::{Clock, MonotonicClock};
use flakeid_sql::StoreError;

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
        let (lease, renewal) = self
            .claim_async(store, flakeid_core::runtime::TokioSleep)
            .await?;
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

    /// See [`NodeLease::release`](crate::NodeLease::release); returns
    /// within the TTL whatever the store does.
    ///
    /// # Errors
    /// As [`NodeLease::release`](crate::NodeLease::release).
    pub async fn release<G: LeasedGenerator + ?Sized>(
        self,
        generator: &G,
    ) -> Result<u64, LeaseError> {
        let (holding, mark) = self.core.finish(Some(sealable(generator)))?;
        self.release_with(&holding, mark).await
    }

    /// See [`NodeLease::release_unused`](crate::NodeLease::release_unused).
    ///
    /// # Errors
    /// As [`NodeLease::release_unused`](crate::NodeLease::release_unused).
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

/// How many renewals of one lease may wait for the store at once.
pub(super) const MAX_RENEWALS_IN_FLIGHT: usize = 4;

/// A renewal's answer (`None`: none within the TTL).
type Answer = Option<Result<Renewal, StoreError>>;

/// A renewal waiting for the store's answer.
struct InFlight {
    seq: u64,
    started: Instant,
    holding: Arc<Holding>,
    ceiling: u64,
    answer: Pin<Box<dyn Future<Output = Answer> + Send>>,
}

/// What woke the renewal future.
enum Woke {
    /// The interval passed.
    Tick,
    /// The renewal at this index of the in-flight list was answered (or
    /// given up at the TTL).
    Answered(usize, Answer),
}

/// The renewal future: starts a renewal every interval until the lease
/// stops or is lost, and moves to a new node when it is lost and the
/// process-wide generator waits.
///
/// A renewal the store has not answered by the next interval is not
/// dropped: the interval counts as a failure (the warnings, the fence and
/// the status come on time) and the renewal goes on while the next one
/// starts, so renewals slower than the interval (a reconnect on a loaded
/// machine) still get through, and a slow or hung one never holds up the
/// next. At most [`MAX_RENEWALS_IN_FLIGHT`] wait at once: an interval that
/// finds them all waiting gives up the oldest (so each gets that many
/// intervals, and at most the TTL). Every answer is applied as it comes:
/// the store raises `high_water` to the highest ceiling it was sent, so
/// answers out of order are safe, and a failure older than a renewal that
/// got through changes nothing.
async fn renew_async<S, L, C, R>(core: Arc<Core<L, C>>, store: Arc<S>, runtime: Arc<R>)
where
    S: AsyncLeaseStore + 'static,
    L: Layout + Clone,
    C: Clock + Clone,
    R: Sleep,
{
    let every = core.plan.options.renew_every;
    let ttl = core.plan.options.ttl;
    let mut in_flight: Vec<InFlight> = Vec::with_capacity(MAX_RENEWALS_IN_FLIGHT);
    let mut next_seq = 0u64;
    // The newest renewal that got through, and whether one did since the
    // last interval.
    let mut newest_renewed = None;
    let mut renewed_since_tick = false;
    let mut tick = Box::pin(runtime.sleep(core.first_renewal_in()));
    loop {
        let woke = core::future::poll_fn(|cx| {
            for (i, renewal) in in_flight.iter_mut().enumerate() {
                if let Poll::Ready(answer) = renewal.answer.as_mut().poll(cx) {
                    return Poll::Ready(Woke::Answered(i, answer));
                }
            }
            tick.as_mut().poll(cx).map(|()| Woke::Tick)
        })
        .await;
        match woke {
            Woke::Tick => {
                tick = Box::pin(runtime.sleep(every));
                if let Some(oldest) = in_flight.first()
                    && !renewed_since_tick
                {
                    core.no_answer(&oldest.holding, oldest.started.elapsed());
                }
                renewed_since_tick = false;
                let Some((holding, ceiling)) = core.renewal() else {
                    return;
                };
                if in_flight.len() >= MAX_RENEWALS_IN_FLIGHT {
                    // Given up (its statement dropped, its connection with
                    // it), already counted as unanswered.
                    in_flight.remove(0);
                }
                let (call_core, call_store, call_runtime, call_holding) = (
                    core.clone(),
                    store.clone(),
                    runtime.clone(),
                    holding.clone(),
                );
                let answer = Box::pin(async move {
                    let request = call_core.renew_request(&call_holding, ceiling);
                    timeout(&*call_runtime, ttl, call_store.renew(&request)).await
                });
                in_flight.push(InFlight {
                    seq: next_seq,
                    started: Instant::now(),
                    holding,
                    ceiling,
                    answer,
                });
                next_seq += 1;
            }
            Woke::Answered(i, answer) => {
                let renewal = in_flight.remove(i);
                let result = answer.unwrap_or_else(|| {
                    Err(format!("no answer within {ttl:?} (the TTL): given up").into())
                });
                match &result {
                    Ok(Renewal::Renewed) => {
                        renewed_since_tick = true;
                        newest_renewed = newest_renewed.max(Some(renewal.seq));
                    }
                    // A later renewal already got through.
                    Err(_) if newest_renewed.is_some_and(|n| n > renewal.seq) => continue,
                    _ => {}
                }
                match core.renewed(&renewal.holding, renewal.ceiling, renewal.started, result) {
                    Next::Renew => {}
                    Next::Stop => return,
                    Next::Move => {
                        in_flight.clear();
                        move_async(&core, &*store, &*runtime).await;
                        tick = Box::pin(runtime.sleep(every));
                    }
                }
            }
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
