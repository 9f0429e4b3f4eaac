//! DecimalId: counter · 10^10 + generator_id · 10^5 + launch_id.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::AtomicU32;
use std::thread;

use flakeid_schemes::DecimalIdError;
use flakeid_schemes::{DecimalIdGenerator, DecimalIdParts, DecimalIdScheme, GeneratorIdSource};

use crate::support::Script;

#[test]
fn published_example() {
    let id = 14_150_009_200_065u64;
    let p = DecimalIdParts::decompose(id).unwrap();
    assert_eq!(
        p,
        DecimalIdParts {
            counter: 1415,
            generator_id: 92,
            launch_id: 65
        }
    );
    assert_eq!(p.compose().unwrap(), id);
    assert_eq!(p.to_string(), "1415 00092 00065");
}

#[test]
fn largest_id_fits_a_signed_bigint() {
    let max = DecimalIdParts {
        counter: DecimalIdScheme::MAX_COUNTER,
        generator_id: DecimalIdScheme::MAX_GENERATOR_ID,
        launch_id: DecimalIdScheme::MAX_LAUNCH_ID,
    }
    .compose()
    .unwrap();
    assert_eq!(max, 9_223_372_029_999_999_999);
    assert!(max <= i64::MAX as u64);
    // Counter 922,337,203 would cap generator IDs at 68,547.
    const { assert!(922_337_203 * 10_000_000_000 + 68_548 * 100_000 > i64::MAX as u64) };
    assert!(matches!(
        DecimalIdParts::decompose(i64::MAX as u64),
        Err(DecimalIdError::CounterOutOfRange {
            counter: 922_337_203,
            ..
        })
    ));
    assert!(matches!(
        DecimalIdParts::decompose(u64::MAX),
        Err(DecimalIdError::CounterOutOfRange { .. })
    ));
    // The JavaScript-safe counter limit.
    let js = DecimalIdParts {
        counter: DecimalIdScheme::JS_SAFE_MAX_COUNTER,
        generator_id: DecimalIdScheme::MAX_GENERATOR_ID,
        launch_id: DecimalIdScheme::MAX_LAUNCH_ID,
    }
    .compose()
    .unwrap();
    assert!(js < (1 << 53));
    const {
        assert!(
            (DecimalIdScheme::JS_SAFE_MAX_COUNTER + 1) * 10_000_000_000 + 9_999_999_999
                >= (1 << 53)
        )
    };
}

#[test]
fn parts_are_checked() {
    let p = |counter, generator_id, launch_id| {
        DecimalIdParts {
            counter,
            generator_id,
            launch_id,
        }
        .compose()
    };
    assert!(matches!(
        p(0, 1, 1),
        Err(DecimalIdError::CounterOutOfRange {
            counter: 0,
            max: DecimalIdScheme::MAX_COUNTER
        })
    ));
    assert!(matches!(
        p(1, 100_000, 1),
        Err(DecimalIdError::GeneratorIdOutOfRange {
            generator_id: 100_000,
            ..
        })
    ));
    assert!(matches!(
        p(1, 1, 100_000),
        Err(DecimalIdError::LaunchIdOutOfRange {
            launch_id: 100_000,
            ..
        })
    ));
    // IDs below 10^10 have counter 0: never issued.
    assert!(DecimalIdParts::decompose(9_999_999_999).is_err());
}

#[test]
fn launch_id_zero_needs_the_test_flag() {
    let source = AtomicU32::new(5);
    let e = DecimalIdGenerator::builder(0, &source).build().unwrap_err();
    assert!(matches!(e, DecimalIdError::TestLaunchId));
    assert!(e.to_string().contains("reserved for tests"));
    let e = DecimalIdGenerator::builder(100_000, &source)
        .build()
        .unwrap_err();
    assert!(matches!(
        e,
        DecimalIdError::LaunchIdOutOfRange {
            launch_id: 100_000,
            max: 99_999
        }
    ));
    let g = DecimalIdGenerator::builder(0, &source)
        .allow_test_launch_id()
        .build()
        .unwrap();
    assert_eq!(g.next_id().unwrap(), 10_000_500_000);
}

