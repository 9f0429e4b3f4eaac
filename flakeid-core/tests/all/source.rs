//! Every layout's example ID: valid, stable, where the docs say. (The
//! examples of the layouts and schemes of flakeid-schemes are tested
//! there.)
use std::time::{Duration, UNIX_EPOCH};

use flakeid_core::IdScheme;
use flakeid_core::layout::{BitLayout, presets};

/// 2025-01-01T00:00:00Z: the instant of every layout's example ID.
const EXAMPLE_UNIX_MILLIS: u64 = 1_735_689_600_000;

/// The example of `scheme`: an ID of it (in range, passing `check`),
/// the same on every call.
fn valid_example(scheme: &dyn IdScheme) -> u64 {
    let id = scheme.example_id().expect("every built-in scheme has one");
    assert!((1..=scheme.max_id()).contains(&id), "{scheme:?}: {id}");
    assert_eq!(scheme.check(id), Ok(()), "{scheme:?}: {id}");
    assert_eq!(scheme.example_id(), Some(id));
    id
}

#[test]
fn layout_examples_are_node_1_at_the_start_of_2025() {
    let when = UNIX_EPOCH + Duration::from_millis(EXAMPLE_UNIX_MILLIS);
    let layouts = [
        presets::twitter(),
        presets::discord(),
        presets::instagram(),
        presets::sonyflake(),
        presets::tsid(),
        presets::lsid(),
        presets::js_safe(),
        presets::js_safe_seconds(),
        presets::nonsequential(),
    ];
    for layout in layouts {
        let id = valid_example(&layout);
        let parts = layout.decompose(id);
        assert_eq!((parts.node, parts.sequence), (1, 0), "{layout:?}");
        assert_eq!(layout.timestamp(id), when, "{layout:?}");
    }
}

#[test]
fn a_layout_with_a_later_epoch_gives_its_first_tick() {
    let layout = BitLayout::builder()
        .time_bits(41)
        .node_bits(10)
        .sequence_bits(12)
        .epoch_millis(EXAMPLE_UNIX_MILLIS + 86_400_000)
        .build()
        .expect("a layout");
    let id = valid_example(&layout);
    assert_eq!(layout.decompose(id).tick, 1);
    let no_node = BitLayout::builder()
        .time_bits(41)
        .sequence_bits(12)
        .epoch_millis(0)
        .build()
        .expect("a layout");
    assert_eq!(no_node.decompose(valid_example(&no_node)).node, 0);
}
