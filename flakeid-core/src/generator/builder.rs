//! Configuring a [`Generator`]: layout, node, clock, policies, the
//! previous holder's mark and a ceiling.

use core::any::Any;
use core::time::Duration;
use std::sync::Arc;

use super::ceiling::Ceiling;
use super::moves::Attach;
use super::state::{Params, SameTick};
use super::sync::AtomicU64;
use super::{DEFAULT_CATCH_UP_WINDOW, Generator, MAX_BATCH_SPAN, PaddedState};
use crate::clock::{Clock, MonotonicClock};
use crate::error::ConfigError;
use crate::layout::{BitLayout, FieldOrder, Layout};
use crate::policy::{ClockRegression, SequenceExhaustion};
use crate::telemetry::GeneratorTelemetry;

impl<L: Layout> Generator<L, MonotonicClock> {
    /// Starts configuring a generator for `node` of `layout`.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// use flakeid_core::Generator;
    ///
    /// let generator = Generator::builder(presets::twitter(), 1).build()?;
    /// assert_eq!(generator.node(), 1);
    /// # Ok::<(), flakeid_core::ConfigError>(())
    /// ```
    pub fn builder(layout: L, node: u64) -> GeneratorBuilder<L, MonotonicClock> {
        GeneratorBuilder::new(layout, node)
    }
}

/// Configures a [`Generator`]: layout, node, clock, policies, catch-up window.
///
/// ```
/// use std::{sync::Arc, time::Duration};
/// use flakeid_core::layout::presets;
/// use flakeid_core::{ClockRegression, Generator, ManualClock, SequenceExhaustion};
///
/// let clock = Arc::new(ManualClock::new(1_700_000_000_000));
/// let generator = Generator::builder(presets::twitter(), 3)
///     .clock(clock.clone())
///     .sequence_exhaustion(SequenceExhaustion::RunAhead { max_lead: Duration::from_millis(2) })
///     .clock_regression(ClockRegression::Fail)
///     .catch_up_window(Duration::from_millis(5))
///     .build()?;
/// assert_eq!(generator.node(), 3);
/// # Ok::<(), flakeid_core::ConfigError>(())
/// ```
#[derive(Debug, Clone)]
pub struct GeneratorBuilder<L = BitLayout, C = MonotonicClock> {
    layout: L,
    node: u64,
    clock: C,
    exhaustion: SequenceExhaustion,
    regression: ClockRegression,
    catch_up: Duration,
    resume_after: Option<u64>,
    ceiling: Option<Arc<Ceiling>>,
    /// Set by a node source (a lease, a high-water file) that fixed the
    /// node, the resume point and the ceiling.
    owner: Option<Owner>,
}

/// The node source that fixed a builder's node, resume point and ceiling.
#[derive(Clone)]
pub(crate) struct Owner {
    /// What it is, for errors: "the node lease of space \"orders\"".
    pub(crate) source: String,
    /// The first setting changed against it, refused by `build`.
    violated: Option<&'static str>,
    /// Told when the generator becomes the process-wide one, so that the
    /// source can move it to another node.
    pub(crate) attach: Option<Arc<dyn Attach>>,
}

impl core::fmt::Debug for Owner {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Owner")
            .field("source", &self.source)
            .field("violated", &self.violated)
            .finish_non_exhaustive()
    }
}

impl<L: Layout> GeneratorBuilder<L, MonotonicClock> {
    /// A builder for `node` of `layout`, with the default clock
    /// ([`MonotonicClock`]), [`SequenceExhaustion::Wait`],
    /// `ClockRegression::Wait { max: 1 s }` and a 10 ms catch-up window.
    /// Public as [`Generator::builder`].
    pub(crate) fn new(layout: L, node: u64) -> Self {
        GeneratorBuilder {
            layout,
            node,
            clock: MonotonicClock::new(),
            exhaustion: SequenceExhaustion::default(),
            regression: ClockRegression::default(),
            catch_up: DEFAULT_CATCH_UP_WINDOW,
            resume_after: None,
            ceiling: None,
            owner: None,
        }
    }
}

