//! Compose/decompose round trips over the whole domain of every preset and
//! of arbitrary valid layouts.

use std::time::{Duration, UNIX_EPOCH};

use flakeid_core::layout::Layout;
use flakeid_core::layout::LayoutError;
use flakeid_core::layout::Parts;
use flakeid_core::layout::{BitLayout, Domain, FieldOrder, NodeField, presets};
use proptest::prelude::*;

fn check_round_trip(l: &BitLayout, tick: u64, node: u64, seq: u64) -> Result<(), TestCaseError> {
    let (tick, node, seq) = (
        tick & l.max_tick(),
        node & l.max_node(),
        seq & l.max_sequence(),
    );
    let id = l
        .compose_checked(tick, node, seq)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert!(id <= l.max_id());
    prop_assert!(id <= l.domain().max());
    prop_assert_eq!(
        l.decompose(id),
        Parts {
            tick,
            node,
            sequence: seq
        }
    );
    prop_assert_eq!(
        l.decompose_checked(id),
        Ok(Parts {
            tick,
            node,
            sequence: seq
        })
    );
    // The trait implementation agrees with the inherent methods.
    prop_assert_eq!(Layout::compose(l, tick, node, seq), id);
    prop_assert_eq!(
        Layout::decompose(l, id),
        Parts {
            tick,
            node,
            sequence: seq
        }
    );
    // Node subfields split and recompose.
    let values: Vec<u64> = l
        .split_node(node)
        .unwrap()
        .into_iter()
        .map(|(_, v)| v)
        .collect();
    prop_assert_eq!(l.compose_node(&values), Ok(node));
    prop_assert_eq!(
        l.timestamp(id),
        UNIX_EPOCH + Duration::from_millis(l.epoch_millis() + tick * l.tick_millis())
    );
    prop_assert!(l.timestamp(id) < l.end());
    Ok(())
}

proptest! {
    #[test]
    fn presets_round_trip(idx in 0..presets::ALL.len(), tick: u64, node: u64, seq: u64) {
        let l = &(presets::ALL[idx].1)();
        check_round_trip(l, tick, node, seq)?;
    }

    #[test]
    fn preset_ids_decompose_and_recompose(idx in 0..presets::ALL.len(), id: u64) {
        let l = &(presets::ALL[idx].1)();
        let id = id & l.max_id();
        let p = l.decompose(id);
        prop_assert_eq!(l.compose(p.tick, p.node, p.sequence), id);
    }

    #[test]
    fn ids_increase_with_tick_then_sequence(idx in 0..presets::ALL.len(), tick: u64, node: u64, seq: u64) {
        let l = &(presets::ALL[idx].1)();
        let (tick, node, seq) = (tick & l.max_tick(), node & l.max_node(), seq & l.max_sequence());
        let id = l.compose(tick, node, seq);
        if seq < l.max_sequence() {
            prop_assert!(l.compose(tick, node, seq + 1) > id);
        }
        if tick < l.max_tick() {
            prop_assert!(l.compose(tick + 1, node, 0) > id);
        }
    }

    #[test]
    fn arbitrary_valid_layouts_round_trip(
        js in any::<bool>(),
        raw in (0u8..=255, 0u8..=255),
        subfields in prop::collection::vec(1u8..=8, 0..4),
        seq_first in any::<bool>(),
        tick_ms in prop::sample::select(vec![1u64, 10, 1000, 60_000]),
        epoch in 0u64..4_000_000_000_000,
        parts: (u64, u64, u64),
    ) {
        let domain = if js { Domain::JsSafe } else { Domain::BigInt };
        let bits = domain.bits() as u8;
        // Any split with at least one time and one sequence bit that fits the domain.
        let time = 1 + raw.0 % (bits - 1);
        let seq = 1 + raw.1 % (bits - time);
        let node_room = bits - time - seq;
        let mut fields = Vec::new();
        let mut used = 0u8;
        for (i, w) in subfields.into_iter().enumerate() {
            if used + w <= node_room {
                fields.push(NodeField::named(format!("f{i}"), w));
                used += w;
            }
        }
        let built = BitLayout::builder()
            .time_bits(time)
            .tick_millis(tick_ms)
            .epoch_millis(epoch)
            .node_fields(fields)
            .sequence_bits(seq)
            .order(if seq_first { FieldOrder::SequenceThenNode } else { FieldOrder::NodeThenSequence })
            .domain(domain)
            .build();
        let end = u128::from(epoch) + (1u128 << time) * u128::from(tick_ms);
        if end > u128::from(u64::MAX) {
            prop_assert!(matches!(built, Err(LayoutError::TimeOverflow { .. })), "{built:?}");
            return Ok(());
        }
        let l = built.map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(l.end_millis() as u128, end);
        prop_assert_eq!(l.node_bits(), used as u32);
        check_round_trip(&l, parts.0, parts.1, parts.2)?;
    }

    #[test]
    fn layouts_wider_than_the_domain_are_rejected(time in 1u8..=63, node in 0u8..=63, seq in 1u8..=63, js: bool) {
        let domain = if js { Domain::JsSafe } else { Domain::BigInt };
        let total = time as u32 + node as u32 + seq as u32;
        let r = BitLayout::builder().time_bits(time).node_bits(node).sequence_bits(seq).epoch_millis(0).domain(domain).build();
        if total > domain.bits() {
            prop_assert!(matches!(r, Err(LayoutError::TooManyBits { total: t, .. }) if t == total), "{r:?}");
        } else {
            let l = r.map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert!(l.max_id() <= domain.max());
        }
    }
}

