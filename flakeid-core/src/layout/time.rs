//! What every layout builder takes for the time field (`BitLayoutBuilder`
//! here, `DecimalLayoutBuilder` in flakeid-schemes, through `__private`):
//! the tick and the epoch, set in milliseconds or as a `Duration` /
//! `SystemTime`, checked the same way, with the same setters.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::LayoutError;

/// The tick and the epoch as a builder was given them.
#[derive(Debug, Clone, Default)]
pub struct TimeSettings {
    /// The tick, if set.
    pub tick: Option<Tick>,
    /// The epoch, if set.
    pub epoch: Option<Epoch>,
}

/// A tick as given: in milliseconds or as a `Duration`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tick {
    /// `tick_millis(ms)`.
    Millis(u64),
    /// `tick(duration)`.
    Duration(Duration),
}

/// An epoch as given: in Unix milliseconds or as a `SystemTime`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Epoch {
    /// `epoch_millis(ms)`.
    Millis(u64),
    /// `epoch(time)`.
    Time(SystemTime),
}

impl TimeSettings {
    /// The widths of the time and sequence fields (bits or digits), each
    /// given with the name of its setting, and the epoch: every layout
    /// needs them, and neither field may be empty (`zero` names it).
    pub fn widths(
        &self,
        time: (Option<u8>, &'static str),
        sequence: (Option<u8>, &'static str),
        zero: fn(&'static str) -> LayoutError,
    ) -> Result<(u8, u8), LayoutError> {
        let time = time.0.ok_or(LayoutError::Missing { setting: time.1 })?;
        let sequence = sequence.0.ok_or(LayoutError::Missing {
            setting: sequence.1,
        })?;
        self.epoch()?;
        for (width, field) in [(time, "time"), (sequence, "sequence")] {
            if width == 0 {
                return Err(zero(field));
            }
        }
        Ok((time, sequence))
    }

    /// The epoch, which every layout needs.
    pub fn epoch(&self) -> Result<&Epoch, LayoutError> {
        self.epoch
            .as_ref()
            .ok_or(LayoutError::Missing { setting: "epoch" })
    }

    /// The tick in whole milliseconds, at least 1 (1 when not set).
    pub fn tick_millis(&self) -> Result<u64, LayoutError> {
        match self.tick.clone().unwrap_or(Tick::Millis(1)) {
            Tick::Millis(0) => Err(LayoutError::ZeroTick {
                tick: Duration::ZERO,
            }),
            Tick::Millis(ms) => Ok(ms),
            Tick::Duration(d) if d.is_zero() => Err(LayoutError::ZeroTick { tick: d }),
            Tick::Duration(d) if d.subsec_nanos() % 1_000_000 != 0 || d.as_millis() == 0 => {
                Err(LayoutError::TickNotWholeMillis { tick: d })
            }
            // A tick of more than u64::MAX ms cannot pass the end's check.
            Tick::Duration(d) => Ok(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        }
    }

    /// The epoch in whole milliseconds since the Unix epoch; `tick_millis`
    /// and `time_bits` name the layout in an overflow error.
    pub fn epoch_millis(&self, tick_millis: u64, time_bits: u32) -> Result<u64, LayoutError> {
        match self.epoch()? {
            Epoch::Millis(ms) => Ok(*ms),
            Epoch::Time(t) => match t.duration_since(UNIX_EPOCH) {
                Err(e) => {
                    let before = e.duration();
                    let millis_before =
                        before.as_millis() + u128::from(before.subsec_nanos() % 1_000_000 != 0);
                    Err(LayoutError::EpochBeforeUnixEpoch { millis_before })
                }
                Ok(d) if d.subsec_nanos() % 1_000_000 != 0 => {
                    Err(LayoutError::EpochNotWholeMillis { since_unix: d })
                }
                Ok(d) => u64::try_from(d.as_millis()).map_err(|_| LayoutError::TimeOverflow {
                    epoch_millis: u64::MAX,
                    tick_millis,
                    time_bits,
                }),
            },
        }
    }
}

/// The end (Unix ms) of `ticks` ticks of `tick_millis` from `epoch_millis`,
/// if it is a representable time; else the overflow, naming the layout's
/// `time_bits`.
pub fn end_millis(
    epoch_millis: u64,
    tick_millis: u64,
    ticks: u128,
    time_bits: u32,
) -> Result<u64, LayoutError> {
    let end = ticks
        .checked_mul(u128::from(tick_millis))
        .and_then(|d| d.checked_add(u128::from(epoch_millis)))
        .and_then(|end| u64::try_from(end).ok())
        .filter(|&end| UNIX_EPOCH.checked_add(Duration::from_millis(end)).is_some());
    end.ok_or(LayoutError::TimeOverflow {
        epoch_millis,
        tick_millis,
        time_bits,
    })
}

/// The tick and epoch setters of a layout builder with a `time:
/// TimeSettings` field.
#[doc(hidden)]
#[macro_export]
macro_rules! __time_setters {
    () => {
        $crate::__private::setters! {
            /// Length of one tick; a whole number of milliseconds, at least 1 ms (default 1 ms).
            tick(tick: ::std::time::Duration) => time.tick = Some($crate::__private::Tick::Duration(tick));

            /// Length of one tick in milliseconds, at least 1 (default 1).
            tick_millis(millis: u64) => time.tick = Some($crate::__private::Tick::Millis(millis));

            /// The time of tick 0; a whole number of milliseconds, not before 1970.
            epoch(epoch: ::std::time::SystemTime) => time.epoch = Some($crate::__private::Epoch::Time(epoch));

            /// The time of tick 0, in milliseconds since the Unix epoch.
            epoch_millis(millis: u64) => time.epoch = Some($crate::__private::Epoch::Millis(millis));
        }
    };
}
