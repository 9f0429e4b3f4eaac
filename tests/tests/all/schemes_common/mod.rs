//! The ID schemes the storage tests run through each ORM: for every scheme,
//! the IDs to store (edge values and freshly generated ones) and the parts
//! each must decode into after the round trip.
//!
//! Included by `schemes_seaorm.rs` and `schemes_diesel.rs`; the ID types
//! declared here are column types of both ORMs (`#[flake_id(seaorm, diesel)]`),
//! except [`TicketId`], shared by the tests of ID types as plain values.
#![allow(unreachable_pub)]

pub mod extra;

use std::sync::OnceLock;

use flakeid_core::layout::{BitLayout, presets};
use flakeid_core::{Decoded, FlakeId, Generator, flake_id};

/// The node of every generator the tests build (fits every preset, even
/// the 4 node bits of `js_safe`).
pub const NODE: u64 = 5;

/// How many freshly generated IDs each scheme stores.
pub const GENERATED: usize = 20;

/// Decoded parts by name (`tick`, the node subfields, `sequence`, or a
/// scheme's own names), most significant first.
pub type Parts = Vec<(String, u64)>;

/// One ID to store and what it must decode into.
#[derive(Debug, Clone)]
pub struct Case {
    pub raw: u64,
    pub parts: Parts,
}

/// A scheme: its IDs and its decoder.
pub struct Scheme {
    pub name: &'static str,
    pub cases: Vec<Case>,
    pub decode: Box<dyn Fn(u64) -> Result<Parts, String> + Send + Sync>,
}

impl Scheme {
    /// The raw IDs, ascending, as the database must return them under `ORDER BY`.
    pub fn sorted_raw(&self) -> Vec<u64> {
        let mut raw: Vec<u64> = self.cases.iter().map(|c| c.raw).collect();
        raw.sort_unstable();
        raw
    }

    /// Checks an ID read back from the database: it is one of the stored
    /// ones and decodes into that one's parts.
    pub fn check_read_back(&self, read: i64) {
        let raw = u64::try_from(read)
            .unwrap_or_else(|_| panic!("{}: read back a negative ID {read}", self.name));
        let case =
            self.cases.iter().find(|c| c.raw == raw).unwrap_or_else(|| {
                panic!("{}: read back {raw}, which was never stored", self.name)
            });
        let parts = (self.decode)(raw).unwrap_or_else(|e| panic!("{}: {raw}: {e}", self.name));
        assert_eq!(
            parts, case.parts,
            "{}: parts of {raw} after the round trip",
            self.name
        );
    }
}

/// Parts of a [`Decoded`] ID (what `FlakeId::decode` returns).
pub fn decoded_parts(d: &Decoded) -> Parts {
    d.fields.iter().map(|(n, v)| (n.to_string(), *v)).collect()
}

/// The parts a layout composes `(tick, node, sequence)` from, with the node
/// split into its named subfields.
pub fn composed_parts(layout: &BitLayout, tick: u64, node: u64, sequence: u64) -> Parts {
    let mut parts = vec![("tick".to_owned(), tick)];
    let fields = layout.split_node(node).expect("node is within the layout");
    parts.extend(fields.into_iter().map(|(n, v)| (n.to_owned(), v)));
    parts.push(("sequence".to_owned(), sequence));
    parts
}

