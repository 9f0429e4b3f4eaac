//! The guide's capacity table of leased node IDs (`docs/node-ids.md`):
//! every number in it is computed here from the layouts and the lease
//! options, and the error and listing it quotes are produced here by a full
//! space.

use std::time::Duration;

use flakeid_core::layout::presets;
use flakeid_lease::{
    ClaimRequest, LeaseError, LeaseOptions, LeaseStore, MemoryLeaseStore, RenewRequest, Renewal,
};

use crate::support::{T0, store_on_clock};

fn guide() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/node-ids.md");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn assert_in_guide(text: &str) {
    assert!(
        guide().contains(text),
        "docs/node-ids.md should contain:\n{text}"
    );
}

/// A claim of `node` at the default TTL, as a holder 20 s ahead of the
/// store's clock at most.
fn claim<'a>(space: &'a str, node: u64, owner: &'a str, holder: &'a str) -> ClaimRequest<'a> {
    ClaimRequest {
        space,
        node,
        owner,
        holder,
        ttl: LeaseOptions::DEFAULT_TTL,
        max_ahead_millis: 20_000,
    }
}

/// A renewal of `owner`'s claim `fence` of `node` at the default TTL, up to
/// `ceiling_millis`.
fn renew<'a>(
    space: &'a str,
    node: u64,
    owner: &'a str,
    fence: u64,
    ceiling_millis: u64,
) -> RenewRequest<'a> {
    RenewRequest {
        space,
        node,
        owner,
        fence,
        ttl: LeaseOptions::DEFAULT_TTL,
        ceiling_millis,
        max_ahead_millis: 20_000,
    }
}

/// `1024` as `1,024`.
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0} s")
    } else {
        format!("{s} s")
    }
}

/// The table as the guide shows it.
fn capacity_table() -> String {
    let mut t = String::from(
        "| preset | node bits | holders at once (`max_holders()`) |\n|---|---:|---:|\n",
    );
    for &(name, preset) in presets::ALL {
        let layout = preset();
        let holders = LeaseOptions::new("s", layout.clone())
            .max_holders()
            .unwrap();
        t.push_str(&format!(
            "| `presets::{name}()` | {} | {} |\n",
            layout.node_bits(),
            thousands(holders)
        ));
    }
    t
}

fn crash_table() -> String {
    let mut t = String::from(
        "| TTL | renewal every | a crashed holder's node is unusable for (`crashed_node_unusable_for()`) |\n|---|---|---|\n",
    );
    for (ttl, every, note) in [
        (
            LeaseOptions::DEFAULT_TTL,
            LeaseOptions::DEFAULT_RENEW_EVERY,
            " (defaults)",
        ),
        (Duration::from_secs(5), Duration::from_secs(1), ""),
        (Duration::from_secs(60), Duration::from_secs(10), ""),
    ] {
        let bound = LeaseOptions::new("s", presets::twitter())
            .ttl(ttl)
            .renew_every(every)
            .crashed_node_unusable_for();
        t.push_str(&format!(
            "| {}{note} | {} | {}–{} |\n",
            secs(ttl),
            secs(every),
            secs(*bound.start()).trim_end_matches(" s"),
            secs(*bound.end())
        ));
    }
    t
}

#[test]
fn guide_capacity_table_is_computed_from_the_layouts() {
    let table = capacity_table();
    assert_in_guide(&table);
    let crash = crash_table();
    assert_in_guide(&crash);
}

/// Every node of Twitter's layout held: the next claim fails with the error
/// the guide quotes, and the listing starts as it shows.
#[test]
fn a_full_space_fails_with_the_error_and_listing_the_guide_quotes() {
    let (clock, mut store) = store_on_clock(T0);
    store.ensure_nodes("orders", 0..=1023).unwrap();
    for node in 0..=1023 {
        let owner = format!("owner-{node}");
        let claimed = store
            .try_claim(&claim("orders", node, &owner, "web-1/4242"))
            .unwrap()
            .expect("free");
        let renewal = renew("orders", node, &owner, claimed.fence, T0 + 15_000);
        assert_eq!(store.renew(&renewal).unwrap(), Renewal::Renewed);
    }
    clock.set(T0 + 3_000);
    let options = LeaseOptions::new("orders", presets::twitter());
    assert_eq!(options.max_holders().unwrap(), 1024);
    let err = options.claim(store.clone()).unwrap_err();
    assert!(matches!(err, LeaseError::AllTaken { nodes: 1024, .. }));
    let text = err.to_string();
    let quoted = "all 1024 node IDs (0..=1023) of space \"orders\" are leased; the first lease \
                  to expire (node 0) ends in 12s by the database's clock (waited ";
    assert!(text.starts_with(quoted), "{text}");
    assert_in_guide(quoted);
    let listing = store.list("orders").unwrap().to_string();
    let head: String = listing.lines().take(3).map(|l| format!("{l}\n")).collect();
    assert_eq!(
        head,
        "space \"orders\" at 1700000003000 ms (store clock): 1024 of 1024 nodes held\n\
         node 0: held by web-1/4242, fence 1, lease ends in 12000 ms, high water 1700000015000 ms\n\
         node 1: held by web-1/4242, fence 1, lease ends in 12000 ms, high water 1700000015000 ms\n"
    );
    assert_in_guide(&head);
}

/// The basis of the crash bound: a node is held until exactly the TTL after
/// its last renewal and free right after, so a crash between two renewals
/// leaves it unusable for between `ttl − renew_every` and `ttl`.
#[test]
fn a_crashed_holders_node_is_free_exactly_the_ttl_after_its_last_renewal() {
    let (clock, mut store) = store_on_clock(T0);
    store.ensure_nodes("s", 0..=0).unwrap();
    store
        .try_claim(&claim("s", 0, "a", "a"))
        .unwrap()
        .expect("free");
    clock.set(T0 + 3_000);
    let renewed = store.renew(&renew("s", 0, "a", 1, T0 + 18_000));
    assert_eq!(renewed.unwrap(), Renewal::Renewed);
    // The last renewal at T0 + 3 s: held until T0 + 18 s inclusive.
    let end = T0 + 3_000 + 15_000;
    clock.set(end);
    assert_eq!(store.try_claim(&claim("s", 0, "b", "b")).unwrap(), None);
    clock.set(end + 1);
    let b = store
        .try_claim(&claim("s", 0, "b", "b"))
        .unwrap()
        .expect("expired");
    assert_eq!((b.fence, b.high_water_millis), (2, T0 + 18_000));
    // A crash right after that renewal left it unusable for the TTL; one
    // just before the next renewal (due at T0 + 6 s), for TTL − interval.
    let bound = LeaseOptions::new("s", presets::twitter()).crashed_node_unusable_for();
    let longest = Duration::from_millis(end - (T0 + 3_000));
    let shortest = Duration::from_millis(end - (T0 + 6_000));
    assert_eq!(bound, shortest..=longest);
}

#[test]
fn dense_claims_take_the_lowest_free_node() {
    let store = MemoryLeaseStore::new();
    let options = LeaseOptions::new("dense", presets::twitter())
        .nodes(0..=9)
        .spread_claims(false);
    let a = options.clone().claim(store.clone()).unwrap();
    let b = options.clone().claim(store.clone()).unwrap();
    assert_eq!((a.node(), b.node()), (0, 1));
    a.release_unused().unwrap();
    let c = options.claim(store.clone()).unwrap();
    assert_eq!(c.node(), 0, "the lowest free node again");
    b.release_unused().unwrap();
    c.release_unused().unwrap();
}
