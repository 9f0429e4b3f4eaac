//! Typed IDs: the [`FlakeId`] trait that ID newtypes (declared with
//! `#[flake_id]`) implement, and [`Decoded`] parts of an ID.
//!
//! The required items are what `#[flake_id]` emits; everything else is a
//! provided method: checked conversions, generation, decoding and the
//! base62 / Crockford text forms.

use core::fmt::{Debug, Display};
use core::hash::Hash;
use core::marker::PhantomData;
use core::str::FromStr;
use std::ops::{Bound, RangeBounds, RangeInclusive};
use std::time::SystemTime;

use crate::decoded::Decoded;
use crate::encoding::error::excerpt;
use crate::encoding::{Prefix, TextForm};
use crate::error::{
    ConfigError, GenerateError, IdError, IdGenerateError, SchemeError, TimeBoundsError,
};
use crate::runtime::{Ask, Attempt, Sleep, ask, until_ready};
use crate::source::{IdScheme, IdSource};

/// An application-assigned 64-bit ID stored as a signed BIGINT in
/// `1..=i64::MAX`, of an [`IdScheme`], drawn from an [`IdSource`].
///
/// Declare one with `#[flake_id]`, which also gives the type inherent
/// `generate`, `try_generate`, `generate_many`, `get`, `decode`,
/// `time_bounds` and `tick_bounds`, and with the `tokio` feature
/// `generate_async` and `generate_many_async` (so no trait import is
/// needed). By hand it looks like this:
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_core::{ConfigError, FlakeId, IdError, IdScheme, IdSource};
/// use flakeid_core::layout::BitLayout;
/// use std::sync::LazyLock;
///
/// #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
/// struct OrderId(i64);
///
/// static TWITTER: LazyLock<BitLayout> = LazyLock::new(presets::twitter);
///
/// impl FlakeId for OrderId {
///     const NAME: &'static str = "OrderId";
///     fn scheme() -> &'static dyn IdScheme {
///         &*TWITTER
///     }
///     fn source() -> Result<&'static dyn IdSource, ConfigError> {
///         flakeid_core::global::source_for(&*TWITTER)
///     }
///     fn __from_valid(value: i64) -> Self { OrderId(value) }
///     fn get(self) -> i64 { self.0 }
/// }
/// impl std::fmt::Display for OrderId {
///     fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
///         flakeid_core::__private::display(self, f)
///     }
/// }
/// impl std::str::FromStr for OrderId {
///     type Err = IdError;
///     fn from_str(s: &str) -> Result<Self, IdError> { flakeid_core::__private::from_str(s) }
/// }
///
/// assert!(OrderId::from_i64(0).is_err());
/// assert_eq!("42".parse::<OrderId>()?.get(), 42);
/// # Ok::<(), IdError>(())
/// ```
///
/// # Scheme and source
///
/// Checking and decoding use only [`scheme`](FlakeId::scheme): they never
/// read the environment, build a generator or need a node ID, so a
/// read-only service decodes stored IDs without any configuration, and a
/// value's validity never depends on whether [`global::init`](crate::global::init)
/// has run. Only generating uses [`source`](FlakeId::source).
///
/// `#[flake_id]` gives a type Twitter's layout and the process-wide
/// generator; `#[flake_id(layout = path)]` or `#[flake_id(scheme = path)]`
/// any [`GlobalScheme`](crate::GlobalScheme) with a source built from the
/// process's node ID; `#[flake_id(scheme = path, source = path)]` a source
/// of your own:
///
/// ```
/// use std::sync::OnceLock;
/// use flakeid_core::layout::presets;
/// use flakeid_core::{flake_id, ConfigError, FlakeId, Generator};
///
/// fn order_ids() -> Result<&'static Generator, ConfigError> {
///     static G: OnceLock<Generator> = OnceLock::new();
///     // A generator of one's own: node 5 of the JavaScript-safe layout.
///     Ok(G.get_or_init(|| {
///         Generator::builder(presets::js_safe(), 5)
///             .build()
///             .expect("node 5 fits the layout")
///     }))
/// }
///
/// #[flake_id(scheme = presets::js_safe, source = order_ids)]
/// pub struct OrderId(i64);
///
/// let id = OrderId::generate()?;
/// assert!(id.get() < 1 << 53); // safe as a JavaScript number
/// assert_eq!(id.decode().field("node"), Some(5));
///
/// // A stored value beyond the scheme's IDs is not an OrderId.
/// let e = OrderId::from_i64(1 << 53).unwrap_err();
/// assert_eq!(e.to_string(), "9007199254740992 is not a valid OrderId: the largest is 9007199254740991");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Blocking, async and `try_`
///
/// As everywhere in flakeid, a `try_` method never waits:
/// [`generate`](FlakeId::generate) waits as the source's policies allow
/// (for the next tick when a tick's sequence is used up, say) by blocking
/// its thread, [`generate_async`](FlakeId::generate_async) waits on the
/// async runtime's timer (for async code: SeaORM, diesel-async, axum), and
/// [`try_generate`](FlakeId::try_generate) returns
/// [`GenerateError::WouldBlock`] instead. All return errors rather than
/// panic.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an ID type",
    label = "not declared with `#[flake_id]`",
    note = "declare an ID type with `#[flake_id] pub struct UserId(i64);` and use it as the key's type"
)]
pub trait FlakeId:
    Sized + Copy + Eq + Ord + Hash + Debug + Display + FromStr<Err = IdError> + Send + Sync + 'static
{
    /// The type's name (`"UserId"`), used in error messages.
    const NAME: &'static str;

    /// The cut-over of a table that switched from auto-increment keys to
    /// flake keys (the `flakeid-adopt` crate): every key below it was issued by
    /// the old auto-increment, every key from it on is a flake key. `None`
    /// (the default) for a type whose every key is a flake key.
    ///
    /// Declare it with `#[flake_id(cut_over = N)]`, `N` the cut-over the
    /// migration printed (the smallest key the layout could issue when the
    /// migration was written). Keys below it
    ///
    /// * are valid values of the type without the scheme's checks (an
    ///   auto-increment key need not follow the scheme's field rules);
    /// * decode as "issued before flake keys" ([`Decoded::before_cut_over`])
    ///   instead of a time near the epoch;
    /// * count as older than every flake key in
    ///   [`time_bounds`](FlakeId::time_bounds): a range that reaches back to
    ///   the epoch holds all of them, any other range none.
    ///
    /// ```
    /// use flakeid_core::{flake_id, FlakeId};
    ///
    /// // `users` kept its keys 1..=100_000 from before the switch.
    /// #[flake_id(cut_over = 2_124_913_425_938_116_608)]
    /// pub struct UserId(i64);
    ///
    /// let old = UserId::from_i64(42)?;
    /// assert_eq!(old.decode().timestamp, None);
    /// assert_eq!(
    ///     old.decode().to_string(),
    ///     "42 (issued before flake keys: below the cut-over 2124913425938116608)"
    /// );
    /// let new = UserId::from_i64(2_124_913_425_938_116_609)?;
    /// assert!(new.decode().timestamp.is_some());
    /// # Ok::<(), flakeid_core::IdError>(())
    /// ```
    const CUT_OVER: Option<u64> = None;

    /// The type prefix of the type's text (`usr_2124913425938116608`), and
    /// the text form of its number; `None` (the default) for the bare
    /// decimal number.
    ///
    /// Declare it with `#[flake_id(prefix = "usr")]`, and the form with
    /// `text = decimal` (the default), `text = base62` or `text = crockford`;
    /// the prefix follows TypeID's rule ([`Prefix::RULE`](crate::encoding::Prefix::RULE)),
    /// checked when the type compiles. Display, `FromStr`, serde's strings,
    /// the API schemas, GraphQL and TypeScript then speak the prefixed form;
    /// the stored key (`get()`, database columns, `TryFrom<i64>`) is the
    /// same number. Parsing refuses a missing or other prefix with
    /// [`IdError::Prefix`]; the bare number is accepted only as a number
    /// (a JSON integer, a column), never as text.
    ///
    /// ```
    /// use flakeid_core::{flake_id, FlakeId, IdError};
    ///
    /// #[flake_id(prefix = "usr")]
    /// pub struct UserId(i64);
    ///
    /// #[flake_id(prefix = "ord", text = base62)] // fixed width: sorts like the keys
    /// pub struct OrderId(i64);
    ///
    /// let user = UserId::from_i64(9_007_199_254_740_993)?;
    /// assert_eq!(user.to_string(), "usr_9007199254740993");
    /// assert_eq!("usr_9007199254740993".parse::<UserId>()?, user);
    /// let order = OrderId::from_i64(9_007_199_254_740_993)?;
    /// assert_eq!(order.to_string(), "ord_00fFgnDxSe9");
    ///
    /// let e = "ord_00fFgnDxSe9".parse::<UserId>().unwrap_err();
    /// assert_eq!(e.to_string(), r#""ord_00fFgnDxSe9" is not a UserId: expected prefix usr_"#);
    /// assert!(matches!(e, IdError::Prefix { expected: "usr", .. }));
    /// assert!("9007199254740993".parse::<UserId>().is_err()); // no prefix
    /// # Ok::<(), IdError>(())
    /// ```
    const PREFIX: Option<Prefix> = None;

    /// The rules of this type's IDs: which values are IDs and what their
    /// fields mean. Pure: no environment, no generator.
    fn scheme() -> &'static dyn IdScheme;

    /// The source new IDs of this type come from (for the process-wide
    /// ones, configured from the environment on first use).
    ///
    /// # Errors
    /// The source's configuration error.
    fn source() -> Result<&'static dyn IdSource, ConfigError>;

    /// Wraps a value that has already been validated. Not a public API:
    /// use [`FlakeId::from_i64`].
    #[doc(hidden)]
    fn __from_valid(value: i64) -> Self;

    /// The ID as the `i64` stored in the database.
    fn get(self) -> i64;

    /// The largest valid value: the scheme's [`max_id`](IdScheme::max_id)
    /// (at most `i64::MAX`).
    fn max_value() -> u64 {
        Self::scheme().max_id().min(i64::MAX as u64)
    }

    /// Checked conversion from a database or user value: `0`, negatives,
    /// values above [`max_value`](FlakeId::max_value) and values that break
    /// the scheme's rules ([`IdScheme::check`]) are errors naming the value.
    fn from_i64(value: i64) -> Result<Self, IdError> {
        if value < 0 {
            return Err(IdError::Negative {
                type_name: Self::NAME,
                value: i128::from(value),
            });
        }
        Self::from_u64(value.unsigned_abs())
    }

    /// Checked conversion from an unsigned value (MySQL `BIGINT UNSIGNED`).
    fn from_u64(value: u64) -> Result<Self, IdError> {
        if value == 0 {
            return Err(IdError::Zero {
                type_name: Self::NAME,
            });
        }
        let scheme = Self::scheme();
        let max = Self::max_value();
        let v = match i64::try_from(value) {
            Ok(v) if value <= max => v,
            _ => {
                return Err(IdError::TooLarge {
                    type_name: Self::NAME,
                    value: u128::from(value),
                    max,
                });
            }
        };
        if Self::CUT_OVER.is_none_or(|cut_over| value >= cut_over) {
            scheme.check(value).map_err(|source| IdError::Field {
                type_name: Self::NAME,
                value,
                source,
            })?;
        }
        Ok(Self::__from_valid(v))
    }

    /// A fresh ID from [`FlakeId::source`], waiting as its policies allow.
    ///
    /// # Errors
    /// [`IdGenerateError`], naming this type: the source is not available
    /// (for the process-wide one: not configured, see [`crate::global`]) or
    /// cannot issue an ID.
    fn generate() -> Result<Self, IdGenerateError> {
        Self::source()
            .map_err(GenerateError::from)
            .and_then(|s| issued(s.next_id()?))
            .map_err(failed::<Self>)
    }

    /// A fresh ID if one can be issued without waiting.
    ///
    /// A generator issues no ID in the tick it was built in (so that a
    /// process restarted within one tick repeats none of its predecessor's
    /// IDs), so the first call after the source is built, which for the
    /// process-wide source is the first `generate` of any ID type unless
    /// [`global::init`](crate::global::init) ran at start-up, returns
    /// [`GenerateError::WouldBlock`] with a `retry_after` of at most one
    /// tick (1 ms for the Twitter layout). Build the source at start-up, or
    /// use [`generate`](FlakeId::generate), which waits that tick.
    ///
    /// # Errors
    /// [`IdGenerateError`] holding [`GenerateError::WouldBlock`] where
    /// [`generate`](FlakeId::generate) would wait; otherwise as `generate`.
    fn try_generate() -> Result<Self, IdGenerateError> {
        Self::source()
            .map_err(GenerateError::from)
            .and_then(|s| issued(s.try_next_id()?))
            .map_err(failed::<Self>)
    }

    /// `n` fresh IDs, increasing for sources whose IDs increase. A
    /// [`Generator`](crate::Generator) reserves them in one atomic step, as
    /// one contiguous run ([`next_batch`](crate::Generator::next_batch)).
    ///
    /// # Errors
    /// As [`generate`](FlakeId::generate).
    fn generate_many(n: usize) -> Result<Vec<Self>, IdGenerateError> {
        Self::source()
            .map_err(GenerateError::from)
            .and_then(|s| s.next_ids(n)?.into_iter().map(issued).collect())
            .map_err(failed::<Self>)
    }

    /// A fresh ID from [`FlakeId::source`] for async code (feature
    /// `tokio`): where [`generate`](FlakeId::generate) would block the
    /// thread, the task waits on the tokio runtime's timer and the thread
    /// runs other tasks meanwhile — for the next tick when a tick's
    /// sequence is used up, for a lease's ceiling to rise while the lease
    /// renews late (up to its [`CeilingWait`](crate::CeilingWait)), for a
    /// segment to arrive. The same IDs, errors and guarantees as
    /// `generate`. Use it in async handlers, SeaORM hooks and with
    /// diesel-async; `generate` in synchronous code (see
    /// [`runtime`](crate::runtime) for which to use where).
    ///
    /// Outside a tokio runtime (a future polled by another executor) the
    /// waits run on a thread of their own (see
    /// [`TokioSleep`](crate::runtime::TokioSleep)); with another runtime's
    /// timers use [`generate_async_on`](FlakeId::generate_async_on).
    ///
    /// # Errors
    /// As [`generate`](FlakeId::generate).
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// use flakeid_core::{flake_id, global, Generator};
    ///
    /// #[flake_id]
    /// pub struct UserId(i64);
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// global::init(Generator::builder(presets::twitter(), 3))?;
    /// let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build()?;
    /// runtime.block_on(async {
    ///     let id = UserId::generate_async().await?;
    ///     assert_eq!(id.decode().field("worker"), Some(3));
    ///     let ids = UserId::generate_many_async(3).await?;
    ///     assert!(ids[0] > id && ids[2] > ids[1] && ids[1] > ids[0]);
    ///     Ok::<(), flakeid_core::IdGenerateError>(())
    /// })?;
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "tokio")]
    fn generate_async() -> impl Future<Output = Result<Self, IdGenerateError>> + Send {
        Self::generate_async_on(&crate::runtime::TokioSleep)
    }

    /// [`generate_async`](FlakeId::generate_async) on any runtime's timers.
    ///
    /// # Errors
    /// As [`generate`](FlakeId::generate).
    fn generate_async_on<R: Sleep>(
        timers: &R,
    ) -> impl Future<Output = Result<Self, IdGenerateError>> + Send + '_ {
        ask(timers, Generate::<Self>(PhantomData))
    }

    /// `n` fresh IDs for async code (feature `tokio`): as
    /// [`generate_many`](FlakeId::generate_many), one contiguous run
    /// reserved in one step for a [`Generator`](crate::Generator), waiting
    /// on the tokio runtime's timer as [`generate_async`](FlakeId::generate_async)
    /// does — also for a batch reserved ahead of the clock to become due.
    ///
    /// # Errors
    /// As [`generate`](FlakeId::generate).
    #[cfg(feature = "tokio")]
    fn generate_many_async(
        n: usize,
    ) -> impl Future<Output = Result<Vec<Self>, IdGenerateError>> + Send {
        Self::generate_many_async_on(n, &crate::runtime::TokioSleep)
    }

    /// [`generate_many_async`](FlakeId::generate_many_async) on any
    /// runtime's timers.
    ///
    /// # Errors
    /// As [`generate`](FlakeId::generate).
    fn generate_many_async_on<R: Sleep>(
        n: usize,
        timers: &R,
    ) -> impl Future<Output = Result<Vec<Self>, IdGenerateError>> + Send + '_ {
        async move {
            let failed = failed::<Self>;
            let source = Self::source().map_err(|e| failed(e.into()))?;
            let mut ids = Vec::new();
            while ids.len() < n {
                let want = n - ids.len();
                let more = until_ready(
                    timers,
                    || source.attempt_next_ids(want),
                    || source.try_next_id().map(|id| vec![id]),
                )
                .await
                .map_err(failed)?;
                for raw in more {
                    ids.push(issued(raw).map_err(failed)?);
                }
            }
            Ok(ids)
        }
    }

    /// The ID's time (when the scheme records one) and fields, decoded by
    /// the type's scheme; for a key below the type's
    /// [`CUT_OVER`](FlakeId::CUT_OVER), "issued before flake keys".
    fn decode(self) -> Decoded {
        let id = self.get().unsigned_abs();
        match Self::CUT_OVER {
            Some(cut_over) if id < cut_over => Decoded::of_key_before_cut_over(id, cut_over),
            _ => Self::scheme().decode(id),
        }
    }

    /// The smallest and largest ID of this type whose time lies in `range`:
    /// the key bounds of "rows created in this range", so a query can use
    /// the key's index instead of a `created_at` column
    /// (`WHERE id BETWEEN lo AND hi`). Any range of
    /// [`SystemTime`]s: `t0..t1` (half-open), `t0..=t1` (closed), `t0..`,
    /// `..t1`, `..=t1`.
    ///
    /// The bounds hold exactly the IDs whose tick holds an instant of the
    /// range; for ends on tick edges (every millisecond for 1 ms layouts)
    /// those are exactly the IDs issued in the range. A range that starts
    /// at or before the epoch starts at the smallest ID (1), so keys below
    /// every flake key (rows from before a switch away from
    /// auto-increment) count as older than any flake key. See
    /// [`IdScheme::time_bounds`] for the rules, and for TraceId's wrapping
    /// seconds.
    ///
    /// With a [`CUT_OVER`](FlakeId::CUT_OVER) `K`, the keys below `K` are
    /// older than every flake key and record no time: a range that reaches
    /// back to the epoch holds all of them (its bounds start at 1 and end at
    /// `K − 1` or later), any other range none (its lower bound is at least
    /// `K`; a range that ends before the first flake key then holds no key,
    /// an empty `K..=hi` with `hi < K`).
    ///
    /// # Errors
    /// [`TimeBoundsError`]: the type's scheme records no time (DecimalId);
    /// the range is empty, ends before the layout's epoch, or starts at or
    /// after the end of its time field.
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use flakeid_core::{flake_id, FlakeId};
    ///
    /// #[flake_id] // Twitter's layout: 1 ms ticks
    /// pub struct UserId(i64);
    ///
    /// let t0 = UNIX_EPOCH + Duration::from_secs(1_750_000_000);
    /// let t1 = t0 + Duration::from_secs(60);
    /// let ids = UserId::time_bounds(t0..t1)?;
    /// let (lo, hi) = (ids.start().decode(), ids.end().decode());
    /// assert_eq!(lo.timestamp, Some(t0));
    /// assert_eq!(hi.timestamp, Some(t1 - Duration::from_millis(1))); // the last tick before t1
    /// assert_eq!(hi.field("sequence"), Some(4095));
    /// // SQL: WHERE id BETWEEN $1 AND $2
    /// let (lo, hi): (i64, i64) = (ids.start().get(), ids.end().get());
    /// assert!(lo < hi);
    /// # Ok::<(), flakeid_core::TimeBoundsError>(())
    /// ```
    fn time_bounds(
        range: impl RangeBounds<SystemTime>,
    ) -> Result<RangeInclusive<Self>, TimeBoundsError> {
        let start = range.start_bound().cloned();
        let end = range.end_bound().cloned();
        let scheme = Self::scheme();
        let (lo, hi) = scheme.time_bounds(start, end)?.into_inner();
        let (lo, hi) = match Self::CUT_OVER {
            Some(cut_over) if cut_over > 1 => {
                // Whether the range starts in the scheme's first tick.
                let reaches_back = scheme
                    .time_bounds(Bound::Unbounded, end)
                    .is_ok_and(|all| *all.start() == lo);
                if reaches_back {
                    (1, hi.max(cut_over - 1))
                } else {
                    (lo.max(cut_over), hi)
                }
            }
            _ => (lo, hi),
        };
        let id = |value| {
            Self::from_u64(value).map_err(|source| TimeBoundsError::InvalidBound { value, source })
        };
        Ok(id(lo)?..=id(hi)?)
    }

    /// The smallest and largest ID of this type issued in the tick that
    /// holds `time`: [`time_bounds`](FlakeId::time_bounds)`(time..=time)`.
    ///
    /// # Errors
    /// As [`time_bounds`](FlakeId::time_bounds).
    ///
    /// ```
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use flakeid_core::{flake_id, layout::presets, FlakeId};
    ///
    /// #[flake_id(layout = presets::sonyflake)] // 10 ms ticks
    /// pub struct EventId(i64);
    ///
    /// let t = UNIX_EPOCH + Duration::from_millis(1_750_000_000_123);
    /// let tick = EventId::tick_bounds(t)?;
    /// assert_eq!(tick.start().decode().timestamp, Some(t - Duration::from_millis(3)));
    /// assert_eq!(tick, EventId::time_bounds(t..=t)?);
    /// # Ok::<(), flakeid_core::TimeBoundsError>(())
    /// ```
    fn tick_bounds(time: SystemTime) -> Result<RangeInclusive<Self>, TimeBoundsError> {
        Self::time_bounds(time..=time)
    }

    /// The ID as 11 base62 characters (see [`TextForm::Base62`](crate::encoding::TextForm::Base62)).
    fn to_base62(self) -> String {
        TextForm::Base62.encode(self.get().unsigned_abs())
    }

    /// Parses an ID from its base62 form, exactly the 11 characters
    /// [`to_base62`](FlakeId::to_base62) writes (case-sensitive, no padding
    /// left out), then checks it like [`FlakeId::from_u64`]. For shorter
    /// spellings, pass [`TextForm::decode_lenient`](crate::encoding::TextForm::decode_lenient)'s value to
    /// [`from_u64`](FlakeId::from_u64).
    ///
    /// # Errors
    /// [`IdError::Text`] holding the [`DecodeError`](crate::encoding::DecodeError)
    /// (wrong length, a character outside `0-9A-Za-z`, a value above
    /// `u64::MAX`), or the errors of [`from_u64`](FlakeId::from_u64) for a
    /// value that is 0 or above [`max_value`](FlakeId::max_value).
    fn from_base62(s: &str) -> Result<Self, IdError> {
        from_text(TextForm::Base62, s)
    }

    /// The ID as 13 Crockford base32 characters (see [`TextForm::Crockford`](crate::encoding::TextForm::Crockford)).
    fn to_crockford(self) -> String {
        TextForm::Crockford.encode(self.get().unsigned_abs())
    }

    /// Parses an ID from its Crockford base32 form: exactly 13 symbols as
    /// [`to_crockford`](FlakeId::to_crockford) writes them, except that case
    /// is ignored and `I`/`L` read as `1`, `O` as `0`; no hyphens. Then checks
    /// it like [`FlakeId::from_u64`]: the first symbol is at most `7` for
    /// `i64::MAX`. For hyphenated or shorter spellings, pass
    /// [`TextForm::decode_lenient`](crate::encoding::TextForm::decode_lenient)'s value to [`from_u64`](FlakeId::from_u64).
    ///
    /// # Errors
    /// [`IdError::Text`] holding the [`DecodeError`](crate::encoding::DecodeError)
    /// (wrong length, a character outside the alphabet and its aliases, a
    /// first symbol above `F`), or the errors of
    /// [`from_u64`](FlakeId::from_u64) for a value that is 0 or above
    /// [`max_value`](FlakeId::max_value).
    ///
    /// ```
    /// # use flakeid_core::{flake_id, FlakeId};
    /// # #[flake_id(layout = flakeid_core::layout::presets::tsid)] pub struct OrderId(i64);
    /// let id = OrderId::from_crockford("04w86bb0g4oo7")?;
    /// assert_eq!(id.to_crockford(), "04W86BB0G4007");
    /// assert!(OrderId::from_crockford("4W86BB0G4007").is_err()); // 12 symbols
    /// assert!(OrderId::from_crockford("04W86-BB0G-4007").is_err());
    /// assert!(OrderId::from_crockford("8000000000000").is_err()); // above i64::MAX
    /// # Ok::<(), flakeid_core::IdError>(())
    /// ```
    fn from_crockford(s: &str) -> Result<Self, IdError> {
        from_text(TextForm::Crockford, s)
    }
}

