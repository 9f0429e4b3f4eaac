//! The process-wide generator on a leased node, each scenario in a child
//! process of its own (so tests never race on process environment or on
//! the one global generator): a lease fences only its own layout, a lost
//! lease moves the generator to a free node (or, with healing off, stays
//! lost), and a subscriber is told of every change.

use std::process::Command;

use flakeid_core::layout::{Layout, presets};
use flakeid_core::{ConfigError, global};

#[path = "all/support.rs"]
#[allow(dead_code)]
mod support;

use capture::Capture;
use support::next_change;

/// Opens test `$test`: in the parent process, runs the test in a child
/// process of its own with the variables `$var = $value` as its only
/// `FLAKEID_*` variables, requires it to pass and returns; in the child,
/// goes on with the test.
macro_rules! in_child {
    ($test:ident $(, $var:literal = $value:literal)* $(,)?) => {
        let _: fn() = $test;
        if !is_child() {
            run_child(stringify!($test), &[$(($var, $value)),*]);
            return;
        }
    };
}

const CHILD: &str = "FLAKEID_TEST_GLOBAL_CHILD";

fn is_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// Runs test `name` of this binary in a child process with `vars` as the
/// only `FLAKEID_*` variables, requires it to pass, and returns its stderr.
fn run_child(name: &str, vars: &[(&str, &str)]) -> String {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new(exe);
    cmd.args([name, "--exact", "--test-threads=1", "--nocapture"]);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("FLAKEID_") {
            cmd.env_remove(key);
        }
    }
    cmd.envs(vars.iter().copied()).env(CHILD, "1");
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child {name} failed:\n{stdout}\n{stderr}"
    );
    stderr.into_owned()
}

/// A `tracing` subscriber that keeps the events of one target (and those
/// below it) as lines of text: `LEVEL message key=value …`.
mod capture {
    use std::fmt::Write as _;
    use std::sync::{Arc, Mutex};

    use tracing::field::{Field, Visit};
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    /// The lines of the events seen so far; clones share them.
    #[derive(Clone)]
    pub(crate) struct Capture {
        target: &'static str,
        lines: Arc<Mutex<Vec<String>>>,
    }

    impl Capture {
        /// Keeps the events whose target starts with `target`.
        pub(crate) fn of(target: &'static str) -> Capture {
            Capture {
                target,
                lines: Arc::default(),
            }
        }

        /// The lines kept so far, oldest first.
        pub(crate) fn lines(&self) -> Vec<String> {
            self.lines.lock().unwrap().clone()
        }
    }

    impl Subscriber for Capture {
        fn enabled(&self, metadata: &Metadata<'_>) -> bool {
            metadata.target().starts_with(self.target)
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, event: &Event<'_>) {
            let mut line = Line(event.metadata().level().to_string());
            event.record(&mut line);
            self.lines.lock().unwrap().push(line.0);
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }

    /// One event's fields after its level, the message bare.
    struct Line(String);

    impl Visit for Line {
        fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
            if field.name() == "message" {
                let _ = write!(self.0, " {value:?}");
            } else {
                let _ = write!(self.0, " {}={value:?}", field.name());
            }
        }
    }
}

/// A node ID leased for one ID space (layout and epoch) is fenced by that
/// lease only: an ID type of another layout must not draw process-wide IDs
/// with it, unfenced.
#[test]
fn a_leased_node_id_serves_only_its_own_layout() {
    in_child!(a_leased_node_id_serves_only_its_own_layout);
    use flakeid_core::{GenerateError, flake_id};
    use flakeid_lease::{LeaseOptions, MemoryLeaseStore};

    #[flake_id]
    struct PostId(i64);
    #[flake_id(layout = presets::sonyflake)]
    struct EventId(i64);

    let lease = LeaseOptions::new("posts", presets::twitter())
        .nodes(3..=3)
        .claim(MemoryLeaseStore::new())
        .unwrap();
    global::init(lease.generator_builder()).unwrap();
    assert!(global::generator().unwrap().is_fenced());
    assert_eq!(
        PostId::generate().unwrap().decode().parts.map(|p| p.node),
        Some(3)
    );
    let e = EventId::generate().unwrap_err().error;
    assert!(
        matches!(
            &e,
            GenerateError::Config(ConfigError::LeasedForOneLayout { leased })
                if leased == "the twitter layout"
        ),
        "{e}"
    );
}

