//! Items used by code that `#[flake_id]` generates. Not a public API: no
//! semver guarantees.
//!
//! Generated code calls exactly these items, through fully qualified paths.

pub use ::core;

use std::sync::{LazyLock, OnceLock};

use crate::layout::BitLayout;
use crate::layout::presets;
use crate::{ConfigError, FlakeId, GlobalScheme, IdScheme, IdSource};

/// What a `source = path` function may return a reference to: any
/// [`IdSource`], or a `dyn IdSource` chosen at run time.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an ID source",
    label = "returned by the `source = ...` function",
    note = "a `source = ...` function returns `Result<&'static G, flakeid_core::ConfigError>` \
            where `G` implements `flakeid_core::IdSource` (a `Generator`, `DecimalIdGenerator`, \
            `TraceIdGenerator`, `RandomKeyGenerator` ...)"
)]
pub trait AsIdSource {
    /// `self` as a trait object.
    fn as_id_source(&'static self) -> &'static dyn IdSource;
}

impl<G: IdSource> AsIdSource for G {
    fn as_id_source(&'static self) -> &'static dyn IdSource {
        self
    }
}

impl AsIdSource for dyn IdSource {
    fn as_id_source(&'static self) -> &'static dyn IdSource {
        self
    }
}

/// `FlakeId::source` of `#[flake_id(source = path)]`: the function's
/// result as a `dyn IdSource`.
#[inline]
pub fn id_source<G: AsIdSource + ?Sized>(
    generator: Result<&'static G, ConfigError>,
) -> Result<&'static dyn IdSource, ConfigError> {
    generator.map(AsIdSource::as_id_source)
}

/// `source`, once its IDs are known to read the same under `declared`
/// (the type's `layout = …` or `scheme = …`): same largest ID, and the same
/// time and fields for a spread of values.
pub fn checked_source(
    type_name: &'static str,
    declared: &'static dyn GlobalScheme,
    source: Result<&'static dyn IdSource, ConfigError>,
) -> Result<&'static dyn IdSource, ConfigError> {
    let source = source?;
    let declared: &dyn IdScheme = declared;
    let issued: &dyn IdScheme = source;
    if same_ids(declared, issued) {
        Ok(source)
    } else {
        Err(ConfigError::SourceMismatch {
            type_name,
            declared: describe(declared),
            issued: describe(issued),
        })
    }
}

/// Where an ID type keeps the scheme its `layout = path` or `scheme = path`
/// function returned.
pub type SchemeCell = OnceLock<Box<dyn GlobalScheme>>;

/// Where an ID type keeps its source once it is resolved (errors are not
/// kept: a later call may succeed once the process is configured).
pub type SourceCell = OnceLock<&'static dyn IdSource>;

/// The scheme `make` returns, made once and kept in `cell`.
#[inline]
pub fn scheme(
    cell: &'static SchemeCell,
    make: impl FnOnce() -> Box<dyn GlobalScheme>,
) -> &'static dyn GlobalScheme {
    &**cell.get_or_init(make)
}

/// `scheme` boxed, once its type is known to be a [`GlobalScheme`].
#[inline]
pub fn boxed_scheme<S: GlobalScheme>(scheme: S) -> Box<dyn GlobalScheme> {
    Box::new(scheme)
}

/// The source in `cell`, or the one `resolve` finds (kept on success).
#[inline]
pub fn cached_source(
    cell: &'static SourceCell,
    resolve: impl FnOnce() -> Result<&'static dyn IdSource, ConfigError>,
) -> Result<&'static dyn IdSource, ConfigError> {
    if let Some(source) = cell.get() {
        return Ok(*source);
    }
    let source = resolve()?;
    Ok(*cell.get_or_init(|| source))
}

/// The scheme of `#[flake_id]` without a layout: Twitter's layout.
pub fn default_scheme() -> &'static BitLayout {
    static TWITTER: LazyLock<BitLayout> = LazyLock::new(presets::twitter);
    &TWITTER
}

/// `FlakeId::source` of `#[flake_id]` without a layout: the process-wide
/// generator, which must have Twitter's layout.
pub fn default_source(type_name: &'static str) -> Result<&'static dyn IdSource, ConfigError> {
    let generator = crate::global::generator()?;
    if generator.layout() == default_scheme() {
        Ok(generator)
    } else {
        Err(ConfigError::LayoutMismatch {
            type_name,
            configured: presets::describe(generator.layout()),
        })
    }
}

/// `FlakeId::source` of `#[flake_id(layout = ...)]` / `(scheme = ...)`.
#[inline]
pub fn global_source(
    scheme: &'static dyn GlobalScheme,
) -> Result<&'static dyn IdSource, ConfigError> {
    crate::global::source_for(scheme)
}

