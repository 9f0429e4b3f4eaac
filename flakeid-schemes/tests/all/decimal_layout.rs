//! The 13 + 6 + 1 digit decimal layout (time · sequence · server) and
//! decimal layouts in general, run by the ordinary generator.

use std::sync::Arc;
use std::time::Duration;

use flakeid_core::encoding::DecodeError;
use flakeid_core::layout::LayoutError;
use flakeid_core::layout::Parts;
use flakeid_core::layout::{Domain, FieldOrder};
use flakeid_core::{ConfigError, GenerateError, Generator, ManualClock, SequenceExhaustion};
use flakeid_schemes::DecimalLayout;
use proptest::prelude::*;

/// 2011-01-01T00:00:00Z, the epoch the published example starts from.
const EPOCH_2011: u64 = 1_293_840_000_000;
/// 2024-01-01T00:00:00Z.
const EPOCH_2024: u64 = 1_704_067_200_000;

fn layout() -> DecimalLayout {
    DecimalLayout::time_sequence_server(EPOCH_2011).unwrap()
}

#[test]
fn published_examples_decode_exactly() {
    let l = layout();
    // "Generated exactly at epoch. Random number=123456, Server ID=1".
    let at_epoch = DecimalLayout::parse_padded("00000000000001234561").unwrap();
    assert_eq!(at_epoch, 1_234_561);
    assert_eq!(
        l.decompose(at_epoch),
        Parts {
            tick: 0,
            node: 1,
            sequence: 123_456
        }
    );
    // "Generated about 1 year after epoch": 31,536,000,000 ms = 365 days.
    let one_year = DecimalLayout::parse_padded("00315360000001234561").unwrap();
    assert_eq!(
        l.decompose_checked(one_year).unwrap(),
        Parts {
            tick: 31_536_000_000,
            node: 1,
            sequence: 123_456
        }
    );
    assert_eq!(l.compose(31_536_000_000, 1, 123_456), one_year);
    assert_eq!(l.padded_string(one_year), "00315360000001234561");
    assert_eq!(l.fields_string(one_year), "0031536000000 123456 1");
    assert_eq!(l.timestamp_millis(one_year), EPOCH_2011 + 365 * 86_400_000);
    // "Generated about 58 years after epoch" fits only an unsigned BIGINT:
    // flakeid refuses it.
    let fifty_eight = DecimalLayout::parse_padded("18290880000001234561").unwrap();
    assert_eq!(fifty_eight, 18_290_880_000_001_234_561);
    assert_eq!(
        l.decompose_checked(fifty_eight),
        Err(LayoutError::IdOutOfRange {
            id: fifty_eight,
            max: l.max_id()
        })
    );
}

#[test]
fn end_date_is_the_last_tick_that_fits_a_signed_bigint() {
    let l = DecimalLayout::time_sequence_server(EPOCH_2024).unwrap();
    let max = i64::MAX as u64;
    assert_eq!(l.max_tick(), 922_337_203_684);
    assert!(l.compose(l.max_tick(), 9, 999_999) <= max);
    // One tick later the largest ID would not fit.
    assert!(u128::from(l.max_tick() + 1) * 10_000_000 + 9_999_999 > u128::from(max));
    assert_eq!(l.max_id(), 9_223_372_036_849_999_999);
    // 922,337,203,685 ms ≈ 29.23 years: 2053-03-24T04:46:43.685Z.
    assert_eq!(l.end_millis(), 2_626_404_403_685);
    let years = (l.end_millis() - EPOCH_2024) as f64 / (365.25 * 86_400_000.0);
    assert!((years - 29.227).abs() < 0.001, "{years}");
    // The unsigned figure the scheme's "58 years" refers to.
    let unsigned_ticks = (u64::MAX - 9_999_999) / 10_000_000 + 1;
    assert_eq!(unsigned_ticks, 1_844_674_407_370);
    assert_eq!(l.capacity_per_tick(), 1_000_000);
}

#[test]
fn generator_refuses_past_the_end() {
    let l = DecimalLayout::time_sequence_server(EPOCH_2024).unwrap();
    // Built in the tick before the last, so that its first ID takes the last.
    let clock = Arc::new(ManualClock::new(l.end_millis() - 2));
    let g = Generator::builder(l, 3)
        .clock(clock.clone())
        .build()
        .unwrap();
    clock.set(l.end_millis() - 1);
    let last = g.next_id().unwrap();
    assert_eq!(l.decompose(last).tick, l.max_tick());
    assert!(last <= i64::MAX as u64);
    clock.set(l.end_millis());
    assert_eq!(
        g.next_id(),
        Err(GenerateError::TimeExhausted {
            end_millis: l.end_millis()
        })
    );
    // Built in the last tick (its first ID could only use the next one) or
    // after the end: refused at once.
    for built in [l.end_millis() - 1, l.end_millis()] {
        let e = Generator::builder(l, 3)
            .clock(Arc::new(ManualClock::new(built)))
            .build()
            .unwrap_err();
        assert!(matches!(e, ConfigError::LayoutExpired { .. }));
    }
}

