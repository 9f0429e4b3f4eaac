//! Unit tests of `src/layout/bits.rs` (private items; included with `#[path]` as its
//! `tests` module).

use super::*;

fn base() -> BitLayoutBuilder {
    BitLayout::builder()
        .time_bits(41)
        .sequence_bits(12)
        .epoch_millis(0)
}

#[test]
fn missing_settings_are_named() {
    assert_eq!(
        BitLayout::builder()
            .sequence_bits(1)
            .epoch_millis(0)
            .build(),
        Err(LayoutError::Missing {
            setting: "time_bits"
        })
    );
    assert_eq!(
        BitLayout::builder().time_bits(1).epoch_millis(0).build(),
        Err(LayoutError::Missing {
            setting: "sequence_bits"
        })
    );
    assert_eq!(
        BitLayout::builder().time_bits(1).sequence_bits(1).build(),
        Err(LayoutError::Missing { setting: "epoch" })
    );
}

#[test]
fn zero_bits_rejected() {
    assert_eq!(
        base().time_bits(0).build(),
        Err(LayoutError::ZeroBits { field: "time" })
    );
    assert_eq!(
        base().sequence_bits(0).build(),
        Err(LayoutError::ZeroBits { field: "sequence" })
    );
    let e = base().node_field("dc", 0).build().unwrap_err();
    assert_eq!(e, LayoutError::ZeroWidthNodeField { name: "dc".into() });
    assert!(e.to_string().contains("`dc`"));
}

#[test]
fn too_many_bits_names_values() {
    let e = base().time_bits(42).node_bits(10).build().unwrap_err();
    assert_eq!(
        e.to_string(),
        "42 time + 10 node + 12 sequence bits = 64 bits, but the 63-bit BIGINT domain holds only 63 bits"
    );
    let e = base()
        .node_bits(1)
        .domain(Domain::JsSafe)
        .build()
        .unwrap_err();
    assert!(
        matches!(
            e,
            LayoutError::TooManyBits {
                total: 54,
                max: 53,
                ..
            }
        ),
        "{e}"
    );
    // u8 widths that would overflow a u8 sum.
    assert!(matches!(
        base()
            .time_bits(255)
            .node_bits(255)
            .sequence_bits(255)
            .build(),
        Err(LayoutError::TooManyBits { total: 765, .. })
    ));
    assert!(base().time_bits(51).node_bits(0).build().is_ok());
}

#[test]
fn ticks_validated() {
    assert_eq!(
        base().tick_millis(0).build(),
        Err(LayoutError::ZeroTick {
            tick: Duration::ZERO
        })
    );
    assert_eq!(
        base().tick(Duration::ZERO).build(),
        Err(LayoutError::ZeroTick {
            tick: Duration::ZERO
        })
    );
    let half = Duration::from_micros(1500);
    assert_eq!(
        base().tick(half).build(),
        Err(LayoutError::TickNotWholeMillis { tick: half })
    );
    assert_eq!(
        base().tick(Duration::from_micros(500)).build(),
        Err(LayoutError::TickNotWholeMillis {
            tick: Duration::from_micros(500)
        })
    );
    assert_eq!(
        base()
            .tick(Duration::from_secs(1))
            .build()
            .unwrap()
            .tick_millis,
        1000
    );
}

#[test]
fn epochs_validated() {
    let e = base()
        .epoch(UNIX_EPOCH - Duration::from_millis(5))
        .build()
        .unwrap_err();
    assert_eq!(e, LayoutError::EpochBeforeUnixEpoch { millis_before: 5 });
    assert!(e.to_string().contains("5 ms before"));
    let t = UNIX_EPOCH + Duration::from_micros(1_000_500);
    assert!(matches!(
        base().epoch(t).build(),
        Err(LayoutError::EpochNotWholeMillis { .. })
    ));
    let e = base()
        .time_bits(62)
        .sequence_bits(1)
        .epoch_millis(u64::MAX - 10)
        .build()
        .unwrap_err();
    assert!(
        matches!(e, LayoutError::TimeOverflow { epoch_millis, .. } if epoch_millis == u64::MAX - 10)
    );
    let e = base()
        .time_bits(40)
        .tick_millis(1 << 30)
        .build()
        .unwrap_err();
    assert!(matches!(
        e,
        LayoutError::TimeOverflow {
            tick_millis: 1_073_741_824,
            ..
        }
    ));
    assert_eq!(
        base()
            .epoch(UNIX_EPOCH + Duration::from_millis(7))
            .build()
            .unwrap()
            .epoch_millis,
        7
    );
}

#[test]
fn node_fields_validated() {
    let e = base()
        .node_bits(10)
        .node_field("dc", 5)
        .node_field("w", 4)
        .build()
        .unwrap_err();
    assert_eq!(
        e,
        LayoutError::NodeFieldsMismatch {
            sum: 9,
            node_bits: 10
        }
    );
    assert_eq!(
        base().node_field("", 3).build(),
        Err(LayoutError::EmptyNodeFieldName { index: 0 })
    );
    assert_eq!(
        base().node_field("a", 3).node_field("a", 2).build(),
        Err(LayoutError::DuplicateNodeField { name: "a".into() })
    );
    let l = base().node_bits(10).build().unwrap();
    assert_eq!(l.node_fields(), [NodeField::new("node", 10)]);
    let l = base().node_bits(0).build().unwrap();
    assert!(l.node_fields().is_empty());
    assert_eq!(l.split_node(0).unwrap(), []);
    assert_eq!(l.compose_node(&[]).unwrap(), 0);
}

#[test]
fn orders_place_fields() {
    let a = base().node_bits(10).build().unwrap();
    let b = base()
        .node_bits(10)
        .order(FieldOrder::SequenceThenNode)
        .build()
        .unwrap();
    assert_eq!(a.compose(1, 2, 3), (1 << 22) | (2 << 12) | 3);
    assert_eq!(b.compose(1, 2, 3), (1 << 22) | (3 << 10) | 2);
    assert_eq!(
        b.decompose((1 << 22) | (3 << 10) | 2),
        Parts {
            tick: 1,
            node: 2,
            sequence: 3
        }
    );
}

#[test]
fn checked_parts_name_the_part() {
    let l = base().node_bits(10).build().unwrap();
    let e = l.compose_checked(1 << 41, 0, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "tick {} does not fit its field: the largest is {}",
            1u64 << 41,
            (1u64 << 41) - 1
        )
    );
    assert!(matches!(
        l.compose_checked(0, 0, 4096),
        Err(LayoutError::PartOutOfRange {
            value: 4096,
            max: 4095,
            ..
        })
    ));
    assert!(
        matches!(l.decompose_checked(1 << 63), Err(LayoutError::IdOutOfRange { max, .. }) if max == i64::MAX as u64)
    );
    assert!(matches!(
        l.split_node(1024),
        Err(LayoutError::PartOutOfRange { value: 1024, .. })
    ));
}

#[test]
fn capacity_and_end() {
    let l = base()
        .tick_millis(1000)
        .sequence_bits(16)
        .node_bits(16)
        .time_bits(31)
        .build()
        .unwrap();
    assert_eq!(l.capacity_per_second(), 65536.0);
    assert_eq!(l.end_millis(), (1u64 << 31) * 1000);
    assert_eq!(l.node_count(), 65536);
    let l = base().tick_millis(3000).sequence_bits(1).build().unwrap();
    assert!((l.capacity_per_second() - 2.0 / 3.0).abs() < 1e-12);
}
