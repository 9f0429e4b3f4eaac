//! Every 64-bit scheme of this crate backs a `#[flake_id(scheme = …)]` ID
//! type: the type generates through the scheme's generator, checks values
//! with the scheme's rules and decodes them into the scheme's fields;
//! decimal layouts and random starts, with a generator as the source,
//! generate, validate and decode. (ID types over flakeid-core's layouts are
//! tested in flakeid-core's `global_sources.rs`.)

use std::sync::OnceLock;
use std::sync::atomic::AtomicU32;

use flakeid_core::layout::{BitLayout, presets};
use flakeid_core::{
    ConfigError, FieldOutOfRange, FlakeId, GenerateError, Generator, IdError, flake_id,
};
use flakeid_schemes::{
    DecimalIdGenerator, DecimalIdScheme, DecimalLayout, RandomKeyGenerator, RandomKeys,
    RandomStart, TraceIdError, TraceIdGenerator, TraceIdLayout,
};

/// A `generator = …` function over a lazily built generator; a build
/// error is a test failure.
macro_rules! source_fn {
    ($name:ident: $ty:ty = $build:expr) => {
        fn $name() -> Result<&'static $ty, ConfigError> {
            static G: OnceLock<$ty> = OnceLock::new();
            Ok(G.get_or_init(|| $build))
        }
    };
}

type DecimalIds = DecimalIdGenerator<AtomicU32>;

source_fn!(order_ids: DecimalIds =
    DecimalIdGenerator::builder(65, AtomicU32::new(92))
        .build()
        .expect("DecimalId generator"));
source_fn!(test_launch_ids: DecimalIds =
    DecimalIdGenerator::builder(0, AtomicU32::new(3))
        .allow_test_launch_id()
        .build()
        .expect("test DecimalId generator"));
source_fn!(js_safe_decimal_ids: DecimalIds =
    DecimalIdGenerator::builder(1, AtomicU32::new(0))
        .max_counter(DecimalIdScheme::JS_SAFE_MAX_COUNTER)
        .build()
        .expect("JS-safe DecimalId generator"));
source_fn!(trace_ids: TraceIdGenerator =
    TraceIdGenerator::builder(7).threads(4).build().expect("TraceId generator"));
source_fn!(one_thread_trace_ids: TraceIdGenerator =
    TraceIdGenerator::builder(8).threads(1).build().expect("TraceId generator"));
source_fn!(random_keys: RandomKeyGenerator =
    RandomKeyGenerator::builder(presets::nonsequential(), 1)
        .build()
        .expect("random-key generator"));

/// The schemes of the ID types below: what checks and decodes their values,
/// with no generator involved.
fn decimal_id_scheme() -> DecimalIdScheme {
    DecimalIdScheme::default()
}
fn test_decimal_id_scheme() -> DecimalIdScheme {
    DecimalIdScheme::default().allow_test_launch_id()
}
fn js_safe_decimal_id_scheme() -> DecimalIdScheme {
    DecimalIdScheme::default().max_counter(DecimalIdScheme::JS_SAFE_MAX_COUNTER)
}
fn four_thread_traces() -> TraceIdLayout {
    TraceIdLayout::for_threads(4).expect("a TraceId layout")
}
fn one_thread_traces() -> TraceIdLayout {
    TraceIdLayout::for_threads(1).expect("a TraceId layout")
}
fn nonsequential_keys() -> RandomKeys<BitLayout> {
    RandomKeys(presets::nonsequential())
}

#[flake_id(scheme = decimal_id_scheme, source = order_ids)]
pub struct OrderId(i64);

#[flake_id(scheme = test_decimal_id_scheme, source = test_launch_ids)]
pub struct FixtureId(i64);

#[flake_id(scheme = js_safe_decimal_id_scheme, source = js_safe_decimal_ids)]
pub struct JsDecimalId(i64);

#[flake_id(scheme = four_thread_traces, source = trace_ids)]
pub struct TraceId(i64);

#[flake_id(scheme = one_thread_traces, source = one_thread_trace_ids)]
pub struct SingleThreadTraceId(i64);

#[flake_id(scheme = nonsequential_keys, source = random_keys)]
pub struct RandomKeyId(i64);

fn field_error<I: FlakeId>(value: u64, field: &'static str, min: u64, max: u64) -> IdError {
    IdError::Field {
        type_name: I::NAME,
        value,
        source: FieldOutOfRange {
            field,
            value: 0,
            min,
            max,
        },
    }
}

