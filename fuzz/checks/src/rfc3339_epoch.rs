//! RFC 3339 date-times (and Unix milliseconds) where flakeid parses them:
//! `FLAKEID_EPOCH`, read by [`GeneratorBuilder::from_vars`].
//!
//! The input is the variable's value. Property: the value (trimmed) is an
//! epoch exactly when it is Unix milliseconds or an RFC 3339 date-time as
//! the oracle (`oracle::rfc3339_millis`) reads it, at or before the
//! wall clock (Sonyflake's layout, whose 174 years of ticks hold every
//! epoch since 1970, is configured); the layout then has that epoch, and
//! the epoch printed by [`format_rfc3339`] reads back as itself. Every
//! other value is [`ConfigError::InvalidEnv`] naming `FLAKEID_EPOCH` and
//! the value.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use flakeid_core::encoding::format_rfc3339;
use flakeid_core::layout::Layout;
use flakeid_core::{ConfigError, GeneratorBuilder};

use crate::input::text;
use crate::oracle::rfc3339_millis;

pub fn check(data: &[u8]) {
    let value = text(data);
    let want = epoch_millis(&value);
    let got = epoch_of(&value);
    let now = now_millis();
    match (&got, want) {
        (Ok(e), Some(w)) => {
            assert_eq!(*e, w, "FLAKEID_EPOCH={value:?}");
            assert!(w <= now.saturating_add(CLOCK_SLACK_MS));
            let printed = format_rfc3339(UNIX_EPOCH + Duration::from_millis(w));
            assert_eq!(rfc3339_millis(&printed), Some(w), "{printed}");
            assert_eq!(epoch_of(&printed).ok(), Some(w), "{printed}");
        }
        (Err(e), want) => {
            // Blank: as if unset, which needs no epoch; never an error.
            match e {
                ConfigError::InvalidEnv { var, value: v, .. } => {
                    assert_eq!((*var, v.as_str()), ("FLAKEID_EPOCH", &*value));
                }
                other => panic!("FLAKEID_EPOCH={value:?}: {other:?}"),
            }
            // Refused: no epoch, or one in the future (give or take the
            // moment between the two clock readings).
            if let Some(w) = want {
                assert!(
                    w.saturating_add(CLOCK_SLACK_MS) > now,
                    "FLAKEID_EPOCH={value:?} ({w} ms) refused: {e}"
                );
            }
        }
        (Ok(e), None) => {
            // A blank value is no epoch: the preset's own.
            assert!(
                value.trim().is_empty()
                    && *e == flakeid_core::layout::presets::sonyflake().epoch_millis(),
                "FLAKEID_EPOCH={value:?} read as {e}"
            );
        }
    }
}

/// A little more than the time between the oracle's and the code's clock readings.
const CLOCK_SLACK_MS: u64 = 5_000;

/// The epoch the oracle reads from a `FLAKEID_EPOCH` value.
pub(crate) fn epoch_millis(value: &str) -> Option<u64> {
    let v = value.trim();
    if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        return v.parse().ok();
    }
    rfc3339_millis(v)
}

/// The epoch of Sonyflake's layout configured with `FLAKEID_EPOCH=value`.
fn epoch_of(value: &str) -> Result<u64, ConfigError> {
    let vars = |name: &str| match name {
        "FLAKEID_NODE_ID" => Some("1".to_owned()),
        "FLAKEID_LAYOUT" => Some("sonyflake".to_owned()),
        "FLAKEID_EPOCH" => Some(value.to_owned()),
        _ => None,
    };
    GeneratorBuilder::from_vars(vars).map(|b| b.layout().epoch_millis())
}

pub(crate) fn now_millis() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}
