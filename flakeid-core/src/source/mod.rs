//! What an ID is and where it comes from; see [`IdScheme`]. The layouts'
//! rules as schemes are in `layouts.rs`, the key bounds of a range of
//! times in `time_bounds.rs`.

mod layouts;
mod time_bounds;

use core::any::Any;
use core::fmt;
use core::time::Duration;
use std::ops::{Bound, RangeInclusive};
use std::time::SystemTime;

use crate::decoded::Decoded;
use crate::error::{ConfigError, FieldOutOfRange, GenerateError, TimeBoundsError};
use crate::policy::{ClockRegression, SequenceExhaustion};
use crate::runtime::{Attempt, Wait};

/// The rules of an ID scheme: its largest ID, which values are IDs, and
/// their fields. What an ID *is*, beside where it *comes from*
/// ([`IdSource`]):
///
/// * An [`IdScheme`] states a scheme's rules: its largest ID, which values
///   are IDs of it, and what their fields mean. It is pure data — no node
///   ID, no clock, no environment — so a read-only service can check and
///   decode stored IDs without being configured to issue any. A
///   [`BitLayout`] is one; so are the layouts and schemes of the
///   `flakeid-schemes` crate (`DecimalLayout`, `RandomStart`,
///   `TraceIdLayout`, `RandomKeys`, `DecimalIdScheme`).
/// * An [`IdSource`] issues IDs of a scheme: a [`Generator`](crate::Generator) running a
///   layout for one node, or a generator of `flakeid-schemes`
///   (`DecimalIdGenerator`, `TraceIdGenerator`, `RandomKeyGenerator`).
/// * A [`GlobalScheme`] is a scheme whose source the process-wide
///   configuration ([`global`](crate::global): node ID and policies) can
///   build. Every scheme above is one, so an ID type of any of them is one
///   attribute argument: `#[flake_id(layout = presets::discord)]`,
///   `#[flake_id(scheme = my_trace_ids)]`.
///
/// | scheme | IDs | rules beyond `1..=max_id` |
/// |---|---|---|
/// | a [`BitLayout`], or `DecimalLayout` or `RandomStart` (`flakeid-schemes`) | time-ordered, unique | none |
/// | `RandomKeys` (`flakeid-schemes`) | time + random low part (can collide) | random part ≥ 1 |
/// | `DecimalIdScheme` (`flakeid-schemes`) | `counter · 10^10 + generator_id · 10^5 + launch_id` | counter ≥ 1, launch ID ≥ 1 (unless test launches are allowed) |
/// | `TraceIdLayout` (`flakeid-schemes`) | wrapping seconds + node + thread + counter | counter ≥ 1 |
///
/// A scheme describes the IDs of every process of the system, so processes
/// sharing an ID type must configure it alike (layout, epoch,
/// `max_counter`, thread count).
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_core::{Generator, IdScheme};
///
/// // Issuing needs a node; checking and decoding need only the scheme.
/// let generator = Generator::builder(presets::sonyflake(), 7).build()?;
/// let id = generator.next_id()?;
/// let scheme = presets::sonyflake();
/// scheme.check(id)?;
/// let d = scheme.decode(id);
/// assert_eq!(d.field("machine"), Some(7));
/// assert!(d.timestamp.is_some()); // a layout records its IDs' time
/// assert!(id <= scheme.max_id());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// [`BitLayout`]: crate::layout::BitLayout
pub trait IdScheme: Any + Send + Sync + fmt::Debug {
    /// The largest ID of the scheme (at most `2^63 − 1`).
    fn max_id(&self) -> u64;

    /// Checks the scheme's rules for a value in `1..=max_id` read from
    /// outside (a database row, a string). By default every such value is
    /// an ID.
    ///
    /// # Errors
    /// [`FieldOutOfRange`] naming the field that breaks its range.
    fn check(&self, id: u64) -> Result<(), FieldOutOfRange> {
        let _ = id;
        Ok(())
    }

    /// The ID's time (when the scheme records one) and named fields. For
    /// values that pass [`check`](IdScheme::check); others decode into
    /// meaningless fields but never panic.
    fn decode(&self, id: u64) -> Decoded;

