//! 128-bit flakes: generation through the generator, decoding, text and
//! byte forms, serde, worker IDs from MAC addresses, clock regression.

use std::sync::Arc;
use std::time::Duration;

use flakeid_core::layout::Layout;
use flakeid_core::{
    ClockRegression, ConfigError, GenerateError, Generator, ManualClock, SequenceExhaustion,
};
use flakeid_flake128::Flake128Error;
use flakeid_flake128::{Flake128, Flake128Layout};
use proptest::prelude::*;

const NOW: u64 = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const MAC: u64 = 0x0242_ac11_0002;

/// A generator whose first flake may take the clock's current millisecond,
/// as if built a millisecond earlier (none is issued in the build tick).
fn generator(clock: Arc<ManualClock>) -> Generator<Flake128Layout, Arc<ManualClock>> {
    clock.step_back(Duration::from_millis(1));
    let g = Generator::builder(Flake128Layout, MAC)
        .clock(clock.clone())
        .build()
        .unwrap();
    clock.advance(Duration::from_millis(1));
    g
}

#[test]
fn generated_flakes_decode_to_clock_worker_and_sequence() {
    let clock = Arc::new(ManualClock::new(NOW));
    let g = generator(clock.clone());
    let a = Flake128::generate(&g).unwrap();
    let b = Flake128::generate(&g).unwrap();
    assert_eq!(
        (a.timestamp_millis(), a.worker(), a.sequence()),
        (NOW, MAC, 0)
    );
    assert_eq!(
        (b.timestamp_millis(), b.worker(), b.sequence()),
        (NOW, MAC, 1)
    );
    clock.advance(Duration::from_millis(3));
    let c = Flake128::generate(&g).unwrap();
    assert_eq!((c.timestamp_millis(), c.sequence()), (NOW + 3, 0));
    assert!(a < b && b < c);
    assert_eq!(
        c.timestamp(),
        Some(std::time::UNIX_EPOCH + Duration::from_millis(NOW + 3))
    );
    assert_eq!(Flake128Layout.decompose(c.as_u128()), c.parts());
}

#[test]
fn a_millisecond_holds_65536_flakes_then_the_generator_moves_on() {
    let clock = Arc::new(ManualClock::new(NOW));
    let g = generator(clock.clone());
    let batch: Vec<u128> = g.next_batch(65_536 + 10).unwrap().collect();
    assert!(batch.windows(2).all(|w| w[0] < w[1]));
    let first = Flake128::from_u128(batch[0]).unwrap();
    let last = Flake128::from_u128(batch[65_545]).unwrap();
    // More than a millisecond holds: the batch spans two milliseconds (the
    // manual clock advanced while the generator waited).
    assert_eq!(last.timestamp_millis() - first.timestamp_millis(), 1);
    assert!(
        batch
            .iter()
            .all(|&f| Flake128Layout.decompose(f).node == MAC)
    );
    // Under the Fail policy the 65,537th flake of a millisecond is refused.
    let g2 = Generator::builder(Flake128Layout, 1)
        .clock(Arc::new(ManualClock::new(NOW)))
        .sequence_exhaustion(SequenceExhaustion::Fail)
        .build()
        .unwrap();
    assert_eq!(g2.next_batch(65_535).unwrap().count(), 65_535);
    assert!(Flake128::try_generate(&g2).is_ok());
    assert!(matches!(
        Flake128::try_generate(&g2),
        Err(GenerateError::SequenceExhausted { .. })
    ));
}

#[test]
fn refuses_to_generate_when_the_clock_runs_back_beyond_policy() {
    let clock = Arc::new(ManualClock::new(NOW));
    let failing = Generator::builder(Flake128Layout, MAC)
        .clock(clock.clone())
        .clock_regression(ClockRegression::Fail)
        .build()
        .unwrap();
    let before = Flake128::generate(&failing).unwrap();
    clock.step_back(Duration::from_millis(5));
    assert_eq!(
        Flake128::generate(&failing),
        Err(GenerateError::ClockRegressed {
            behind: Duration::from_millis(5),
            max_wait: Duration::ZERO
        })
    );
    // Waiting policy: a regression within its bound is waited out (the manual
    // clock jumps forward), a larger one is refused.
    let waiting = Generator::builder(Flake128Layout, MAC)
        .clock(clock.clone())
        .clock_regression(ClockRegression::Wait {
            max: Duration::from_millis(100),
        })
        .build()
        .unwrap();
    let w1 = Flake128::generate(&waiting).unwrap();
    clock.step_back(Duration::from_millis(50));
    let w2 = Flake128::generate(&waiting).unwrap();
    assert!(w2 > w1);
    clock.step_back(Duration::from_secs(10));
    assert!(matches!(
        Flake128::generate(&waiting),
        Err(GenerateError::ClockRegressed { .. })
    ));
    // Once the clock is back past the last flake, generation resumes, still increasing.
    clock.set(NOW + 1_000);
    let after = Flake128::generate(&failing).unwrap();
    assert!(after > before);
}

