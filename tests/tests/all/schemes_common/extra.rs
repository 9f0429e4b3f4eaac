//! Schemes that are not bit-layout presets: decimal layouts (sequence and
//! random variants), DecimalId, TraceId, a random-start layout — each with
//! an ID type of its own, `#[flake_id(scheme = …, source = …)]`, whose
//! scheme validates and decodes the IDs and whose source (the scheme's
//! generator) issues them — and permuted
//! public IDs, stored through the carrier type `WideId` (any ID in
//! `1..=2^63-1`) and decoded with the permutation and the preset.

use std::sync::OnceLock;
use std::sync::atomic::AtomicU32;

use flakeid_core::layout::Layout;
use flakeid_core::layout::{BitLayout, presets};
use flakeid_core::{ConfigError, FlakeId, Generator, flake_id};
use flakeid_schemes::Permutation;
use flakeid_schemes::{DecimalIdGenerator, DecimalIdParts, DecimalIdScheme};
use flakeid_schemes::{DecimalLayout, RandomStart};
use flakeid_schemes::{RandomKeyGenerator, RandomKeys};
use flakeid_schemes::{TraceIdGenerator, TraceIdLayout, TraceIdParts};

use super::{Case, GENERATED, NODE, Parts, Scheme, bit_layout_scheme, composed_parts};

/// A `source = …` function over a generator built on first use (a build
/// error fails the test).
macro_rules! source_fn {
    ($name:ident: $ty:ty = $build:expr) => {
        pub fn $name() -> Result<&'static $ty, ConfigError> {
            static G: OnceLock<$ty> = OnceLock::new();
            Ok(G.get_or_init(|| $build))
        }
    };
}

source_fn!(decimal_sequence_ids: Generator<DecimalLayout> =
    Generator::builder(decimal_layout(), 3).build().expect("decimal generator"));
source_fn!(decimal_random_ids: RandomKeyGenerator<DecimalLayout> =
    RandomKeyGenerator::builder(decimal_layout(), 4)
        .seed(42)
        .build()
        .expect("random decimal generator"));
source_fn!(decimal_ids: DecimalIdGenerator<AtomicU32> =
    DecimalIdGenerator::builder(65, AtomicU32::new(92))
        .build()
        .expect("DecimalId generator"));
source_fn!(trace_ids: TraceIdGenerator =
    TraceIdGenerator::builder(NODE)
        .threads(TRACE_THREADS)
        .build()
        .expect("TraceId generator"));
source_fn!(random_start_ids: Generator<RandomStart<BitLayout>> =
    Generator::builder(
        RandomStart::new(presets::twitter()).expect("random start").seed(7),
        NODE,
    )
    .build()
    .expect("random-start generator"));

/// Article 003's 13 + 6 + 1 digits with a per-millisecond sequence.
#[flake_id(seaorm, diesel, layout = decimal_layout, source = decimal_sequence_ids)]
pub struct DecimalSequenceId(i64);

/// Article 003's 13 + 6 + 1 digits with a random 6-digit part.
#[flake_id(seaorm, diesel, scheme = random_decimal_keys, source = decimal_random_ids)]
pub struct DecimalRandomId(i64);

/// Article 004's DecimalId (counter ≥ 1, launch ID ≥ 1).
#[flake_id(seaorm, diesel, scheme = DecimalIdScheme::default, source = decimal_ids)]
pub struct LegibleId(i64);

/// Article 004's TraceId (counter ≥ 1).
#[flake_id(seaorm, diesel, scheme = trace_layout, source = trace_ids)]
pub struct TraceKey(i64);

/// A Twitter layout whose ticks start at a pseudo-random sequence.
#[flake_id(seaorm, diesel, layout = random_start_twitter, source = random_start_ids)]
pub struct RandomStartId(i64);

fn decimal_layout() -> DecimalLayout {
    DecimalLayout::time_sequence_server(EPOCH_2024).expect("decimal layout")
}

/// The decimal layout whose sequence digits are random (never all zero).
fn random_decimal_keys() -> RandomKeys<DecimalLayout> {
    RandomKeys(decimal_layout())
}

fn trace_layout() -> TraceIdLayout {
    TraceIdLayout::for_threads(TRACE_THREADS).expect("TraceId layout")
}

/// The scheme of a random-start Twitter layout (the seed only changes
/// where a generator's ticks start).
fn random_start_twitter() -> RandomStart<BitLayout> {
    RandomStart::new(presets::twitter()).expect("random start")
}

/// `n` IDs of type `I`, as raw values.
fn generate<I: FlakeId>(n: usize) -> Vec<u64> {
    I::generate_many(n)
        .unwrap_or_else(|e| panic!("{}: generate: {e}", I::NAME))
        .into_iter()
        .map(|id| id.get().unsigned_abs())
        .collect()
}

