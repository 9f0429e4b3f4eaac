//! Keyed permutations for public IDs: bijection, domain checks and simple
//! randomness tests of the output for sequential input.

use flakeid_core::layout::Domain;
use flakeid_schemes::Permutation;
use flakeid_schemes::PermuteError;
use proptest::prelude::*;

const KEY: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
const MAX63: u64 = i64::MAX as u64;
const MAX53: u64 = (1 << 53) - 1;

/// Exhaustive: every value of `1..=max` maps into the domain, no two collide,
/// and decode inverts encode.
fn assert_bijection(p: &Permutation) {
    let max = p.max();
    let mut hit = vec![false; max as usize + 1];
    for id in 1..=max {
        let public = p.encode(id).unwrap();
        assert!(
            (1..=max).contains(&public),
            "{id} -> {public} outside 1..={max}"
        );
        assert!(!hit[public as usize], "{public} hit twice");
        hit[public as usize] = true;
        assert_eq!(p.decode(public).unwrap(), id);
    }
}

/// `id` (in `1..=max`) encodes to a value in `1..=max` that decodes back to
/// it, and decodes to one that encodes back to it.
fn round_trips(p: &Permutation, id: u64, max: u64) -> Result<(), TestCaseError> {
    let public = p.encode(id).unwrap();
    prop_assert!((1..=max).contains(&public));
    prop_assert_eq!(p.decode(public).unwrap(), id);
    prop_assert_eq!(p.encode(p.decode(id).unwrap()).unwrap(), id);
    Ok(())
}

#[test]
fn bijection_over_16_bits_for_several_keys() {
    for key in [0, 1, KEY, u128::MAX] {
        assert_bijection(&Permutation::new(key, (1 << 16) - 1).unwrap());
    }
}

#[test]
fn bijection_over_odd_widths_and_ragged_maxima() {
    // Odd widths and maxima that are not 2^w − 1 exercise cycle-walking.
    for max in [
        1,
        2,
        3,
        5,
        100,
        1_000,
        (1 << 15) - 1,
        1 << 15,
        40_000,
        (1 << 17) - 1,
    ] {
        assert_bijection(&Permutation::new(KEY, max).unwrap());
    }
}

#[test]
fn out_of_domain_values_are_typed_errors() {
    let p = Permutation::i63(KEY);
    assert_eq!(p.max(), MAX63);
    for bad in [0, MAX63 + 1, u64::MAX] {
        assert_eq!(
            p.encode(bad),
            Err(PermuteError::OutOfDomain {
                value: bad,
                max: MAX63
            })
        );
        assert_eq!(
            p.decode(bad),
            Err(PermuteError::OutOfDomain {
                value: bad,
                max: MAX63
            })
        );
    }
    let js = Permutation::js_safe(KEY);
    assert_eq!(js.max(), MAX53);
    assert_eq!(Permutation::for_domain(KEY, Domain::JsSafe), js);
    assert!(js.encode(MAX53 + 1).is_err());
    assert!(js.encode(MAX53).is_ok());
    assert_eq!(Permutation::new(KEY, 0), Err(PermuteError::EmptyDomain));
}

#[test]
fn different_keys_give_different_permutations() {
    let a = Permutation::i63(1);
    let b = Permutation::i63(2);
    let same = (1..=1_000u64)
        .filter(|&i| a.encode(i) == b.encode(i))
        .count();
    assert_eq!(same, 0);
}

#[test]
fn debug_does_not_print_the_key_material() {
    let text = format!("{:?}", Permutation::i63(KEY));
    assert_eq!(
        text,
        "Permutation { max: 9223372036854775807, width_bits: 64, .. }"
    );
}

proptest! {
    #[test]
    fn round_trip_over_the_63_bit_domain(id in 1..=MAX63, key in any::<u128>()) {
        round_trips(&Permutation::i63(key), id, MAX63)?;
    }

    #[test]
    fn round_trip_over_the_53_bit_domain(id in 1..=MAX53, key in any::<u128>()) {
        round_trips(&Permutation::js_safe(key), id, MAX53)?;
    }
}