source_fn!(decimal_ids: Generator<DecimalLayout> =
    Generator::builder(
        DecimalLayout::time_sequence_server(1_704_067_200_000).expect("decimal layout"),
        3,
    )
    .build()
    .expect("decimal generator"));
source_fn!(random_start_ids: Generator<RandomStart<BitLayout>> =
    Generator::builder(RandomStart::new(presets::twitter()).expect("random start"), 9)
        .build()
        .expect("random-start generator"));

/// The layouts of the ID types below.
fn decimal_layout() -> DecimalLayout {
    DecimalLayout::time_sequence_server(1_704_067_200_000).expect("decimal layout")
}
fn random_start_twitter() -> RandomStart<BitLayout> {
    RandomStart::new(presets::twitter()).expect("random start")
}

#[flake_id(layout = decimal_layout, source = decimal_ids)]
pub struct DecimalSeqId(i64);

#[flake_id(layout = random_start_twitter, source = random_start_ids)]
pub struct RandomStartId(i64);

#[test]
fn decimal_id_generates_validates_and_decodes() {
    let ids = OrderId::generate_many(3).expect("three DecimalIds");
    let first = ids[0].get();
    assert_eq!(first % 10_000_000_000, 9_200_065, "generator 92, launch 65");
    let raws: Vec<i64> = ids.iter().map(|id| id.get()).collect();
    assert_eq!(
        raws,
        [first, first + 10_000_000_000, first + 20_000_000_000]
    );
    let next = OrderId::generate().expect("a fresh ID");
    assert_eq!(next.get(), first + 30_000_000_000);

    let d = next.decode();
    assert_eq!(d.timestamp, None);
    assert_eq!(d.parts, None);
    assert_eq!(d.field("generator_id"), Some(92));
    assert_eq!(d.field("launch_id"), Some(65));
    assert_eq!(
        d.field("counter"),
        Some(next.get().unsigned_abs() / 10_000_000_000)
    );

    // counter 0, launch 0, above the largest counter.
    assert_eq!(
        OrderId::from_i64(9_200_065),
        Err(field_error::<OrderId>(
            9_200_065,
            "counter",
            1,
            DecimalIdScheme::MAX_COUNTER
        ))
    );
    assert_eq!(
        "9200065".parse::<OrderId>(),
        Err(field_error::<OrderId>(
            9_200_065,
            "counter",
            1,
            DecimalIdScheme::MAX_COUNTER
        ))
    );
    assert_eq!(
        OrderId::from_i64(14_150_009_200_000),
        Err(field_error::<OrderId>(
            14_150_009_200_000,
            "launch_id",
            1,
            99_999
        ))
    );
    let max = DecimalIdScheme::MAX_COUNTER * 10_000_000_000 + 9_999_999_999;
    assert_eq!(OrderId::max_value(), max);
    assert!(OrderId::from_u64(max).is_ok());
    assert!(matches!(
        OrderId::from_u64(max + 1),
        Err(IdError::TooLarge { value, .. }) if value == u128::from(max + 1)
    ));
    let message = OrderId::from_i64(9_200_065).unwrap_err().to_string();
    assert_eq!(
        message,
        "9200065 is not a valid OrderId: its counter is 0, outside 1..=922337202"
    );
}

#[test]
fn decimal_id_launch_zero_is_valid_only_for_a_test_generator() {
    assert_eq!(
        FixtureId::generate().expect("a fresh ID").get() % 100_000,
        0
    );
    assert!(FixtureId::from_i64(10_000_000_000).is_ok());
    assert!(OrderId::from_i64(10_000_000_000).is_err());
}

#[test]
fn js_safe_decimal_id_type_accepts_only_js_safe_values() {
    let max = JsDecimalId::max_value();
    assert_eq!(
        max,
        DecimalIdScheme::JS_SAFE_MAX_COUNTER * 10_000_000_000 + 9_999_999_999
    );
    assert!(max < 1 << 53);
    assert!(JsDecimalId::from_u64(max + 1).is_err());
    assert!(JsDecimalId::generate().expect("a fresh ID").get() < 1 << 53);
}