/// A lease store behind a link a test can cut, and the holder's set-up.
mod link {
    use std::sync::Arc;
    use std::time::Duration;

    use flakeid_core::ManualClock;
    use flakeid_core::global::ProcessGenerator;
    use flakeid_core::layout::{BitLayout, presets};
    use flakeid_lease::{LeaseOptions, MemoryLeaseStore, NodeLease};
    use flakeid_sql::Outage;

    /// A holder cut off from its store on demand: a manual clock shared by
    /// an in-memory store and the lease options of `space` (nodes 0 and 1,
    /// claimed in order, a 400 ms TTL, renewals every 250 ms, long enough
    /// for a loaded machine's scheduling delays), and the link to claim
    /// through: the store behind `outage`.
    pub(crate) struct CutOff {
        pub(crate) clock: Arc<ManualClock>,
        pub(crate) store: MemoryLeaseStore,
        pub(crate) link: MemoryLeaseStore,
        pub(crate) outage: Outage,
        pub(crate) options: LeaseOptions<BitLayout, Arc<ManualClock>>,
    }

    impl CutOff {
        pub(crate) fn new(space: &str) -> CutOff {
            let clock = Arc::new(ManualClock::new(1_700_000_000_000));
            let store = MemoryLeaseStore::with_clock(clock.clone());
            let outage = Outage::new();
            let link = store.behind(&outage);
            let options = LeaseOptions::new(space, presets::twitter())
                .clock(clock.clone())
                .nodes(0..=1)
                .spread_claims(false)
                .ttl(Duration::from_millis(400))
                .renew_every(Duration::from_millis(250));
            CutOff {
                clock,
                store,
                link,
                outage,
                options,
            }
        }

        /// Another holder's claim of node 0, straight from the store (once
        /// the lease on it expired).
        pub(crate) fn take_node_0(&self) -> NodeLease<BitLayout, Arc<ManualClock>> {
            self.options
                .clone()
                .nodes(0..=0)
                .claim(self.store.clone())
                .expect("node 0 expired")
        }

        /// Claims a node through the link and makes its generator the
        /// process-wide one.
        pub(crate) fn claim_process_wide(
            &self,
        ) -> (
            NodeLease<BitLayout, Arc<ManualClock>>,
            &'static ProcessGenerator,
        ) {
            let lease = self.options.clone().claim(self.link.clone()).unwrap();
            let generator = flakeid_core::global::init(lease.generator_builder()).unwrap();
            (lease, generator)
        }
    }
}