impl<L: Layout, C: Clock> GeneratorBuilder<L, C> {
    /// Uses `clock` instead of the current one.
    pub fn clock<C2: Clock>(self, clock: C2) -> GeneratorBuilder<L, C2> {
        self.map_clock(|_| clock)
    }

    /// Sets the node ID (checked against the layout's largest node by [`build`](Self::build)).
    ///
    /// On a builder from a node source (the `generator_builder` of a lease or
    /// a high-water file of the `flakeid-lease` crate)
    /// the node is the source's: another one makes [`build`](Self::build) fail with
    /// [`ConfigError::FixedBySource`], as IDs of a node the source does not
    /// hold could repeat another holder's.
    pub fn node(mut self, node: u64) -> Self {
        if node != self.node {
            self.violate("node");
        }
        self.node = node;
        self
    }

    crate::setters! {
        /// Sets what happens when a tick's sequence numbers are used up.
        sequence_exhaustion(policy: SequenceExhaustion) => exhaustion = policy;

        /// Sets what happens when the clock reads earlier than the last issued ID.
        clock_regression(policy: ClockRegression) => regression = policy;

        /// Sets how far behind the clock a saturating caller's IDs may be stamped
        /// so that it can use the ticks it missed (default 10 ms; zero disables
        /// catch-up). Rounded down to whole ticks of the layout.
        catch_up_window(window: Duration) => catch_up = window;
    }

    /// Starts after `high_water_millis` (Unix ms): the first ID is stamped
    /// in the tick after the one containing it, however early the clock
    /// reads, so IDs of this node are later than every ID a previous holder
    /// of the node stamped up to that mark (a restart inside the same tick,
    /// a wall clock stepped back between runs, a predecessor that ran
    /// ahead). A clock more than one tick behind that floor is a clock
    /// regression: the [`ClockRegression`] policy waits or fails. The
    /// latest of several calls counts; the build tick's floor still applies.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use flakeid_core::layout::presets;
    /// use flakeid_core::{Generator, ManualClock};
    /// use flakeid_core::layout::Layout;
    ///
    /// // The previous run stamped IDs up to 1_700_000_030_000 ms; this run's
    /// // clock was stepped back 30 s.
    /// let clock = Arc::new(ManualClock::new(1_700_000_000_000));
    /// let generator = Generator::builder(presets::twitter(), 1)
    ///     .clock(clock.clone())
    ///     .resume_after(1_700_000_030_000)
    ///     .clock_regression(flakeid_core::ClockRegression::Wait { max: std::time::Duration::from_secs(60) })
    ///     .build()?;
    /// let id = generator.next_id()?; // waits (the manual clock advances itself)
    /// let stamped = generator.layout().decompose(id).tick + presets::twitter().epoch_millis();
    /// assert_eq!(stamped, 1_700_000_030_001);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// On a builder from a node source the mark is the source's; an earlier
    /// one makes [`build`](Self::build) fail with
    /// [`ConfigError::FixedBySource`] (a later one only starts later).
    pub fn resume_after(mut self, high_water_millis: u64) -> Self {
        if self
            .resume_after
            .is_some_and(|mark| high_water_millis < mark)
        {
            self.violate("resume_after");
        }
        self.resume_after = Some(high_water_millis);
        self
    }

    /// Never stamps an ID later than `ceiling`; the node source raises it
    /// after persisting each new value. One ceiling serves one generator.
    #[doc(hidden)]
    pub fn ceiling(mut self, ceiling: Arc<Ceiling>) -> Self {
        if self.ceiling.is_some() {
            self.violate("ceiling");
        }
        self.ceiling = Some(ceiling);
        self
    }

    /// Marks the builder as a node source's: `source` names it in errors;
    /// `attach` is told when the generator becomes the process-wide one.
    #[doc(hidden)]
    pub fn owned_by(mut self, source: String, attach: Option<Arc<dyn Attach>>) -> Self {
        self.owner = Some(Owner {
            source,
            violated: None,
            attach,
        });
        self
    }

    /// The node source's hook, taken out of the builder.
    pub(crate) fn take_attach(&mut self) -> Option<Arc<dyn Attach>> {
        self.owner.as_mut().and_then(|o| o.attach.take())
    }

    fn violate(&mut self, setting: &'static str) {
        if let Some(owner) = &mut self.owner {
            owner.violated.get_or_insert(setting);
        }
    }