/// A scheme of a [`BitLayout`] preset: the edge values `1`, `max_id`,
/// `2^53-1` and `2^63-1` (where the layout's domain holds them), IDs
/// composed from chosen parts (smallest tick, all fields at their maximum,
/// a mix) and IDs from a real generator of node [`NODE`].
pub fn bit_layout_scheme(name: &'static str, layout: BitLayout, generator: &Generator) -> Scheme {
    let max = layout.max_id();
    let mut cases = Vec::new();
    for raw in [1, max, (1 << 53) - 1, i64::MAX as u64] {
        if raw <= max && !cases.iter().any(|c: &Case| c.raw == raw) {
            let parts = decoded_parts(&Decoded::new(&layout, raw));
            cases.push(Case { raw, parts });
        }
    }
    let (mt, mn, ms) = (layout.max_tick(), layout.max_node(), layout.max_sequence());
    for (t, n, s) in [
        (1, 0, 0),
        (0, mn, ms),
        (mt, mn, ms - 1),
        (mt / 2, mn / 3, ms / 2),
        (mt - 1, 1, 1),
    ] {
        let raw = layout.compose_checked(t, n, s).expect("parts are in range");
        if !cases.iter().any(|c| c.raw == raw) {
            cases.push(Case {
                raw,
                parts: composed_parts(&layout, t, n, s),
            });
        }
    }
    let batch: Vec<u64> = generator
        .next_batch(GENERATED)
        .expect("the test generator issues IDs")
        .collect();
    for raw in batch {
        let d = Decoded::new(&layout, raw);
        assert_eq!(
            d.parts.map(|p| p.node),
            Some(NODE),
            "{name}: generated {raw} carries the generator's node"
        );
        cases.push(Case {
            raw,
            parts: decoded_parts(&d),
        });
    }
    Scheme {
        name,
        cases,
        decode: Box::new(move |raw| {
            layout.decompose_checked(raw).map_err(|e| e.to_string())?;
            Ok(decoded_parts(&Decoded::new(&layout, raw)))
        }),
    }
}

/// Declares an ID type per preset: the preset validates and decodes its
/// values, a generator of the preset for node [`NODE`] issues them.
macro_rules! preset_ids {
    ($($id:ident => $preset:ident),* $(,)?) => {
        /// One generator per preset, built on first use.
        pub mod generators {
            use std::sync::OnceLock;
            use flakeid_core::{ConfigError, Generator};
            use flakeid_core::layout::presets;
            $(
                pub fn $preset() -> Result<&'static Generator, ConfigError> {
                    static G: OnceLock<Result<Generator, ConfigError>> = OnceLock::new();
                    G.get_or_init(|| Generator::builder(presets::$preset(), super::NODE).build())
                        .as_ref()
                        .map_err(Clone::clone)
                }
            )*
        }
        $(
            #[flake_id(seaorm, diesel, layout = presets::$preset, source = generators::$preset)]
            pub struct $id(i64);
        )*

        /// Every preset's scheme (checked against `presets::ALL`, so a new
        /// preset cannot go untested).
        pub fn preset_schemes() -> Vec<Scheme> {
            let listed = [$(stringify!($preset)),*];
            for (name, _) in presets::ALL {
                assert!(listed.contains(name), "preset {name} has no ID type in schemes_common");
            }
            vec![$(
                bit_layout_scheme(
                    stringify!($preset),
                    presets::$preset(),
                    generators::$preset().expect("preset generator"),
                ),
            )*]
        }
    };
}

preset_ids! {
    TwitterId => twitter,
    DiscordId => discord,
    InstagramId => instagram,
    SonyflakeId => sonyflake,
    TsidId => tsid,
    LsidId => lsid,
    JsSafeId => js_safe,
    JsSafeSecondsId => js_safe_seconds,
    NonsequentialId => nonsequential,
}

/// Checks that the typed ID decodes (with its own scheme) into the parts
/// stored for it.
pub fn check_typed_decode<I: FlakeId>(scheme: &Scheme, id: I) {
    let raw = id.get().unsigned_abs();
    let case = scheme
        .cases
        .iter()
        .find(|c| c.raw == raw)
        .unwrap_or_else(|| panic!("{}: {raw} was never stored", scheme.name));
    let decoded = id.decode();
    assert_eq!(
        decoded_parts(&decoded),
        case.parts,
        "{}: {}::decode()",
        scheme.name,
        I::NAME
    );
}

/// Checks the `(id, copy)` of the rows a table of `scheme` gave back in key
/// order: the stored IDs in key order, each the same in its nullable copy
/// and decoding (with the scheme, and with the ID type if `typed`) into
/// the parts stored for it.
pub fn check_rows_in_key_order<I>(scheme: &Scheme, rows: &[(I, Option<I>)], typed: bool)
where
    I: FlakeId + Copy + PartialEq + std::fmt::Debug,
{
    let read: Vec<u64> = rows.iter().map(|(id, _)| id.get().unsigned_abs()).collect();
    assert_eq!(
        read,
        scheme.sorted_raw(),
        "{}: IDs in key order",
        scheme.name
    );
    for &(id, copy) in rows {
        assert_eq!(copy, Some(id), "{}: nullable column", scheme.name);
        scheme.check_read_back(id.get());
        if typed {
            check_typed_decode(scheme, id);
        }
    }
}

