//! Parsing the process-wide generator's configuration from variables, through
//! a lookup function (no process environment involved).

use std::collections::HashMap;

use flakeid_core::layout::presets;
use flakeid_core::{ConfigError, GeneratorBuilder};

use crate::support::config_errors::{fails_with_clock, invalid_var};

fn from(vars: &[(&str, &str)]) -> Result<GeneratorBuilder, ConfigError> {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    GeneratorBuilder::from_vars(|k| map.get(k).cloned())
}

/// Runs `from(vars)`, which must fail with `expected(now)` for a clock
/// reading `now` taken during the call, and returns the error.
fn from_fails_with_clock(vars: &[(&str, &str)], expected: impl Fn(u64) -> String) -> ConfigError {
    fails_with_clock(|| from(vars).unwrap_err(), expected)
}

/// The node of the generator built from `vars`, which must be valid.
fn node_of(vars: &[(&str, &str)]) -> u64 {
    from(vars).unwrap().build().unwrap().node()
}

#[test]
fn node_id_with_default_layout() {
    let g = from(&[("FLAKEID_NODE_ID", "42")]).unwrap().build().unwrap();
    assert_eq!((g.node(), g.layout()), (42, &presets::twitter()));
}

#[test]
fn every_preset_name_is_accepted() {
    let named = presets::ALL.iter().map(|(name, make)| (*name, make()));
    // `-` may stand for `_`, and case is ignored.
    let spelled = [
        ("js-safe", presets::js_safe()),
        ("Discord", presets::discord()),
    ];
    for (name, preset) in named.chain(spelled) {
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
        assert!(node_of(&[("FLAKEID_DEV_MODE", "1"), ("FLAKEID_LAYOUT", "js-safe")]) <= 15);
    }
    // An explicit node ID wins over development mode.
    let explicit = [("FLAKEID_DEV_MODE", "true"), ("FLAKEID_NODE_ID", "7")];
    assert_eq!(node_of(&explicit), 7);
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
fn node_id_out_of_range_names_variable_layout_and_range() {
    for (vars, message) in [
        (
            &[("FLAKEID_NODE_ID", "5000")][..],
            r#"FLAKEID_NODE_ID="5000" is invalid: out of range: the twitter layout allows node IDs 0..=1023"#,
        ),
        (
            &[("FLAKEID_NODE_ID", "16"), ("FLAKEID_LAYOUT", "js-safe")][..],
            r#"FLAKEID_NODE_ID="16" is invalid: out of range: the js_safe layout allows node IDs 0..=15"#,
        ),
        (
            &[
                ("FLAKEID_NODE_ID", "65536"),
                ("FLAKEID_LAYOUT", "Sonyflake"),
            ][..],
            r#"FLAKEID_NODE_ID="65536" is invalid: out of range: the sonyflake layout allows node IDs 0..=65535"#,
        ),
        (
            &[("FLAKEID_NODE_ID", "18446744073709551616")][..],
            r#"FLAKEID_NODE_ID="18446744073709551616" is invalid: out of range: the twitter layout allows node IDs 0..=1023"#,
        ),
        (
            // An explicit node ID wins over development mode, and is checked.
            &[("FLAKEID_NODE_ID", "1024"), ("FLAKEID_DEV_MODE", "1")][..],
            r#"FLAKEID_NODE_ID="1024" is invalid: out of range: the twitter layout allows node IDs 0..=1023"#,
        ),
    ] {
        let err = from(vars).unwrap_err();
        assert_eq!(err.to_string(), message);
        assert_eq!(invalid_var(err).0, "FLAKEID_NODE_ID");
    }
    // The largest node ID of each layout is accepted.
    let largest = [("FLAKEID_NODE_ID", "15"), ("FLAKEID_LAYOUT", "js_safe")];
    assert_eq!(node_of(&largest), 15);
}

#[test]
fn node_id_must_be_plain_decimal_digits() {
    for bad in [
        "+5",
        "-0",
        "5 5",
        "0x10",
        "5_000",
        "1e3",
        "\u{0665}",
        "５",
        "5.",
        "\u{200b}5",
    ] {
        let err = from(&[("FLAKEID_NODE_ID", bad)]).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!(
                "FLAKEID_NODE_ID={bad:?} is invalid: expected plain decimal digits 0-9 (no sign, no other characters)"
            )
        );
    }
    // Surrounding whitespace is ignored; leading zeros are digits too.
    for (ok, node) in [(" 5 ", 5), ("\t17\n", 17), ("007", 7)] {
        assert_eq!(node_of(&[("FLAKEID_NODE_ID", ok)]), node, "{ok:?}");
    }
}

