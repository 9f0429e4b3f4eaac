//! The process-wide generator's calls: on the default clock through the
//! first node's same-tick shortcut, after a move on the node moved to; on
//! another clock through the general path. Built with
//! `__private::process_generator` (not installed) and moved through the
//! hooks a node lease uses.

use std::sync::Arc;
use std::time::{Duration, Instant};

use flakeid_core::__private::{Ceiling, Movable, fork_current_tag, process_generator};
use flakeid_core::layout::{Layout, presets};
use flakeid_core::runtime::{Attempt, Sleep};
use flakeid_core::{
    CeilingWait, Clock, ClockRegression, GenerateError, Generator, IdSource, ManualClock,
    MonotonicClock,
};

/// tokio's timers, as any runtime's would be given.
struct Timers;

impl Sleep for Timers {
    fn sleep(&self, duration: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(duration)
    }
}

/// A ceiling an hour ahead of the default clock: nothing stops the
/// generator under it.
fn open_ceiling() -> Arc<Ceiling> {
    let ceiling = Arc::new(Ceiling::new(CeilingWait::Fail));
    let now = MonotonicClock::new().now_millis();
    assert!(ceiling.raise(now + 3_600_000, now));
    ceiling
}

/// The default clock's reading as the same-tick shortcut sees it: `None`
/// while no ticker publishes it (the shortcut then gives way).
fn shortcut_reading() -> Option<u64> {
    MonotonicClock::new().try_tagged_now()
}

/// Reads the default clock at a high rate until its ticker runs, so that
/// the same-tick shortcut reads it.
fn wake_the_ticker() {
    let until = Instant::now() + Duration::from_secs(5);
    while shortcut_reading().is_none() {
        assert!(
            Instant::now() < until,
            "the default clock's ticker never started"
        );
        for _ in 0..1_000 {
            std::hint::black_box(MonotonicClock::new().now_millis());
        }
    }
}

fn node_of(id: u64) -> u64 {
    presets::twitter().decompose(id).node
}

/// A move seals the first node's generator, so that its same-tick shortcut,
/// which every call tries first, fails from then on: no call that starts
/// after the move gets an ID of the old node, not even within the tick of
/// its last ID, blocking, non-blocking or async.
#[test]
fn after_a_move_no_call_gets_an_id_of_the_old_node_even_in_its_last_tick() {
    let ceiling = open_ceiling();
    let generator =
        process_generator(Generator::builder(presets::twitter(), 0).ceiling(ceiling.clone()))
            .unwrap();
    wake_the_ticker();
    let mut last = 0;
    for _ in 0..2_000 {
        let id = generator.next_id().unwrap();
        assert_eq!(node_of(id), 0);
        last = id;
    }
    assert!(generator.begin_move(&ceiling));
    let resume_after = presets::twitter().decompose(last).tick + presets::twitter().epoch_millis();
    generator.move_to(1, resume_after, open_ceiling()).unwrap();
    assert_eq!((generator.moves(), generator.node()), (1, 1));

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let mut ids = vec![generator.next_id().unwrap()];
    ids.push(
        runtime
            .block_on(generator.next_id_async_on(&Timers))
            .unwrap(),
    );
    for _ in 0..2_000 {
        ids.push(generator.next_id().unwrap());
        if let Ok(id) = generator.try_next_id() {
            ids.push(id);
        }
        if let Attempt::Ready(id) = IdSource::attempt_next_id(&*generator).unwrap() {
            ids.push(id);
        }
    }
    ids.extend(
        runtime
            .block_on(generator.next_batch_async_on(100, &Timers))
            .unwrap(),
    );
    assert!(
        ids.iter().all(|id| node_of(*id) == 1),
        "an ID of node 0 after the move"
    );
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    // The new node starts after the old node's last tick.
    assert!(presets::twitter().decompose(ids[0]).tick > presets::twitter().decompose(last).tick);
}

/// With a clock other than the default one, every call takes the general
/// path (the shortcut reads only the default clock), also after a move:
/// the IDs are those a plain generator on the same clock issues, and a
/// clock stepped back is refused as a plain generator refuses it, even
/// within the default clock's millisecond of the last ID, with its ticker
/// awake.
#[test]
fn on_another_clock_it_issues_what_a_plain_generator_on_that_clock_issues() {
    let clock = Arc::new(ManualClock::new(MonotonicClock::new().now_millis()));
    let ceiling = open_ceiling();
    let builder = || {
        Generator::builder(presets::twitter(), 3)
            .clock(clock.clone())
            .clock_regression(ClockRegression::Fail)
    };
    let plain = builder().build().unwrap();
    let process = process_generator(builder().ceiling(ceiling.clone())).unwrap();
    // The manual clock follows the default one, from after the build tick
    // on (no call waits for the next tick, which moves a manual clock).
    let follow = || clock.set(MonotonicClock::new().now_millis().max(clock.now_millis()));
    wake_the_ticker();
    follow();
    for i in 0..10_000 {
        follow();
        assert_eq!(
            process.next_id().unwrap(),
            plain.next_id().unwrap(),
            "ID {i}"
        );
    }
    step_back_in_the_millisecond(&clock, || plain.next_id());
    step_back_in_the_millisecond(&clock, || process.next_id());
    step_back_in_the_millisecond(&clock, || process.try_next_id());
    assert!(process.begin_move(&ceiling));
    process
        .move_to(4, clock.now_millis(), open_ceiling())
        .unwrap();
    step_back_in_the_millisecond(&clock, || process.next_id());
}

/// Steps `clock` back after each of a number of IDs from `call`, which must
/// then fail with `ClockRegressed`, until 20 such rounds passed within one
/// millisecond of the default clock that the manual one followed (where a
/// shortcut reading the default clock would continue the last ID's tick).
fn step_back_in_the_millisecond(
    clock: &ManualClock,
    mut call: impl FnMut() -> Result<u64, GenerateError>,
) {
    let mut telling = 0;
    for _ in 0..10_000 {
        wake_the_ticker();
        clock.set(MonotonicClock::new().now_millis().max(clock.now_millis()));
        let reading = shortcut_reading();
        call().unwrap();
        clock.step_back(Duration::from_millis(20));
        let refused = call();
        assert!(
            matches!(refused, Err(GenerateError::ClockRegressed { .. })),
            "{refused:?}"
        );
        clock.advance(Duration::from_millis(20));
        if reading.is_some_and(|r| r ^ fork_current_tag() == clock.now_millis())
            && reading == shortcut_reading()
        {
            telling += 1;
            if telling == 20 {
                return;
            }
        }
    }
    panic!("only {telling} rounds within one millisecond of the default clock");
}