/// 2024-01-01T00:00:00Z, the epoch of the decimal layouts here.
const EPOCH_2024: u64 = 1_704_067_200_000;
/// Key of the permutations (fixed: public IDs must be reproducible).
const PERMUTATION_KEY: u128 = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210;
/// Threads a TraceId generator is configured for.
const TRACE_THREADS: u32 = 32;

fn layout_parts(p: flakeid_core::layout::Parts) -> Parts {
    vec![
        ("tick".to_owned(), p.tick),
        ("node".to_owned(), p.node),
        ("sequence".to_owned(), p.sequence),
    ]
}

/// Cases of a `u64` layout: chosen edge IDs (each must recompose to
/// itself) plus generated ones.
fn layout_cases<L: Layout<Raw = u64>>(
    name: &str,
    layout: &L,
    edges: &[u64],
    generated: &[u64],
) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for &raw in edges.iter().chain(generated) {
        let p = layout.decompose(raw);
        assert_eq!(
            layout.compose(p.tick, p.node, p.sequence),
            raw,
            "{name}: {raw} recomposes"
        );
        if !cases.iter().any(|c| c.raw == raw) {
            cases.push(Case {
                raw,
                parts: layout_parts(p),
            });
        }
    }
    cases
}

/// Cases of a scheme with parts of its own: the `generated` IDs, each
/// decomposed (`decompose` also checks what a generated ID must hold), then
/// IDs composed from `chosen` parts; `names` names the parts.
fn own_parts_cases<P: Copy>(
    generated: Vec<u64>,
    decompose: impl Fn(u64) -> P,
    chosen: &[P],
    compose: impl Fn(P) -> u64,
    names: fn(P) -> Parts,
) -> Vec<Case> {
    let generated = generated.into_iter().map(|raw| (raw, decompose(raw)));
    let chosen = chosen.iter().map(|&p| (compose(p), p));
    generated
        .chain(chosen)
        .map(|(raw, p)| Case {
            raw,
            parts: names(p),
        })
        .collect()
}

/// A scheme whose IDs `decompose` into parts that `names` names (an ID the
/// scheme does not hold is an error, as text).
fn scheme<P: 'static, E: ToString>(
    name: &'static str,
    cases: Vec<Case>,
    decompose: impl Fn(u64) -> Result<P, E> + Send + Sync + 'static,
    names: fn(P) -> Parts,
) -> Scheme {
    Scheme {
        name,
        cases,
        decode: Box::new(move |raw| decompose(raw).map(names).map_err(|e| e.to_string())),
    }
}

/// A scheme of the decimal layout, whatever fills its sequence digits.
fn decimal_layout_scheme(name: &'static str, cases: Vec<Case>) -> Scheme {
    let layout = decimal_layout();
    scheme(
        name,
        cases,
        move |raw| layout.decompose_checked(raw),
        layout_parts,
    )
}

/// Article 003's 13 + 6 + 1 digit scheme with a per-millisecond sequence.
fn decimal_sequence() -> Scheme {
    let layout = decimal_layout();
    let generated = generate::<DecimalSequenceId>(GENERATED);
    for &id in &generated {
        assert_eq!(id % 10, 3, "the last digit is the server");
    }
    let max_id = layout.max_id();
    let mut edges = vec![1, max_id, layout.compose(layout.max_tick(), 0, 1)];
    if (1 << 53) - 1 <= max_id {
        edges.push((1 << 53) - 1);
    }
    let cases = layout_cases("decimal", &layout, &edges, &generated);
    decimal_layout_scheme("decimal_time_sequence_server", cases)
}

/// The same digits with a random 6-digit part, as the article publishes it.
fn decimal_random() -> Scheme {
    let layout = decimal_layout();
    // One at a time: `generate_many` of a random-key source is `generate` repeated.
    let generated: Vec<u64> = (0..GENERATED)
        .map(|_| {
            DecimalRandomId::generate()
                .expect("a fresh ID")
                .get()
                .unsigned_abs()
        })
        .collect();
    // Random parts may repeat within a millisecond: layout_cases keeps one of each.
    let cases = layout_cases("decimal_random", &layout, &[layout.max_id()], &generated);
    decimal_layout_scheme("decimal_time_random_server", cases)
}

fn decimal_id_parts(p: DecimalIdParts) -> Parts {
    vec![
        ("counter".to_owned(), p.counter),
        ("generator_id".to_owned(), u64::from(p.generator_id)),
        ("launch_id".to_owned(), u64::from(p.launch_id)),
    ]
}

