//! SeaORM with a leased node ID: instead of configuring `FLAKEID_NODE_ID`
//! per process, each process claims a free node from a table in the
//! application's own database and releases it at shutdown. Here on a
//! SQLite file (one machine); on PostgreSQL or MySQL/MariaDB the same code
//! serves every writer that reaches the database. Start it several times
//! at once and each run gets a node of its own.
//!
//! ```text
//! cargo run -p flakeid-examples --bin seaorm_leased [-- path/to/app.db]
//! ```

use std::time::Duration;

use flakeid_core::global;
use flakeid_core::layout::presets;
use flakeid_lease::LeaseOptions;
use flakeid_seaorm::flake_id;
use sea_orm::{ActiveModelTrait, ConnectionTrait, Database, Schema, Set};

/// Key of `notes`.
#[flake_id]
pub struct NoteId(i64);

pub mod note {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "notes")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::NoteId,
        pub text: String,
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        std::env::temp_dir()
            .join("flakeid-seaorm-leased.db")
            .display()
            .to_string()
    });
    let db = Database::connect(format!("sqlite://{path}?mode=rwc")).await?;

    // The lease table (or add `flakeid_seaorm::lease::Migration` to your
    // Migrator, feature `migration`), then the application's tables.
    flakeid_seaorm::lease::create_table(&db).await?;
    let schema = Schema::new(db.get_database_backend());
    db.execute(
        &schema
            .create_table_from_entity(note::Entity)
            .if_not_exists()
            .to_owned(),
    )
    .await?;

    // Claim a free node of the space "notes" (16 nodes here; waiting up to
    // 30 s if all are held) and keep it renewed in a tokio task.
    let options = LeaseOptions::new("notes", presets::twitter())
        .nodes(0..=15)
        .wait_for_node(Duration::from_secs(30));
    let lease = flakeid_seaorm::lease::claim(&db, options).await?;
    println!(
        "leased node {} (fence {}); IDs start after {} ms",
        lease.node(),
        lease.fence(),
        lease.resume_after_millis()
    );
    // The process-wide generator now stamps under the lease's ceiling.
    let generator = global::init(lease.generator_builder())?;

    for text in ["first", "second", "third"] {
        let n = note::ActiveModel {
            text: Set(text.to_owned()),
            ..Default::default()
        }
        .insert(&db)
        .await?;
        println!("note {} ({})", n.id, n.id.decode());
    }

    // What operators see.
    print!("{}", flakeid_seaorm::lease::list_nodes(&db, "notes").await?);

    // At shutdown: the node is free again, and its next holder starts
    // right after this process's last ID.
    let mark = lease.release(generator).await?;
    println!("released; the next holder starts after {mark} ms");
    Ok(())
}
