//! What the plan says about the cut-over (the smallest flake key, above
//! every existing key): the first key of the layout at the database's
//! clock, as the migration's proof computes it, and the refusal of a key
//! too large, which says which layout would fit.

use core::time::Duration;
use std::time::{SystemTime, UNIX_EPOCH};

use flakeid_core::encoding::format_rfc3339;
use flakeid_core::layout::{Layout, presets};
use flakeid_sql::Dialect;

use super::Adoption;
use super::catalog::KeyTable;
use super::error::AdoptError;

/// The first key of the layout at the database's clock, as SQL.
pub(crate) fn first_key_sql(adoption: &Adoption) -> String {
    let l = &adoption.layout;
    let div = if adoption.dialect == Dialect::MySql {
        "DIV"
    } else {
        "/"
    };
    let least = if adoption.dialect == Dialect::Sqlite {
        "min"
    } else {
        "LEAST"
    };
    let mult = 1u64 << (l.node_bits() + l.sequence_bits());
    format!(
        "({least}(({} - {}) {div} {}, {}) * {mult})",
        adoption.dialect.now_millis(),
        l.epoch_millis(),
        l.tick_millis(),
        l.max_tick()
    )
}

/// The refusal for a table holding `largest`, at or above `cut_over`.
pub(crate) fn too_large(
    adoption: &Adoption,
    t: &KeyTable,
    largest: i64,
    cut_over: u64,
    now: SystemTime,
) -> AdoptError {
    let l = &adoption.layout;
    let layout = presets::describe(l);
    let at = now.checked_sub(adoption.clock_skew).unwrap_or(UNIX_EPOCH);
    let explained = match adoption.cut_over {
        Some(_) => "as given".to_owned(),
        None => format!(
            "the first key of {layout} at {}, {} s before now for clock skew",
            format_rfc3339(at),
            adoption.clock_skew.as_secs()
        ),
    };
    let mult = 1u64 << (l.node_bits() + l.sequence_bits());
    // The first tick whose first key is above `largest`.
    let tick = largest.unsigned_abs() / mult + 1;
    let first_now = adoption.first_key(now).ok();
    let epoch = tick
        .checked_mul(l.tick_millis())
        .and_then(|span| unix_millis(at).checked_sub(span))
        .filter(|_| tick <= l.max_tick());
    let advice = match (adoption.cut_over, first_now, epoch) {
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

/// `t` in milliseconds since the Unix epoch (0 before it).
pub(crate) fn unix_millis(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
