//! The lock-free generator (skeleton).
use crate::{BitLayout, MonotonicClock};

/// A generator (skeleton).
#[derive(Debug)]
pub struct Generator<L = BitLayout, C = MonotonicClock> {
    _l: core::marker::PhantomData<(L, C)>,
}

/// Builder (skeleton).
#[derive(Debug)]
pub struct GeneratorBuilder {}

/// What happens when a tick's sequence runs out (skeleton).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SequenceExhaustion {}

/// What happens when the clock is behind the last issued tick (skeleton).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockRegression {}
