//! Inserts into PostgreSQL, PostgreSQL 18 and MariaDB/MySQL with
//! database-assigned keys, flakeid keys, UUIDv4 and UUIDv7, through SeaORM,
//! Diesel and sqlx, from 1 and from 4 writer processes, and prints rows/s
//! and primary-key size as ratios to the database-assigned baseline.
//!
//! ```text
//! cargo run --release -p flakeid-benches --bin db -- [options]
//!   --quick               every run once, 4,000 rows each (the smoke test)
//!   --full                the table (default): PostgreSQL 5 M rows, InnoDB 2 M rows
//!                         per keys run, 1 M per paths run, 3 rounds
//!   --rounds N            rounds; cells are medians (3)
//!   --pg-rows N           rows per keys run on PostgreSQL (5000000)
//!   --mysql-rows N        rows per keys run on MariaDB/MySQL (2000000)
//!   --path-rows N         rows per paths run (1000000)
//!   --batch N             rows per INSERT (1000)
//!   --writers N,...       writer processes of the keys table (1,4)
//!   --path-writers N      writer processes of the paths table (4)
//!   --servers S,...       pg, pg18, mysql (all)
//!   --keys K,...          db, flake-batch, flake-row, flake-row-sn, uuid4, uuid7,
//!                         pg-uuidv7 (all)
//!   --key-path P          path of the keys table: diesel, seaorm, sqlx (diesel)
//!   --paths P,...|none    paths table: sqlx, diesel, seaorm, seaorm-ids (all)
//!   --creation-rate N     rows/ms created by all writers together, for the
//!                         keys made at row creation (250)
//!   --paced               write each batch only when its rows have been created
//!                         at that rate in real time (rows/s then shows the pace)
//!   --max-minutes M       start another round only if, at the average duration of
//!                         the rounds so far, it ends within M minutes of the start
//!   --max-load L          before each run wait (up to 20 min) until the 1-minute
//!                         load average is below L (a shared machine)
//! ```
//!
//! Servers are containers of `FLAKEID_TEST_POSTGRES_IMAGE`,
//! `FLAKEID_TEST_POSTGRES18_IMAGE` and `FLAKEID_TEST_MYSQL_IMAGE` (as for
//! the tests), started with a 64 MB buffer pool. See `BENCHMARKS.md`.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use flakeid_benches::db::DbBenchError;
use flakeid_benches::db::config::{Config, Server, Table};
use flakeid_benches::db::report::{self, Results};
use flakeid_benches::db::run::{self, Outcome};
use flakeid_benches::db::worker::{WorkerArgs, run_worker};
use flakeid_benches::report::{Machine, load_average};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = if args.first().map(String::as_str) == Some("worker") {
        WorkerArgs::from_args(&args[1..]).and_then(|a| run_worker(&a))
    } else {
        Config::from_args(args.clone()).and_then(|cfg| coordinate(&cfg, &args))
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("db bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn coordinate(cfg: &Config, args: &[String]) -> Result<(), DbBenchError> {
    // The rounds actually run (fewer than asked when `--max-minutes` stops early).
    let mut cfg = cfg.clone();
    let exe = std::env::current_exe()
        .map_err(|e| DbBenchError::io("finding this program to start writers", e))?;
    let runtime = run::runtime()?;
    let started_at = Instant::now();
    let load_before = load_average();
    let machine = Machine::detect();
    let plan = cfg.plan();

    eprintln!("db bench: starting servers {:?}", cfg.servers);
    let servers = runtime.block_on(run::start_servers(&cfg.servers))?;

    let mut outcomes: Vec<Outcome> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    let total = plan.len() * cfg.rounds;
    let mut rounds_done = 0;
    for round in 1..=cfg.rounds {
        if let Some(max) = cfg.max_minutes {
            // Another round only if one more of the average so far still fits.
            let elapsed = started_at.elapsed().as_secs_f64();
            if round > 1 && elapsed + elapsed / (round - 1) as f64 > max * 60.0 {
                eprintln!(
                    "db bench: {} of {} rounds in {elapsed:.0} s; another would pass \
                     --max-minutes {max}: stopping",
                    round - 1,
                    cfg.rounds
                );
                break;
            }
        }
        // Each round starts elsewhere in the plan, so no run is always first.
        let shift = (round - 1) * plan.len() / cfg.rounds;
        for (i, spec) in plan.iter().cycle().skip(shift).take(plan.len()).enumerate() {
            let number = (round - 1) * plan.len() + i + 1;
            let Some(server) = servers.get(&spec.server) else {
                continue;
            };
            if let Some(max) = cfg.max_load {
                let (waited, gave_up) = run::wait_for_load(max, Duration::from_secs(20 * 60));
                if gave_up {
                    eprintln!("db bench: load still ≥ {max} after {waited:.0?}; running anyway");
                } else if waited.as_secs() > 0 {
                    eprintln!("db bench: waited {waited:.0?} for the load to drop below {max}");
                }
            }
            eprintln!("db bench: [{number}/{total}] round {round}: {spec}");
            // A failed run is reported and the others go on: its cells stay
            // empty and the program fails at the end.
            match runtime.block_on(run::run_one(&exe, server, &cfg, *spec, round, number)) {
                Ok(outcome) => {
                    println!("{}", outcome.result_line());
                    outcomes.push(outcome);
                }
                Err(e) => {
                    eprintln!("db bench: FAILED {spec} round {round}: {e}");
                    failures.push(format!("{spec} round {round}: {e}"));
                }
            }
        }
        rounds_done = round;
    }

    let rounds_asked = cfg.rounds;
    cfg.rounds = rounds_done;
    let cfg = &cfg;
    let load_after = load_average();
    let loads: Vec<f64> = outcomes.iter().filter_map(|o| o.load_at_start).collect();
    let load_runs = match (
        loads.iter().copied().reduce(f64::min),
        report::median(loads.clone()),
        loads.iter().copied().reduce(f64::max),
    ) {
        (Some(min), Some(median), Some(max)) => {
            format!("; at the start of each run {min:.1} min, {median:.1} median, {max:.1} max")
        }
        _ => String::new(),
    };
    let elapsed = started_at.elapsed();
    let labels: Vec<(Server, String)> = servers
        .iter()
        .map(|(s, started)| (*s, short_version(started.server.version())))
        .collect();

    println!();
    println!("## Database benchmark ({} mode)", cfg.mode);
    println!();
    println!(
        "Command: `cargo run --release -p flakeid-benches --bin db --{}`",
        args.iter().map(|a| format!(" {a}")).collect::<String>()
    );
    println!();
    println!(
        "Machine: {}, {} logical CPUs ({} available), {}; load average {load_before} before, \
         {load_after} after{load_runs}; {} rows in {:.0} s ({} runs, {} of {rounds_asked} \
         round(s)); {}{}",
        machine.cpu,
        machine.cpus,
        machine.available,
        memory(),
        report::group(outcomes.iter().map(|o| o.rows).sum()),
        elapsed.as_secs_f64(),
        outcomes.len(),
        cfg.rounds,
        machine.rustc,
        if machine.debug {
            " — DEBUG BUILD: the numbers say nothing about speed"
        } else {
            ""
        }
    );
    println!();
    println!("Crates: {}", env!("FLAKEID_BENCH_DB_VERSIONS"));
    println!();
    for (server, started) in &servers {
        let settings: Vec<String> = started
            .settings
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        println!(
            "- `{}`: {} (image `{}`), {}",
            server.name(),
            started.server.version(),
            started.server.image(),
            settings.join(", ")
        );
    }
    println!();
    println!(
        "Batches of {} rows; writers are processes with flakeid node IDs 1..=N; keys made at \
         row creation use a creation timeline of {} rows/ms across all writers.{}",
        cfg.batch,
        cfg.creation_rate,
        if cfg.paced {
            " PACED: each batch is written once its rows have been created at that rate in \
             real time, so rows/s shows the pace, not the server's speed; the sizes are the result."
        } else {
            " Writers write as fast as the server takes the rows."
        }
    );
    println!();

    let results = Results::new(&outcomes);
    for (server, label) in &labels {
        if plan
            .iter()
            .any(|r| r.table == Table::Keys && r.server == *server)
        {
            println!("{}", report::keys_table(cfg, &results, *server, label));
        }
    }
    for (server, label) in &labels {
        if plan
            .iter()
            .any(|r| r.table == Table::Paths && r.server == *server)
        {
            println!("{}", report::paths_table(cfg, &results, *server, label));
        }
    }
    let checks = report::targets(cfg, &results, &labels);
    println!("#### Targets\n");
    println!("{}", report::targets_table(&checks));

    for (_, started) in servers {
        if let Err(e) = runtime.block_on(started.server.stop()) {
            eprintln!("db bench: {e}");
        }
    }
    if failures.is_empty() {
        return Ok(());
    }
    println!("#### Failed runs (their cells are empty)\n");
    for failure in &failures {
        println!("- {failure}");
    }
    Err(DbBenchError::RunsFailed {
        failed: failures.len(),
        total,
    })
}

/// `PostgreSQL 15.14 (Debian …) on x86_64…` → `PostgreSQL 15.14`;
/// `10.11.14-MariaDB-0+deb12u2` → `MariaDB 10.11.14`.
fn short_version(version: &str) -> String {
    if let Some(rest) = version.strip_prefix("PostgreSQL ") {
        let number = rest.split_whitespace().next().unwrap_or(rest);
        return format!("PostgreSQL {number}");
    }
    let number = version.split('-').next().unwrap_or(version);
    if version.to_ascii_lowercase().contains("mariadb") {
        format!("MariaDB {number}")
    } else {
        format!("MySQL {number}")
    }
}

fn memory() -> String {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().strip_suffix("kB"))
                .and_then(|kb| kb.trim().parse::<u64>().ok())
        })
        .map_or_else(
            || "memory unknown".to_owned(),
            |kb| format!("{:.0} GB RAM", kb as f64 / (1u64 << 20) as f64),
        )
}
