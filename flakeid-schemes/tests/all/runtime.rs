//! A scheme's generator on a current-thread tokio runtime: a source that
//! reserves no batches gives them to async callers ID by ID.

use flakeid_core::IdSource;
use flakeid_core::runtime::Attempt;
use flakeid_schemes::TraceIdGenerator;

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a current-thread runtime")
}

#[test]
fn a_source_of_ids_gives_batches_to_async_callers_in_parts() {
    // A TraceId generator reserves no batches: the default asks ID by ID.
    let traces = TraceIdGenerator::builder(7).threads(4).build().unwrap();
    let source: &dyn IdSource = &traces;
    let runtime = current_thread();
    let ids = runtime.block_on(async {
        let mut ids = Vec::new();
        while ids.len() < 5 {
            match source.attempt_next_ids(5 - ids.len()).unwrap() {
                Attempt::Ready(more) => ids.extend(more),
                Attempt::Wait(w) => {
                    // Its first second: it waits for the next one.
                    tokio::time::sleep(w.duration().expect("a wait for time")).await;
                }
                other => panic!("{other:?}"),
            }
        }
        ids
    });
    assert_eq!(ids.len(), 5);
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
}