#[test]
fn generation_ends_at_the_documented_horizon() {
    // The generator's 64-bit state holds 47 bits of ticks next to 16 sequence bits.
    assert_eq!(Flake128Layout::MAX_MILLIS, (1 << 47) - 2);
    let clock = Arc::new(ManualClock::new(Flake128Layout::MAX_MILLIS));
    let g = generator(clock.clone());
    assert_eq!(g.end_millis(), 140_737_488_355_327); // year 6429
    let last = Flake128::generate(&g).unwrap();
    assert_eq!(last.timestamp_millis(), Flake128Layout::MAX_MILLIS);
    clock.set(Flake128Layout::MAX_MILLIS + 1);
    assert_eq!(
        Flake128::generate(&g),
        Err(GenerateError::TimeExhausted {
            end_millis: Flake128Layout::MAX_MILLIS + 1
        })
    );
    let late = Generator::builder(Flake128Layout, 1)
        .clock(ManualClock::new(Flake128Layout::MAX_MILLIS + 1))
        .build();
    assert!(matches!(late, Err(ConfigError::LayoutExpired { .. })));
    // Workers are 48 bits.
    let too_wide = Generator::builder(Flake128Layout, Flake128Layout::MAX_WORKER + 1).build();
    assert_eq!(
        too_wide.err(),
        Some(ConfigError::NodeOutOfRange {
            node: Flake128Layout::MAX_WORKER + 1,
            max: Flake128Layout::MAX_WORKER
        })
    );
}

#[test]
fn bytes_are_big_endian_so_byte_order_is_time_order() {
    let a = Flake128::from_parts(NOW, Flake128Layout::MAX_WORKER, 65_535).unwrap();
    let b = Flake128::from_parts(NOW + 1, 0, 0).unwrap();
    assert!(a < b);
    assert!(a.to_bytes() < b.to_bytes());
    assert_eq!(&b.to_bytes()[..8], &(NOW + 1).to_be_bytes());
    assert_eq!(&a.to_bytes()[8..14], &[0xff; 6]);
    assert_eq!(&a.to_bytes()[14..], &[0xff, 0xff]);
    assert_eq!(Flake128::from_bytes(a.to_bytes()), Ok(a));
    assert_eq!(Flake128::from_slice(&a.to_bytes()), Ok(a));
    assert_eq!(
        Flake128::try_from(&a.to_bytes()[..15]),
        Err(Flake128Error::ByteLength { len: 15 })
    );
    assert_eq!(
        Flake128::from_slice(&[0; 17]),
        Err(Flake128Error::ByteLength { len: 17 })
    );
    assert_eq!(Flake128::from_bytes([0; 16]), Err(Flake128Error::Zero));
    assert_eq!(u128::from(a), a.as_u128());
    assert_eq!(Flake128::try_from(a.as_u128()), Ok(a));
    assert_eq!(<[u8; 16]>::from(a), a.to_bytes());
}

#[test]
fn canonical_text_is_uuid_shaped_lowercase_hex() {
    let f = Flake128::from_parts(NOW, MAC, 7).unwrap();
    let s = f.to_string();
    assert_eq!(s, "0000019b-76da-a800-0242-ac1100020007");
    assert_eq!(s.parse::<Flake128>(), Ok(f));
    assert_eq!(format!("{f:>40}"), format!("    {s}"));
    for (bad, position, character) in [
        ("0000019B-76da-a800-0242-ac1100020007", 7, 'B'),
        ("0000019b_76da-a800-0242-ac1100020007", 8, '_'),
        ("0000019b-76da-a800-0242+ac1100020007", 23, '+'),
        ("0000019b-76da-a800-0242-ac110002000g", 35, 'g'),
        ("{000019b-76da-a800-0242-ac1100020007", 0, '{'),
    ] {
        match Flake128::parse(bad) {
            Err(Flake128Error::InvalidChar {
                position: p,
                character: c,
                form: "hex",
                ..
            }) => assert_eq!((p, c), (position, character), "{bad}"),
            other => panic!("{bad}: {other:?}"),
        }
    }
    for bad in [
        "0000019b76daa8000242ac1100020007",
        "0000019b-76da-a800-0242-ac11000200070",
        " 0000019b-76da-a800-0242-ac1100020007",
        "0000019b-76da-a800-0242-ac11000200é",
    ] {
        assert!(
            matches!(Flake128::parse(bad), Err(Flake128Error::Length { .. })),
            "{bad}"
        );
    }
    assert_eq!(
        Flake128::parse(""),
        Err(Flake128Error::Empty { form: "hex" })
    );
}