#[test]
fn epoch_as_rfc3339_or_unix_millis() {
    let b = from(&[
        ("FLAKEID_NODE_ID", "1"),
        ("FLAKEID_EPOCH", "2021-06-01T00:00:00Z"),
    ])
    .unwrap();
    use flakeid_core::layout::Layout;
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
fn epoch_in_the_future_names_the_variable() {
    let err = from_fails_with_clock(
        &[
            ("FLAKEID_NODE_ID", "1"),
            ("FLAKEID_EPOCH", "2200-01-01T00:00:00Z"),
        ],
        |now| {
            format!(
                r#"FLAKEID_EPOCH="2200-01-01T00:00:00Z" is invalid: epoch 7258118400000 ms is in the future: the clock reads {now} ms since the Unix epoch"#
            )
        },
    );
    assert_eq!(invalid_var(err).0, "FLAKEID_EPOCH");
    // In Unix milliseconds, with another layout and in development mode.
    from_fails_with_clock(
        &[
            ("FLAKEID_DEV_MODE", "1"),
            ("FLAKEID_LAYOUT", "sonyflake"),
            ("FLAKEID_EPOCH", "32472144000000"),
        ],
        |now| {
            format!(
                r#"FLAKEID_EPOCH="32472144000000" is invalid: epoch 32472144000000 ms is in the future: the clock reads {now} ms since the Unix epoch"#
            )
        },
    );
    // Far enough ahead that the layout's end would not fit 64 bits.
    from_fails_with_clock(
        &[
            ("FLAKEID_NODE_ID", "1"),
            ("FLAKEID_EPOCH", "18446744073709551615"),
        ],
        |now| {
            format!(
                r#"FLAKEID_EPOCH="18446744073709551615" is invalid: epoch 18446744073709551615 ms is in the future: the clock reads {now} ms since the Unix epoch"#
            )
        },
    );
}

#[test]
fn epoch_whose_layout_ran_out_names_the_variable() {
    // Instagram's 40 bits of milliseconds counted from 1970 ran out in 2004.
    let err = from_fails_with_clock(
        &[
            ("FLAKEID_NODE_ID", "1"),
            ("FLAKEID_LAYOUT", "instagram"),
            ("FLAKEID_EPOCH", "0"),
        ],
        |now| {
            format!(
                r#"FLAKEID_EPOCH="0" is invalid: the instagram layout's time field, counted from this epoch, ran out at 1099511627776 ms: the clock reads {now} ms since the Unix epoch"#
            )
        },
    );
    assert_eq!(invalid_var(err).0, "FLAKEID_EPOCH");
    // Also in development mode, without a node ID.
    from_fails_with_clock(
        &[
            ("FLAKEID_DEV_MODE", "yes"),
            ("FLAKEID_LAYOUT", "nonsequential"),
            ("FLAKEID_EPOCH", "1970-01-01T00:00:00Z"),
        ],
        |now| {
            format!(
                r#"FLAKEID_EPOCH="1970-01-01T00:00:00Z" is invalid: the nonsequential layout's time field, counted from this epoch, ran out at 1099511627776 ms: the clock reads {now} ms since the Unix epoch"#
            )
        },
    );
}