/// `FromStr` for an ID: the strict canonical decimal form of
/// [`TextForm::Decimal`](crate::encoding::TextForm::Decimal) (ASCII digits only; no
/// sign, whitespace or leading zeros), then [`FlakeId::from_u64`].
///
/// ```
/// use flakeid_core::{FlakeId, IdError};
/// # #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
/// # struct Id(i64);
/// # impl FlakeId for Id {
/// #     const NAME: &'static str = "Id";
/// #     fn scheme() -> &'static dyn flakeid_core::IdScheme { flakeid_core::__private::default_scheme() }
/// #     fn source() -> Result<&'static dyn flakeid_core::IdSource, flakeid_core::ConfigError> { Err(flakeid_core::ConfigError::MissingNodeId) }
/// #     fn __from_valid(v: i64) -> Self { Id(v) }
/// #     fn get(self) -> i64 { self.0 }
/// # }
/// # impl std::fmt::Display for Id { fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { flakeid_core::__private::display(self, f) } }
/// # impl std::str::FromStr for Id { type Err = IdError; fn from_str(s: &str) -> Result<Self, IdError> { flakeid_core::__private::from_str(s) } }
/// assert_eq!(flakeid_core::__private::from_str::<Id>("12")?, Id(12));
/// let err = flakeid_core::__private::from_str::<Id>("-12").unwrap_err();
/// assert_eq!(err.to_string(), "not a valid Id: invalid character '-' at position 0 in decimal string \"-12\"");
/// # Ok::<(), IdError>(())
/// ```
///
/// For a type with a [`PREFIX`](FlakeId::PREFIX), the prefix and its
/// underscore, then the number in the prefix's form; any other text is
/// [`IdError::Prefix`].
pub fn from_str<I: FlakeId>(s: &str) -> Result<I, IdError> {
    let Some(prefix) = I::PREFIX else {
        return from_text(TextForm::Decimal, s);
    };
    match prefix.number_part(s) {
        Some(number) => from_text(prefix.form(), number),
        None => Err(IdError::Prefix {
            type_name: I::NAME,
            value: excerpt(s),
            expected: prefix.name(),
        }),
    }
}