#[test]
fn generator_issues_sequences_not_random_numbers() {
    let l = layout();
    let now = EPOCH_2011 + 31_536_000_000;
    // Built a millisecond earlier: IDs start in the tick after the build tick.
    let clock = Arc::new(ManualClock::new(now - 1));
    let g = Generator::builder(l, 1)
        .clock(clock.clone())
        .sequence_exhaustion(SequenceExhaustion::Fail)
        .build()
        .unwrap();
    clock.set(now);
    let ids: Vec<u64> = g.next_batch(1_000_000).unwrap().collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(ids[0], 315_360_000_000_000_001);
    assert_eq!(l.fields_string(ids[999_999]), "0031536000000 999999 1");
    // A whole millisecond's million IDs are used: the next one must wait.
    assert!(matches!(
        g.next_id(),
        Err(GenerateError::SequenceExhausted { .. })
    ));
    clock.advance(Duration::from_millis(1));
    assert_eq!(g.next_id().unwrap(), 315_360_000_010_000_001);
}

#[test]
fn server_digit_is_checked() {
    let e = Generator::builder(layout(), 10)
        .clock(Arc::new(ManualClock::new(EPOCH_2024)))
        .build()
        .unwrap_err();
    assert_eq!(e, ConfigError::NodeOutOfRange { node: 10, max: 9 });
    assert!(matches!(
        layout().compose_checked(0, 0, 1_000_000),
        Err(LayoutError::PartOutOfRange {
            value: 1_000_000,
            max: 999_999,
            ..
        })
    ));
}

#[test]
fn padded_parsing_errors_name_the_input() {
    assert!(matches!(
        DecimalLayout::parse_padded(""),
        Err(DecodeError::Empty { .. })
    ));
    assert!(matches!(
        DecimalLayout::parse_padded("0031536000000123456x"),
        Err(DecodeError::InvalidChar {
            character: 'x',
            position: 19,
            ..
        })
    ));
    assert!(matches!(
        DecimalLayout::parse_padded("000000000000000000001"),
        Err(DecodeError::TooLong { len: 21, .. })
    ));
    assert!(matches!(
        DecimalLayout::parse_padded("18446744073709551616"),
        Err(DecodeError::Overflow { .. })
    ));
}

#[test]
fn js_safe_decimal_layout() {
    // 10 digits of seconds, 4 node digits, 2 sequence digits in 53 bits.
    let l = DecimalLayout::builder()
        .time_digits(10)
        .tick_millis(1000)
        .epoch_millis(EPOCH_2024)
        .node_digits(4)
        .sequence_digits(2)
        .order(FieldOrder::NodeThenSequence)
        .domain(Domain::JsSafe)
        .build()
        .unwrap();
    assert!(l.max_id() < (1 << 53));
    assert_eq!(l.max_tick(), (((1u64 << 53) - 1) - 999_999) / 1_000_000);
    let e = DecimalLayout::builder()
        .time_digits(13)
        .sequence_digits(19)
        .epoch_millis(0)
        .build()
        .unwrap_err();
    assert!(matches!(e, LayoutError::TooManyDigits { sequence: 19, .. }));
}

proptest! {
    #[test]
    fn decimal_round_trip(tick in 0u64..=922_337_203_684, node in 0u64..=9, seq in 0u64..=999_999) {
        let l = layout();
        let id = l.compose(tick, node, seq);
        prop_assert!(id <= i64::MAX as u64);
        prop_assert_eq!(l.decompose(id), Parts { tick, node, sequence: seq });
        prop_assert_eq!(DecimalLayout::parse_padded(&l.padded_string(id)).unwrap(), id);
    }

    #[test]
    fn decimal_orders_round_trip(
        time_digits in 1u8..=19, seq_digits in 1u8..=8, node_digits in 0u8..=6,
        node_first: bool, tick: u64, node: u64, seq: u64,
    ) {
        let order = if node_first { FieldOrder::NodeThenSequence } else { FieldOrder::SequenceThenNode };
        let r = DecimalLayout::builder()
            .time_digits(time_digits).sequence_digits(seq_digits).node_digits(node_digits)
            .epoch_millis(0).order(order).build();
        let Ok(l) = r else { return Ok(()) };
        let (tick, node, seq) = (tick % (l.max_tick() + 1), node % (l.max_node() + 1), seq % (l.max_sequence() + 1));
        let id = l.compose(tick, node, seq);
        prop_assert!(id <= l.max_id() && l.max_id() <= i64::MAX as u64);
        prop_assert_eq!(l.decompose(id), Parts { tick, node, sequence: seq });
        if seq < l.max_sequence() {
            prop_assert!(l.compose(tick, node, seq + 1) > id);
        }
        if tick < l.max_tick() {
            prop_assert!(l.compose(tick + 1, node, 0) > id);
        }
    }
}
