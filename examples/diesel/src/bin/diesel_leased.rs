//! Diesel with a leased node ID: instead of configuring `FLAKEID_NODE_ID`
//! per process, each process claims a free node from a table in the
//! application's own database and releases it at shutdown. Here on a
//! SQLite file (one machine); on PostgreSQL or MySQL/MariaDB the same code
//! serves every writer that reaches the database. Start it several times
//! at once and each run gets a node of its own.
//!
//! ```text
//! cargo run -p flakeid-examples-diesel --bin diesel_leased [-- path/to/app.db]
//! ```

use std::time::Duration;

use diesel::connection::SimpleConnection as _;
use diesel::prelude::*;
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};
use flakeid_core::global;
use flakeid_core::layout::presets;
use flakeid_diesel::flake_id;
use flakeid_diesel::migration::MigrationLock;
use flakeid_lease::LeaseOptions;

/// Key of `authors`.
#[flake_id]
pub struct AuthorId(i64);

diesel::table! {
    authors (id) {
        id -> BigInt,
        name -> Text,
    }
}

#[flake_id]
#[derive(Queryable, Selectable, Insertable, Debug)]
#[diesel(table_name = authors)]
pub struct Author {
    pub id: AuthorId,
    pub name: String,
}

/// The application's migrations (`examples/diesel/migrations/`).
const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations");

/// A connection that waits for SQLite's lock instead of failing at once:
/// the renewal thread writes to the same file.
fn connect(path: &str) -> ConnectionResult<SqliteConnection> {
    let mut conn = SqliteConnection::establish(path)?;
    conn.batch_execute("PRAGMA busy_timeout = 5000")
        .map_err(ConnectionError::CouldntSetupConfiguration)?;
    Ok(conn)
}

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        std::env::temp_dir()
            .join("flakeid-diesel-leased.db")
            .display()
            .to_string()
    });
    let mut conn = connect(&path)?;
    // The lease table's migration ships with flakeid-diesel; it runs (and
    // is recorded) like the application's own, under a lock held for the
    // whole run, so that processes started at once may all run them.
    flakeid_diesel::migration::run(&mut conn, &MigrationLock::new(), |conn| {
        conn.run_pending_migrations(flakeid_diesel::lease::MIGRATIONS)?;
        conn.run_pending_migrations(MIGRATIONS).map(drop)
    })?;

    // Claim a free node of the space "blog" (16 nodes here; waiting up to
    // 30 s if all are held). A thread renews it on a connection of its own.
    let options = LeaseOptions::new("blog", presets::twitter())
        .nodes(0..=15)
        .wait_for_node(Duration::from_secs(30));
    let renewal_path = path.clone();
    let lease = flakeid_diesel::lease::claim(move || connect(&renewal_path), options)?;
    println!(
        "leased node {} (fence {}); IDs start after {} ms",
        lease.node(),
        lease.fence(),
        lease.resume_after_millis()
    );
    // The process-wide generator now stamps under the lease's ceiling.
    let generator = global::init(lease.generator_builder())?;

    for name in ["Ada", "Grace", "Barbara"] {
        let author = Author {
            id: AuthorId::generate()?,
            name: name.to_owned(),
        };
        diesel::insert_into(authors::table)
            .values(&author)
            .execute(&mut conn)?;
        println!("author {} ({})", author.id, author.id.decode());
    }

    // What operators see.
    print!("{}", flakeid_diesel::lease::list_nodes(&mut conn, "blog")?);

    // At shutdown: the node is free again, and its next holder starts
    // right after this process's last ID.
    let mark = lease.release(generator)?;
    println!("released; the next holder starts after {mark} ms");
    Ok(())
}
