//! How soon a claimant waiting for a node takes one that is released: a
//! holder leases the only node of a space, a second claimant waits for it
//! (`LeaseOptions::wait_for_node`), the holder releases it at a random
//! moment, and the time from the end of the release to the end of the
//! waiting claim is recorded. Prints the median, 90th percentile and
//! maximum per database.
//!
//! ```text
//! cargo run --release -p flakeid-benches --bin lease_handover -- --url URL [--url URL …] [options]
//!   --url URL      a PostgreSQL or MySQL/MariaDB database (repeatable)
//!   --rounds N     hand-overs per database (40)
//! ```

use std::process::ExitCode;
use std::time::{Duration, Instant};

use flakeid_benches::BenchError;
use flakeid_benches::report::{Machine, load_average};
use flakeid_core::layout::presets;
use flakeid_lease::LeaseOptions;
use sea_orm::Database;

fn args() -> Result<(Vec<String>, usize), BenchError> {
    let (mut urls, mut rounds) = (Vec::new(), 40usize);
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let v = it
            .next()
            .ok_or_else(|| BenchError::Argument(format!("{flag} needs a value")))?;
        match flag.as_str() {
            "--url" => urls.push(v),
            "--rounds" => {
                rounds = v
                    .parse()
                    .map_err(|_| BenchError::Argument(format!("--rounds: cannot parse {v:?}")))?;
            }
            other => return Err(BenchError::Argument(format!("unknown option {other}"))),
        }
    }
    if urls.is_empty() {
        return Err(BenchError::Argument("--url is required".into()));
    }
    Ok((urls, rounds.max(1)))
}

/// One hand-over: the time from the end of the release to the end of the
/// waiting claim.
async fn handover(
    db: &sea_orm::DatabaseConnection,
    space: &str,
    jitter: Duration,
) -> Result<Duration, BenchError> {
    let options = LeaseOptions::new(space, presets::twitter())
        .nodes(0..=0)
        .wait_for_node(Duration::from_secs(30));
    let holder = flakeid_seaorm::lease::claim(db, options.clone()).await?;
    let waiter = {
        let (db, options) = (db.clone(), options.clone());
        tokio::spawn(async move {
            let lease = flakeid_seaorm::lease::claim(&db, options).await;
            (Instant::now(), lease)
        })
    };
    // The waiter reads the table, finds the node held and sleeps; release at
    // a random moment of its polling.
    tokio::time::sleep(Duration::from_millis(120) + jitter).await;
    holder.release_unused().await?;
    let released = Instant::now();
    let (claimed, lease) = waiter
        .await
        .map_err(|e| BenchError::Argument(format!("waiter: {e}")))?;
    lease?.release_unused().await?;
    Ok(claimed.saturating_duration_since(released))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

async fn run() -> Result<(), BenchError> {
    let (urls, rounds) = args()?;
    let machine = Machine::detect();
    if machine.debug {
        eprintln!("warning: built without optimisations; run with --release");
    }
    println!(
        "Machine: {} ({} logical CPUs); load average {} before",
        machine.cpu,
        machine.cpus,
        load_average()
    );
    println!(
        "A waiting claimant reads the table every {:?} (LeaseOptions::POLL_EVERY).",
        LeaseOptions::POLL_EVERY
    );
    println!();
    println!("| database | hand-overs | median | p90 | max |");
    println!("|---|---:|---:|---:|---:|");
    for url in &urls {
        let db_error = |e: sea_orm::DbErr| BenchError::Argument(format!("{url}: {e}"));
        let db = Database::connect(url.as_str()).await.map_err(db_error)?;
        flakeid_seaorm::lease::create_table(&db)
            .await
            .map_err(db_error)?;
        let name = db.get_database_backend();
        let mut took = Vec::with_capacity(rounds);
        for round in 0..rounds {
            let space = format!("handover-{}-{round}", std::process::id());
            // Spread over one polling interval (50 ms) in 17 steps.
            let jitter = Duration::from_millis((round as u64 * 3) % 51);
            took.push(handover(&db, &space, jitter).await?);
        }
        took.sort_unstable();
        let at = |q: f64| took[((took.len() - 1) as f64 * q).round() as usize];
        println!(
            "| {name:?} | {rounds} | {:.1} ms | {:.1} ms | {:.1} ms |",
            ms(at(0.5)),
            ms(at(0.9)),
            ms(at(1.0))
        );
        let _ = db.close().await;
    }
    Ok(())
}

fn main() -> ExitCode {
    flakeid_benches::exit_status_on_tokio(Some(2), run())
}
