//! The decoding functions: which bits each part reads, per layout and
//! dialect, and what they refuse.

use flakeid_core::layout::presets;
use flakeid_id_function::{DecodeFunctions, IdFunctionError, IdPart};
use flakeid_sql::Dialect;

#[test]
fn sonyflake_reads_the_sequence_above_the_node() {
    let f = DecodeFunctions::new(Dialect::Postgres, presets::sonyflake());
    assert_eq!(f.expression(&IdPart::Node, "id").unwrap(), "((id) & 65535)");
    assert_eq!(
        f.expression(&IdPart::Sequence, "id").unwrap(),
        "(((id) >> 16) & 255)"
    );
    assert_eq!(
        f.expression(&IdPart::UnixMillis, "id").unwrap(),
        "(1409529600000 + ((id) >> 24) * 10)"
    );
}

#[test]
fn the_cut_over_reads_old_keys_as_null() {
    let f = DecodeFunctions::new(Dialect::MySql, presets::twitter()).cut_over(1_000);
    assert_eq!(
        f.expression(&IdPart::Tick, "id").unwrap(),
        "(CASE WHEN (id) < 1000 THEN NULL ELSE CAST(((id) >> 22) AS SIGNED) END)"
    );
}

#[test]
fn sqlite_has_no_functions_and_unknown_fields_are_named() {
    let f = DecodeFunctions::new(Dialect::Sqlite, presets::twitter());
    assert!(matches!(
        f.install(),
        Err(IdFunctionError::UnsupportedDialect { .. })
    ));
    let e = f
        .expression(&IdPart::Field("shard".into()), "id")
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the layout has no field \"shard\"; its fields are tick, datacenter, worker, node, sequence"
    );
    let pg = DecodeFunctions::new(Dialect::Postgres, presets::twitter());
    let uninstall = pg.uninstall().unwrap();
    assert_eq!(
        uninstall[5],
        "DROP FUNCTION IF EXISTS \"flakeid_id_field\"(bigint, text)"
    );
    assert!(pg.clone().prefix("x".repeat(60)).install().is_err());
}
