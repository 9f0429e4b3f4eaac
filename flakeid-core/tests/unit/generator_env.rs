//! Unit tests of `src/generator/env.rs` (private items; included with `#[path]` as its
//! `tests` module).

use super::*;

fn read_at(vars: &[(&str, &str)], now: u64) -> Result<EnvConfig, ConfigError> {
    EnvConfig::read_at(
        |name| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| (*v).to_owned())
        },
        now,
    )
}

#[test]
fn a_preset_that_ran_out_names_the_layout_variable() {
    // Instagram's time field runs out at 2046-06-27T17:00:49.497Z.
    let end = presets::instagram().end_millis();
    let vars = [("FLAKEID_NODE_ID", "1"), ("FLAKEID_LAYOUT", "instagram")];
    assert!(read_at(&vars, end - 1).is_ok());
    let err = read_at(&vars, end).err().unwrap();
    assert_eq!(
        err.to_string(),
        format!(
            "FLAKEID_LAYOUT=\"instagram\" is invalid: the instagram layout's time field ran out \
             at {end} ms: the clock reads {end} ms since the Unix epoch; set FLAKEID_EPOCH to a \
             later epoch or choose another layout"
        )
    );
    // The default preset, chosen by no variable, reports the plain error.
    let end = presets::twitter().end_millis();
    let err = read_at(&[("FLAKEID_NODE_ID", "1")], end + 5).err().unwrap();
    assert_eq!(
        err,
        ConfigError::LayoutExpired {
            end_millis: end,
            now_millis: end + 5
        }
    );
}

#[test]
fn an_epoch_whose_end_does_not_fit_names_the_epoch_variable() {
    let err = read_at(
        &[
            ("FLAKEID_NODE_ID", "1"),
            ("FLAKEID_EPOCH", "18446744073709551614"),
        ],
        u64::MAX,
    )
    .err()
    .unwrap();
    assert_eq!(
        err.to_string(),
        "FLAKEID_EPOCH=\"18446744073709551614\" is invalid: does not fit the twitter layout: \
         epoch 18446744073709551614 ms + 2^41 ticks of 1 ms is past the last representable time"
    );
}

#[test]
fn rfc3339_examples() {
    assert_eq!(parse_epoch("2024-01-01T00:00:00Z"), Ok(1_704_067_200_000));
    assert_eq!(
        parse_epoch("2010-11-04T01:42:54.657Z"),
        Ok(1_288_834_974_657)
    );
    assert_eq!(
        parse_epoch("2015-01-01T01:00:00+01:00"),
        Ok(1_420_070_400_000)
    );
    assert_eq!(
        parse_epoch("2016-02-29T00:00:00.123456Z"),
        Ok(1_456_704_000_123)
    );
    assert_eq!(parse_epoch("1288834974657"), Ok(1_288_834_974_657));
    for bad in [
        "2023-02-29T00:00:00Z",
        "2024-01-01",
        "2024-01-01T00:00:00",
        "2024-13-01T00:00:00Z",
        "1969-12-31T23:59:59Z",
        "2024-01-01T00:00:00.Z",
        "-5",
        "12ms",
    ] {
        assert!(parse_epoch(bad).is_err(), "{bad}");
    }
}