    /// A fixed, valid ID of the scheme, for documentation such as the
    /// `examples` of an API schema. The same scheme always gives the same
    /// value. `None` (the default) when the scheme gives none.
    ///
    /// Every scheme of flakeid's crates gives one: for a layout, the first ID of
    /// node 1 (node 0 if the layout has no node bits) in the tick holding
    /// 2025-01-01T00:00:00Z, or in tick 1 if the layout's epoch is later;
    /// for other schemes the fields of such an ID, with each numbered
    /// field (counter, generator and launch IDs, random part) at 1.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// use flakeid_core::IdScheme;
    /// let twitter = presets::twitter();
    /// let id = twitter.example_id().expect("layouts give one");
    /// assert_eq!(id, 1_874_244_142_494_650_368);
    /// assert_eq!(
    ///     twitter.decode(id).to_string(),
    ///     "1874244142494650368 (2025-01-01T00:00:00.000Z, tick 446854625343, datacenter 0, worker 1, sequence 0)"
    /// );
    /// ```
    fn example_id(&self) -> Option<u64> {
        None
    }

    /// The smallest and largest ID of the scheme whose time lies in the
    /// range of times from `start` to `end`: the key bounds of "rows created
    /// in this range", for `WHERE id BETWEEN lo AND hi` on the key's index.
    /// [`FlakeId::time_bounds`](crate::FlakeId::time_bounds) takes any Rust
    /// range (`t0..t1`, `t0..=t1`, `t0..`, `..t1`) and gives typed IDs.
    ///
    /// An ID's time is the tick it records (a [`Generator`](crate::Generator)
    /// stamps it with its clock's tick; see its "Timestamp accuracy"). The
    /// bounds hold **exactly** the IDs whose tick holds an instant of the
    /// range: every ID recording such a tick is inside, every other ID
    /// outside. When the range's ends fall on tick edges (every millisecond
    /// for 1 ms ticks, every 10 ms for Sonyflake's, every second for
    /// LSID's) those are exactly the IDs issued in the range; an end within
    /// a tick takes in that whole tick, since an ID does not tell instants
    /// of one tick apart. So `t0..t1` (half-open) of tick-edge times gives
    /// the ticks from `t0`'s up to the one before `t1`'s, `t0..=t1` up to
    /// `t1`'s tick, and `t..=t` the IDs of `t`'s tick.
    ///
    /// * A range that starts at or before the scheme's epoch has the
    ///   scheme's smallest ID (1 for layouts) as its lower bound, so keys
    ///   below every flake key — such as the small keys of rows written
    ///   before a table switched from auto-increment — count as older than
    ///   any flake key. A range that ends after the layout's last tick has
    ///   its largest ID as the upper bound.
    /// * Both bounds are IDs of the scheme (they pass [`check`](IdScheme::check)).
    ///
    /// By default a scheme records no time: DecimalId (`flakeid-schemes`),
    /// dense and segment IDs (`flakeid-segment`) answer
    /// [`TimeBoundsError::NoTime`]. Bit and decimal layouts,
    /// `flakeid-schemes`' `RandomStart` (bounds of every seed's IDs),
    /// `RandomKeys` and `TraceIdLayout`
    /// (within one period of its wrapping seconds) give bounds, and so do
    /// the generators of each.
    ///
    /// # Errors
    /// [`TimeBoundsError`]: the scheme records no time; the range is empty,
    /// ends before the epoch, starts at or after the end of the layout's
    /// time, or (TraceId) crosses a wrap of its seconds.
    ///
    /// ```
    /// use std::ops::Bound::{Excluded, Included};
    /// use std::time::{Duration, UNIX_EPOCH};
    /// use flakeid_core::layout::presets;
    /// use flakeid_core::IdScheme;
    ///
    /// let discord = presets::discord();
    /// let t = UNIX_EPOCH + Duration::from_millis(1_462_015_105_796); // 2016-04-30T11:18:25.796Z
    /// let ids = discord.time_bounds(Included(t), Excluded(t + Duration::from_millis(1)))?;
    /// // Discord's documented ID 175928847299117063 was made in that millisecond.
    /// assert!(ids.contains(&175_928_847_299_117_063));
    /// assert_eq!(*ids.start(), 41_944_705_796 << 22); // worker 0, process 0, increment 0
    /// assert_eq!(*ids.end(), (41_944_705_796 << 22) | 0x3F_FFFF);
    /// # Ok::<(), flakeid_core::TimeBoundsError>(())
    /// ```
    fn time_bounds(
        &self,
        start: Bound<SystemTime>,
        end: Bound<SystemTime>,
    ) -> Result<RangeInclusive<u64>, TimeBoundsError> {
        let _ = (start, end);
        Err(TimeBoundsError::NoTime {
            scheme: core::any::type_name::<Self>(),
        })
    }
}

