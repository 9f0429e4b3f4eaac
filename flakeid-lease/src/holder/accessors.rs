//! The accessors both lease handles ([`NodeLease`](crate::NodeLease),
//! [`AsyncNodeLease`](crate::AsyncNodeLease)) share, written once.

/// Accessors shared by both lease handles.
macro_rules! lease_accessors {
    () => {
        /// The leased node ID (another one after the lease moved; see
        /// [`LeaseOptions::heal`](crate::LeaseOptions::heal)).
        pub fn node(&self) -> u64 {
            self.core.holding().node
        }

        /// The ID space.
        pub fn space(&self) -> &str {
            &self.core.plan.options.space
        }

        /// This holder's generation on its node: one more than the previous holder's.
        pub fn fence(&self) -> u64 {
            self.core.holding().fence
        }

        /// This holder's random token: the `owner` column of the node it
        /// holds (and the `owner` field of its events).
        pub fn owner(&self) -> &str {
            &self.core.plan.owner
        }

        /// The previous holders' high-water mark (Unix ms): the generator
        /// stamps its IDs after it.
        pub fn resume_after_millis(&self) -> u64 {
            self.core.holding().resume_after
        }

        /// When the lease first ended, by the store's clock (Unix ms).
        pub fn claimed_until_millis(&self) -> i64 {
            self.core.holding().lease_until_millis
        }

        /// The lease's state, for health checks: cheap (a lock and a
        /// clock reading; no store call).
        ///
        /// ```
        /// use flakeid_core::layout::presets;
        /// use flakeid_lease::{LeaseOptions, LeaseStatus, MemoryLeaseStore};
        ///
        /// let lease = LeaseOptions::new("orders", presets::twitter()).claim(MemoryLeaseStore::new())?;
        /// assert!(matches!(lease.status(), LeaseStatus::Held { .. }));
        /// assert!(lease.status().is_issuing());
        /// # Ok::<(), flakeid_lease::LeaseError>(())
        /// ```
        pub fn status(&self) -> $crate::LeaseStatus {
            self.core.status()
        }

        /// Every change of the lease's state from now on, in order,
        /// starting with the state now: held, renewing late, fenced, lost
        /// (moving, or fenced for good), held on another node, released.
        /// Receiving blocks: for blocking code and threads; async code
        /// uses [`watch`](Self::watch). See [`LeaseChanges`](crate::LeaseChanges).
        pub fn changes(&self) -> $crate::LeaseChanges {
            self.core.changes()
        }

        /// The lease's state as a `tokio::sync::watch` (feature `tokio`):
        /// the state now, updated at every change
        /// ([`changed`](tokio::sync::watch::Receiver::changed) wakes a task
        /// without polling). A watch keeps only the latest state: changes
        /// that follow each other quickly may be seen as their last one;
        /// [`changes`](Self::changes) keeps every one.
        ///
        /// ```
        /// # #[tokio::main(flavor = "current_thread")]
        /// # async fn main() -> Result<(), flakeid_lease::LeaseError> {
        /// use flakeid_core::layout::presets;
        /// use flakeid_lease::{LeaseOptions, LeaseStatus, MemoryLeaseStore};
        ///
        /// let lease = LeaseOptions::new("orders", presets::twitter()).claim(MemoryLeaseStore::new())?;
        /// let mut state = lease.watch();
        /// assert!(state.borrow().is_issuing());
        /// lease.release_unused()?;
        /// state.changed().await.expect("told before the lease is gone");
        /// assert_eq!(*state.borrow(), LeaseStatus::Released);
        /// # Ok(())
        /// # }
        /// ```
        #[cfg(feature = "tokio")]
        pub fn watch(&self) -> tokio::sync::watch::Receiver<$crate::LeaseStatus> {
            self.core.watch()
        }

        /// A builder for this lease's generator: the leased node, the
        /// options' clock, [`resume_after`](GeneratorBuilder::resume_after)
        /// the previous holders' mark, and the lease's ceiling. Set
        /// policies on it as usual; one generator per lease. Its node and
        /// resume point are the lease's: changing them makes
        /// [`build`](GeneratorBuilder::build) fail with
        /// [`ConfigError::FixedBySource`](flakeid_core::ConfigError::FixedBySource).
        ///
        /// Give it to [`global::init`](flakeid_core::global::init) to make it the
        /// process-wide generator, which the lease moves to a new node
        /// when it is lost ([`LeaseOptions::heal`](crate::LeaseOptions::heal)).
        pub fn generator_builder(&self) -> GeneratorBuilder<L, C> {
            self.core.generator_builder()
        }
    };
}

pub(crate) use lease_accessors;
