//! Handles of the `metrics` facade that do nothing without the feature
//! `metrics`: what the generator, and flakeid-lease's and flakeid-segment's
//! sources (through `__private`), record with.

use std::time::Duration;

/// A counter handle; does nothing without the feature `metrics`.
#[derive(Clone, Debug, Default)]
pub struct Counter(#[cfg(feature = "metrics")] Option<metrics::Counter>);

impl Counter {
    /// A handle registered under `name` with `labels`.
    pub fn new(name: &'static str, labels: &[(&'static str, &str)]) -> Self {
        #[cfg(feature = "metrics")]
        {
            Counter(Some(metrics::counter!(name, to_labels(labels))))
        }
        #[cfg(not(feature = "metrics"))]
        {
            let _ = (name, labels);
            Counter()
        }
    }

    /// Adds `n`.
    #[inline]
    pub fn increment(&self, n: u64) {
        #[cfg(feature = "metrics")]
        if let Some(c) = &self.0 {
            c.increment(n);
        }
        #[cfg(not(feature = "metrics"))]
        let _ = n;
    }
}

/// A gauge handle; does nothing without the feature `metrics`.
#[derive(Clone, Debug, Default)]
pub struct Gauge(#[cfg(feature = "metrics")] Option<metrics::Gauge>);

impl Gauge {
    /// A handle registered under `name` with `labels`.
    pub fn new(name: &'static str, labels: &[(&'static str, &str)]) -> Self {
        #[cfg(feature = "metrics")]
        {
            Gauge(Some(metrics::gauge!(name, to_labels(labels))))
        }
        #[cfg(not(feature = "metrics"))]
        {
            let _ = (name, labels);
            Gauge()
        }
    }

    /// Sets the gauge to `value`.
    pub fn set(&self, value: u64) {
        #[cfg(feature = "metrics")]
        if let Some(g) = &self.0 {
            #[allow(clippy::cast_precision_loss)]
            g.set(value as f64);
        }
        #[cfg(not(feature = "metrics"))]
        let _ = value;
    }
}

/// A histogram handle; does nothing without the feature `metrics`.
#[derive(Clone, Debug, Default)]
pub struct Histogram(#[cfg(feature = "metrics")] Option<metrics::Histogram>);

impl Histogram {
    /// A handle registered under `name` with `labels`.
    pub fn new(name: &'static str, labels: &[(&'static str, &str)]) -> Self {
        #[cfg(feature = "metrics")]
        {
            Histogram(Some(metrics::histogram!(name, to_labels(labels))))
        }
        #[cfg(not(feature = "metrics"))]
        {
            let _ = (name, labels);
            Histogram()
        }
    }

    /// Records `d`, in seconds.
    pub fn record(&self, d: Duration) {
        #[cfg(feature = "metrics")]
        if let Some(h) = &self.0 {
            h.record(d.as_secs_f64());
        }
        #[cfg(not(feature = "metrics"))]
        let _ = d;
    }
}

#[cfg(feature = "metrics")]
fn to_labels(labels: &[(&'static str, &str)]) -> Vec<metrics::Label> {
    labels
        .iter()
        .map(|&(k, v)| metrics::Label::new(k, v.to_owned()))
        .collect()
}
