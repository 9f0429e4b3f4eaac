//! Compares flakeid's generator with ferroid, snowflaked, uuid v7 and ulid
//! in one run and prints one Markdown table.
//!
//! ```text
//! cargo run --release -p flakeid-benches --bin compare -- [options]
//!   --rounds N          repeat every measurement N times; median and range (1)
//!   --fast-secs S       (a) timed seconds per generator (1)
//!   --per-tick N        (a) IDs per millisecond (1000)
//!   --saturate-secs S   (b) seconds per generator (2)
//!   --shared-secs S     (c) seconds per generator (2)
//!   --threads N         (c) threads sharing one generator (2)
//!   --burst N           (d) IDs in the burst (1000000)
//!   --lead-ms MS        (d) max_lead of flakeid's run-ahead rows (250)
//!   --only NAME,...     only these rows (flakeid, ferroid, snowflaked, uuid, ulid)
//! ```

use std::process::ExitCode;
use std::time::{Duration, Instant};

use flakeid_benches::BenchError;
use flakeid_benches::args::{parse, secs};
use flakeid_benches::report::{self, Config, Machine};
use flakeid_benches::subjects::Subject;

fn args() -> Result<(Config, Vec<Subject>), BenchError> {
    let mut cfg = Config::default();
    let mut subjects = Subject::ALL.to_vec();
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--rounds" => cfg.rounds = parse::<usize>(&flag, it.next())?.max(1),
            "--fast-secs" => cfg.fast_path = secs(&flag, it.next())?,
            "--per-tick" => cfg.per_tick = parse(&flag, it.next())?,
            "--saturate-secs" => cfg.saturate = secs(&flag, it.next())?,
            "--shared-secs" => cfg.shared = secs(&flag, it.next())?,
            "--threads" => cfg.threads = parse::<usize>(&flag, it.next())?.max(1),
            "--burst" => cfg.burst = parse::<u64>(&flag, it.next())?.max(1),
            "--lead-ms" => cfg.lead = Duration::from_millis(parse(&flag, it.next())?),
            "--only" => {
                let names: String = parse(&flag, it.next())?;
                let names: Vec<String> = names.split(',').map(str::to_lowercase).collect();
                subjects.retain(|s| {
                    // The baseline always runs: the ratios need it.
                    *s == Subject::BASELINE
                        || names
                            .iter()
                            .any(|n| s.label().to_lowercase().starts_with(n.as_str()))
                });
            }
            "-h" | "--help" => {
                println!(
                    "usage: compare [--rounds N] [--fast-secs S] [--per-tick N] [--saturate-secs S] \
                     [--shared-secs S] [--threads N] [--burst N] [--lead-ms MS] [--only NAME,...]"
                );
                std::process::exit(0);
            }
            other => {
                return Err(BenchError::Argument(format!(
                    "unknown option {other:?} (try --help)"
                )));
            }
        }
    }
    Ok((cfg, subjects))
}

fn run() -> Result<(), BenchError> {
    let (cfg, subjects) = args()?;
    let machine = Machine::detect();
    if machine.debug {
        eprintln!(
            "warning: built without optimisations; run with --release for meaningful numbers"
        );
    }
    let load_before = report::load_average();
    let started = Instant::now();
    let mut rounds = Vec::with_capacity(cfg.rounds);
    for i in 0..cfg.rounds {
        eprintln!(
            "round {}/{} (load average {})",
            i + 1,
            cfg.rounds,
            report::load_average()
        );
        rounds.push(report::run_round(&cfg, &subjects)?);
    }
    let load_after = report::load_average();

    println!(
        "Machine: {} ({} logical CPUs, {} available to this process)",
        machine.cpu, machine.cpus, machine.available
    );
    println!("Compiler: {}", machine.rustc);
    println!("Crates: {}", machine.versions);
    println!(
        "Load average (1/5/15 min): {load_before} before, {load_after} after; {} round(s) in {:.1} s",
        cfg.rounds,
        started.elapsed().as_secs_f64()
    );
    println!(
        "Settings: (a) {} IDs/ms for {:?}; (b) {:?}; (c) {} threads for {:?}; (d) {} IDs, flakeid RunAhead max_lead {:?}",
        cfg.per_tick, cfg.fast_path, cfg.saturate, cfg.threads, cfg.shared, cfg.burst, cfg.lead
    );
    println!();
    print!("{}", report::table(&rounds, &cfg));
    println!();
    println!(
        "Median over rounds [min–max]; (×) = ratio of medians to ferroid AtomicSnowflakeGen (for ns/ID lower is better)."
    );
    print!("{}", report::notes(&rounds));
    Ok(())
}

fn main() -> ExitCode {
    flakeid_benches::exit_status(run())
}
