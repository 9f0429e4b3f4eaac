//! Noticing that the process was forked.
//!
//! `fork()` copies a process with every generator in it: their state (the
//! last issued tick and sequence, counters) and their node IDs. If parent and
//! child both went on issuing from such a copy, they would issue the same
//! IDs. And only the thread that called `fork()` lives on in the child, so
//! the clock's background thread is gone.
//!
//! So every generator records the process's *fork generation* when it is
//! built, and in a child forked after that it refuses to issue IDs
//! ([`GenerateError::Forked`](crate::GenerateError::Forked) and its
//! equivalents): build generators after forking, each process with a node ID
//! of its own. [`MonotonicClock`](crate::MonotonicClock) notices the fork by
//! itself and keeps working in the child.
//!
//! The generation is counted by a `pthread_atfork` child handler (Unix),
//! registered the first time a generator or the clock is used. It is kept,
//! shifted to bit 51, as a *tag*: the clock's published word carries
//! the same tag, so the generator's inlined fast path checks it at no extra
//! cost. The tag has 11 bits: a generator built 2,048 forks up the line of
//! ancestors would not notice, which no real process tree reaches.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Once, OnceLock};

/// Where the fork generation sits in a tag (and in the clock's word).
pub(crate) const TAG_SHIFT: u32 = 51;
/// The bits a tag may have.
pub(crate) const TAG_MASK: u64 = ((1 << 11) - 1) << TAG_SHIFT;

/// Has `hook` run in every child forked from now on, with the child's new
/// tag, while the child has a single thread: it may touch only atomics.
/// One hook per process (the clock's); a second call is ignored.
pub(crate) fn on_fork(hook: fn(u64)) {
    let _ = CHILD_HOOK.set(hook);
}

/// The process's fork tag (generation `<< TAG_SHIFT`); the first call
/// registers the handler that counts forks.
pub fn tag() -> u64 {
    REGISTER.call_once(register);
    current_tag()
}

/// The fork tag without registering the handler: for checks in a process
/// whose generators already called [`tag`] when they were built.
#[inline]
pub fn current_tag() -> u64 {
    TAG.load(Ordering::Relaxed)
}

static TAG: AtomicU64 = AtomicU64::new(0);
static REGISTER: Once = Once::new();
/// What else must happen in a child right after `fork()` (the clock's
/// reset, see [`on_fork`]).
static CHILD_HOOK: OnceLock<fn(u64)> = OnceLock::new();

/// Runs in the child right after `fork()`, while it has a single thread:
/// only atomic loads and stores, which are async-signal-safe.
extern "C" fn in_child() {
    let next = (TAG.load(Ordering::Relaxed) + (1 << TAG_SHIFT)) & TAG_MASK;
    TAG.store(next, Ordering::Relaxed);
    // An atomic load: async-signal-safe, as the hook itself must be.
    if let Some(hook) = CHILD_HOOK.get() {
        hook(next);
    }
}

#[cfg(unix)]
#[allow(unsafe_code)]
fn register() {
    // SAFETY: `pthread_atfork` only records the handler; `in_child` is a
    // plain `extern "C"` function that lives as long as the program and
    // touches nothing but atomics, as a handler in the child of a
    // multi-threaded process must.
    let status = unsafe { libc::pthread_atfork(None, None, Some(in_child)) };
    // The only documented failure is ENOMEM at start-up; forks then go
    // unnoticed, as they would on a platform without fork detection.
    let _ = status;
}

#[cfg(not(unix))]
fn register() {}
