//! What a node source's `release` takes: the generator built from it; see
//! [`LeasedGenerator`].

use std::sync::Arc;

use crate::clock::Clock;
use crate::generator::{Generator, Sealable};
use crate::layout::Layout;

/// What a node source's `release` takes (`NodeLease::release` and
/// `HighWaterFile::release` of the `flakeid-lease` crate): the generator
/// built from it, either a [`Generator`](crate::Generator) or the
/// process-wide [`ProcessGenerator`](crate::global::ProcessGenerator) that
/// [`global::init`](crate::global::init) returned (or a reference or an
/// `Arc` of one). Implemented by those two only: the source stops the
/// generator it hands the node to, so that it issues nothing after the
/// release.
///
/// ```
/// use std::sync::Arc;
/// use flakeid_core::layout::presets;
/// use flakeid_core::node::LeasedGenerator;
/// use flakeid_core::Generator;
///
/// /// What a node source's `release` accepts.
/// fn releasable(_: &impl LeasedGenerator) {}
///
/// let generator = Generator::builder(presets::twitter(), 1).build()?;
/// releasable(&generator); // a `Generator`
/// releasable(&&generator); // a reference to one
/// releasable(&Arc::new(generator)); // an `Arc` of one
/// # Ok::<(), flakeid_core::ConfigError>(())
/// ```
pub trait LeasedGenerator: sealed::Sealed {}

impl<G: LeasedGenerator + ?Sized> LeasedGenerator for &G {}

impl<G: LeasedGenerator + ?Sized> LeasedGenerator for Arc<G> {}

impl<L: Layout, C: Clock> LeasedGenerator for Generator<L, C> {}

/// The generator behind a [`LeasedGenerator`], for `release` to stop.
pub(crate) mod sealed {
    /// The generator behind a [`LeasedGenerator`](super::LeasedGenerator).
    pub struct Handle<'a>(pub(crate) &'a dyn crate::generator::Sealable);

    pub trait Sealed {
        fn handle(&self) -> Handle<'_>;
    }
}

impl<G: LeasedGenerator + ?Sized> sealed::Sealed for &G {
    fn handle(&self) -> sealed::Handle<'_> {
        (**self).handle()
    }
}

impl<G: LeasedGenerator + ?Sized> sealed::Sealed for Arc<G> {
    fn handle(&self) -> sealed::Handle<'_> {
        (**self).handle()
    }
}

impl<L: Layout, C: Clock> sealed::Sealed for Generator<L, C> {
    fn handle(&self) -> sealed::Handle<'_> {
        sealed::Handle(self)
    }
}

/// The generator `release` stops.
pub fn sealable<G: LeasedGenerator + ?Sized>(generator: &G) -> &dyn Sealable {
    generator.handle().0
}
