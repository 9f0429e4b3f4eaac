//! A deterministic simulation of the lease protocol: many holders, one
//! store, and everything a fleet lives through (pauses, store outages,
//! answers lost after the store applied the statement, clocks skewed and
//! stepped back and forth, crashes, restarts, releases), over many seeded
//! schedules. It drives the protocol's own steps (the claim round, the
//! renewal outcome, the move to a new node, the release) and the
//! process-wide generator, and checks after every step that
//!
//! * no ID is issued twice, and
//! * no ID is stamped later than its node's high-water mark in the store
//!   (the ceiling a holder used was persisted first).
//!
//! A failing schedule prints its seed; replay it with
//! `FLAKEID_SIM_SEED=<seed> cargo test -p flakeid-lease --lib simulation`.
//! `FLAKEID_SIM_SCHEDULES` sets how many schedules run (default 100,000).

use core::future::{Future, ready};
use core::ops::RangeInclusive;
use core::time::Duration;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use flakeid_core::__private::sealable;
use flakeid_core::global::ProcessGenerator;
use flakeid_core::layout::{BitLayout, Layout, presets};
use flakeid_core::{
    CeilingWait, Clock, ClockRegression, GenerateError, ManualClock, SequenceExhaustion,
};
use flakeid_sql::StoreError;
use rand::rngs::SmallRng;
use rand::{Rng as _, RngExt as _, SeedableRng as _};

use crate::MemoryLeaseStore;
use crate::blocking::run;
use crate::claim::Round;
use crate::holder::{Core, Next};
use crate::options::LeaseOptions;
use crate::store::{
    AsyncLeaseStore, ClaimRequest, LeaseStore as _, NodeRow, NodeTable, ReleaseRequest,
    RenewRequest, Renewal,
};

/// A seeded random stream: a schedule is a function of its seed alone.
pub(super) struct Rng(SmallRng);

impl Rng {
    pub(super) fn new(seed: u64) -> Self {
        Rng(SmallRng::seed_from_u64(seed))
    }

    pub(super) fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A value in `0..n` (`n >= 1`).
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.0.random_range(0..n)
    }

    pub(super) fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

pub(super) fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

/// The seed of schedule `i` of the run started at `base`: the value a
/// failing schedule prints (each seed expands to a stream of its own).
pub(super) fn schedule_seed(base: u64, i: u64) -> u64 {
    base.wrapping_add(i)
}

const SPACE: &str = "sim";
const HOLDERS: usize = 16;
const NODES: RangeInclusive<u64> = 0..=7;
const STEPS: usize = 64;
const T0: u64 = 1_700_000_000_000;
const TTL_MS: u64 = 1_000;
const RENEW_MS: u64 = 200;
const SKEW_MS: u64 = 2_000;

/// The store as the holders reach it: down for a while, or failing one
/// statement, or applying one and losing the answer.
struct Faulty {
    inner: Mutex<MemoryLeaseStore>,
    faults: Mutex<Faults>,
}

struct Faults {
    rng: Rng,
    down_until: u64,
    now: u64,
    fail_percent: u64,
    lost_percent: u64,
    injected: u64,
}

enum Fault {
    None,
    /// Not applied; the caller gets an error.
    Failed,
    /// Applied; the caller gets an error.
    AnswerLost,
}

impl Faulty {
    fn fault(&self) -> Fault {
        let mut f = self.faults.lock().unwrap();
        if f.now < f.down_until {
            f.injected += 1;
            return Fault::Failed;
        }
        let (fail, lost) = (f.fail_percent, f.lost_percent);
        let roll = f.rng.below(100);
        if roll < fail {
            f.injected += 1;
            Fault::Failed
        } else if roll < fail + lost {
            f.injected += 1;
            Fault::AnswerLost
        } else {
            Fault::None
        }
    }

    fn call<T>(
        &self,
        op: impl FnOnce(&mut MemoryLeaseStore) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        match self.fault() {
            Fault::Failed => Err("store unreachable".into()),
            Fault::None => op(&mut self.inner.lock().unwrap()),
            Fault::AnswerLost => {
                let _ = op(&mut self.inner.lock().unwrap());
                Err("connection reset after the statement".into())
            }
        }
    }

