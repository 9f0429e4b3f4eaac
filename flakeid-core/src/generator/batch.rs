//! A block of consecutive IDs reserved in one atomic step.

use core::iter::FusedIterator;

use crate::layout::Layout;

/// Consecutive IDs reserved by [`Generator::next_batch`](crate::Generator::next_batch),
/// yielded in ascending order.
///
/// The IDs are already reserved: dropping the batch without using them
/// loses them (they are never issued again).
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_core::Generator;
///
/// let generator = Generator::builder(presets::twitter(), 7).build()?;
/// let ids: Vec<u64> = generator.next_batch(3)?.collect();
/// assert_eq!(ids.len(), 3);
/// assert!(ids[0] < ids[1] && ids[1] < ids[2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct IdBatch<'g, L: Layout> {
    layout: &'g L,
    node: u64,
    seqs: u64,
    tick: u64,
    seq: u64,
    remaining: usize,
}

impl<'g, L: Layout> IdBatch<'g, L> {
    pub(crate) fn new(
        layout: &'g L,
        node: u64,
        seqs: u64,
        tick: u64,
        seq: u64,
        len: usize,
    ) -> Self {
        IdBatch {
            layout,
            node,
            seqs,
            tick,
            seq,
            remaining: len,
        }
    }
}

impl<L: Layout> Iterator for IdBatch<'_, L> {
    type Item = L::Raw;

    #[inline]
    fn next(&mut self) -> Option<L::Raw> {
        if self.remaining == 0 {
            return None;
        }
        let id = self.layout.compose(self.tick, self.node, self.seq);
        self.remaining -= 1;
        if self.remaining > 0 {
            self.seq += 1;
            if self.seq == self.seqs {
                self.seq = 0;
                self.tick += 1;
            }
        }
        Some(id)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl<L: Layout> ExactSizeIterator for IdBatch<'_, L> {}
impl<L: Layout> FusedIterator for IdBatch<'_, L> {}
