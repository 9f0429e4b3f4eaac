//! Every scheme's example ID: valid, stable, where the docs say.

use flakeid_core::IdScheme;
use std::time::{Duration, UNIX_EPOCH};

use flakeid_core::layout::presets;
use flakeid_schemes::{DecimalIdScheme, DecimalLayout, RandomKeys, RandomStart, TraceIdLayout};

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
fn scheme_examples_pass_their_rules() {
    let random = RandomKeys(presets::nonsequential());
    let id = valid_example(&random);
    assert_eq!(presets::nonsequential().decompose(id).sequence, 1);

    let decimal_id = DecimalIdScheme::default();
    assert_eq!(valid_example(&decimal_id), 10_000_100_001);
    let js = DecimalIdScheme::default().max_counter(DecimalIdScheme::JS_SAFE_MAX_COUNTER);
    assert_eq!(valid_example(&js), 10_000_100_001);

    for threads in [1, 4, 64] {
        let trace = TraceIdLayout::for_threads(threads).expect("a layout");
        let d = trace.decode(valid_example(&trace));
        let fields = ["timestamp", "node", "thread", "counter"].map(|f| d.field(f));
        let second = EXAMPLE_UNIX_MILLIS / 1000 % (1 << 25);
        assert_eq!(fields, [Some(second), Some(1), Some(0), Some(1)]);
    }
}

#[test]
fn layout_examples_are_node_1_at_the_start_of_2025() {
    let when = UNIX_EPOCH + Duration::from_millis(EXAMPLE_UNIX_MILLIS);
    for (name, make) in presets::ALL {
        let layout = make();
        let random_start = RandomStart::new(layout.clone()).expect("room for a random start");
        assert_eq!(
            valid_example(&random_start),
            valid_example(&layout),
            "{name}"
        );
    }
    let decimal = DecimalLayout::time_sequence_server(1_704_067_200_000).expect("2024 epoch");
    let id = valid_example(&decimal);
    assert_eq!(decimal.decode(id).timestamp, Some(when));
}
