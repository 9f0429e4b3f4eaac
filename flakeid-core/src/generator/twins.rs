//! The async twins of a generator's blocking calls, written once for
//! [`Generator`](super::Generator) and the process-wide generator
//! ([`ProcessGenerator`](crate::global::ProcessGenerator)).
//!
//! Each twin is the generator's non-blocking core (`attempt_one`,
//! `attempt_batch`: the value, or what to wait for) asked by
//! [`until_ready`](crate::runtime::until_ready), which waits on the
//! runtime's timer between attempts; once an event wait has lasted its
//! bound, the `try_` call answers. A type that invokes [`async_twins!`]
//! has those four inherent methods.

/// Writes `next_id_async`, `next_id_async_on`, `next_batch_async` and
/// `next_batch_async_on` into a generator's `impl` block: `raw` is the
/// type of its IDs, `layout` its layout's type, `example` the first lines
/// of the examples (they make a `generator` and a current-thread tokio
/// `runtime`).
macro_rules! async_twins {
    (raw = $raw:ty, layout = $layout:ty, example = $example:literal $(,)?) => {
        /// A fresh ID, waiting as the policies allow on the tokio runtime's
        /// timer instead of blocking the thread (feature `tokio`): for
        /// async code. Where [`next_id`](Self::next_id) would block the
        /// thread, the task waits for the next tick (a tick's sequence used
        /// up, the tick the generator was built in, a clock that went back),
        /// at a node source's ceiling for the ceiling to rise (up to its
        /// [`CeilingWait`](crate::CeilingWait)), and for the process-wide
        /// generator after a lost lease for the move to a new node; the
        /// thread runs other tasks meanwhile. The same IDs, errors and
        /// guarantees as `next_id`. Outside a tokio runtime see
        /// [`TokioSleep`](crate::runtime::TokioSleep); on another runtime's
        /// timers use [`next_id_async_on`](Self::next_id_async_on).
        ///
        /// The future's first poll issues the ID when one is at hand, for
        /// about what `next_id` costs; only a call that has to wait moves
        /// its state to the heap.
        ///
        /// # Errors
        /// As [`next_id`](Self::next_id).
        ///
        /// ```
        #[doc = $example]
        /// let (a, b) = runtime.block_on(async {
        ///     Ok::<_, flakeid_core::GenerateError>((generator.next_id_async().await?, generator.next_id_async().await?))
        /// })?;
        /// assert!(b > a);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[cfg(feature = "tokio")]
        #[inline]
        pub fn next_id_async(
            &self,
        ) -> impl ::core::future::Future<Output = Result<$raw, crate::error::GenerateError>> + Send
        {
            self.next_id_async_on(&crate::runtime::TokioSleep)
        }

        /// [`next_id_async`](Self::next_id_async) on any runtime's timers.
        ///
        /// # Errors
        /// As [`next_id`](Self::next_id).
        #[inline]
        pub fn next_id_async_on<R: crate::runtime::Sleep>(
            &self,
            timers: &R,
        ) -> impl ::core::future::Future<Output = Result<$raw, crate::error::GenerateError>> + Send
        {
            crate::runtime::until_ready(timers, || self.attempt_one(), || self.try_next_id())
        }

        /// [`next_batch`](Self::next_batch) for async code (feature
        /// `tokio`): where it would block the thread, the task waits on the
        /// tokio runtime's timer as [`next_id_async`](Self::next_id_async)
        /// does, also for a batch reserved ahead of the clock to become due
        /// (after the time the clock said was left when the batch was
        /// reserved). The same IDs, errors and guarantees otherwise.
        /// Dropping the future after the batch was reserved loses its IDs
        /// (a gap, never a repeat).
        ///
        /// # Errors
        /// As [`next_batch`](Self::next_batch).
        ///
        /// ```
        #[doc = $example]
        /// // 10,000 IDs take three milliseconds of sequence numbers: the task waits for them.
        /// let ids: Vec<u64> = runtime.block_on(generator.next_batch_async(10_000))?.collect();
        /// assert_eq!(ids.len(), 10_000);
        /// assert!(ids.windows(2).all(|w| w[0] < w[1]));
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[cfg(feature = "tokio")]
        pub fn next_batch_async(
            &self,
            n: usize,
        ) -> impl ::core::future::Future<
            Output = Result<crate::generator::IdBatch<'_, $layout>, crate::error::GenerateError>,
        > + Send {
            self.next_batch_async_on(n, &crate::runtime::TokioSleep)
        }

        /// [`next_batch_async`](Self::next_batch_async) on any runtime's timers.
        ///
        /// # Errors
        /// As [`next_batch`](Self::next_batch).
        pub fn next_batch_async_on<R: crate::runtime::Sleep>(
            &self,
            n: usize,
            timers: &R,
        ) -> impl ::core::future::Future<
            Output = Result<crate::generator::IdBatch<'_, $layout>, crate::error::GenerateError>,
        > + Send {
            crate::runtime::until_ready(
                timers,
                move || self.attempt_batch(n),
                move || self.try_next_batch(n),
            )
        }
    };
}

pub(crate) use async_twins;