#[test]
fn counts_then_takes_a_new_generator_id() {
    let source = AtomicU32::new(92);
    let g = DecimalIdGenerator::builder(65, &source)
        .max_counter(1415)
        .build()
        .unwrap();
    assert_eq!(g.generator_id(), 92);
    let ids: Vec<u64> = (0..1415).map(|_| g.next_id().unwrap()).collect();
    assert_eq!(ids[0], 10_009_200_065);
    assert_eq!(ids[1414], 14_150_009_200_065);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    // Counter used up: generator ID 93, counter 1 again.
    let next = g.next_id().unwrap();
    assert_eq!(next, 10_009_300_065);
    assert_eq!(g.generator_id(), 93);
    assert_eq!(
        DecimalIdParts::decompose(next).unwrap().to_string(),
        "1 00093 00065"
    );
}

#[test]
fn max_counter_is_checked() {
    let source = AtomicU32::new(1);
    for bad in [0, DecimalIdScheme::MAX_COUNTER + 1] {
        let e = DecimalIdGenerator::builder(1, &source)
            .max_counter(bad)
            .build()
            .unwrap_err();
        assert!(matches!(e, DecimalIdError::CounterOutOfRange { counter, .. } if counter == bad));
    }
}

#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(crate) struct ScriptError(&'static str);

/// A source that fails on demand and can be told to repeat itself.
impl GeneratorIdSource for Script<Result<u32, &'static str>> {
    type Error = ScriptError;
    fn next_generator_id(&self) -> Result<u32, ScriptError> {
        let answer = self.answer().unwrap_or(Err("no more values"));
        answer.map_err(ScriptError)
    }
}

#[test]
fn source_failures_are_reported_and_retried() {
    let source = Script::new([
        Ok(7),
        Err("database unavailable"),
        Ok(7),
        Ok(100_000),
        Ok(8),
    ]);
    let g = DecimalIdGenerator::builder(3, &source)
        .max_counter(2)
        .build()
        .unwrap();
    assert_eq!(g.next_id().unwrap(), 10_000_700_003);
    assert_eq!(g.next_id().unwrap(), 20_000_700_003);
    let e = g.next_id().unwrap_err();
    assert!(matches!(e, DecimalIdError::Source { .. }));
    assert_eq!(
        e.to_string(),
        "the generator ID source failed: database unavailable"
    );
    assert!(matches!(
        g.next_id(),
        Err(DecimalIdError::GeneratorIdRepeated { generator_id: 7 })
    ));
    assert!(matches!(
        g.next_id(),
        Err(DecimalIdError::GeneratorIdOutOfRange {
            generator_id: 100_000,
            max: 99_999
        })
    ));
    assert_eq!(g.next_id().unwrap(), 10_000_800_003);
    assert_eq!(source.calls(), 5);
}

#[test]
fn threads_get_unique_ids_across_refills() {
    let source = Arc::new(AtomicU32::new(1));
    let g = Arc::new(
        DecimalIdGenerator::builder(42, Arc::clone(&source))
            .max_counter(1000)
            .build()
            .unwrap(),
    );
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let g = Arc::clone(&g);
            thread::spawn(move || {
                let mut ids = Vec::with_capacity(25_000);
                for _ in 0..25_000 {
                    ids.push(g.next_id().unwrap());
                }
                ids
            })
        })
        .collect();
    let mut all = HashSet::new();
    for h in handles {
        let ids = h.join().unwrap();
        // Each thread's IDs increase within a generator ID.
        for w in ids.windows(2) {
            let (a, b) = (
                DecimalIdParts::decompose(w[0]).unwrap(),
                DecimalIdParts::decompose(w[1]).unwrap(),
            );
            assert!(
                b.generator_id > a.generator_id
                    || (b.generator_id == a.generator_id && b.counter > a.counter)
            );
        }
        for id in ids {
            assert!(all.insert(id), "duplicate {id}");
        }
    }
    assert_eq!(all.len(), 100_000);
    // 100 blocks of 1,000: exactly 100 generator IDs were taken.
    assert_eq!(g.generator_id(), 100);
    let used: HashSet<u32> = all
        .iter()
        .map(|&id| DecimalIdParts::decompose(id).unwrap().generator_id)
        .collect();
    assert_eq!(used.len(), 100);
}
