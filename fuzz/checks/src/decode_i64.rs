//! Any `i64` as an ID of every type (`from_i64`, `from_u64`, the
//! `TryFrom` conversions protobuf fields use), and any `u64` decoded by
//! every built-in layout and scheme.
//!
//! The input's first 8 bytes are the value (little-endian). Property: a
//! value is an ID exactly when it is in the type's range and passes its
//! scheme's check, and an ID decodes, prints and reads back in every text
//! form; every other value is an [`IdError`] naming the type. Decoding any
//! `u64` with any scheme returns (fields of garbage for non-IDs, never a
//! panic), and a layout composes the parts of any of its IDs back into it.

use std::time::{Duration, UNIX_EPOCH};

use flakeid_core::layout::presets;
use flakeid_core::{FlakeId, IdError, IdScheme};
use flakeid_schemes::DecimalLayout;
use flakeid_schemes::{DecimalIdScheme, RandomKeys, TraceIdLayout};

use crate::ids::for_each_id;
use crate::input::Bytes;
use crate::oracle::{Expect, assert_id};

pub fn check(data: &[u8]) {
    let raw = Bytes::new(data).u64();
    let value = raw as i64;
    for_each_id!(one(value));

    for (name, make) in presets::ALL {
        let layout = make();
        let decoded = layout.decode(raw);
        assert_eq!(decoded.id, raw);
        let _ = decoded.to_string();
        let parts = layout.decompose(raw);
        assert_eq!(
            layout.decompose_checked(raw).is_ok(),
            raw <= layout.max_id(),
            "{name} {raw}"
        );
        if raw <= layout.max_id() {
            assert_eq!(
                layout.compose(parts.tick, parts.node, parts.sequence),
                raw,
                "{name}"
            );
            let fields = layout
                .split_node(parts.node)
                .expect("a decomposed node splits");
            assert_eq!(
                layout.compose_node(&fields.iter().map(|f| f.1).collect::<Vec<_>>()),
                Ok(parts.node)
            );
            let t = layout.timestamp(raw);
            assert!(
                t >= layout.epoch() && t < layout.end(),
                "{name} {raw}: {t:?}"
            );
            assert_eq!(decoded.timestamp, Some(t));
        }
    }
    let decimal = DecimalLayout::time_sequence_server(1_704_067_200_000).expect("decimal layout");
    let _ = decimal.decode(raw).to_string();
    if raw <= decimal.max_id() {
        let p = decimal.decompose(raw);
        assert_eq!(decimal.compose(p.tick, p.node, p.sequence), raw);
        let since = Duration::from_millis(decimal.timestamp_millis(raw));
        assert_eq!(decimal.decode(raw).timestamp, Some(UNIX_EPOCH + since));
    }
    let schemes: [&dyn IdScheme; 3] = [
        &DecimalIdScheme::default(),
        &TraceIdLayout::for_threads(4).expect("TraceId for 4 threads"),
        &RandomKeys(presets::nonsequential()),
    ];
    for scheme in schemes {
        let _ = scheme.check(raw);
        let decoded = scheme.decode(raw);
        assert_eq!(decoded.id, raw);
        let _ = decoded.to_string();
    }
}

fn one<I>(value: i64)
where
    I: FlakeId + TryFrom<i64, Error = IdError> + TryFrom<u64, Error = IdError>,
    i64: From<I>,
    u64: From<I>,
{
    let got = I::from_i64(value);
    assert_id(&got, Expect::from_i64::<I>(value), &value);
    assert_eq!(I::try_from(value), got);
    let unsigned = value as u64;
    let from_u64 = I::from_u64(unsigned);
    assert_id(&from_u64, Expect::from_u64::<I>(unsigned), &unsigned);
    assert_eq!(I::try_from(unsigned), from_u64);
    if let Ok(id) = got {
        assert_eq!((i64::from(id), u64::from(id)), (value, unsigned));
    }
}