#[test]
fn decimal_form_is_strict() {
    let max = u128::MAX.to_string();
    assert_eq!(max.len(), 39);
    assert_eq!(Flake128::parse_decimal(&max).unwrap().as_u128(), u128::MAX);
    assert_eq!(
        Flake128::parse_decimal(""),
        Err(Flake128Error::Empty { form: "decimal" })
    );
    assert!(matches!(
        Flake128::parse_decimal("0000000000000000000000000000000000000001"),
        Err(Flake128Error::Length {
            len: 40,
            expected: 39,
            ..
        })
    ));
    assert!(matches!(
        Flake128::parse_decimal("340282366920938463463374607431768211456"),
        Err(Flake128Error::Overflow { .. })
    ));
    assert!(matches!(
        Flake128::parse_decimal("-1"),
        Err(Flake128Error::InvalidChar { position: 0, .. })
    ));
    assert!(matches!(
        Flake128::parse_decimal("1 "),
        Err(Flake128Error::InvalidChar { position: 1, .. })
    ));
    assert!(matches!(
        Flake128::parse_decimal("١"),
        Err(Flake128Error::InvalidChar { .. })
    ));
    assert!(matches!(
        Flake128::parse_decimal("007"),
        Err(Flake128Error::LeadingZero { .. })
    ));
    assert_eq!(Flake128::parse_decimal("0"), Err(Flake128Error::Zero));
}

#[test]
fn from_parts_checks_ranges() {
    assert_eq!(
        Flake128::from_parts(NOW, Flake128Layout::MAX_WORKER + 1, 0),
        Err(Flake128Error::PartOutOfRange {
            part: "worker",
            value: Flake128Layout::MAX_WORKER + 1,
            max: Flake128Layout::MAX_WORKER
        })
    );
    assert_eq!(
        Flake128::from_parts(NOW, 0, 65_536),
        Err(Flake128Error::PartOutOfRange {
            part: "sequence",
            value: 65_536,
            max: 65_535
        })
    );
    let max = Flake128::from_parts(u64::MAX, Flake128Layout::MAX_WORKER, 65_535).unwrap();
    assert_eq!(max.as_u128(), u128::MAX);
    assert_eq!(max.timestamp_millis(), u64::MAX);
}

#[test]
fn serde_uses_the_canonical_string() {
    let f = Flake128::from_parts(NOW, MAC, 7).unwrap();
    let json = serde_json::to_string(&f).unwrap();
    assert_eq!(json, "\"0000019b-76da-a800-0242-ac1100020007\"");
    assert_eq!(serde_json::from_str::<Flake128>(&json).unwrap(), f);
    for bad in [
        "1",
        "\"0000019B-76DA-A800-0242-AC1100020007\"",
        "\"00000000-0000-0000-0000-000000000000\"",
        "null",
    ] {
        assert!(serde_json::from_str::<Flake128>(bad).is_err(), "{bad}");
    }
    let err =
        serde_json::from_str::<Flake128>("\"00000000-0000-0000-0000-000000000000\"").unwrap_err();
    assert!(err.to_string().contains("flakes start at 1"), "{err}");
}

proptest! {
    #[test]
    fn every_form_round_trips(raw in 1..=u128::MAX) {
        let f = Flake128::from_u128(raw).unwrap();
        prop_assert_eq!(Flake128::parse(&f.to_string()).unwrap(), f);
        prop_assert_eq!(Flake128::parse_decimal(&f.to_decimal()).unwrap(), f);
        prop_assert_eq!(Flake128::from_bytes(f.to_bytes()).unwrap(), f);
        let p = f.parts();
        prop_assert_eq!(Flake128::from_parts(p.tick, p.node, p.sequence).unwrap(), f);
    }

    #[test]
    fn text_and_byte_order_equal_numeric_order(a in 1..=u128::MAX, b in 1..=u128::MAX) {
        let (fa, fb) = (Flake128::from_u128(a).unwrap(), Flake128::from_u128(b).unwrap());
        prop_assert_eq!(fa.cmp(&fb), a.cmp(&b));
        prop_assert_eq!(fa.to_string().cmp(&fb.to_string()), a.cmp(&b));
        prop_assert_eq!(fa.to_bytes().cmp(&fb.to_bytes()), a.cmp(&b));
    }
}

#[test]
fn text_forms_of_the_extremes() {
    let one = Flake128::from_u128(1).unwrap();
    assert_eq!(one.to_string(), "00000000-0000-0000-0000-000000000001");
    let max = Flake128::from_u128(u128::MAX).unwrap();
    assert_eq!(max.to_string(), "ffffffff-ffff-ffff-ffff-ffffffffffff");
    assert_eq!(max.to_decimal(), u128::MAX.to_string());
    assert_eq!(Flake128::parse_decimal(&max.to_decimal()), Ok(max));
    assert_eq!(Flake128::parse(&max.to_string()), Ok(max));
    assert_eq!(
        format!("{one:?}"),
        "Flake128(00000000-0000-0000-0000-000000000001)"
    );
}

#[test]
fn zero_is_rejected_in_every_form() {
    assert_eq!(Flake128::from_bytes([0; 16]), Err(Flake128Error::Zero));
    assert_eq!(Flake128::parse_decimal("0"), Err(Flake128Error::Zero));
    assert_eq!(
        Flake128::parse("00000000-0000-0000-0000-000000000000"),
        Err(Flake128Error::Zero)
    );
    assert_eq!(Flake128::from_parts(0, 0, 0), Err(Flake128Error::Zero));
}
