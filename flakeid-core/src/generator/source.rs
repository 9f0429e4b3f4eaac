//! A generator as a source of IDs, and the layouts whose process-wide
//! source is a generator.

use std::ops::{Bound, RangeInclusive};
use std::time::SystemTime;

use crate::clock::Clock;
use crate::decoded::Decoded;
use crate::error::{ConfigError, FieldOutOfRange, GenerateError, TimeBoundsError};
use crate::layout::{BitLayout, DecimalLayout, Layout, RandomStart};
use crate::runtime::Attempt;
use crate::source::{
    BuildSource, DecodeLayout, GlobalScheme, IdScheme, IdSource, NodeConfig, downcast,
};

use super::Generator;

impl NodeConfig {
    /// The configuration `generator` runs with; `node_var` names the
    /// variable its node ID came from.
    pub(crate) fn of<L: Layout, C: Clock>(
        generator: &Generator<L, C>,
        node_var: Option<&'static str>,
    ) -> Self {
        NodeConfig {
            node: generator.node(),
            exhaustion: generator.sequence_exhaustion(),
            regression: generator.clock_regression(),
            catch_up: generator.catch_up_window(),
            node_var,
        }
    }

    /// A generator of `layout` for this node, with these policies. A node ID
    /// beyond the layout's range names the variable it came from.
    ///
    /// # Errors
    /// As [`GeneratorBuilder::build`](crate::GeneratorBuilder::build).
    pub(crate) fn generator<L>(&self, layout: L) -> Result<Box<dyn IdSource>, ConfigError>
    where
        L: DecodeLayout,
    {
        let max = layout.max_node();
        let generator = Generator::builder(layout, self.node)
            .sequence_exhaustion(self.exhaustion)
            .clock_regression(self.regression)
            .catch_up_window(self.catch_up)
            .build()
            .map_err(|e| self.node_error(e, max))?;
        Ok(Box::new(generator))
    }
}

/// A generator's scheme is its layout's.
impl<L: DecodeLayout, C: Clock> IdScheme for Generator<L, C> {
    fn max_id(&self) -> u64 {
        self.layout().max_id()
    }

    fn check(&self, id: u64) -> Result<(), FieldOutOfRange> {
        self.layout().check(id)
    }

    fn decode(&self, id: u64) -> Decoded {
        self.layout().decode(id)
    }

    fn example_id(&self) -> Option<u64> {
        self.layout().example_id()
    }

    fn time_bounds(
        &self,
        start: Bound<SystemTime>,
        end: Bound<SystemTime>,
    ) -> Result<RangeInclusive<u64>, TimeBoundsError> {
        self.layout().time_bounds(start, end)
    }
}

impl<L: DecodeLayout, C: Clock> IdSource for Generator<L, C> {
    fn next_id(&self) -> Result<u64, GenerateError> {
        Generator::next_id(self)
    }

    fn try_next_id(&self) -> Result<u64, GenerateError> {
        Generator::try_next_id(self)
    }

    fn next_ids(&self, n: usize) -> Result<Vec<u64>, GenerateError> {
        Ok(self.next_batch(n)?.collect())
    }

    fn attempt_next_id(&self) -> Result<Attempt<u64>, GenerateError> {
        Generator::attempt_next_id(self)
    }

    fn attempt_next_ids(&self, n: usize) -> Result<Attempt<Vec<u64>>, GenerateError> {
        Ok(self.attempt_next_batch(n)?.map(Iterator::collect))
    }
}

impl GlobalScheme for BitLayout {}

impl BuildSource for BitLayout {
    fn build_source(&self, config: &NodeConfig) -> Result<Box<dyn IdSource>, ConfigError> {
        config.generator(self.clone())
    }

    fn same_scheme(&self, other: &dyn GlobalScheme) -> bool {
        downcast::<Self>(other) == Some(self)
    }
}

impl GlobalScheme for DecimalLayout {}

impl BuildSource for DecimalLayout {
    fn build_source(&self, config: &NodeConfig) -> Result<Box<dyn IdSource>, ConfigError> {
        config.generator(*self)
    }

    fn same_scheme(&self, other: &dyn GlobalScheme) -> bool {
        downcast::<Self>(other) == Some(self)
    }
}

/// Two random-start schemes are the same when their inner layouts and start
/// ranges are (the seed differs from process to process).
impl<L: DecodeLayout + GlobalScheme + Clone + PartialEq> GlobalScheme for RandomStart<L> {}

impl<L: DecodeLayout + GlobalScheme + Clone + PartialEq> BuildSource for RandomStart<L> {
    fn build_source(&self, config: &NodeConfig) -> Result<Box<dyn IdSource>, ConfigError> {
        config.generator(self.clone())
    }

    fn same_scheme(&self, other: &dyn GlobalScheme) -> bool {
        downcast::<Self>(other)
            .is_some_and(|o| o.inner() == self.inner() && o.start_range() == self.start_range())
    }
}
