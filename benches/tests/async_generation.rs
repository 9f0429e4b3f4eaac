//! The async-generation benchmark's measurements with tiny sizes: every
//! path runs and yields sane output. No timing is asserted beyond what the
//! paths guarantee: the blocking path stalls the runtime under forced waits.

use flakeid_benches::BenchError;
use flakeid_benches::asynchronous::{self, Config, Path};

#[test]
fn every_path_of_the_async_benchmark_yields_checked_output() -> Result<(), BenchError> {
    let cfg = Config::tiny();
    let no_wait = asynchronous::no_wait(&cfg)?;
    assert_eq!(no_wait.len(), 2);
    for row in &no_wait {
        assert_eq!(row.blocking.len(), cfg.rounds, "{row:?}");
        assert!(row.ratio().is_finite() && row.ratio() > 0.0, "{row:?}");
    }
    let stalls = asynchronous::forced_waits(&cfg)?;
    assert_eq!(stalls.len(), 4);
    for s in &stalls {
        assert!(s.ids > 0 && s.stalls.ticks > 0, "{s:?}");
    }
    // A statement of 100 IDs at 4 per tick holds a blocking caller for 25 ticks.
    let blocking = stalls
        .iter()
        .find(|s| s.path == Path::Blocking)
        .expect("a blocking row");
    assert!(blocking.stalls.worst_missed >= 10, "{blocking:?}");
    let table = asynchronous::tables(&no_wait, &stalls);
    assert_eq!(
        table.lines().filter(|l| l.starts_with("| (")).count(),
        4,
        "{table}"
    );
    Ok(())
}
