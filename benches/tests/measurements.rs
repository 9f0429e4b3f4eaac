//! Every measurement runs against every generator with tiny durations and
//! yields sane output; the uniqueness checks reject broken generators.
//! No timing is asserted: the numbers of such short runs mean nothing.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use flakeid_benches::BenchError;
use flakeid_benches::measure;
use flakeid_benches::report::{self, Config};
use flakeid_benches::subjects::{self, Subject};
use flakeid_core::SequenceExhaustion;

#[test]
fn every_measurement_of_every_generator_yields_checked_ids() -> Result<(), BenchError> {
    let cfg = Config::tiny();
    for s in Subject::ALL {
        let fast = report::measure_fast_path(s, &cfg)?;
        let sat = report::measure_saturated(s, &cfg)?;
        let shared = report::measure_shared(s, &cfg)?;
        let burst = report::measure_burst(s, &cfg)?;
        assert_eq!(fast.is_some(), s.per_id_columns(), "{s:?}");
        assert_eq!(sat.is_some(), s.per_id_columns(), "{s:?}");
        assert_eq!(shared.is_some(), s.shareable(), "{s:?}");
        if let Some(f) = fast {
            assert!(
                f.batches > 0 && f.ids > u64::from(cfg.per_tick),
                "{s:?}: {f:?}"
            );
            assert!(f.median_ns.is_finite() && f.median_ns > 0.0, "{s:?}: {f:?}");
        }
        if let Some(r) = sat {
            assert!(r.ids > 0 && r.ids_per_sec() > 0.0, "{s:?}: {r:?}");
        }
        if let Some(r) = shared {
            assert_eq!(r.per_thread.len(), cfg.threads, "{s:?}");
            assert!(r.per_thread.iter().all(|&n| n > 0), "{s:?}: {r:?}");
            assert_eq!(r.run.ids, r.per_thread.iter().sum::<u64>());
            assert!(r.checked > 0 && r.checked <= r.run.ids, "{s:?}: {r:?}");
        }
        assert_eq!(burst.run.ids, cfg.burst, "{s:?}");
        assert_eq!(
            burst.ahead_ms.is_some(),
            matches!(
                s,
                Subject::Flakeid | Subject::FlakeidRunAhead | Subject::FlakeidBatch
            )
        );
    }
    Ok(())
}

#[test]
fn a_round_renders_one_row_per_generator() -> Result<(), BenchError> {
    let cfg = Config::tiny();
    let round = report::run_round(&cfg, &Subject::ALL)?;
    let table = report::table(&[round.clone(), round], &cfg);
    for s in Subject::ALL {
        assert_eq!(
            table
                .lines()
                .filter(|l| l.starts_with(&format!("| {} |", s.label())))
                .count(),
            1,
            "{table}"
        );
    }
    // The baseline's ratios are 1 by definition.
    let base = table
        .lines()
        .find(|l| l.starts_with(&format!("| {} |", Subject::BASELINE.label())))
        .unwrap_or_default();
    assert!(base.contains("(1.00×)"), "{base}");
    Ok(())
}

#[test]
fn a_batch_burst_yields_every_reserved_id_in_order() -> Result<(), BenchError> {
    let g = subjects::flakeid(SequenceExhaustion::RunAhead {
        max_lead: std::time::Duration::from_millis(10),
    })?;
    let (run, last) = subjects::batch_burst(&g, 20_000)?;
    assert_eq!(run.ids, 20_000);
    assert!(last > 0);
    Ok(())
}

#[test]
fn a_repeated_id_fails_every_single_thread_measurement() {
    let stuck = || Ok::<u64, BenchError>(7);
    let short = std::time::Duration::from_millis(1);
    assert!(matches!(
        measure::fast_path(stuck, short, 10),
        Err(BenchError::NotIncreasing { .. })
    ));
    assert!(matches!(
        measure::saturated(stuck, short),
        Err(BenchError::NotIncreasing { .. })
    ));
    assert!(matches!(
        measure::burst(stuck, 10),
        Err(BenchError::NotIncreasing { .. })
    ));
    let n = Cell::new(10u64);
    let backwards = || {
        n.set(n.get() - 1);
        Ok::<u64, BenchError>(n.get())
    };
    assert!(matches!(
        measure::burst(backwards, 5),
        Err(BenchError::NotIncreasing { .. })
    ));
}

#[test]
fn the_same_id_in_two_threads_fails_the_shared_measurement() {
    thread_local! {
        static COUNTER: Cell<u64> = const { Cell::new(0) };
    }
    // Increasing in each thread, but every thread issues 1, 2, 3, …
    let per_thread = || {
        Ok::<u64, BenchError>(COUNTER.with(|c| {
            c.set(c.get() + 1);
            c.get()
        }))
    };
    let r = measure::shared(&per_thread, 2, std::time::Duration::from_millis(2), 1 << 12);
    assert!(matches!(r, Err(BenchError::Duplicate(_))), "{r:?}");
    // A correct shared counter passes.
    let next = AtomicU64::new(0);
    let ok = || Ok::<u64, BenchError>(next.fetch_add(1, Ordering::Relaxed) + 1);
    let r = measure::shared(&ok, 2, std::time::Duration::from_millis(2), 1 << 12);
    assert!(r.is_ok(), "{r:?}");
}