/// An ID read from `s` in `form` (exactly the spelling `form` writes),
/// then checked like [`FlakeId::from_u64`].
fn from_text<I: FlakeId>(form: TextForm, s: &str) -> Result<I, IdError> {
    let v = form.decode(s).map_err(|source| IdError::Text {
        type_name: I::NAME,
        source,
    })?;
    I::from_u64(v)
}

/// What [`FlakeId::generate_async_on`] asks: an ID of type `I` from its
/// source.
struct Generate<I>(PhantomData<I>);

impl<I: FlakeId> Ask for Generate<I> {
    type Output = I;
    type Error = IdGenerateError;

    /// Inlined into the caller's poll up to the ID at hand, as
    /// [`FlakeId::generate`] is; the rest out of line.
    #[inline(always)]
    fn attempt(&mut self) -> Result<Attempt<I>, IdGenerateError> {
        let source = match I::source() {
            Ok(source) => source,
            Err(e) => return Err(failed::<I>(e.into())),
        };
        let attempt = source.attempt_next_id();
        if let Ok(Attempt::Ready(raw)) = attempt
            && let Ok(v) = i64::try_from(raw)
            && v > 0
        {
            return Ok(Attempt::Ready(I::__from_valid(v)));
        }
        not_at_hand::<I>(attempt)
    }

