//! The runtime that owns every server connection and container handle.
//!
//! Each `#[tokio::test]` has its own runtime that ends with the test, but the
//! servers outlive single tests; their admin pools and container handles must
//! live on a runtime that lasts as long as the test binary.

use std::future::Future;
use std::sync::LazyLock;
use std::sync::mpsc;

/// Runs `fut` on the fixture runtime and waits for it from async code (any
/// executor). A panic inside `fut` is re-raised in the caller.
pub(crate) async fn run<F>(fut: F) -> F::Output
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    match RUNTIME.spawn(fut).await {
        Ok(out) => out,
        Err(e) => match e.try_into_panic() {
            Ok(payload) => std::panic::resume_unwind(payload),
            Err(e) => panic!("flakeid-tests: fixture task failed: {e}"),
        },
    }
}

/// Runs `fut` on the fixture runtime and blocks the calling thread until it
/// is done. Works from plain threads and (blocking that thread) from async
/// code alike. A panic inside `fut` is re-raised in the caller.
pub(crate) fn block_on<F>(fut: F) -> F::Output
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    let (tx, rx) = mpsc::channel();
    let task = RUNTIME.spawn(fut);
    RUNTIME.spawn(async move {
        // The receiver only goes away if the caller is gone; nothing to do then.
        let _ = tx.send(task.await);
    });
    match rx.recv() {
        Ok(Ok(out)) => out,
        Ok(Err(e)) => match e.try_into_panic() {
            Ok(payload) => std::panic::resume_unwind(payload),
            Err(e) => panic!("flakeid-tests: fixture task failed: {e}"),
        },
        Err(_) => panic!("flakeid-tests: the fixture runtime stopped"),
    }
}

/// Whether the caller runs on the fixture runtime, where blocking on it
/// would deadlock.
pub(crate) fn on_fixture_thread() -> bool {
    std::thread::current().name() == Some(THREAD_NAME)
}

/// Runs `fut` on the fixture runtime without waiting for it.
pub(crate) fn detach<F>(fut: F)
where
    F: Future<Output = ()> + Send + 'static,
{
    drop(RUNTIME.spawn(fut));
}

const THREAD_NAME: &str = "flakeid-tests-db";

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name(THREAD_NAME)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("flakeid-tests: cannot build the fixture runtime: {e}"))
});
