//! Where a generator's time comes from.
//!
//! Generators read time through the [`Clock`] trait so that tests can
//! inject a [`ManualClock`] and step it forwards and backwards.

/// A source of wall-clock time with millisecond resolution.
pub trait Clock: Send + Sync + 'static {
    /// Milliseconds since the Unix epoch.
    fn now_millis(&self) -> u64;

    /// Blocks the calling thread until `now_millis() >= target` or for as
    /// long as the clock's notion of waiting allows. The default sleeps or
    /// spins on the real time; [`ManualClock`] advances itself instead.
    fn wait_until(&self, target_millis: u64) {
        let _ = target_millis;
        unimplemented!("filled in by the clock module")
    }
}

/// The default clock: monotonic inside the process, anchored to wall time once.
#[derive(Debug, Clone, Default)]
pub struct MonotonicClock {}

/// A clock that only moves when told to; for tests.
#[derive(Debug, Default)]
pub struct ManualClock {}