#[test]
fn trace_id_generates_validates_and_decodes() {
    let ids = TraceId::generate_many(5).expect("five TraceIds");
    let mut sorted = ids.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 5, "distinct: {ids:?}");
    let d = ids[4].decode();
    assert_eq!(d.timestamp, None, "TraceId seconds wrap");
    assert_eq!(d.field("node"), Some(7));
    assert!(d.field("counter").is_some_and(|c| c >= 1));
    assert!(
        d.field("timestamp")
            .is_some_and(|t| t <= TraceIdLayout::TIMESTAMP_MAX)
    );
    assert!(d.field("thread").is_some_and(|t| t < 4));
    assert_eq!(TraceId::max_value(), i64::MAX as u64);

    let counter_zero = (1_u64 << 38) | (7 << 22);
    let max_counter = u64::from(trace_ids().expect("generator").layout().max_counter());
    assert_eq!(
        TraceId::from_u64(counter_zero),
        Err(field_error::<TraceId>(
            counter_zero,
            "counter",
            1,
            max_counter
        ))
    );
    assert!(TraceId::from_u64(counter_zero | 1).is_ok());
}

#[test]
fn trace_id_generator_errors_are_scheme_errors() {
    // The main thread holds the only thread ID until it exits.
    SingleThreadTraceId::generate().expect("a fresh ID");
    let other = std::thread::spawn(SingleThreadTraceId::try_generate)
        .join()
        .expect("thread runs")
        .map_err(|e| e.error);
    let Err(GenerateError::Scheme(e)) = other else {
        panic!("expected a scheme error, got {other:?}");
    };
    assert_eq!(e.scheme(), "TraceId");
    assert_eq!(
        e.downcast_ref::<TraceIdError>(),
        Some(&TraceIdError::TooManyThreads { max_threads: 1 })
    );
    assert!(e.to_string().starts_with("the TraceId generator failed: "));
}

#[test]
fn random_key_generates_validates_and_decodes() {
    let layout = presets::nonsequential();
    let id = RandomKeyId::generate().expect("a fresh ID");
    let d = id.decode();
    assert_eq!(d.parts.map(|p| p.node), Some(1));
    assert!(d.field("sequence").is_some_and(|s| (1..=8191).contains(&s)));
    assert_eq!(RandomKeyId::generate_many(4).expect("keys").len(), 4);

    let random_zero = layout.compose(1_000, 1, 0);
    assert_eq!(
        RandomKeyId::from_u64(random_zero),
        Err(field_error::<RandomKeyId>(random_zero, "sequence", 1, 8191))
    );
    assert!(RandomKeyId::from_u64(layout.compose(1_000, 1, 1)).is_ok());
}

#[test]
fn decimal_layout_generates_validates_and_decodes() {
    let layout = DecimalLayout::time_sequence_server(1_704_067_200_000).expect("layout");
    let ids = DecimalSeqId::generate_many(10).expect("a batch");
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "increasing: {ids:?}");
    for id in &ids {
        assert_eq!(id.get() % 10, 3, "server digit");
    }
    let d = ids[0].decode();
    let parts = layout.decompose(ids[0].get().unsigned_abs());
    assert_eq!(d.parts, Some(parts));
    let expected: Vec<(&str, u64)> = vec![
        ("tick", parts.tick),
        ("node", 3),
        ("sequence", parts.sequence),
    ];
    let fields: Vec<(&str, u64)> = d.fields.iter().map(|(n, v)| (n.as_ref(), *v)).collect();
    assert_eq!(fields, expected);
    assert!(d.timestamp.is_some());
    assert_eq!(DecimalSeqId::max_value(), layout.max_id());
    assert!(DecimalSeqId::from_u64(layout.max_id() + 1).is_err());
    assert!(DecimalSeqId::from_u64(layout.max_id()).is_ok());
}

#[test]
fn random_start_decodes_the_stored_sequence() {
    let twitter = presets::twitter();
    let ids = RandomStartId::generate_many(10).expect("a batch");
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "increasing: {ids:?}");
    let raw = ids[0].get().unsigned_abs();
    let d = ids[0].decode();
    assert_eq!(d.parts, Some(twitter.decompose(raw)));
    assert_eq!(d.field("sequence"), Some(twitter.decompose(raw).sequence));
    assert_eq!(d.timestamp, Some(twitter.timestamp(raw)));
    assert_eq!(RandomStartId::max_value(), twitter.max_id());
}
