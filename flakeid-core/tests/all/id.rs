//! The `FlakeId` trait's provided methods, on a hand-written ID type.

use std::time::{Duration, UNIX_EPOCH};

use flakeid_core::encoding::DecodeError;
use flakeid_core::layout::presets;
use flakeid_core::{ConfigError, FlakeId, IdError};

hand_written_id!(
    PostId,
    layout = presets::discord,
    source = generator_source!(presets::discord(), 0b00001_00000)
);

// What `#[flake_id]` emits for serde; expands to nothing without core's
// `serde` feature, so this file compiles either way.
flakeid_core::__private::impl_serde!(PostId);

// An ID type whose source cannot be configured: it still checks and
// decodes values with its scheme (Twitter's layout).
hand_written_id!(
    Unconfigured,
    layout = presets::twitter,
    source = Err(flakeid_core::ConfigError::MissingNodeId)
);

#[test]
fn from_i64_rejects_zero_and_negatives_naming_value_and_type() {
    assert_eq!(
        PostId::from_i64(0),
        Err(IdError::Zero {
            type_name: "PostId"
        })
    );
    assert_eq!(
        PostId::from_i64(0).unwrap_err().to_string(),
        "0 is not a valid PostId: IDs start at 1"
    );
    let e = PostId::from_i64(-5).unwrap_err();
    assert_eq!(
        e,
        IdError::Negative {
            type_name: "PostId",
            value: -5
        }
    );
    assert_eq!(e.to_string(), "-5 is not a valid PostId: IDs are positive");
    assert!(
        PostId::from_i64(i64::MIN)
            .unwrap_err()
            .to_string()
            .contains("-9223372036854775808")
    );
}

#[test]
fn edge_values_are_accepted() {
    for v in [1, (1 << 53) - 1, i64::MAX] {
        assert_eq!(PostId::from_i64(v).map(FlakeId::get), Ok(v));
        assert_eq!(PostId::from_u64(v as u64).map(FlakeId::get), Ok(v));
        assert_eq!(Unconfigured::from_i64(v).map(FlakeId::get), Ok(v));
    }
    assert_eq!(PostId::max_value(), i64::MAX as u64);
    assert_eq!(Unconfigured::max_value(), i64::MAX as u64);
}

#[test]
fn from_u64_rejects_values_above_the_layout_max() {
    let e = PostId::from_u64(1 << 63).unwrap_err();
    assert_eq!(
        e,
        IdError::TooLarge {
            type_name: "PostId",
            value: 1 << 63,
            max: i64::MAX as u64
        }
    );
    assert_eq!(
        e.to_string(),
        "9223372036854775808 is not a valid PostId: the largest is 9223372036854775807"
    );
    assert!(Unconfigured::from_u64(u64::MAX).is_err());
    assert_eq!(
        PostId::from_u64(0),
        Err(IdError::Zero {
            type_name: "PostId"
        })
    );
}

#[test]
fn from_str_is_strict_decimal() {
    assert_eq!(
        "175928847299117063".parse::<PostId>(),
        Ok(PostId(175_928_847_299_117_063))
    );
    for bad in ["", " 1", "1 ", "+1", "-1", "01", "1.0", "0x10", "١٢"] {
        let e = bad.parse::<PostId>().unwrap_err();
        assert!(
            matches!(
                e,
                IdError::Text {
                    type_name: "PostId",
                    ..
                }
            ),
            "{bad:?}: {e}"
        );
        if !bad.is_empty() {
            assert!(e.to_string().contains(&format!("{bad:?}")), "{bad:?}: {e}");
        }
    }
    assert_eq!(
        "0".parse::<PostId>(),
        Err(IdError::Zero {
            type_name: "PostId"
        })
    );
    assert!(matches!(
        "9223372036854775808".parse::<PostId>(),
        Err(IdError::TooLarge { .. })
    ));
    assert!(matches!(
        "18446744073709551616".parse::<PostId>(),
        Err(IdError::Text {
            source: DecodeError::Overflow { .. },
            ..
        })
    ));
}

#[test]
fn display_round_trips() {
    let id = PostId::from_i64(123_456_789).unwrap();
    assert_eq!(id.to_string(), "123456789");
    assert_eq!(id.to_string().parse::<PostId>(), Ok(id));
}

#[test]
fn discord_vector_decodes_through_the_preset() {
    let layout = presets::discord();
    let id = 175_928_847_299_117_063;
    let parts = layout.decompose(id);
    assert_eq!(
        layout.timestamp(id),
        UNIX_EPOCH + Duration::from_millis(1_462_015_105_796)
    ); // 2016-04-30T11:18:25.796Z
    assert_eq!(
        layout.split_node(parts.node).unwrap(),
        [("worker", 1), ("process", 0)]
    );
    assert_eq!(parts.sequence, 7);
}

