//! The nonsequential key (random low bits) with its published bit patterns
//! and collision rate. (The random starting sequence per tick,
//! `RandomStart`, is tested in `random_start.rs`.)

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use flakeid_core::layout::{Layout, LayoutError, Parts, presets};
use flakeid_core::{ConfigError, GenerateError, ManualClock};
use flakeid_schemes::{DecimalLayout, RandomKeyGenerator, RandomKeys};

/// 2012-09-01, the timestamp of the published examples.
const SEPT_2012: u64 = 1_346_472_000_000;
const EPOCH_2024: u64 = 1_704_067_200_000;

#[test]
fn published_bit_patterns_with_the_unix_epoch() {
    assert_eq!(
        format!("{SEPT_2012:#b}"),
        "0b10011100101111111111111000011101000000000"
    );
    assert_eq!(
        format!(
            "{:#b}",
            RandomKeys::compose_unix_u64(SEPT_2012, 0, 0).unwrap()
        ),
        "0b1001110010111111111111100001110100000000000000000000000000000000"
    );
    let cases = [
        (
            1,
            1,
            "0b1001110010111111111111100001110100000000000000000010000000000001",
        ),
        (
            1 << 9,
            1 << 12,
            "0b1001110010111111111111100001110100000000010000000001000000000000",
        ),
        (
            (1 << 10) - 1,
            (1 << 13) - 1,
            "0b1001110010111111111111100001110100000000011111111111111111111111",
        ),
    ];
    for (generator, random, bits) in cases {
        let key = RandomKeys::compose_unix_u64(SEPT_2012, generator, random).unwrap();
        assert_eq!(format!("{key:#b}"), bits);
        assert_eq!(key, (SEPT_2012 << 23) + (generator << 13) + random);
        assert_eq!(
            RandomKeys::decompose_unix_u64(key),
            Parts {
                tick: SEPT_2012,
                node: generator,
                sequence: random
            }
        );
        // 64 bits with the top one set: negative as a signed BIGINT.
        assert!(i64::try_from(key).is_err());
    }
    // The keys printed by the published code, generator 1.
    for key in [
        11_402_993_483_053_546_203u64,
        11_402_993_501_995_022_952,
        11_402_993_515_760_721_961,
    ] {
        let p = RandomKeys::decompose_unix_u64(key);
        assert_eq!(p.node, 1);
        assert!((1..=8191).contains(&p.sequence));
        assert_eq!(
            RandomKeys::compose_unix_u64(p.tick, p.node, p.sequence).unwrap(),
            key
        );
    }
    // The time bits run out on 2039-09-07T15:47:35.552Z.
    assert!(matches!(
        RandomKeys::compose_unix_u64(1 << 41, 0, 0),
        Err(LayoutError::PartOutOfRange { value, max, .. }) if value == 1 << 41 && max == (1 << 41) - 1
    ));
    assert!(RandomKeys::compose_unix_u64(0, 1024, 0).is_err());
    assert!(RandomKeys::compose_unix_u64(0, 0, 8192).is_err());
}

#[test]
fn custom_epoch_variant_stays_positive() {
    let l = presets::nonsequential();
    assert_eq!(l.epoch_millis(), EPOCH_2024);
    // Same low 23 bits as the published keys.
    assert_eq!(
        l.compose(12_345, 1, 1) & ((1 << 23) - 1),
        RandomKeys::compose_unix_u64(SEPT_2012, 1, 1).unwrap() & ((1 << 23) - 1)
    );
    // The largest key, at its last millisecond, is i64::MAX.
    assert_eq!(l.compose(l.max_tick(), 1023, 8191), i64::MAX as u64);
    assert_eq!(l.end_millis(), 2_803_578_827_776); // 2058-11-03T19:53:47.776Z
    // Keys issued now and at the last millisecond are positive BIGINTs.
    for now in [EPOCH_2024 + 1, 1_780_000_000_000, l.end_millis() - 1] {
        let g = RandomKeyGenerator::builder(l.clone(), 1023)
            .clock(Arc::new(ManualClock::new(now)))
            .seed(5)
            .build()
            .unwrap();
        for _ in 0..1000 {
            let key = g.next_id().unwrap();
            assert!(i64::try_from(key).is_ok_and(|k| k >= 1), "{key}");
            let p = l.decompose(key);
            assert_eq!((p.tick, p.node), (now - EPOCH_2024, 1023));
            assert!((1..=8191).contains(&p.sequence));
        }
    }
    let clock = Arc::new(ManualClock::new(l.end_millis() - 1));
    let g = RandomKeyGenerator::builder(l.clone(), 0)
        .clock(clock.clone())
        .build()
        .unwrap();
    clock.set(l.end_millis());
    assert_eq!(
        g.next_id(),
        Err(GenerateError::TimeExhausted {
            end_millis: l.end_millis()
        })
    );
}