const SAMPLES: u64 = 100_000;

/// Public IDs of sequential stored IDs — the worst case for hiding order.
/// Stored IDs are taken from a realistic time-ordered range (a Twitter-layout
/// ID of 2024 and its successors) as well as from 1.
fn sequential_outputs(p: &Permutation, first: u64) -> Vec<u64> {
    (first..first + SAMPLES)
        .map(|i| p.encode(i).unwrap())
        .collect()
}

const STARTS: [u64; 2] = [1, 1_789_000_000_000_000_000];

#[test]
fn each_output_bit_is_set_about_half_the_time() {
    // Binomial(100,000, 1/2): std dev sqrt(n)/2 ≈ 158. Allow 5 std devs: with
    // 63 bits the chance that a fair bit strays that far is below 4e-5,
    // and the key is fixed, so the test is deterministic.
    let p = Permutation::i63(KEY);
    let tolerance = 5.0 * (SAMPLES as f64).sqrt() / 2.0;
    for start in STARTS {
        let outputs = sequential_outputs(&p, start);
        for bit in 0..63 {
            let ones = outputs.iter().filter(|&&x| x >> bit & 1 == 1).count() as f64;
            let deviation = (ones - SAMPLES as f64 / 2.0).abs();
            assert!(
                deviation <= tolerance,
                "start {start} bit {bit}: {ones} ones, {deviation} from the mean (tolerance {tolerance})"
            );
        }
        assert!(outputs.iter().all(|&x| x >> 63 == 0));
    }
}

#[test]
fn consecutive_outputs_are_uncorrelated() {
    // Pearson correlation of (y_i, y_{i+1}); for independent values its std
    // dev is about 1/sqrt(n) ≈ 0.0032. Allow 5 of them.
    let p = Permutation::i63(KEY);
    let tolerance = 5.0 / (SAMPLES as f64).sqrt();
    for start in STARTS {
        let y: Vec<f64> = sequential_outputs(&p, start)
            .into_iter()
            .map(|x| x as f64 / MAX63 as f64)
            .collect();
        let r = pearson(&y[..y.len() - 1], &y[1..]);
        assert!(
            r.abs() <= tolerance,
            "start {start}: serial correlation {r}"
        );
        // And the outputs do not follow the inputs either.
        let x: Vec<f64> = (0..y.len()).map(|i| i as f64).collect();
        let r = pearson(&x, &y);
        assert!(
            r.abs() <= tolerance,
            "start {start}: input/output correlation {r}"
        );
    }
}

#[test]
fn monotonic_inputs_do_not_give_monotonic_outputs() {
    let p = Permutation::i63(KEY);
    for start in STARTS {
        let outputs = sequential_outputs(&p, start);
        // Rises between consecutive outputs: Binomial(n − 1, 1/2) for random order.
        let rises = outputs.windows(2).filter(|w| w[1] > w[0]).count() as f64;
        let expected = (SAMPLES - 1) as f64 / 2.0;
        let tolerance = 5.0 * ((SAMPLES - 1) as f64).sqrt() / 2.0;
        assert!(
            (rises - expected).abs() <= tolerance,
            "start {start}: {rises} rises"
        );
        // The longest increasing run of a random order of 100,000 values is
        // about 8; a leaked order would give runs in the thousands.
        let mut longest = 1;
        let mut run = 1;
        for w in outputs.windows(2) {
            run = if w[1] > w[0] { run + 1 } else { 1 };
            longest = longest.max(run);
        }
        assert!(longest <= 16, "start {start}: increasing run of {longest}");
    }
}

fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    sxy / (sxx * syy).sqrt()
}

#[test]
fn tiny_domains() {
    let p = Permutation::new(9, 1).unwrap();
    assert_eq!(p.encode(1), Ok(1));
    let p = Permutation::new(9, 2).unwrap();
    let (a, b) = (p.encode(1).unwrap(), p.encode(2).unwrap());
    assert_ne!(a, b);
    assert_eq!(p.decode(a), Ok(1));
    assert_eq!(p.decode(b), Ok(2));
}