#[test]
fn decode_uses_the_generators_layout() {
    let d = PostId::from_i64(175_928_847_299_117_063).unwrap().decode();
    assert_eq!(
        d.timestamp,
        Some(UNIX_EPOCH + Duration::from_millis(1_462_015_105_796))
    );
    assert_eq!(d.field("worker"), Some(1));
    assert_eq!(d.field("process"), Some(0));
    assert_eq!(d.field("shard"), None);
    assert_eq!(d.field("sequence"), Some(7));
    assert_eq!(d.parts.map(|p| p.node), Some(32));
    assert_eq!(d.id, 175_928_847_299_117_063);
    assert_eq!(
        d.to_string(),
        "175928847299117063 (2016-04-30T11:18:25.796Z, tick 41944705796, worker 1, process 0, sequence 7)"
    );
    // Decoding needs no source: the scheme alone.
    assert_eq!(Unconfigured(5).decode().field("sequence"), Some(5));
}

#[test]
fn generated_ids_increase_and_carry_the_node() {
    let a = PostId::generate().expect("a fresh ID");
    let b = PostId::generate().unwrap();
    assert!(b > a);
    let d = b.decode();
    assert_eq!((d.field("worker"), d.field("process")), (Some(1), Some(0)));
    assert!(matches!(
        Unconfigured::generate().map_err(|e| e.error),
        Err(flakeid_core::GenerateError::Config(
            ConfigError::MissingNodeId
        ))
    ));
}

/// `generate` reports why no ID could be issued instead of panicking (it
/// panicked with this reason before it returned a `Result`).
#[test]
fn generate_returns_the_reason_instead_of_panicking() {
    let e = Unconfigured::generate().unwrap_err();
    assert!(e.to_string().contains("FLAKEID_NODE_ID is not set"), "{e}");
    assert_eq!(
        Unconfigured::try_generate().unwrap_err().error,
        flakeid_core::GenerateError::Config(ConfigError::MissingNodeId)
    );
}

/// The error names the ID type that asked, in its message and in the
/// `Debug` form `fn main() -> Result<…>` prints.
#[test]
fn a_generate_error_names_the_id_type() {
    for e in [
        Unconfigured::generate().unwrap_err(),
        Unconfigured::try_generate().unwrap_err(),
        Unconfigured::generate_many(2).unwrap_err(),
    ] {
        assert_eq!(e.id_type, "Unconfigured");
        assert_eq!(
            e.error,
            flakeid_core::GenerateError::Config(ConfigError::MissingNodeId)
        );
        assert!(
            e.to_string().starts_with(
                "cannot generate an ID of type Unconfigured: FLAKEID_NODE_ID is not set"
            ),
            "{e}"
        );
        assert!(format!("{e:?}").contains("\"Unconfigured\""), "{e:?}");
    }
}

#[test]
fn text_encodings_round_trip_and_check_the_range() {
    for v in [1, 7, (1 << 53) - 1, i64::MAX] {
        let id = PostId::from_i64(v).unwrap();
        assert_eq!(PostId::from_base62(&id.to_base62()), Ok(id));
        assert_eq!(PostId::from_crockford(&id.to_crockford()), Ok(id));
        assert_eq!(
            PostId::from_crockford(&id.to_crockford().to_lowercase()),
            Ok(id)
        );
    }
    assert_eq!(
        PostId::from_base62("00000000000"),
        Err(IdError::Zero {
            type_name: "PostId"
        })
    );
    assert!(
        matches!(PostId::from_base62("LygHa16AHYF"), Err(IdError::TooLarge { value, .. }) if value == u64::MAX as u128)
    );
    let e = PostId::from_crockford("12U4").unwrap_err();
    assert_eq!(
        e.to_string(),
        "not a valid PostId: invalid character 'U' at position 2 in Crockford base32 string \"12U4\""
    );
}

#[test]
fn text_forms_accept_only_the_canonical_width() {
    let id = PostId::from_i64(175_928_847_299_117_063).unwrap();
    assert_eq!(PostId::from_crockford("04W86BB0G4007"), Ok(id));
    assert_eq!(PostId::from_crockford("o4w86bbog4oo7"), Ok(id));
    assert_eq!(PostId::from_base62("0Czks0tP37X"), Ok(id));
    for (result, message) in [
        (
            PostId::from_crockford("4W86BB0G4007"),
            r#"not a valid PostId: wrong length: expected 13 characters, got 12, in Crockford base32 string "4W86BB0G4007""#,
        ),
        (
            PostId::from_crockford("04W86-BB0G-4007"),
            r#"not a valid PostId: invalid character '-' at position 5 in Crockford base32 string "04W86-BB0G-4007""#,
        ),
        (
            PostId::from_base62("Czks0tP37X"),
            r#"not a valid PostId: wrong length: expected 11 characters, got 10, in base62 string "Czks0tP37X""#,
        ),
        (
            PostId::from_base62("1"),
            r#"not a valid PostId: wrong length: expected 11 characters, got 1, in base62 string "1""#,
        ),
        (
            // Fits 64 bits but not the type: the largest PostId is 7ZZZZZZZZZZZZ.
            PostId::from_crockford("8000000000000"),
            "9223372036854775808 is not a valid PostId: the largest is 9223372036854775807",
        ),
        (
            PostId::from_crockford("G000000000000"),
            r#"not a valid PostId: Crockford base32 string "G000000000000" is larger than the largest 64-bit value"#,
        ),
    ] {
        assert_eq!(result.unwrap_err().to_string(), message);
    }
}
