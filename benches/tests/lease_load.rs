//! The lease simulation on the in-memory store: every holder gets its own
//! node, the counters add up, the renewals run. No timing is asserted.

use std::sync::Arc;
use std::time::Duration;

use flakeid_benches::lease_load::{self, LoadConfig, StoreStats};
use flakeid_core::runtime::Sleep;
use flakeid_lease::MemoryLeaseStore;

#[derive(Clone, Copy)]
struct Tokio;

impl Sleep for Tokio {
    fn sleep(&self, d: Duration) -> impl Future<Output = ()> + Send {
        tokio::time::sleep(d)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_holder_gets_a_node_and_the_counters_add_up() {
    for spread in [true, false] {
        let stats = Arc::new(StoreStats::default());
        let cfg = LoadConfig {
            space: format!("sim-{spread}"),
            holders: 64,
            spread,
            ttl: Duration::from_secs(2),
            renew_every: Duration::from_millis(50),
            renew_for: Duration::from_millis(300),
        };
        let r = lease_load::run(MemoryLeaseStore::new(), Tokio, stats.clone(), &cfg)
            .await
            .unwrap();
        assert_eq!(r.distinct_nodes, 64);
        let p = r.claim_phase;
        assert_eq!(p.claims - p.failed_cas, 64, "{p:?}");
        assert_eq!(stats.claim.won(), 64);
        assert_eq!(p.ensure, 64);
        assert!(p.first_renewals >= 64, "{p:?}");
        assert_eq!(p.errors, 0);
        assert!(r.renewals.0 > 0 && r.renewals.1 == 0, "{:?}", r.renewals);
        assert!(!r.renew_micros.is_empty() && r.renew_micros.len() as u64 <= r.renewals.0);
        assert_eq!(stats.release.snapshot().calls, 64);
    }
}
