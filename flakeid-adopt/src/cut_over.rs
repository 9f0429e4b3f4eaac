//! The cut-over: the smallest flake key, below which every existing key
//! must lie; the first key a layout issues at a time, in Rust and in the
//! database's SQL; and the refusal that says which layout would fit.

use core::time::Duration;
use std::time::{SystemTime, UNIX_EPOCH};

use flakeid_core::encoding::format_rfc3339;
use flakeid_core::layout::{BitLayout, Layout, presets};
use flakeid_sql::Dialect;

use super::Adoption;
use super::catalog::KeyTable;
use super::error::AdoptError;

impl Adoption {
    /// The smallest key the layout issues at `at`: the first key of its
    /// tick (node 0, sequence 0; 1 at the epoch's first tick).
    ///
    /// # Errors
    /// [`AdoptError::LayoutEnded`] when `at` is past the layout's time.
    pub fn first_key(&self, at: SystemTime) -> Result<u64, AdoptError> {
        let l = &self.layout;
        let ms = unix_millis(at);
        let tick = ms.saturating_sub(l.epoch_millis()) / l.tick_millis();
        if tick > l.max_tick() {
            return Err(AdoptError::LayoutEnded {
                at: format_rfc3339(at),
                end: format_rfc3339(l.end()),
            });
        }
        Ok(l.compose(tick, 0, 0).max(1))
    }

    /// The cut-over a plan made at `now` uses: the one given, or the first
    /// key at `now` minus the clock skew; checked to be at most the first
    /// key at `now`.
    ///
    /// # Errors
    /// [`AdoptError::CutOverInFuture`], [`AdoptError::LayoutEnded`].
    pub fn cut_over_at(&self, now: SystemTime) -> Result<u64, AdoptError> {
        let first = self.first_key(now)?;
        match self.cut_over {
            Some(cut_over) if cut_over > first => Err(AdoptError::CutOverInFuture {
                cut_over,
                first_key: first,
                at: format_rfc3339(now),
            }),
            Some(cut_over) => Ok(cut_over.max(1)),
            None => self.first_key(now.checked_sub(self.clock_skew).unwrap_or(UNIX_EPOCH)),
        }
    }

    /// The first key of the layout at the database's clock, as SQL.
    pub(crate) fn first_key_sql(&self) -> String {
        let l = &self.layout;
        let div = if self.dialect == Dialect::MySql {
            "DIV"
        } else {
            "/"
        };
        let least = if self.dialect == Dialect::Sqlite {
            "min"
        } else {
            "LEAST"
        };
        let mult = 1u64 << (l.node_bits() + l.sequence_bits());
        format!(
            "({least}(({} - {}) {div} {}, {}) * {mult})",
            self.dialect.now_millis(),
            l.epoch_millis(),
            l.tick_millis(),
            l.max_tick()
        )
    }

    /// The refusal for a table holding `largest`, at or above `cut_over`.
    pub(crate) fn too_large(
        &self,
        t: &KeyTable,
        largest: i64,
        cut_over: u64,
        now: SystemTime,
    ) -> AdoptError {
        let l = &self.layout;
        let layout = describe_layout(l);
        let at = now.checked_sub(self.clock_skew).unwrap_or(UNIX_EPOCH);
        let explained = match self.cut_over {
            Some(_) => "as given".to_owned(),
            None => format!(
                "the first key of {layout} at {}, {} s before now for clock skew",
                format_rfc3339(at),
                self.clock_skew.as_secs()
            ),
        };
        let mult = 1u64 << (l.node_bits() + l.sequence_bits());
        // The first tick whose first key is above `largest`.
        let tick = largest.unsigned_abs() / mult + 1;
        let first_now = self.first_key(now).ok();
        let epoch = tick
            .checked_mul(l.tick_millis())
            .and_then(|span| unix_millis(at).checked_sub(span))
            .filter(|_| tick <= l.max_tick());
        let advice = match (self.cut_over, first_now, epoch) {
            (Some(_), Some(first), _) if first > largest.unsigned_abs() => format!(
                "Give a cut-over above {largest} and at most {first}, the layout's first key now."
            ),
            (_, _, Some(epoch)) => {
                let end = epoch + (l.max_tick() + 1) * l.tick_millis();
                format!(
                    "A later epoch makes flake keys smaller, not larger; an earlier one makes them \
                     larger: with an epoch at or before {} ({epoch} ms) the first key is above \
                     {largest}, and the layout's time then ends at {}.",
                    format_rfc3339(UNIX_EPOCH + Duration::from_millis(epoch)),
                    format_rfc3339(UNIX_EPOCH + Duration::from_millis(end)),
                )
            }
            _ => format!(
                "No epoch of {layout} puts its first key above {largest} (its keys end at {}): \
                 choose a layout with more bits of time or a wider domain.",
                l.max_id()
            ),
        };
        AdoptError::KeyTooLarge {
            table: t.table.clone(),
            column: t.column.clone(),
            largest,
            cut_over,
            explained,
            advice,
        }
    }
}

/// `layout` as an operator names it: `the twitter layout`, `the discord
/// layout with epoch 1704067200000 ms`, or its fields.
fn describe_layout(layout: &BitLayout) -> String {
    for (name, make) in presets::ALL {
        if make() == *layout {
            return format!("the {name} layout");
        }
    }
    for (name, make) in presets::ALL {
        if make().with_epoch_millis(layout.epoch_millis()).as_ref() == Ok(layout) {
            return format!("the {name} layout with epoch {} ms", layout.epoch_millis());
        }
    }
    format!("a custom layout ({layout:?})")
}

fn unix_millis(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