/// A source of 64-bit IDs of a scheme (see [`IdScheme`]).
///
/// A source of your own implements [`next_id`](IdSource::next_id) (and its
/// [`IdScheme`]); the other methods have defaults built on it.
///
/// ```
/// use std::borrow::Cow;
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use flakeid_core::{Decoded, GenerateError, IdScheme, IdSource};
///
/// /// 1, 2, 3, … from memory: a counter scheme for tests of one process.
/// #[derive(Debug, Default)]
/// struct Counter(AtomicU64);
///
/// impl IdScheme for Counter {
///     fn max_id(&self) -> u64 { i64::MAX as u64 }
///     fn decode(&self, id: u64) -> Decoded {
///         Decoded::from_fields(id, None, vec![(Cow::Borrowed("value"), id)])
///     }
/// }
///
/// impl IdSource for Counter {
///     fn next_id(&self) -> Result<u64, GenerateError> {
///         Ok(self.0.fetch_add(1, Ordering::Relaxed) + 1)
///     }
/// }
///
/// let source = Counter::default();
/// assert_eq!(source.next_ids(3)?, [1, 2, 3]); // the provided methods call `next_id`
/// assert_eq!(source.try_next_id()?, 4);
/// assert_eq!(source.decode(4).to_string(), "4 (value 4)");
/// # Ok::<(), GenerateError>(())
/// ```
pub trait IdSource: IdScheme {
    /// A new ID; may wait (as the source's policies allow) when none is
    /// available right now.
    ///
    /// # Errors
    /// The source's [`GenerateError`]; errors of a scheme's own generator
    /// come as [`GenerateError::Scheme`].
    fn next_id(&self) -> Result<u64, GenerateError>;

    /// A new ID without waiting. By default [`next_id`](IdSource::next_id),
    /// for sources that never wait.
    ///
    /// # Errors
    /// As [`next_id`](IdSource::next_id), or [`GenerateError::WouldBlock`].
    fn try_next_id(&self) -> Result<u64, GenerateError> {
        self.next_id()
    }

    /// `n` new IDs, in the order issued. By default `n` calls of
    /// [`next_id`](IdSource::next_id); a [`Generator`](crate::Generator) reserves them in one
    /// atomic step.
    ///
    /// # Errors
    /// As [`next_id`](IdSource::next_id); IDs issued before the error are
    /// not returned (and never issued again).
    fn next_ids(&self, n: usize) -> Result<Vec<u64>, GenerateError> {
        (0..n).map(|_| self.next_id()).collect()
    }

    /// One non-blocking attempt of an async caller: the ID, or what to
    /// wait for before asking again (see [`Attempt`]); the core of
    /// `UserId::generate_async()`. By default
    /// [`try_next_id`](IdSource::try_next_id), with
    /// [`GenerateError::WouldBlock`] as a sleep of its `retry_after`: a
    /// source that waits only for time needs nothing more.
    /// [`Generator`](crate::Generator)s also wait for their node's
    /// ceiling to rise, segment sources for a segment to arrive, without
    /// blocking a thread.
    ///
    /// # Errors
    /// As [`next_id`](IdSource::next_id).
    ///
    /// ```
    /// use std::borrow::Cow;
    /// use std::time::Duration;
    /// use flakeid_core::runtime::Attempt;
    /// use flakeid_core::{Decoded, GenerateError, IdScheme, IdSource};
    ///
    /// /// Hands out one ID, then asks callers to come back in 5 ms.
    /// #[derive(Debug, Default)]
    /// struct Slow(std::sync::atomic::AtomicBool);
    ///
    /// impl IdScheme for Slow {
    ///     fn max_id(&self) -> u64 { i64::MAX as u64 }
    ///     fn decode(&self, id: u64) -> Decoded {
    ///         Decoded::from_fields(id, None, vec![(Cow::Borrowed("value"), id)])
    ///     }
    /// }
    ///
    /// impl IdSource for Slow {
    ///     fn next_id(&self) -> Result<u64, GenerateError> { self.try_next_id() }
    ///     fn try_next_id(&self) -> Result<u64, GenerateError> {
    ///         if self.0.swap(true, std::sync::atomic::Ordering::Relaxed) {
    ///             Err(GenerateError::WouldBlock { retry_after: Duration::from_millis(5), until_millis: 0 })
    ///         } else {
    ///             Ok(7)
    ///         }
    ///     }
    /// }
    ///
    /// let source = Slow::default();
    /// assert!(matches!(source.attempt_next_id()?, Attempt::Ready(7)));
    /// let Attempt::Wait(wait) = source.attempt_next_id()? else { panic!("no second ID") };
    /// assert_eq!(wait.duration(), Some(Duration::from_millis(5)));
    /// # Ok::<(), GenerateError>(())
    /// ```
    fn attempt_next_id(&self) -> Result<Attempt<u64>, GenerateError> {
        match self.try_next_id() {
            Ok(id) => Ok(Attempt::Ready(id)),
            Err(GenerateError::WouldBlock { retry_after, .. }) => {
                Ok(Attempt::Wait(Wait::sleep(retry_after)))
            }
            Err(e) => Err(e),
        }
    }