/// Article 004's `counter · 10^10 + generator_id · 10^5 + launch_id`.
fn decimal_id() -> Scheme {
    let chosen = [
        DecimalIdParts {
            counter: 1,
            generator_id: 0,
            launch_id: 1,
        },
        DecimalIdParts {
            counter: DecimalIdScheme::MAX_COUNTER,
            generator_id: DecimalIdScheme::MAX_GENERATOR_ID,
            launch_id: DecimalIdScheme::MAX_LAUNCH_ID,
        },
        DecimalIdParts {
            counter: 1415,
            generator_id: 92,
            launch_id: 65_000,
        },
    ];
    let cases = own_parts_cases(
        generate::<LegibleId>(GENERATED),
        |raw| {
            let p = DecimalIdParts::decompose(raw).expect("generated DecimalId decodes");
            assert_eq!((p.generator_id, p.launch_id), (92, 65));
            p
        },
        &chosen,
        |parts| parts.compose().expect("parts in range"),
        decimal_id_parts,
    );
    scheme(
        "decimal_id",
        cases,
        DecimalIdParts::decompose,
        decimal_id_parts,
    )
}

fn trace_parts(p: TraceIdParts) -> Parts {
    vec![
        ("timestamp".to_owned(), u64::from(p.timestamp)),
        ("node".to_owned(), u64::from(p.node)),
        ("thread".to_owned(), u64::from(p.thread)),
        ("counter".to_owned(), u64::from(p.counter)),
    ]
}

/// Article 004's TraceId: wrapped seconds, node, thread and counter.
fn trace_id() -> Scheme {
    let layout = trace_ids().expect("TraceId generator").layout();
    let max_thread = layout.max_threads() - 1;
    let chosen = [
        TraceIdParts {
            timestamp: 0,
            node: 0,
            thread: 0,
            counter: 1,
        },
        TraceIdParts {
            timestamp: (flakeid_schemes::TraceIdLayout::TIMESTAMP_MAX) as u32,
            node: u16::MAX,
            thread: max_thread,
            counter: layout.max_counter(),
        },
    ];
    let cases = own_parts_cases(
        generate::<TraceKey>(GENERATED),
        |raw| {
            let p = layout.decompose(raw).expect("generated TraceId decodes");
            assert_eq!(u64::from(p.node), NODE);
            p
        },
        &chosen,
        |parts| layout.compose(parts).expect("parts in range"),
        trace_parts,
    );
    let check = TraceIdLayout::for_threads(TRACE_THREADS).expect("TraceId layout");
    scheme(
        "trace_id",
        cases,
        move |raw| check.decompose(raw),
        trace_parts,
    )
}

/// A Twitter layout whose ticks start at a pseudo-random sequence value;
/// IDs decode into the stored fields of the Twitter layout.
fn random_start() -> Scheme {
    let twitter = presets::twitter();
    let cases: Vec<Case> = generate::<RandomStartId>(GENERATED)
        .into_iter()
        .map(|raw| {
            let p = twitter.decompose_checked(raw).expect("a Twitter ID");
            assert_eq!(p.node, NODE);
            Case {
                raw,
                parts: composed_parts(&twitter, p.tick, p.node, p.sequence),
            }
        })
        .collect();
    Scheme {
        name: "twitter_random_start",
        cases,
        decode: Box::new(move |raw| {
            let p = twitter.decompose_checked(raw).map_err(|e| e.to_string())?;
            Ok(composed_parts(&twitter, p.tick, p.node, p.sequence))
        }),
    }
}

/// Public IDs: a keyed permutation of a preset's IDs, stored instead of
/// them; decoding un-permutes, then decodes with the preset.
fn permuted(name: &'static str, inner: Scheme, permutation: Permutation) -> Scheme {
    let cases = inner
        .cases
        .iter()
        .map(|c| {
            let public = permutation
                .encode(c.raw)
                .expect("ID within the permutation's domain");
            assert!(
                public <= permutation.max(),
                "{name}: public ID stays in the domain"
            );
            Case {
                raw: public,
                parts: c.parts.clone(),
            }
        })
        .collect();
    let decode_inner = inner.decode;
    Scheme {
        name,
        cases,
        decode: Box::new(move |public| {
            let raw = permutation.decode(public).map_err(|e| e.to_string())?;
            decode_inner(raw)
        }),
    }
}

/// Every scheme that is not a bit-layout preset.
pub fn extra_schemes() -> Vec<Scheme> {
    let twitter_gen = super::generators::twitter().expect("twitter generator");
    let js_gen = super::generators::js_safe().expect("js_safe generator");
    vec![
        decimal_sequence(),
        decimal_random(),
        decimal_id(),
        trace_id(),
        random_start(),
        permuted(
            "permuted_twitter",
            bit_layout_scheme("twitter", presets::twitter(), twitter_gen),
            Permutation::i63(PERMUTATION_KEY),
        ),
        permuted(
            "permuted_js_safe",
            bit_layout_scheme("js_safe", presets::js_safe(), js_gen),
            Permutation::js_safe(PERMUTATION_KEY),
        ),
    ]
}
