//! [`LeaseOptions`] checked into a [`Plan`]: the options every claim
//! round and renewal reads, plus this claimant's identity.

use core::ops::RangeInclusive;
use core::time::Duration;

use super::LeaseOptions;
use crate::error::LeaseError;
use flakeid_core::Clock;
use flakeid_core::layout::Layout;

impl<L: Layout + Clone, C: Clock + Clone> LeaseOptions<L, C> {
    pub(crate) fn plan(self) -> Result<Plan<L, C>, LeaseError> {
        let invalid = |option, value: String, reason: String| LeaseError::InvalidOption {
            option,
            value,
            reason,
        };
        if self.space.is_empty() || self.space.chars().count() > LeaseOptions::MAX_SPACE_LEN {
            return Err(invalid(
                "space",
                format!("{:?}", self.space),
                format!(
                    "a space name has 1..={} characters",
                    LeaseOptions::MAX_SPACE_LEN
                ),
            ));
        }
        let max_node = self.layout.max_node().min(i32::MAX as u64);
        let nodes = self.nodes.clone().unwrap_or(0..=max_node);
        if nodes.is_empty() || *nodes.end() > max_node {
            return Err(invalid(
                "nodes",
                format!("{nodes:?}"),
                format!("node IDs must form a non-empty range within 0..={max_node}"),
            ));
        }
        let lead = self.ceiling_lead.unwrap_or(self.ttl);
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        if ms(self.ttl) == 0 || ms(self.ttl) > i64::MAX as u64 / 4 {
            return Err(invalid(
                "ttl",
                format!("{:?}", self.ttl),
                "a lease lasts at least 1 ms".into(),
            ));
        }
        if lead > self.ttl {
            return Err(invalid(
                "ceiling_lead",
                format!("{lead:?}"),
                format!(
                    "at most the TTL ({:?}): a holder paused past its lease must find its clock beyond its ceiling",
                    self.ttl
                ),
            ));
        }
        if self.renew_every.is_zero() || self.renew_every >= lead {
            return Err(invalid(
                "renew_every",
                format!("{:?}", self.renew_every),
                format!(
                    "between 0 and the ceiling lead ({lead:?}), or a healthy holder reaches its ceiling between renewals"
                ),
            ));
        }
        let holder = self.holder.clone().unwrap_or_else(default_holder);
        let max_ahead_millis = ms(lead).saturating_add(ms(self.max_clock_skew));
        Ok(Plan {
            max_ahead_millis,
            owner: random_token(),
            holder: holder.chars().take(255).collect(),
            start: if self.spread {
                rand::random_range(0..=*nodes.end() - *nodes.start())
            } else {
                0
            },
            nodes,
            lead_millis: ms(lead),
            options: self,
        })
    }
}

/// Validated options plus this claimant's identity.
pub(crate) struct Plan<L, C> {
    pub(crate) options: LeaseOptions<L, C>,
    pub(crate) nodes: RangeInclusive<u64>,
    pub(crate) owner: String,
    pub(crate) holder: String,
    /// Where in the range this claimant starts looking.
    pub(crate) start: u64,
    pub(crate) lead_millis: u64,
    /// How far ahead of the store's clock a ceiling may be: the lead plus
    /// the allowed clock skew.
    pub(crate) max_ahead_millis: u64,
}

/// 128 random bits as hex: the holder's `owner` token.
fn random_token() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// `hostname/pid`.
fn default_holder() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "unknown-host".to_owned());
    format!("{host}/{}", std::process::id())
}
