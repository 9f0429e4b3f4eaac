//! A generator as a source of IDs, and the layouts whose process-wide
//! source is a generator.

use crate::clock::Clock;
use crate::error::ConfigError;
use crate::layout::{BitLayout, DecodeLayout, Layout};
use crate::source::{GlobalScheme, IdSource, NodeConfig, batch_source, downcast, scheme_of};

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
    pub fn generator<L>(&self, layout: L) -> Result<Box<dyn IdSource>, ConfigError>
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

// A generator's scheme is its layout's.
scheme_of!(impl[L: DecodeLayout, C: Clock] Generator<L, C>, |generator| generator.layout());
batch_source!(impl[L: DecodeLayout, C: Clock] Generator<L, C>);

impl GlobalScheme for BitLayout {
    fn build_source(&self, config: &NodeConfig) -> Result<Box<dyn IdSource>, ConfigError> {
        config.generator(self.clone())
    }

    fn same_scheme(&self, other: &dyn GlobalScheme) -> bool {
        downcast::<Self>(other) == Some(self)
    }
}