#[test]
fn edge_ids_of_every_preset() {
    for (name, preset) in presets::ALL {
        let l = preset();
        let max = l.compose(l.max_tick(), l.max_node(), l.max_sequence());
        assert_eq!(max, l.max_id(), "{name}");
        assert_eq!(l.decompose(1), l.decompose_checked(1).unwrap(), "{name}");
        assert_eq!(
            l.decompose_checked(l.max_id() + 1),
            Err(LayoutError::IdOutOfRange {
                id: l.max_id() + 1,
                max: l.max_id()
            })
        );
        // The smallest ID a generator issues: tick 0, node 0, sequence 1.
        assert!(l.compose(0, 0, 1) >= 1, "{name}");
    }
    assert_eq!(presets::js_safe().max_id(), (1 << 53) - 1);
    assert_eq!(presets::twitter().max_id(), i64::MAX as u64);
}

#[test]
fn twitter_node_subfields() {
    let l = presets::twitter();
    let node = l.compose_node(&[17, 3]).unwrap();
    assert_eq!(node, (17 << 5) | 3);
    assert_eq!(l.node_field_value(node, "datacenter"), Some(17));
    assert_eq!(l.node_field_value(node, "worker"), Some(3));
    let e = l.compose_node(&[0, 32]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "worker 32 does not fit its field: the largest is 31"
    );
    assert_eq!(
        l.compose_node(&[1, 2, 3]),
        Err(LayoutError::NodeFieldCount {
            expected: 2,
            got: 3
        })
    );
}

#[test]
fn instagram_example_layout() {
    // Instagram's post: shard 1341, sequence 5001 % 1024.
    let l = presets::instagram();
    let id = l.compose(1_387_263_000, 1341, 5001 % 1024);
    assert_eq!(id >> 23, 1_387_263_000);
    assert_eq!((id >> 10) & 0x1FFF, 1341);
    assert_eq!(id & 0x3FF, 5001 % 1024);
}

#[test]
fn twitter_epoch_and_end() {
    let l = presets::twitter();
    assert_eq!(
        l.epoch(),
        UNIX_EPOCH + Duration::from_millis(1_288_834_974_657)
    );
    assert_eq!(l.max_tick(), (1 << 41) - 1);
    assert_eq!(
        l.end(),
        UNIX_EPOCH + Duration::from_millis(1_288_834_974_657 + (1 << 41))
    );
}