    fn table(&self) -> NodeTable {
        self.inner.lock().unwrap().table(SPACE)
    }
}

impl AsyncLeaseStore for Faulty {
    fn ensure_nodes(
        &self,
        space: &str,
        nodes: RangeInclusive<u64>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send {
        ready(self.call(|s| s.ensure_nodes(space, nodes)))
    }

    fn try_claim(
        &self,
        request: &ClaimRequest<'_>,
    ) -> impl Future<Output = Result<Option<NodeRow>, StoreError>> + Send {
        ready(self.call(|s| s.try_claim(request)))
    }

    fn renew(
        &self,
        request: &RenewRequest<'_>,
    ) -> impl Future<Output = Result<Renewal, StoreError>> + Send {
        ready(self.call(|s| s.renew(request)))
    }

    fn release(
        &self,
        request: &ReleaseRequest<'_>,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send {
        ready(self.call(|s| s.release(request)))
    }

    fn list(&self, space: &str) -> impl Future<Output = Result<NodeTable, StoreError>> + Send {
        ready(self.call(|s| s.list(space)))
    }
}

type Lease = Arc<Core<BitLayout, Arc<ManualClock>>>;

enum Life {
    Down,
    Up {
        core: Lease,
        process: Arc<ProcessGenerator>,
        next_renewal: u64,
    },
}

struct Holder {
    clock: Arc<ManualClock>,
    /// How far this holder's clock is from the store's (ms).
    skew: i64,
    /// Paused (SIGSTOP, a VM paused) until this store time.
    paused_until: u64,
    /// The clock reading from before a pause, read once more after it (a
    /// clock whose published reading is refreshed by a thread that was
    /// paused too).
    stale_reading: Option<u64>,
    life: Life,
}

#[derive(Default)]
struct Coverage {
    ids: u64,
    claims: u64,
    moves: u64,
    lost: u64,
    clock_refusals: u64,
    releases: u64,
    crashes: u64,
    faults: u64,
    fenced_calls: u64,
}

struct Sim {
    rng: Rng,
    now: u64,
    store_clock: Arc<ManualClock>,
    store: Faulty,
    holders: Vec<Holder>,
    issued: HashSet<u64>,
    layout: BitLayout,
    coverage: Coverage,
}

impl Sim {
    fn new(seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let store_clock = Arc::new(ManualClock::new(T0));
        let store = Faulty {
            inner: Mutex::new(MemoryLeaseStore::with_clock(store_clock.clone())),
            faults: Mutex::new(Faults {
                rng: Rng::new(rng.next()),
                down_until: 0,
                now: T0,
                fail_percent: rng.below(8),
                lost_percent: rng.below(8),
                injected: 0,
            }),
        };
        let holders = (0..HOLDERS)
            .map(|_| Holder {
                clock: Arc::new(ManualClock::new(T0)),
                skew: rng.below(2 * SKEW_MS) as i64 - SKEW_MS as i64,
                paused_until: 0,
                stale_reading: None,
                life: Life::Down,
            })
            .collect();
        Sim {
            rng,
            now: T0,
            store_clock,
            store,
            holders,
            issued: HashSet::new(),
            layout: presets::twitter(),
            coverage: Coverage::default(),
        }
    }

    fn options(&self, clock: Arc<ManualClock>) -> LeaseOptions<BitLayout, Arc<ManualClock>> {
        LeaseOptions::new(SPACE, self.layout.clone())
            .clock(clock)
            .nodes(NODES)
            .ttl(Duration::from_millis(TTL_MS))
            .renew_every(Duration::from_millis(RENEW_MS))
            .at_ceiling(CeilingWait::Fail)
            .max_clock_skew(Duration::from_millis(SKEW_MS))
            .holder("sim")
    }

    /// Sets every clock to the store's time plus its skew.
    fn tick(&mut self, by: u64) {
        self.now += by;
        self.store_clock.set(self.now);
        self.store.faults.lock().unwrap().now = self.now;
        for h in &self.holders {
            h.clock.set(self.now.saturating_add_signed(h.skew));
        }
    }

