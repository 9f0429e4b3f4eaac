//! Every scheme's example ID: valid, stable, where the docs say.

use flakeid_core::IdScheme;
use flakeid_core::layout::presets;
use flakeid_schemes::{DecimalIdScheme, RandomKeys, TraceIdLayout};

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