/// A lease that is lost moves the process-wide generator to a free node:
/// callers keep calling it, no ID repeats, no call that starts after the
/// move gets an ID of the old node, the new node's IDs start after its
/// mark, every step is an event, and the status says where the lease is.
/// With a manual clock shared by the store and the holder, as a test of
/// user code would drive leased IDs.
#[test]
fn a_lost_lease_moves_the_process_wide_generator_to_a_free_node() {
    use std::collections::HashSet;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use flakeid_core::Clock;
    use flakeid_lease::LeaseStatus;

    use link::CutOff;

    in_child!(a_lost_lease_moves_the_process_wide_generator_to_a_free_node);
    let events = Capture::of("flakeid");
    tracing::subscriber::set_global_default(events.clone()).unwrap();
    let find = |text: &str| events.lines().into_iter().find(|l| l.contains(text));
    // This child process's own recorder: the move is counted.
    #[cfg(feature = "metrics")]
    let snapshotter = {
        let recorder = metrics_util::debugging::DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        recorder
            .install()
            .expect("the only recorder of this process");
        snapshotter
    };

    let cut = CutOff::new("heal");
    let (lease, generator) = cut.claim_process_wide();
    assert_eq!(lease.node(), 0);
    // A custom clock feeds the process-wide generator.
    assert!(std::ptr::eq(generator, global::generator().unwrap()));

    let stop = Arc::new(AtomicBool::new(false));
    let workers: Vec<_> = (0..3)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                let g = global::generator().unwrap();
                let mut ids = Vec::new();
                while !stop.load(Ordering::Relaxed) {
                    let moves_before = g.moves();
                    match g.next_id() {
                        Ok(id) => ids.push((moves_before, id)),
                        Err(_) => std::thread::sleep(Duration::from_millis(1)),
                    }
                    if ids.len() % 64 == 0 {
                        std::thread::sleep(Duration::from_micros(200));
                    }
                }
                ids
            })
        })
        .collect();
    let wait = |what: &str, cond: &dyn Fn() -> bool| {
        for _ in 0..30_000 {
            if cond() {
                return;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        panic!("never happened: {what}");
    };
    wait("IDs flow", &|| cut.clock.now_millis() > 1_700_000_000_005);
    // Cut off past its TTL; another holder takes node 0.
    cut.outage.start();
    wait("a renewal fails", &|| {
        matches!(lease.status(), LeaseStatus::RenewingLate { .. })
    });
    cut.clock.advance(Duration::from_millis(1_000));
    let taker = cut.take_node_0();
    assert_eq!(taker.node(), 0);
    // Back on the network: the renewal finds node 0 taken, the lease
    // claims node 1, and the generator moves there.
    cut.outage.end();
    wait("the generator moves", &|| generator.moves() == 1);
    assert_eq!(generator.node(), 1);
    assert_eq!(lease.node(), 1);
    assert!(matches!(lease.status(), LeaseStatus::Held { node: 1, .. }));
    // The workers move the manual clock as they use up its ticks: 10 ms
    // past the move are 40,960 IDs of node 1. (A fixed time would be
    // reached before the move when they ran ahead while node 0 was cut off.)
    let moved_at = cut.clock.now_millis();
    wait("IDs of node 1 flow", &|| {
        cut.clock.now_millis() > moved_at + 10
    });
    stop.store(true, Ordering::Relaxed);
    let mut seen = HashSet::new();
    let (mut old, mut new) = (0, 0);
    for w in workers {
        for (moves_before, id) in w.join().unwrap() {
            assert!(seen.insert(id), "ID {id} issued twice");
            let node = presets::twitter().decompose(id).node;
            if moves_before >= 1 {
                assert_eq!(
                    node, 1,
                    "a call that started after the move got an ID of node {node}"
                );
            }
            if node == 0 { old += 1 } else { new += 1 }
        }
    }
    assert!(old > 0 && new > 0, "{old} IDs of node 0, {new} of node 1");
    // Node 1's IDs start after its previous mark (0 here) and node 0's
    // new holder starts after everything this process stamped on node 0.
    let last_old = seen
        .iter()
        .filter(|id| presets::twitter().decompose(**id).node == 0)
        .map(|id| presets::twitter().decompose(*id).tick + presets::twitter().epoch_millis())
        .max()
        .unwrap();
    assert!(taker.resume_after_millis() >= last_old);

    for what in [
        "node lease claimed",
        "node lease renewal failed",
        "node lease lost",
        "node lease re-claimed",
    ] {
        let line = find(what).unwrap_or_else(|| panic!("no {what:?} event"));
        for field in ["space=heal", "node=", "fence=", "owner="] {
            assert!(line.contains(field), "{what}: {line}");
        }
    }
    assert!(find("from_node=0").is_some());
    #[cfg(feature = "metrics")]
    {
        // One snapshot: reading one drains the recorder.
        let snapshot = snapshotter.snapshot().into_vec();
        let counted = |name: &str, label: (&str, &str)| -> u64 {
            snapshot
                .iter()
                .filter(|(k, ..)| {
                    k.key().name() == name
                        && k.key()
                            .labels()
                            .any(|l| l.key() == label.0 && l.value() == label.1)
                })
                .map(|(.., v)| match v {
                    metrics_util::debugging::DebugValue::Counter(c) => *c,
                    other => panic!("{name} is not a counter: {other:?}"),
                })
                .sum()
        };
        assert_eq!(counted("flakeid_node_moves_total", ("space", "heal")), 1);
        // Every ID issued on the node moved off is counted, its last tick
        // included (the generator enters no later tick there).
        assert_eq!(
            counted("flakeid_ids_issued_total", ("node", "0")),
            old,
            "IDs counted as issued on node 0"
        );
    }
    // Released from the process-wide generator, on its new node.
    let mark = lease.release(generator).unwrap();
    let row = cut
        .store
        .table("heal")
        .rows
        .iter()
        .find(|r| r.node == 1)
        .cloned()
        .unwrap();
    assert_eq!((row.owner, row.high_water_millis), (None, mark));
    assert!(find("node lease released").is_some());
    assert!(generator.next_id().is_err(), "released: nothing more");
    taker.release_unused().unwrap();
}

/// With healing off, a lost lease stays lost: every call fails with
/// `Fenced` (for applications that prefer to exit and be restarted).
#[test]
fn a_lost_lease_without_healing_stays_lost() {
    use std::sync::Arc;
    use std::time::Duration;

    use flakeid_core::{FenceReason, GenerateError, ManualClock};
    use flakeid_lease::{LeaseOptions, LeaseStatus, MemoryLeaseStore};

    in_child!(a_lost_lease_without_healing_stays_lost);
    let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    let store = MemoryLeaseStore::with_clock(clock.clone());
    let options = LeaseOptions::new("no-heal", presets::twitter())
        .clock(clock.clone())
        .nodes(0..=1)
        .spread_claims(false)
        .ttl(Duration::from_millis(400))
        .renew_every(Duration::from_millis(20))
        .heal(false);
    let lease = options.clone().claim(store.clone()).unwrap();
    let generator = global::init(lease.generator_builder()).unwrap();
    generator.next_id().unwrap();
    // Another holder takes the node (as after an expiry) by the store's own hand.
    use flakeid_lease::LeaseStore as _;
    let mut raw = store.clone();
    assert!(
        raw.release(&flakeid_lease::ReleaseRequest {
            space: "no-heal",
            node: 0,
            owner: lease.owner(),
            fence: lease.fence(),
            high_water_millis: clock_ms(&clock) + 400,
        })
        .unwrap()
    );
    let taker = options.clone().nodes(0..=0).claim(store.clone()).unwrap();
    for _ in 0..30_000 {
        if matches!(
            lease.status(),
            LeaseStatus::Fenced {
                reason: FenceReason::Lost { .. },
                ..
            }
        ) {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    assert!(matches!(
        lease.status(),
        LeaseStatus::Fenced {
            reason: FenceReason::Lost { .. },
            ..
        }
    ));
    clock.advance(Duration::from_millis(1));
    assert!(matches!(generator.next_id(), Err(GenerateError::Fenced(_))));
    assert_eq!((generator.moves(), generator.node()), (0, 0));
    taker.release_unused().unwrap();
}

fn clock_ms(clock: &flakeid_core::ManualClock) -> u64 {
    use flakeid_core::Clock;
    clock.now_millis()
}

/// A subscriber is told of every change of a lease that is cut off from
/// its store, fenced at its ceiling, loses its node and moves the
/// process-wide generator to another, then is released: in order, each
/// once, while it happens.
#[test]
fn a_subscriber_sees_every_change_of_a_lease_that_is_cut_off_and_moves() {
    use std::time::Duration;

    use flakeid_core::FenceReason;
    use flakeid_lease::LeaseStatus;

    use link::CutOff;

    in_child!(a_subscriber_sees_every_change_of_a_lease_that_is_cut_off_and_moves);
    let cut = CutOff::new("told");
    let (lease, generator) = cut.claim_process_wide();
    let changes = lease.changes();
    next_change!(
        changes,
        "the state at subscription",
        LeaseStatus::Held { node: 0, .. }
    );

    cut.outage.start();
    next_change!(
        changes,
        "renewing late",
        LeaseStatus::RenewingLate { node: 0, .. }
    );
    // Past the ceiling (and the TTL): fenced at the next failed renewal.
    cut.clock.advance(Duration::from_millis(1_000));
    next_change!(
        changes,
        "fenced",
        LeaseStatus::Fenced {
            node: 0,
            reason: FenceReason::NotRenewed { .. },
            ..
        }
    );
    let taker = cut.take_node_0();
    cut.outage.end();
    next_change!(
        changes,
        "lost: moving",
        LeaseStatus::Moving { from_node: 0, .. }
    );
    next_change!(changes, "held on node 1", LeaseStatus::Held { node: 1, .. });
    assert_eq!(generator.node(), 1);
    // Renewals that go through are not changes.
    assert_eq!(changes.recv_timeout(Duration::from_millis(600)), None);

    lease.release(generator).unwrap();
    next_change!(changes, "released", LeaseStatus::Released);
    assert_eq!(changes.recv_timeout(Duration::from_millis(600)), None);
    taker.release_unused().unwrap();
}