    /// The clock being configured.
    pub(crate) fn clock_ref(&self) -> &C {
        &self.clock
    }

    /// Replaces the clock with `f(clock)`, keeping everything else.
    pub(crate) fn map_clock<C2: Clock>(self, f: impl FnOnce(C) -> C2) -> GeneratorBuilder<L, C2> {
        GeneratorBuilder {
            layout: self.layout,
            node: self.node,
            clock: f(self.clock),
            exhaustion: self.exhaustion,
            regression: self.regression,
            catch_up: self.catch_up,
            resume_after: self.resume_after,
            ceiling: self.ceiling,
            owner: self.owner,
        }
    }

    /// The layout being configured.
    pub fn layout(&self) -> &L {
        &self.layout
    }

    /// Checks the configuration and builds the generator.
    ///
    /// # Errors
    /// [`ConfigError::NodeOutOfRange`] when the node does not fit the layout,
    /// [`ConfigError::EpochInFuture`] when the clock reads earlier than the
    /// layout's epoch, [`ConfigError::LayoutExpired`] when the layout's time
    /// field is already used up (at the clock's reading or after the
    /// [`resume_after`](Self::resume_after) mark),
    /// [`ConfigError::SequenceTooWide`] when the layout's sequence field
    /// leaves no room for a tick in 64 bits, [`ConfigError::CeilingInUse`]
    /// when a generator was already built from the same lease or
    /// high-water file, [`ConfigError::FixedBySource`] when such a builder
    /// was pointed at another node or an earlier resume point.
    pub fn build(self) -> Result<Generator<L, C>, ConfigError> {
        if let Some(Owner {
            source,
            violated: Some(setting),
            ..
        }) = self.owner
        {
            return Err(ConfigError::FixedBySource {
                setting,
                fixed_by: source,
            });
        }
        let layout = self.layout;
        let max_node = layout.max_node();
        if self.node > max_node {
            return Err(ConfigError::NodeOutOfRange {
                node: self.node,
                max: max_node,
            });
        }
        let seqs = layout.sequences_per_tick();
        let seq_bits = if seqs <= 1 {
            0
        } else {
            64 - (seqs - 1).leading_zeros()
        };
        if seqs == 0 || seq_bits > 61 {
            return Err(ConfigError::SequenceTooWide {
                sequences_per_tick: seqs,
            });
        }
        let shape = StateShape::for_layout(&layout, self.node, seq_bits);
        let max_tick = layout
            .max_tick()
            .min(Params::state_max_tick(shape.tick_shift));
        let tick_millis = layout.tick_millis().max(1);
        let epoch_millis = layout.epoch_millis();
        let to_ticks =
            |d: Duration| -> u64 { u64::try_from(d.as_millis()).unwrap_or(u64::MAX) / tick_millis };
        let lead = match self.exhaustion {
            SequenceExhaustion::RunAhead { max_lead } => to_ticks(max_lead),
            SequenceExhaustion::Wait | SequenceExhaustion::Fail => 0,
        };
        let params = Params {
            seqs,
            seq_bits,
            seq_mask: Params::mask_of(seq_bits),
            seq_shift: shape.seq_shift,
            tick_shift: shape.tick_shift,
            fill: shape.fill,
            max_tick,
            lead,
            // With one ID per tick every ID "uses up" its tick; catching up
            // would then stamp low-rate callers late, so it is off.
            catch_up: if seqs == 1 {
                0
            } else {
                to_ticks(self.catch_up)
            },
            // Set below, once the clock has been read.
            floor: 1,
        };
        // ceil(log2(tick_millis)); see `Generator::tick_at`.
        let l = 64 - (tick_millis - 1).leading_zeros();
        let tick_shift = 50 + l;
        let tick_magic =
            u64::try_from((1u128 << tick_shift) / u128::from(tick_millis) + 1).unwrap_or(u64::MAX);
        // Registers fork detection before the clock is first read.
        let fork_tag = crate::fork::tag();
        let ticks_per_batch = u64::try_from(MAX_BATCH_SPAN.as_millis())
            .unwrap_or(u64::MAX)
            .div_ceil(tick_millis);
        let mut generator = Generator {
            state: PaddedState(AtomicU64::new(0)),
            layout,
            clock: self.clock,
            node: self.node,
            params,
            epoch_millis,
            tick_millis,
            tick_magic,
            tick_shift,
            same_tick: SameTick::new(&params, epoch_millis, tick_millis, fork_tag),
            exhaustion: self.exhaustion,
            regression: self.regression,
            catch_up: self.catch_up,
            max_batch: seqs.saturating_mul(ticks_per_batch.max(1)),
            fork_tag,
            ahead_until: AtomicU64::new(0),
            ahead_span: AtomicU64::new(0),
            ceiling: self.ceiling,
            telemetry: GeneratorTelemetry::new(self.node),
        };
        let now = generator.clock.now_millis();
        if now < epoch_millis {
            return Err(ConfigError::EpochInFuture {
                epoch_millis,
                now_millis: now,
            });
        }
        // The build tick may hold IDs of a predecessor with this node ID
        // that exited a moment ago: start with the next tick.
        let mut floor = generator.tick_at(now).saturating_add(1);
        // A previous holder of the node stamped nothing after its mark.
        let resume_at = self.resume_after.unwrap_or(0);
        if let Some(mark) = self.resume_after {
            floor = floor.max(generator.tick_at(mark).saturating_add(1));
        }
        if floor > max_tick {
            return Err(ConfigError::LayoutExpired {
                end_millis: generator.end_millis(),
                now_millis: now.max(resume_at),
            });
        }
        if let Some(ceiling) = &generator.ceiling
            && !ceiling.attach()
        {
            return Err(ConfigError::CeilingInUse);
        }
        generator.params.floor = floor;
        let initial = generator.params.initial_state();
        generator.state = PaddedState(AtomicU64::new(initial));
        let (tick, seq, _) = generator.params.unpack(initial);
        generator
            .telemetry
            .start(tick.wrapping_mul(seqs).wrapping_add(seq), now);
        Ok(generator)
    }
}

