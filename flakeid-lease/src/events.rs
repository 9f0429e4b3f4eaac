//! The `tracing` events of leases: where they go, and the fields every
//! event about a held node carries.

/// Where `tracing` events of leases go.
pub(super) const TARGET: &str = "flakeid::lease";

/// A `tracing` event (target [`TARGET`]) about the node a lease holds:
/// its `space`, `node`, `fence` and `owner` (from the lease's `$plan` and
/// `$holding`), then `$fields` and the message.
macro_rules! lease_event {
    ($level:ident, $plan:expr, $holding:expr, $($fields:tt)+) => {
        tracing::event!(
            target: $crate::events::TARGET,
            tracing::Level::$level,
            space = %$plan.options.space,
            node = $holding.node,
            fence = $holding.fence,
            owner = %$plan.owner,
            $($fields)+
        )
    };
}

pub(super) use lease_event;