    /// One non-blocking attempt at up to `n` IDs for an async caller: 1 to
    /// `n` new IDs in the order issued (none for `n == 0`), or what to wait
    /// for before asking again; the core of `UserId::generate_many_async(n)`,
    /// which asks until it has `n`. A [`Generator`](crate::Generator)
    /// reserves all `n` in one step, as [`next_batch`](crate::Generator::next_batch)
    /// does, and answers [`Attempt::ReadyAfter`] for a batch reserved ahead
    /// of its clock. By default as many IDs as
    /// [`attempt_next_id`](IdSource::attempt_next_id) gives before it
    /// would wait.
    ///
    /// # Errors
    /// As [`next_ids`](IdSource::next_ids).
    fn attempt_next_ids(&self, n: usize) -> Result<Attempt<Vec<u64>>, GenerateError> {
        let mut ids = Vec::new();
        while ids.len() < n {
            match self.attempt_next_id()? {
                Attempt::Ready(id) => ids.push(id),
                Attempt::ReadyAfter(id, after) => {
                    ids.push(id);
                    return Ok(Attempt::ReadyAfter(ids, after));
                }
                Attempt::Wait(wait) if ids.is_empty() => return Ok(Attempt::Wait(wait)),
                Attempt::Wait(_) => break,
            }
        }
        Ok(Attempt::Ready(ids))
    }
}

/// A scheme whose source the process-wide configuration can build: the
/// node ID and policies of [`global`](crate::global) make a source of it on
/// first use. ID types declared with `#[flake_id(layout = …)]` or
/// `#[flake_id(scheme = …)]` take their IDs that way; ID types with equal
/// schemes share one source.
///
/// ```
/// use flakeid_core::layout::{presets, BitLayout};
/// use flakeid_core::{flake_id, global, Generator, GlobalScheme};
///
/// // Any function returning a GlobalScheme can be an ID type's scheme: here
/// // TSID-like IDs counted from the service's own epoch.
/// fn coupon_layout() -> BitLayout {
///     presets::tsid().with_epoch_millis(1_700_000_000_000).expect("an epoch in range")
/// }
/// let _: &dyn GlobalScheme = &coupon_layout();
///
/// #[flake_id(scheme = coupon_layout)]
/// pub struct CouponId(i64);
///
/// // The process's node ID (9 here) builds a generator of the scheme on first use.
/// global::init(Generator::builder(presets::twitter(), 9))?;
/// let id = CouponId::generate()?;
/// assert_eq!(id.decode().field("node"), Some(9));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a scheme flakeid can issue process-wide IDs of",
    label = "returned by the `layout = ...` / `scheme = ...` function",
    note = "a layout or scheme function returns a `BitLayout`, a layout or scheme of \
            flakeid-schemes (`DecimalLayout`, `RandomStart<_>`, `TraceIdLayout`, `RandomKeys<_>`, \
            `DecimalIdScheme`) or \
            any other `GlobalScheme`; for a source of your own add `source = path::to::function`"
)]
pub trait GlobalScheme: IdScheme {
    /// Builds a source of this scheme's IDs for the process's node ID
    /// and policies (most schemes: [`NodeConfig::generator`] of their
    /// layout, or a generator of their own for [`NodeConfig::node`]).
    ///
    /// # Errors
    /// The configuration does not fit the scheme (a node ID beyond its
    /// range: name the variable it came from with
    /// [`NodeConfig::node_error`]), or the scheme needs more than the
    /// configuration holds.
    fn build_source(&self, config: &NodeConfig) -> Result<Box<dyn IdSource>, ConfigError>;