impl<L: Layout + Clone, C: Clock + Clone> Generator<L, C> {
    /// A generator like this one (layout, clock, policies, a same-tick
    /// shortcut turned off) for `node`, starting after `resume_after`
    /// (Unix ms) under `ceiling`.
    pub(crate) fn rebuilt(
        &self,
        node: u64,
        resume_after: u64,
        ceiling: Arc<Ceiling>,
    ) -> Result<Self, ConfigError> {
        let generator = GeneratorBuilder {
            layout: self.layout().clone(),
            node,
            clock: self.clock().clone(),
            exhaustion: self.sequence_exhaustion(),
            regression: self.clock_regression(),
            catch_up: self.catch_up_window(),
            resume_after: Some(resume_after),
            ceiling: Some(ceiling),
            owner: None,
        }
        .build()?;
        Ok(if self.same_tick.is_off() {
            generator.without_shortcut()
        } else {
            generator
        })
    }
}

/// Where the state word keeps the sequence and tick, and which constant
/// bits it carries (see `state.rs`). For a [`BitLayout`] the state word is
/// shaped like the ID (the node field filled in), so that the state without
/// its top bit *is* the ID: no compose step on the fast path.
#[derive(Debug, Clone, Copy)]
struct StateShape {
    seq_shift: u32,
    tick_shift: u32,
    fill: u64,
}

impl StateShape {
    fn for_layout<L: Layout>(layout: &L, node: u64, seq_bits: u32) -> Self {
        let Some(bits) = (layout as &dyn Any).downcast_ref::<BitLayout>() else {
            return StateShape {
                seq_shift: 0,
                tick_shift: seq_bits,
                fill: 0,
            };
        };
        // `seq_bits == sequence_bits` (the sequence field holds
        // `2^sequence_bits` values); the fields take at most 63 bits.
        let tick_shift = bits.node_bits() + seq_bits;
        match bits.order() {
            FieldOrder::NodeThenSequence => StateShape {
                seq_shift: 0,
                tick_shift,
                fill: node << seq_bits,
            },
            FieldOrder::SequenceThenNode => StateShape {
                seq_shift: bits.node_bits(),
                tick_shift,
                fill: node,
            },
        }
    }
}