    fn run(&mut self) -> Result<(), String> {
        run(self.store.ensure_nodes(SPACE, NODES)).ok();
        for _ in 0..STEPS {
            let i = self.rng.below(HOLDERS as u64) as usize;
            match self.rng.below(100) {
                0..=29 => {
                    let by = self.rng.below(RENEW_MS * 2);
                    self.tick(by);
                }
                30..=54 => self.issue(i)?,
                55..=79 => self.renew_or_start(i)?,
                80..=83 => self.pause(i),
                84..=86 => self.crash(i),
                87..=89 => self.release(i)?,
                90..=93 => self.step_clock(i),
                94..=96 => {
                    let until = self.now + self.rng.below(3 * TTL_MS);
                    self.store.faults.lock().unwrap().down_until = until;
                }
                _ => {
                    // Everyone runs for a while: renewals and moves catch up.
                    for _ in 0..2 {
                        self.tick(RENEW_MS);
                        for j in 0..HOLDERS {
                            self.renew_or_start(j)?;
                            self.issue(j)?;
                        }
                    }
                }
            }
        }
        self.coverage.faults += self.store.faults.lock().unwrap().injected;
        self.check_all_marks()
    }

    fn paused(&self, i: usize) -> bool {
        self.holders[i].paused_until > self.now
    }

    fn pause(&mut self, i: usize) {
        if self.paused(i) {
            return;
        }
        let until = self.now + self.rng.below(3 * TTL_MS);
        let stale = self.rng.chance(50);
        let h = &mut self.holders[i];
        h.paused_until = until;
        if stale {
            h.stale_reading = Some(h.clock.now_millis());
        }
    }

    fn step_clock(&mut self, i: usize) {
        let skew = if self.rng.chance(20) {
            // ± minutes: a clock stepped by hand, or badly kept.
            self.rng.below(600_000) as i64 - 300_000
        } else {
            self.rng.below(2 * SKEW_MS) as i64 - SKEW_MS as i64
        };
        let h = &mut self.holders[i];
        h.skew = skew;
        h.clock.set(self.now.saturating_add_signed(skew));
    }

    fn crash(&mut self, i: usize) {
        if let Life::Up { core, .. } = &self.holders[i].life {
            core.dropped();
            self.coverage.crashes += 1;
        }
        self.holders[i].life = Life::Down;
    }

    /// Starts a holder (a process claiming a node), or runs its renewal
    /// when due, or a round of its move to a new node.
    fn renew_or_start(&mut self, i: usize) -> Result<(), String> {
        if self.paused(i) {
            return Ok(());
        }
        let clock = self.holders[i].clock.clone();
        let Life::Up {
            core,
            process,
            next_renewal,
        } = &self.holders[i].life
        else {
            return self.start(i, clock);
        };
        let (core, process, due) = (core.clone(), process.clone(), *next_renewal);
        if core.is_moving() {
            return self.move_round(i, &core);
        }
        if core.is_stopped() {
            // Lost for good: the process exits and is restarted.
            self.holders[i].life = Life::Down;
            return Ok(());
        }
        if self.now < due {
            return Ok(());
        }
        let Some((holding, ceiling)) = core.renewal() else {
            return Ok(());
        };
        let result = run(self.store.renew(&core.renew_request(&holding, ceiling)));
        if matches!(result, Ok(Renewal::ClockAhead { .. })) {
            self.coverage.clock_refusals += 1;
        }
        let next = core.renewed(&holding, ceiling, std::time::Instant::now(), result);
        if let Life::Up { next_renewal, .. } = &mut self.holders[i].life {
            *next_renewal = self.now + RENEW_MS;
        }
        match next {
            Next::Renew => Ok(()),
            Next::Stop => {
                self.coverage.lost += 1;
                Ok(())
            }
            Next::Move => {
                self.coverage.lost += 1;
                drop(process);
                self.move_round(i, &core)
            }
        }
    }

