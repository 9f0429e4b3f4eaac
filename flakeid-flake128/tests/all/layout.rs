//! `Flake128Layout`: packing the parts at their edges, and where a
//! generator of the layout ends.

use flakeid_core::{Generator, ManualClock};
use flakeid_flake128::Flake128Layout;

#[test]
fn the_generator_ends_exactly_at_max_millis() {
    // The generator caps the tick at what its state word holds; equal ends
    // mean the layout's limit is exactly that cap.
    // Built in the millisecond before, so the first ID may use the last.
    let g = Generator::builder(Flake128Layout, 1)
        .clock(ManualClock::new(Flake128Layout::MAX_MILLIS - 1))
        .build()
        .unwrap();
    assert_eq!(g.end_millis(), Flake128Layout::MAX_MILLIS + 1);
    let id = g.next_id().unwrap();
    assert_eq!(
        Flake128Layout::unpack(id),
        (Flake128Layout::MAX_MILLIS, 1, 0)
    );
}

#[test]
fn pack_unpack_edges() {
    for (t, w, s) in [
        (0, 0, 1),
        (
            u64::MAX,
            Flake128Layout::MAX_WORKER,
            Flake128Layout::SEQUENCES_PER_MILLI - 1,
        ),
        (Flake128Layout::MAX_MILLIS, 1, 0),
    ] {
        assert_eq!(
            Flake128Layout::unpack(Flake128Layout::pack(t, w, s)),
            (t, w, s)
        );
    }
    assert_eq!(
        Flake128Layout::pack(u64::MAX, Flake128Layout::MAX_WORKER, 65_535),
        u128::MAX
    );
}