    fn give_up(self) -> Result<I, IdGenerateError> {
        I::try_generate()
    }
}

/// [`Generate::attempt`] for anything but an ID at hand: a wait, an ID
/// after one, or an error.
#[cold]
#[inline(never)]
fn not_at_hand<I: FlakeId>(
    attempt: Result<Attempt<u64>, GenerateError>,
) -> Result<Attempt<I>, IdGenerateError> {
    let issued_after = match attempt {
        Ok(Attempt::Ready(raw)) => issued(raw).map(Attempt::Ready),
        Ok(Attempt::ReadyAfter(raw, after)) => issued(raw).map(|id| Attempt::ReadyAfter(id, after)),
        Ok(Attempt::Wait(wait)) => Ok(Attempt::Wait(wait)),
        Err(e) => Err(e),
    };
    issued_after.map_err(failed::<I>)
}

/// `error`, naming the ID type `I`. Out of line: the calls that generate
/// IDs inline only their success.
#[cold]
#[inline(never)]
fn failed<I: FlakeId>(error: GenerateError) -> IdGenerateError {
    IdGenerateError::new(I::NAME, error)
}

/// Wraps an ID a source issued; a source issuing 0 or a value above
/// `i64::MAX` is reported rather than stored as a wrong value.
#[inline]
fn issued<I: FlakeId>(raw: u64) -> Result<I, GenerateError> {
    match i64::try_from(raw) {
        Ok(v) if v > 0 => Ok(I::__from_valid(v)),
        _ => Err(not_an_id::<I>(raw)),
    }
}

/// The error of a source that issued `raw`, 0 or a value above `i64::MAX`.
#[cold]
#[inline(never)]
fn not_an_id<I: FlakeId>(raw: u64) -> GenerateError {
    let e = if raw == 0 {
        IdError::Zero { type_name: I::NAME }
    } else {
        IdError::TooLarge {
            type_name: I::NAME,
            value: u128::from(raw),
            max: i64::MAX as u64,
        }
    };
    SchemeError::new(I::NAME, e).into()
}
