//! A deterministic simulation of an async holder's renewals against a
//! store whose answers take time: the renewal future of
//! [`LeaseOptions::claim_async`] runs on a simulated runtime (its timers and
//! the store's answers are events on a [`ManualClock`]) over many seeded
//! schedules of store latencies, and the checks after every event are
//!
//! * safety: the ceiling the generator may stamp up to is never above the
//!   node's high-water mark in the store (it was persisted first);
//! * at most [`MAX_RENEWALS_IN_FLIGHT`] renewals wait for the store at once;
//! * liveness: while the claim and every renewal are answered within `L`
//!   of their start, with `max(L, renew_every) + L < ceiling_lead` and
//!   `L < 3 × renew_every`, the ceiling stays ahead of the clock (the
//!   generator never waits at it), whether `L` is shorter or longer than
//!   the renewal interval;
//! * recovery: after a phase of any latencies, failures and renewals that
//!   are never answered, the ceiling is ahead of the clock again within
//!   `ceiling_lead + 2 × renew_every` of the store answering on time (a
//!   hung renewal never holds up the next).
//!
//! A failing schedule prints its seed; replay it with
//! `FLAKEID_RENEWAL_SIM_SEED=<seed> cargo test -p flakeid-lease --lib renewal_simulation`.
//! `FLAKEID_RENEWAL_SIM_SCHEDULES` sets how many schedules run (default 1,000).

use core::future::{Future, ready};
use core::ops::RangeInclusive;
use core::pin::pin;
use core::task::{Context, Poll, Waker};
use core::time::Duration;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use flakeid_core::layout::presets;
use flakeid_core::runtime::Sleep;
use flakeid_core::{Clock, ManualClock};
use flakeid_sql::StoreError;

use crate::asynchronous::MAX_RENEWALS_IN_FLIGHT;
use crate::memory::MemoryLeaseStore;
use crate::options::LeaseOptions;
use crate::simulation::{Rng, env_u64, schedule_seed};
use crate::status::LeaseStatus;
use crate::store::{
    AsyncLeaseStore, ClaimRequest, LeaseStore, NodeRow, NodeTable, OwnedRenewRequest,
    ReleaseRequest, RenewRequest, Renewal,
};

const SPACE: &str = "renewals";
const T0: u64 = 1_700_000_000_000;

/// The simulated time: a manual clock and the times something happens.
#[derive(Clone)]
struct Time {
    clock: Arc<ManualClock>,
    events: Arc<Mutex<BinaryHeap<Reverse<u64>>>>,
}

impl Time {
    fn now(&self) -> u64 {
        self.clock.now_millis()
    }

    /// Something happens at `at`: the simulation stops the clock there.
    fn at(&self, at: u64) {
        self.events.lock().unwrap().push(Reverse(at));
    }

    /// Moves the clock to the next event after now; `false` if none.
    fn advance(&self) -> bool {
        let now = self.now();
        let mut events = self.events.lock().unwrap();
        while let Some(Reverse(at)) = events.pop() {
            if at > now {
                self.clock.set(at);
                return true;
            }
        }
        false
    }

    /// A future ready once the clock reads `at`.
    fn until(&self, at: u64) -> impl Future<Output = ()> + Send + use<> {
        self.at(at);
        let clock = self.clock.clone();
        core::future::poll_fn(move |_| {
            if clock.now_millis() >= at {
                Poll::Ready(())
            } else {
                Poll::Pending
            }
        })
    }
}

impl Sleep for Time {
    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        self.until(self.now() + u64::try_from(duration.as_millis()).unwrap())
    }
}

/// How the store answers the renewals of one phase.
#[derive(Clone, Copy, Debug)]
enum Latency {
    /// Every renewal is applied and answered within `max_ms` of its start.
    Bounded { max_ms: u64 },
    /// Anything: answers up to `max_ms` late, failures, and renewals that
    /// are never answered (applied or not).
    Wild { max_ms: u64 },
}

/// The store: a memory store on the simulated clock whose renewals take
/// the time the phase's [`Latency`] draws.
#[derive(Clone)]
struct SlowStore {
    inner: MemoryLeaseStore,
    time: Time,
    latency: Arc<Mutex<(Latency, Rng)>>,
    in_flight: Arc<AtomicUsize>,
    most_in_flight: Arc<AtomicUsize>,
}