/// The carrier ID type of permuted public IDs: any ID in `1..=2^63-1`;
/// decoding un-permutes, then decodes with the preset.
#[flake_id(seaorm, diesel, layout = presets::tsid, source = bigint_generator)]
pub struct WideId(i64);

fn bigint_generator() -> Result<&'static Generator, flakeid_core::ConfigError> {
    static G: OnceLock<Result<Generator, flakeid_core::ConfigError>> = OnceLock::new();
    G.get_or_init(|| Generator::builder(presets::tsid(), NODE).build())
        .as_ref()
        .map_err(Clone::clone)
}

/// A JavaScript-safe ID (at most `2^53 − 1`), for the tests of ID types as
/// plain values: bound and read by sqlx (`sqlx_types`), declared in
/// TypeScript (`typescript`, where it is a string all the same).
#[flake_id(layout = presets::js_safe)]
pub struct TicketId(i64);

/// How a database renders a BIGINT as text in plain SQL.
pub fn cast_to_text(column: &str, mysql: bool) -> String {
    if mysql {
        format!("CAST({column} AS CHAR)")
    } else {
        format!("CAST({column} AS TEXT)")
    }
}

/// 128-bit flakes to store, in a shuffled order: edge values (the smallest,
/// the largest, a set top bit in the time and in the worker field, flakes
/// differing only in one field) and generated ones.
pub fn flake128_fixtures() -> Vec<flakeid_flake128::Flake128> {
    use flakeid_flake128::Flake128;
    use flakeid_flake128::Flake128Layout;

    const MAX_WORKER: u64 = (1 << 48) - 1;
    const MAC: u64 = 0x0242_ac11_0002;
    const T: u64 = 1_700_000_000_000;
    let mut flakes: Vec<Flake128> = [
        Flake128::from_u128(1),
        Flake128::from_parts(0, 0, 2),
        Flake128::from_parts(1, 0, 0),
        Flake128::from_parts(T, MAC, 0),
        Flake128::from_parts(T, MAC, 1),
        Flake128::from_parts(T, MAC, 65_535),
        Flake128::from_parts(T, MAX_WORKER, 0),
        Flake128::from_parts(T, 0x7fff_ffff_ffff, 65_535),
        Flake128::from_parts(T, 0x8000_0000_0000, 0),
        Flake128::from_parts(T + 1, 0, 0),
        Flake128::from_parts(0x7fff_ffff_ffff_ffff, MAC, 0),
        Flake128::from_parts(1 << 63, 0, 0),
        Flake128::from_u128(u128::MAX),
    ]
    .into_iter()
    .map(|f| f.expect("fixture parts are valid"))
    .collect();
    let generator = Generator::builder(Flake128Layout, MAC)
        .build()
        .expect("Flake128 generator");
    for _ in 0..GENERATED {
        flakes.push(Flake128::generate(&generator).expect("a fresh flake"));
    }
    // Deterministic Fisher–Yates, so a failure reproduces.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    for i in (1..flakes.len()).rev() {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let j = usize::try_from((state >> 33) % (i as u64 + 1)).expect("small index");
        flakes.swap(i, j);
    }
    flakes
}

/// Flakes in time order: by (milliseconds, worker, sequence), computed from
/// the decoded parts rather than from the bytes.
pub fn in_time_order(flakes: &[flakeid_flake128::Flake128]) -> Vec<flakeid_flake128::Flake128> {
    let mut sorted = flakes.to_vec();
    sorted.sort_by_key(|f| (f.timestamp_millis(), f.worker(), f.sequence()));
    sorted
}

/// Upper-case hex of a flake's 16 stored bytes (what `HEX(col)` returns).
pub fn flake_hex(f: flakeid_flake128::Flake128) -> String {
    f.to_bytes().iter().map(|b| format!("{b:02X}")).collect()
}
