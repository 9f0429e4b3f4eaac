//! Async generation against blocking generation, in one run; prints two
//! Markdown tables (see `BENCHMARKS.md`, "Async generation").
//!
//! ```text
//! cargo run --release -p flakeid-benches --bin async_generation -- [options]
//!   --rounds N        no-wait rounds, alternating the paths (5)
//!   --fast-secs S     timed seconds per no-wait measurement (1)
//!   --per-tick N      IDs per millisecond in the no-wait measurement (1000)
//!   --tick-ids N      IDs of the used-up-ticks workload per path (20000)
//!   --lease-secs S    how long the lease workload runs per path (3)
//!   --outage-secs S   how long the lease store is down (1)
//! ```

use std::process::ExitCode;
use std::time::Instant;

use flakeid_benches::BenchError;
use flakeid_benches::args::{parse, secs};
use flakeid_benches::asynchronous::{self, Config};
use flakeid_benches::report::{Machine, load_average};

fn args() -> Result<Config, BenchError> {
    let mut cfg = Config::default();
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--rounds" => cfg.rounds = parse::<usize>(&flag, it.next())?.max(1),
            "--fast-secs" => cfg.fast_path = secs(&flag, it.next())?,
            "--per-tick" => cfg.per_tick = parse(&flag, it.next())?,
            "--tick-ids" => cfg.tick_ids = parse(&flag, it.next())?,
            "--lease-secs" => cfg.lease_run = secs(&flag, it.next())?,
            "--outage-secs" => cfg.outage = secs(&flag, it.next())?,
            other => return Err(BenchError::Argument(format!("unknown option {other}"))),
        }
    }
    Ok(cfg)
}

fn run() -> Result<(), BenchError> {
    let cfg = args()?;
    let machine = Machine::detect();
    let load_before = load_average();
    let t0 = Instant::now();
    let no_wait = asynchronous::no_wait(&cfg)?;
    let stalls = asynchronous::forced_waits(&cfg)?;
    println!(
        "{} ({} of {} CPUs), {}{}; load average {} before, {} after; {:.1} s\n",
        machine.cpu,
        machine.available,
        machine.cpus,
        machine.rustc,
        if machine.debug {
            ", DEBUG BUILD: numbers meaningless"
        } else {
            ""
        },
        load_before,
        load_average(),
        t0.elapsed().as_secs_f64()
    );
    print!("{}", asynchronous::tables(&no_wait, &stalls));
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("async_generation: {e}");
            ExitCode::FAILURE
        }
    }
}