/// `Display` for an ID: its decimal value, or its type's prefix and its
/// number in the prefix's form.
pub fn display<I: FlakeId>(id: &I, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
    match I::PREFIX {
        None => core::fmt::Display::fmt(&id.get(), f),
        Some(prefix) => f.pad(&prefix.encode(id.get().unsigned_abs())),
    }
}

pub use crate::id::from_str;

/// `generate_async` / `generate_many_async` as inherent methods of an ID
/// type (feature `tokio`), so that no trait import is needed.
#[cfg(feature = "tokio")]
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_async {
    ($id:ty, [$($vis:tt)*]) => {
        // Like the other inherent methods: unused ones are no warning.
        #[allow(dead_code)]
        impl $id {
            /// A fresh ID for async code: waits on the tokio runtime's
            /// timer where `generate` would block the thread (see
            /// `FlakeId::generate_async`).
            ///
            /// # Errors
            /// As `generate`.
            #[inline]
            $($vis)* fn generate_async() -> impl ::core::future::Future<
                Output = ::core::result::Result<Self, $crate::IdGenerateError>,
            > + ::core::marker::Send {
                <Self as $crate::FlakeId>::generate_async()
            }

            /// `n` fresh IDs for async code, reserved in one step where the
            /// source can (see `FlakeId::generate_many_async`).
            ///
            /// # Errors
            /// As `generate`.
            #[inline]
            $($vis)* fn generate_many_async(
                n: usize,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<::std::vec::Vec<Self>, $crate::IdGenerateError>,
            > + ::core::marker::Send {
                <Self as $crate::FlakeId>::generate_many_async(n)
            }
        }
    };
}

/// `generate_async` for an ID type. Expands to nothing because
/// flakeid-core was built without its `tokio` feature
/// (`FlakeId::generate_async_on` takes any runtime's timers).
#[cfg(not(feature = "tokio"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_async {
    ($id:ty, [$($vis:tt)*]) => {};
}

#[doc(hidden)]
pub use crate::__flakeid_core_impl_async as impl_async;

#[cfg(feature = "serde")]
pub use ::serde;

#[cfg(feature = "serde")]
pub use crate::interop::serde::{deserialize, serialize};

/// `Serialize` / `Deserialize` for an ID type. Expands to nothing because
/// flakeid-core was built without its `serde` feature.
#[cfg(not(feature = "serde"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_serde {
    ($id:ty) => {};
}

#[doc(hidden)]
pub use crate::__flakeid_core_impl_serde as impl_serde;

#[cfg(any(
    feature = "sqlx-postgres",
    feature = "sqlx-mysql",
    feature = "sqlx-sqlite"
))]
pub use ::sqlx;

/// `sqlx::Type` / `Encode` / `Decode` for an ID type. Expands to nothing
/// because flakeid-core was built without a `sqlx-*` feature.
#[cfg(not(any(
    feature = "sqlx-postgres",
    feature = "sqlx-mysql",
    feature = "sqlx-sqlite"
)))]
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_sqlx {
    ($id:ty) => {};
}

/// `PgHasArrayType` for an ID type. Expands to nothing because
/// flakeid-core was built without its `sqlx-postgres` feature.
#[cfg(not(feature = "sqlx-postgres"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_sqlx_postgres {
    ($id:ty) => {};
}

#[doc(hidden)]
pub use crate::__flakeid_core_impl_sqlx as impl_sqlx;
#[doc(hidden)]
pub use crate::__flakeid_core_impl_sqlx_postgres as impl_sqlx_postgres;

#[cfg(feature = "utoipa")]
pub use ::utoipa;

#[cfg(feature = "utoipa")]
pub use crate::interop::utoipa::schema as utoipa_schema;

/// `utoipa::PartialSchema` / `ToSchema` for an ID type. Expands to nothing
/// because flakeid-core was built without its `utoipa` feature.
#[cfg(not(feature = "utoipa"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_utoipa {
    ($id:ty) => {};
}

#[doc(hidden)]
pub use crate::__flakeid_core_impl_utoipa as impl_utoipa;

#[cfg(feature = "schemars")]
pub use ::schemars;

#[cfg(feature = "schemars")]
pub use crate::interop::schemars::schema as schemars_schema;

/// `schemars::JsonSchema` for an ID type. Expands to nothing because
/// flakeid-core was built without its `schemars` feature.
#[cfg(not(feature = "schemars"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_schemars {
    ($id:ty) => {};
}

#[doc(hidden)]
pub use crate::__flakeid_core_impl_schemars as impl_schemars;

/// The description of an ID type's GraphQL scalar: that of its OpenAPI /
/// JSON Schema schema.
#[cfg(feature = "async-graphql")]
pub fn api_description<I: FlakeId>() -> String {
    crate::interop::description::<I>().into_owned()
}

#[cfg(feature = "async-graphql")]
pub use ::async_graphql;