    /// Whether `other` describes the same IDs (ID types with the same
    /// scheme share one source). Usually
    /// `(other as &dyn Any).downcast_ref::<Self>() == Some(self)`.
    fn same_scheme(&self, other: &dyn GlobalScheme) -> bool;
}

/// The process's node ID and generator policies: what every process-wide
/// source is built with (see [`GlobalScheme::build_source`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeConfig {
    pub(crate) node: u64,
    pub(crate) exhaustion: SequenceExhaustion,
    pub(crate) regression: ClockRegression,
    pub(crate) catch_up: Duration,
    /// The variable the node ID was read from, to name in errors.
    pub(crate) node_var: Option<&'static str>,
}

impl NodeConfig {
    /// This process's node ID.
    pub fn node(&self) -> u64 {
        self.node
    }

    /// `e`, naming the node ID's variable when the node is out of range
    /// (`max` being the scheme's largest node ID).
    pub fn node_error(&self, e: ConfigError, max: u64) -> ConfigError {
        match (e, self.node_var) {
            (ConfigError::NodeOutOfRange { node, .. }, Some(var)) => ConfigError::InvalidEnv {
                var,
                value: node.to_string(),
                reason: format!("out of range: an ID type's scheme allows node IDs 0..={max}"),
            },
            (e, _) => e,
        }
    }
}

pub use layouts::{EXAMPLE_UNIX_MILLIS, example_id};
pub use time_bounds::{layout_bounds, tick_span};

/// [`IdScheme`] for a type whose IDs are those of another scheme, the
/// value of `$scheme` (an expression of `$this`, the type's `&self`):
/// every rule is that scheme's. For generators (their layout's rules) and
/// wrappers of a layout.
#[doc(hidden)]
#[macro_export]
macro_rules! __scheme_of {
    (impl[$($generics:tt)*] $ty:ty, |$this:ident| $scheme:expr) => {
        impl<$($generics)*> $crate::IdScheme for $ty {
            fn max_id(&self) -> u64 {
                let $this = self;
                $crate::IdScheme::max_id($scheme)
            }

            fn check(&self, id: u64) -> Result<(), $crate::FieldOutOfRange> {
                let $this = self;
                $crate::IdScheme::check($scheme, id)
            }

            fn decode(&self, id: u64) -> $crate::Decoded {
                let $this = self;
                $crate::IdScheme::decode($scheme, id)
            }

            fn example_id(&self) -> Option<u64> {
                let $this = self;
                $crate::IdScheme::example_id($scheme)
            }

            fn time_bounds(
                &self,
                start: ::std::ops::Bound<::std::time::SystemTime>,
                end: ::std::ops::Bound<::std::time::SystemTime>,
            ) -> Result<::std::ops::RangeInclusive<u64>, $crate::TimeBoundsError> {
                let $this = self;
                $crate::IdScheme::time_bounds($scheme, start, end)
            }
        }
    };
}

/// [`IdSource`] for a generator with inherent `next_id`, `try_next_id`,
/// `next_batch` and their non-blocking cores `attempt_one` and
/// `attempt_batch`: `next_ids` reserves its IDs in one batch.
macro_rules! batch_source {
    (impl[$($generics:tt)*] $ty:ty) => {
        impl<$($generics)*> $crate::IdSource for $ty {
            fn next_id(&self) -> Result<u64, $crate::GenerateError> {
                <$ty>::next_id(self)
            }

            fn try_next_id(&self) -> Result<u64, $crate::GenerateError> {
                <$ty>::try_next_id(self)
            }

            fn next_ids(&self, n: usize) -> Result<Vec<u64>, $crate::GenerateError> {
                Ok(self.next_batch(n)?.collect())
            }

            fn attempt_next_id(
                &self,
            ) -> Result<$crate::runtime::Attempt<u64>, $crate::GenerateError> {
                <$ty>::attempt_one(self)
            }

            fn attempt_next_ids(
                &self,
                n: usize,
            ) -> Result<$crate::runtime::Attempt<Vec<u64>>, $crate::GenerateError> {
                Ok(self.attempt_batch(n)?.map(Iterator::collect))
            }
        }
    };
}

pub(crate) use {__scheme_of as scheme_of, batch_source};

/// `other` as an `S`, for [`GlobalScheme::same_scheme`].
pub(crate) fn downcast<S: Any>(other: &dyn GlobalScheme) -> Option<&S> {
    (other as &dyn Any).downcast_ref::<S>()
}