    fn start(&mut self, i: usize, clock: Arc<ManualClock>) -> Result<(), String> {
        let mut plan = self
            .options(clock)
            .plan()
            .map_err(|e| format!("options: {e}"))?;
        plan.owner = format!("{:032x}", self.rng.next());
        plan.start = self.rng.below(NODES.end() - NODES.start() + 1);
        let won = match run(plan.claim_round(&self.store)) {
            Ok(Round::Won(won)) => won,
            Ok(Round::NoneFree(_)) => return Ok(()),
            Err(crate::LeaseError::ClockAhead { .. }) => {
                self.coverage.clock_refusals += 1;
                return Ok(());
            }
            Err(_) => return Ok(()),
        };
        self.coverage.claims += 1;
        let core = Core::new(plan, won);
        // A process-wide generator of this holder's own (not installed:
        // the simulation runs many), attached to its lease.
        let process = match flakeid_core::__private::process_generator(
            core.generator_builder()
                .clock_regression(ClockRegression::Fail)
                .sequence_exhaustion(SequenceExhaustion::Fail),
        ) {
            Ok(p) => p,
            // The clock is behind the node's mark by more than the layout
            // allows at build time (it does not): nothing was issued.
            Err(e) => return Err(format!("build: {e}")),
        };
        self.holders[i].life = Life::Up {
            core,
            process,
            next_renewal: self.now + RENEW_MS,
        };
        Ok(())
    }

    fn move_round(&mut self, i: usize, core: &Lease) -> Result<(), String> {
        match run(core.plan.claim_round(&self.store)) {
            Ok(Round::Won(won)) => match core.moved(won) {
                Ok(()) => {
                    self.coverage.moves += 1;
                    if let Life::Up { next_renewal, .. } = &mut self.holders[i].life {
                        *next_renewal = self.now + RENEW_MS;
                    }
                }
                Err(won) => {
                    let _ = run(self.store.release(&ReleaseRequest {
                        space: SPACE,
                        node: won.node,
                        owner: &core.plan.owner,
                        fence: won.row.fence,
                        high_water_millis: won.row.high_water_millis,
                    }));
                }
            },
            Ok(Round::NoneFree(_)) => {}
            Err(e) => core.move_failed(&e),
        }
        Ok(())
    }

    fn release(&mut self, i: usize) -> Result<(), String> {
        if self.paused(i) {
            return Ok(());
        }
        let Life::Up { core, process, .. } = &self.holders[i].life else {
            return Ok(());
        };
        let (core, process) = (core.clone(), process.clone());
        if let Ok((holding, mark)) = core.finish(Some(sealable(&*process))) {
            let result = run(self.store.release(&core.release_request(&holding, mark)));
            if core.released(&holding, mark, result).is_ok() {
                self.coverage.releases += 1;
            }
        }
        self.holders[i].life = Life::Down;
        Ok(())
    }

    /// The holder issues a few IDs, checking each against the store.
    fn issue(&mut self, i: usize) -> Result<(), String> {
        if self.paused(i) {
            return Ok(());
        }
        let Life::Up { process, .. } = &self.holders[i].life else {
            return Ok(());
        };
        let process = process.clone();
        let n = 1 + self.rng.below(4);
        let h = &mut self.holders[i];
        let stale = h.stale_reading.take();
        if let Some(stale) = stale {
            h.clock.set(stale);
        }
        let mut ids = Vec::new();
        for _ in 0..n {
            match process.try_next_id() {
                Ok(id) => ids.push(id),
                Err(GenerateError::Fenced(_)) => self.coverage.fenced_calls += 1,
                Err(_) => {}
            }
        }
        if stale.is_some() {
            let h = &self.holders[i];
            h.clock.set(self.now.saturating_add_signed(h.skew));
        }
        let table = self.store.table();
        for id in ids {
            self.coverage.ids += 1;
            if !self.issued.insert(id) {
                return Err(format!("ID {id} issued twice (holder {i})"));
            }
            if let Some((stamped, node, mark)) = self.past_mark(&table, id) {
                return Err(format!(
                    "holder {i} stamped ID {id} at {stamped} ms on node {node}, past the node's \
                     persisted high-water mark {mark} ms"
                ));
            }
        }
        Ok(())
    }