#[test]
fn random_key_configuration_is_checked() {
    let clock = || Arc::new(ManualClock::new(EPOCH_2024 + 5));
    let e = RandomKeyGenerator::builder(presets::nonsequential(), 1024)
        .clock(clock())
        .build()
        .unwrap_err();
    assert_eq!(
        e,
        ConfigError::NodeOutOfRange {
            node: 1024,
            max: 1023
        }
    );
    let e = RandomKeyGenerator::builder(presets::nonsequential(), 1)
        .clock(Arc::new(ManualClock::new(EPOCH_2024 - 1)))
        .build()
        .unwrap_err();
    assert!(matches!(e, ConfigError::EpochInFuture { .. }));
    let one_seq = flakeid_core::layout::BitLayout::builder()
        .time_bits(40)
        .epoch_millis(EPOCH_2024)
        .sequence_bits(1)
        .build()
        .unwrap();
    assert!(
        RandomKeyGenerator::builder(one_seq, 0)
            .clock(clock())
            .build()
            .is_ok()
    );
    let tiny = DecimalLayout::builder()
        .time_digits(12)
        .sequence_digits(1)
        .epoch_millis(EPOCH_2024)
        .build()
        .unwrap();
    let g = RandomKeyGenerator::builder(tiny, 0)
        .clock(clock())
        .build()
        .unwrap();
    assert_eq!(g.values_per_tick(), 9);
}

/// Observed collision rate of `batches` milliseconds with `k` keys each.
fn observed_collision_rate(k: u64, batches: u64, seed: u64) -> f64 {
    let clock = Arc::new(ManualClock::new(EPOCH_2024 + 1));
    let g = RandomKeyGenerator::builder(presets::nonsequential(), 7)
        .clock(clock.clone())
        .seed(seed)
        .build()
        .unwrap();
    assert_eq!(g.values_per_tick(), 8191);
    let mut with_collision = 0u64;
    let mut seen = HashSet::with_capacity(k as usize);
    for _ in 0..batches {
        seen.clear();
        let mut collided = false;
        for _ in 0..k {
            collided |= !seen.insert(g.next_id().unwrap());
        }
        with_collision += u64::from(collided);
        clock.advance(Duration::from_millis(1));
    }
    with_collision as f64 / batches as f64
}

#[test]
fn collision_rate_matches_the_birthday_bound() {
    // Deterministic seeds: the outcome is fixed, the bounds are wide enough
    // (4.5 standard deviations) that any sound seed passes.
    for (k, batches, seed) in [(10, 40_000, 1), (50, 20_000, 2), (100, 10_000, 3)] {
        let p = RandomKeys::collision_probability(k, 8191);
        let approx = RandomKeys::collision_probability_approx(k, 8191);
        assert!((p - approx).abs() < 0.002, "k {k}: {p} vs {approx}");
        let observed = observed_collision_rate(k, batches, seed);
        let sd = (p * (1.0 - p) / batches as f64).sqrt();
        eprintln!(
            "k {k}: observed {observed:.4} over {batches} ms, birthday bound {p:.4} (sd {sd:.4})"
        );
        assert!(
            (observed - p).abs() < 4.5 * sd,
            "k {k}: observed {observed}, expected {p} ± {}",
            4.5 * sd
        );
    }
}