/// Counts a renewal in flight until it is answered or dropped.
struct InFlight(Arc<AtomicUsize>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// What happens to one renewal: applied at `apply` (or never), answered
/// at `answer` (or never), failing instead of answering when `fails`.
struct Fate {
    apply: Option<u64>,
    answer: Option<u64>,
    fails: bool,
}

impl SlowStore {
    fn fate(&self, now: u64) -> Fate {
        let mut guard = self.latency.lock().unwrap();
        let (latency, rng) = &mut *guard;
        match *latency {
            Latency::Bounded { max_ms } => {
                let answer = now + rng.below(max_ms + 1);
                Fate {
                    apply: Some(now + rng.below(answer - now + 1)),
                    answer: Some(answer),
                    fails: false,
                }
            }
            Latency::Wild { max_ms } => {
                let answer = now + rng.below(max_ms + 1);
                let apply = now + rng.below(answer - now + 1);
                match rng.below(10) {
                    // Never answered, applied or not.
                    0 => Fate {
                        apply: rng.chance(50).then_some(apply),
                        answer: None,
                        fails: false,
                    },
                    // Fails, applied or not (the answer lost).
                    1 | 2 => Fate {
                        apply: rng.chance(50).then_some(apply),
                        answer: Some(answer),
                        fails: true,
                    },
                    _ => Fate {
                        apply: Some(apply),
                        answer: Some(answer),
                        fails: false,
                    },
                }
            }
        }
    }
}

impl AsyncLeaseStore for SlowStore {
    fn ensure_nodes(
        &self,
        space: &str,
        nodes: RangeInclusive<u64>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        ready(LeaseStore::ensure_nodes(
            &mut self.inner.clone(),
            space,
            nodes,
        ))
    }

    fn try_claim(
        &self,
        request: &ClaimRequest<'_>,
    ) -> impl Future<Output = Result<Option<NodeRow>, StoreError>> + Send {
        ready(LeaseStore::try_claim(&mut self.inner.clone(), request))
    }

    fn renew(
        &self,
        request: &RenewRequest<'_>,
    ) -> impl Future<Output = Result<Renewal, StoreError>> + Send {
        let now = self.time.now();
        let fate = self.fate(now);
        let n = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        self.most_in_flight.fetch_max(n, Ordering::SeqCst);
        let counted = InFlight(self.in_flight.clone());
        let request = OwnedRenewRequest::new(request);
        let (store, time) = (self.inner.clone(), self.time.clone());
        async move {
            let _counted = counted;
            let mut applied = None;
            if let Some(at) = fate.apply {
                time.until(at).await;
                applied = Some(LeaseStore::renew(&mut store.clone(), &request.borrow()));
            }
            let Some(at) = fate.answer else {
                return core::future::pending().await;
            };
            time.until(at.max(time.now())).await;
            match applied {
                Some(result) if !fate.fails => result,
                _ => Err("the store failed the renewal (or its answer was lost)".into()),
            }
        }
    }

    fn release(
        &self,
        request: &ReleaseRequest<'_>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        ready(LeaseStore::release(&mut self.inner.clone(), request))
    }

    fn list(&self, space: &str) -> impl Future<Output = Result<NodeTable, StoreError>> + Send {
        ready(Ok(self.inner.table(space)))
    }
}

/// One schedule: a first phase of latencies (bounded, or wild then
/// bounded), checked as the module says.
fn schedule(seed: u64) -> Result<Coverage, String> {
    let mut rng = Rng::new(seed);
    let every = 50 + rng.below(451);
    let lead = every * (2 + rng.below(5)) + rng.below(every);
    let ttl = lead + rng.below(3 * lead);
    // The bound under which the ceiling stays ahead: max(L, renew_every) +
    // L < lead (the first renewal starts when the claim was answered, L
    // at most, or an interval after it asked), and L < 3 × renew_every.
    let bounded = (lead - every - 1).min((lead - 1) / 2).min(3 * every - 1);
    let bounded_max = if rng.chance(50) {
        bounded
    } else {
        rng.below(bounded + 1)
    };
    let wild = rng.chance(40).then(|| Latency::Wild {
        max_ms: ttl * (1 + rng.below(3)),
    });
    let wild_for = 5 * ttl;
    let run_for = 20 * ttl.max(every * 20);

    let time = Time {
        clock: Arc::new(ManualClock::new(T0)),
        events: Arc::default(),
    };
    let store = SlowStore {
        inner: MemoryLeaseStore::with_clock(time.clock.clone()),
        time: time.clone(),
        latency: Arc::new(Mutex::new((
            Latency::Bounded {
                max_ms: bounded_max,
            },
            Rng::new(rng.next()),
        ))),
        in_flight: Arc::default(),
        most_in_flight: Arc::default(),
    };
    let options = LeaseOptions::new(SPACE, presets::twitter())
        .nodes(0..=0)
        .clock(time.clock.clone())
        .ttl(Duration::from_millis(ttl))
        .renew_every(Duration::from_millis(every))
        .ceiling_lead(Duration::from_millis(lead));
    let described = format!(
        "renew every {every} ms, lead {lead} ms, TTL {ttl} ms, answers within {bounded_max} ms{}",
        match wild {
            Some(w) => format!(" after {wild_for} ms of {w:?}"),
            None => String::new(),
        }
    );
    let mut cx = Context::from_waker(Waker::noop());
    let mut claim = pin!(options.claim_async(store.clone(), time.clone()));
    let (lease, renewal) = loop {
        match claim.as_mut().poll(&mut cx) {
            Poll::Ready(Ok(claimed)) => break claimed,
            Poll::Ready(Err(e)) => return Err(format!("{described}: claim: {e}")),
            Poll::Pending if time.advance() => {}
            Poll::Pending => return Err(format!("{described}: the claim never ended")),
        }
    };
    let claimed_at = time.now();
    if let Some(wild) = wild {
        store.latency.lock().unwrap().0 = wild;
    }
    let mut renewal = pin!(renewal);
    let mut on_time_since = wild.is_none().then_some(claimed_at);
    let recovery = lead + 2 * every;
    loop {
        if renewal.as_mut().poll(&mut cx).is_ready() {
            return Err(format!(
                "{described}: the renewal ended while the lease was held"
            ));
        }
        let now = time.now();
        let row = store
            .inner
            .table(SPACE)
            .rows
            .into_iter()
            .next()
            .ok_or("no row")?;
        let status = lease.status();
        let ceiling = match status {
            LeaseStatus::Held { ceiling_millis, .. }
            | LeaseStatus::RenewingLate { ceiling_millis, .. } => Some(ceiling_millis),
            _ => None,
        };
        if let Some(ceiling) = ceiling
            && ceiling > row.high_water_millis
        {
            return Err(format!(
                "{described}: at +{} ms the ceiling {ceiling} is above the stored mark {}",
                now - T0,
                row.high_water_millis
            ));
        }
        let most = store.most_in_flight.load(Ordering::SeqCst);
        if most > MAX_RENEWALS_IN_FLIGHT {
            return Err(format!("{described}: {most} renewals in flight at once"));
        }
        if let Some(since) = on_time_since
            && now >= since + if since == claimed_at { 0 } else { recovery }
            && ceiling.is_none_or(|c| c <= now)
        {
            return Err(format!(
                "{described}: at +{} ms (answers on time since +{} ms) the lease is {status:?}",
                now - T0,
                since - T0
            ));
        }
        if wild.is_some() && on_time_since.is_none() && now >= claimed_at + wild_for {
            store.latency.lock().unwrap().0 = Latency::Bounded {
                max_ms: bounded_max,
            };
            on_time_since = Some(now);
        }
        if now >= claimed_at + run_for {
            return Ok(Coverage {
                slower_than_interval: bounded_max > every,
                all_in_flight: most == MAX_RENEWALS_IN_FLIGHT,
                wild: wild.is_some(),
            });
        }
        if !time.advance() {
            return Err(format!(
                "{described}: nothing left to happen at +{} ms",
                now - T0
            ));
        }
    }
}

/// What a schedule went through (a simulation whose renewals are never
/// slower than the interval proves nothing about overlapping them).
struct Coverage {
    slower_than_interval: bool,
    all_in_flight: bool,
    wild: bool,
}

#[test]
fn renewals_keep_the_ceiling_ahead_while_the_store_answers_in_time() {
    if let Some(seed) = env_u64("FLAKEID_RENEWAL_SIM_SEED") {
        if let Err(e) = schedule(seed) {
            panic!("seed {seed}: {e}");
        }
        return;
    }
    let schedules = env_u64("FLAKEID_RENEWAL_SIM_SCHEDULES").unwrap_or(1_000);
    let base = 0x2E7E_3A15;
    let (mut slower, mut all_in_flight, mut wild) = (0, 0, 0);
    for i in 0..schedules {
        let seed = schedule_seed(base, i);
        match schedule(seed) {
            Ok(c) => {
                slower += u64::from(c.slower_than_interval);
                all_in_flight += u64::from(c.all_in_flight);
                wild += u64::from(c.wild);
            }
            Err(e) => panic!(
                "schedule {i} failed: {e}\nreplay: FLAKEID_RENEWAL_SIM_SEED={seed} \
                 cargo test -p flakeid-lease --lib renewal_simulation"
            ),
        }
    }
    println!(
        "{schedules} schedules: {slower} with answers slower than the interval, {wild} with a \
         phase of any latencies, {all_in_flight} with {MAX_RENEWALS_IN_FLIGHT} renewals in flight"
    );
    if schedules >= 100 {
        for (what, n) in [
            ("answers slower than the interval", slower),
            ("a phase of any latencies", wild),
            ("every renewal slot in flight", all_in_flight),
        ] {
            assert!(
                n >= schedules / 10,
                "only {n} of {schedules} schedules had {what}"
            );
        }
    }
}