    /// When `id` was stamped, its node and the node's mark in `table`, if
    /// the stamp lies past the mark.
    fn past_mark(&self, table: &NodeTable, id: u64) -> Option<(u64, u64, u64)> {
        let parts = self.layout.decompose(id);
        let stamped = parts.tick + self.layout.epoch_millis();
        let mark = table
            .rows
            .iter()
            .find(|r| r.node == parts.node)
            .map_or(0, |r| r.high_water_millis);
        (stamped > mark).then_some((stamped, parts.node, mark))
    }

    /// Every ID ever issued lies at or below its node's mark at the end.
    fn check_all_marks(&self) -> Result<(), String> {
        let table = self.store.table();
        for id in &self.issued {
            if let Some((stamped, node, mark)) = self.past_mark(&table, *id) {
                return Err(format!(
                    "ID {id} stamped {stamped} ms on node {node} is past the node's final mark {mark} ms"
                ));
            }
        }
        Ok(())
    }
}

fn schedule(seed: u64) -> Result<Coverage, String> {
    let outcome = std::panic::catch_unwind(|| {
        let mut sim = Sim::new(seed);
        sim.run().map(|()| sim.coverage)
    });
    match outcome {
        Ok(Ok(c)) => Ok(c),
        Ok(Err(e)) => Err(e),
        Err(p) => Err(format!(
            "panicked: {}",
            p.downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                .unwrap_or_default()
        )),
    }
}

#[test]
fn no_schedule_issues_an_id_twice_or_past_a_persisted_mark() {
    if let Some(seed) = env_u64("FLAKEID_SIM_SEED") {
        if let Err(e) = schedule(seed) {
            panic!("seed {seed}: {e}");
        }
        return;
    }
    let schedules = env_u64("FLAKEID_SIM_SCHEDULES").unwrap_or(100_000);
    let base = env_u64("FLAKEID_SIM_BASE").unwrap_or(0x5EED_F1A6);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let totals = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    let mut total = Coverage::default();
                    let mut i = t;
                    while i < schedules {
                        let seed = schedule_seed(base, i);
                        match schedule(seed) {
                            Ok(c) => {
                                total.ids += c.ids;
                                total.claims += c.claims;
                                total.moves += c.moves;
                                total.lost += c.lost;
                                total.clock_refusals += c.clock_refusals;
                                total.releases += c.releases;
                                total.crashes += c.crashes;
                                total.faults += c.faults;
                                total.fenced_calls += c.fenced_calls;
                            }
                            Err(e) => panic!(
                                "schedule {i} failed: {e}\nreplay: FLAKEID_SIM_SEED={seed} \
                                 cargo test -p flakeid-lease --lib simulation"
                            ),
                        }
                        i += threads;
                    }
                    total
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect::<Vec<_>>()
    });
    let sum = |f: fn(&Coverage) -> u64| totals.iter().map(f).sum::<u64>();
    let (ids, claims, moves, lost, refusals, releases, crashes, faults, fenced) = (
        sum(|c| c.ids),
        sum(|c| c.claims),
        sum(|c| c.moves),
        sum(|c| c.lost),
        sum(|c| c.clock_refusals),
        sum(|c| c.releases),
        sum(|c| c.crashes),
        sum(|c| c.faults),
        sum(|c| c.fenced_calls),
    );
    println!(
        "{schedules} schedules: {ids} IDs, {claims} claims, {lost} leases lost, {moves} moves, \
         {refusals} clock refusals, {releases} releases, {crashes} crashes, {faults} store faults, \
         {fenced} fenced calls"
    );
    // The schedules reach every part of the protocol (a simulation that
    // never loses a lease proves nothing about moving).
    if schedules >= 1_000 {
        for (what, n) in [
            ("IDs", ids),
            ("claims", claims),
            ("lost leases", lost),
            ("moves", moves),
            ("clock refusals", refusals),
            ("releases", releases),
            ("crashes", crashes),
            ("store faults", faults),
            ("fenced calls", fenced),
        ] {
            assert!(
                n >= schedules / 100,
                "only {n} {what} in {schedules} schedules"
            );
        }
    }
}