/// An async-graphql scalar, `ID` conversions and `CursorType` for an ID
/// type. Expands to nothing because flakeid-core was built without its
/// `async-graphql` feature.
#[cfg(not(feature = "async-graphql"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_async_graphql {
    ($id:ty) => {};
}

#[doc(hidden)]
pub use crate::__flakeid_core_impl_async_graphql as impl_async_graphql;

#[cfg(feature = "ts-rs")]
pub use crate::interop::ts_rs::{decl as ts_rs_decl, docs as ts_rs_docs, inline as ts_rs_inline};
#[cfg(feature = "ts-rs")]
pub use ::ts_rs;

/// `ts_rs::TS` for an ID type. Expands to nothing because flakeid-core
/// was built without its `ts-rs` feature.
#[cfg(not(feature = "ts-rs"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_ts_rs {
    ($id:ty) => {};
}

#[doc(hidden)]
pub use crate::__flakeid_core_impl_ts_rs as impl_ts_rs;

#[cfg(feature = "specta")]
pub use crate::interop::specta::docs as specta_docs;
#[cfg(feature = "specta")]
pub use ::specta;

/// `specta::Type` for an ID type. Expands to nothing because flakeid-core
/// was built without its `specta` feature.
#[cfg(not(feature = "specta"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_specta {
    ($id:ty) => {};
}

#[doc(hidden)]
pub use crate::__flakeid_core_impl_specta as impl_specta;

// ---------------------------------------------------------------------------
// What flakeid's other crates build on
// ---------------------------------------------------------------------------
//
// flakeid-lease, flakeid-segment, flakeid-schemes and flakeid-flake128 are
// released together with this crate and build their sources on these items;
// each stays in its home module.

pub use crate::__scheme_of as scheme_of;
pub use crate::__setters as setters;
pub use crate::__time_setters as time_setters;
pub use crate::encoding::error::excerpt;
pub use crate::fork::{current_tag as fork_current_tag, tag as fork_tag};
pub use crate::generator::{Attach, Ceiling, Movable, Sealable};
pub use crate::layout::time::{Epoch, Tick, TimeSettings, end_millis};
pub use crate::node::leased::sealable;
pub use crate::runtime::ask::until_ready;
pub use crate::runtime::signal::{Signal, note_blocking_wait, timeout};
pub use crate::source::{EXAMPLE_UNIX_MILLIS, example_id, layout_bounds, tick_span};
pub use crate::telemetry::handles::{Counter, Gauge, Histogram};

/// The [`Decoded`](crate::Decoded) of a layout's parts, as the layouts of
/// flakeid-core decode: fields `tick`, then `node_fields`, then
/// `sequence`, and the parts themselves.
pub fn decoded_layout_parts(
    id: u64,
    timestamp: Option<std::time::SystemTime>,
    parts: crate::layout::Parts,
    node_fields: impl IntoIterator<Item = (std::borrow::Cow<'static, str>, u64)>,
) -> crate::Decoded {
    crate::Decoded::from_layout_parts(id, timestamp, parts, node_fields)
}

/// A process-wide generator built from `builder` and attached to its node
/// source, but not installed: flakeid-lease's protocol simulation runs many
/// in one process.
pub fn process_generator<C: crate::Clock>(
    builder: crate::GeneratorBuilder<BitLayout, C>,
) -> Result<std::sync::Arc<crate::global::ProcessGenerator>, ConfigError> {
    let process = std::sync::Arc::new(crate::global::ProcessGenerator::build(builder)?);
    process.attach_source();
    Ok(process)
}

/// Whether `a` and `b` read IDs alike.
fn same_ids(a: &dyn IdScheme, b: &dyn IdScheme) -> bool {
    let max = a.max_id();
    if max != b.max_id() {
        return false;
    }
    let probes = [
        Some(1),
        a.example_id(),
        b.example_id(),
        Some(max / 3),
        Some((max / 2) | 1),
        Some(0x5555_5555_5555_5555 & max),
        Some(max),
    ];
    probes
        .into_iter()
        .flatten()
        .filter(|&id| (1..=max).contains(&id))
        .all(|id| a.decode(id) == b.decode(id))
}

/// A scheme's name for messages: a preset layout by its name, others by
/// how they read their example ID.
fn describe(scheme: &dyn IdScheme) -> String {
    let any: &dyn core::any::Any = scheme;
    if let Some(layout) = any.downcast_ref::<BitLayout>() {
        return presets::describe(layout);
    }
    if let Some(g) = any.downcast_ref::<crate::Generator>() {
        return presets::describe(g.layout());
    }
    if let Some(g) = any.downcast_ref::<crate::global::ProcessGenerator>() {
        return presets::describe(g.layout());
    }
    match scheme.example_id() {
        Some(id) => format!("a scheme reading {id} as {}", scheme.decode(id)),
        None => format!("{scheme:?}"),
    }
}
