//! Unit tests of `src/schema_impls.rs`: the schema's example and pattern
//! (private constants, so these run as the module's `tests`).

use super::{FLAKE128_PATTERN, Flake128, LEN, flake128_example};

#[test]
fn the_example_is_worker_1_at_the_start_of_2025_and_matches_the_pattern() {
    let example = flake128_example();
    assert_eq!(example, "00000194-1f29-7c00-0000-000000010000");
    assert_eq!(example.len(), LEN);
    assert!(
        regex::Regex::new(FLAKE128_PATTERN)
            .unwrap()
            .is_match(&example)
    );
    let flake: Flake128 = example.parse().unwrap();
    assert_eq!(
        (flake.timestamp_millis(), flake.worker(), flake.sequence()),
        (1_735_689_600_000, 1, 0)
    );
}
