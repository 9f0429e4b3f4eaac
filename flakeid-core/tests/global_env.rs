//! Parsing the process-wide generator's configuration from variables, through
//! a lookup function (no process environment involved).

use std::collections::HashMap;

use flakeid_core::global::builder_from_vars;
use flakeid_core::layout::presets;
use flakeid_core::{ConfigError, GeneratorBuilder};

fn from(vars: &[(&str, &str)]) -> Result<GeneratorBuilder, ConfigError> {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    builder_from_vars(|k| map.get(k).cloned())
}

fn invalid_var(err: ConfigError) -> (&'static str, String) {
    match err {
        ConfigError::InvalidEnv { var, value, .. } => (var, value),
        other => panic!("expected InvalidEnv, got {other:?}"),
    }
}

#[test]
fn node_id_with_default_layout() {
    let g = from(&[("FLAKEID_NODE_ID", "42")]).unwrap().build().unwrap();
    assert_eq!(g.node(), 42);
    assert_eq!(g.layout(), &presets::twitter());
}

#[test]
fn every_preset_name_is_accepted() {
    for (name, preset) in [
        ("twitter", presets::twitter()),
        ("discord", presets::discord()),
        ("instagram", presets::instagram()),
        ("sonyflake", presets::sonyflake()),
        ("tsid", presets::tsid()),
        ("lsid", presets::lsid()),
        ("js-safe", presets::js_safe()),
        ("js_safe", presets::js_safe()),
        ("Discord", presets::discord()),
    ] {
        let b = from(&[("FLAKEID_NODE_ID", "1"), ("FLAKEID_LAYOUT", name)]).unwrap();
        assert_eq!(b.layout(), &preset, "{name}");
    }
}

#[test]
fn unknown_layout_names_variable_and_value() {
    let err = from(&[("FLAKEID_NODE_ID", "1"), ("FLAKEID_LAYOUT", "snowflake2")]).unwrap_err();
    let msg = err.to_string();
    assert_eq!(invalid_var(err), ("FLAKEID_LAYOUT", "snowflake2".into()));
    assert!(
        msg.contains("FLAKEID_LAYOUT") && msg.contains("snowflake2"),
        "{msg}"
    );
}

#[test]
fn missing_node_id_is_an_error_outside_dev_mode() {
    assert_eq!(from(&[]).unwrap_err(), ConfigError::MissingNodeId);
    assert_eq!(
        from(&[("FLAKEID_NODE_ID", "  ")]).unwrap_err(),
        ConfigError::MissingNodeId,
        "empty counts as unset"
    );
    assert_eq!(
        from(&[("FLAKEID_DEV_MODE", "0")]).unwrap_err(),
        ConfigError::MissingNodeId
    );
}

#[test]
fn dev_mode_picks_a_node_in_range() {
    for _ in 0..20 {
        let b = from(&[("FLAKEID_DEV_MODE", "1"), ("FLAKEID_LAYOUT", "js-safe")]).unwrap();
        let g = b.build().unwrap();
        assert!(g.node() <= 15);
    }
    // An explicit node ID wins over development mode.
    let g = from(&[("FLAKEID_DEV_MODE", "true"), ("FLAKEID_NODE_ID", "7")])
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(g.node(), 7);
}

#[test]
fn invalid_dev_mode_flag() {
    let err = from(&[("FLAKEID_DEV_MODE", "maybe")]).unwrap_err();
    assert_eq!(invalid_var(err), ("FLAKEID_DEV_MODE", "maybe".into()));
}

#[test]
fn unparsable_node_id_names_variable_and_value() {
    for bad in ["-1", "abc", "1.5", "18446744073709551616"] {
        let err = from(&[("FLAKEID_NODE_ID", bad)]).unwrap_err();
        assert_eq!(invalid_var(err), ("FLAKEID_NODE_ID", bad.to_string()));
    }
}

#[test]
fn node_id_out_of_range_names_value_and_max() {
    let err = from(&[("FLAKEID_NODE_ID", "16"), ("FLAKEID_LAYOUT", "js-safe")])
        .unwrap()
        .build()
        .unwrap_err();
    assert_eq!(err, ConfigError::NodeOutOfRange { node: 16, max: 15 });
    let msg = err.to_string();
    assert!(msg.contains("16") && msg.contains("15"), "{msg}");
}

#[test]
fn epoch_as_rfc3339_or_unix_millis() {
    let b = from(&[
        ("FLAKEID_NODE_ID", "1"),
        ("FLAKEID_EPOCH", "2021-06-01T00:00:00Z"),
    ])
    .unwrap();
    use flakeid_core::Layout;
    assert_eq!(b.layout().epoch_millis(), 1_622_505_600_000);
    let b = from(&[
        ("FLAKEID_NODE_ID", "1"),
        ("FLAKEID_EPOCH", "1622505600000"),
        ("FLAKEID_LAYOUT", "sonyflake"),
    ])
    .unwrap();
    assert_eq!(b.layout().epoch_millis(), 1_622_505_600_000);
    // Everything but the epoch is the preset's.
    assert_eq!(b.layout().tick(), presets::sonyflake().tick());
    assert_eq!(
        b.layout().sequence_bits(),
        presets::sonyflake().sequence_bits()
    );
    assert!(b.build().is_ok());
}

#[test]
fn unparsable_epoch_names_variable_and_value() {
    for bad in ["yesterday", "2024-01-01", "2024-02-30T00:00:00Z", "1e12"] {
        let err = from(&[("FLAKEID_NODE_ID", "1"), ("FLAKEID_EPOCH", bad)]).unwrap_err();
        assert_eq!(invalid_var(err), ("FLAKEID_EPOCH", bad.to_string()));
    }
}

#[test]
fn epoch_in_the_future_is_refused_at_start_up() {
    let err = from(&[
        ("FLAKEID_NODE_ID", "1"),
        ("FLAKEID_EPOCH", "2200-01-01T00:00:00Z"),
    ])
    .unwrap()
    .build()
    .unwrap_err();
    assert!(
        matches!(
            err,
            ConfigError::EpochInFuture {
                epoch_millis: 7_258_118_400_000,
                ..
            }
        ),
        "{err:?}"
    );
}
