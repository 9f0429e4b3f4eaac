//! Rows created in a time range, by a range of the flake primary key
//! against the same rows through an index on `created_at`, on PostgreSQL
//! and MariaDB/MySQL (1,000,000 rows), and the bytes the `created_at` index
//! takes. Prints `RESULT` / `INDEX` lines, then the tables of `BENCHMARKS.md`.
//!
//! ```text
//! cargo run --release -p flakeid-benches --bin time_range -- [options]
//!   --quick            20,000 rows, one round, 3 windows per width (the smoke test)
//!   --rows N           rows in the table (1000000)
//!   --rounds N         rounds; cells are medians (3)
//!   --servers S,...    pg, pg18, mysql (pg,mysql)
//! ```
//!
//! Servers are containers of `FLAKEID_TEST_POSTGRES_IMAGE`,
//! `FLAKEID_TEST_POSTGRES18_IMAGE` and `FLAKEID_TEST_MYSQL_IMAGE`, started
//! with the database benchmark's settings (64 MB buffer pool). See
//! `BENCHMARKS.md` and `flakeid_benches::time_range`.

use std::process::ExitCode;

use flakeid_benches::db::DbBenchError;
use flakeid_benches::db::run::{self, start_servers};
use flakeid_benches::report::{Machine, load_average};
use flakeid_benches::time_range::{Config, report, run_server};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    flakeid_benches::exit_status(Config::from_args(&args).and_then(|cfg| run(&cfg)))
}

fn run(cfg: &Config) -> Result<(), DbBenchError> {
    let runtime = run::runtime()?;
    let machine = Machine::detect();
    let load_before = load_average();
    eprintln!("time_range bench: starting servers {:?}", cfg.servers);
    // Containers are removed on drop, which needs the runtime.
    let _runtime = runtime.enter();
    let servers = runtime.block_on(start_servers(&cfg.servers))?;
    let mut results = Vec::new();
    let mut failed = None;
    for (&server, started) in &servers {
        eprintln!("time_range bench: {server}: loading {} rows", cfg.rows);
        let measured = runtime.block_on(async {
            let url = started
                .server
                .create_database("time_range")
                .await
                .map_err(|message| DbBenchError::Server {
                    server: server.name().to_owned(),
                    message,
                })?;
            run_server(server, &url, started.server.version(), cfg).await
        });
        match measured {
            Ok(m) => results.push((server, m)),
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    for (_, started) in servers {
        if let Err(e) = runtime.block_on(started.server.stop()) {
            eprintln!("time_range bench: {e}");
        }
    }
    if let Some(e) = failed {
        return Err(e);
    }
    println!("{}", report(cfg, &results));
    println!(
        "Machine: {} ({} CPUs, {} available), {}{}; load average before {load_before}, after {}.",
        machine.cpu,
        machine.cpus,
        machine.available,
        machine.rustc,
        if machine.debug {
            ", DEBUG BUILD (numbers meaningless)"
        } else {
            ""
        },
        load_average()
    );
    Ok(())
}
