//! Test support for flakeid's integration tests: real database servers.
//!
//! [`db`] hands every test its own fresh database on a PostgreSQL or
//! MySQL-family server, started in a container once per test binary (or taken
//! from `FLAKEID_TEST_POSTGRES_URL` / `FLAKEID_TEST_MYSQL_URL`).
//! [`ticker`] tells how long the other tasks of an async runtime held up
//! its thread; [`proxy`] cuts a process's connections to a server (a
//! one-sided network partition). [`flake_entity!`] declares a SeaORM entity
//! keyed by a flake ID in one line, for the tests and the worker processes.
//!
//! ```no_run
//! # async fn example() -> Result<(), sqlx::Error> {
//! let db = flakeid_tests::db::postgres().await;
//! let pool = sqlx::PgPool::connect(db.url()).await?;
//! sqlx::query("CREATE TABLE t (id BIGINT PRIMARY KEY)").execute(&pool).await?;
//! # Ok(())
//! # }
//! ```

pub mod adopt;
pub mod db;
pub mod process;
pub mod proxy;
pub mod ticker;
pub mod worker;

/// A module `$m` holding the SeaORM entity of the table `$table` in
/// SeaORM 2's `#[sea_orm::model]` format: the key `id`, of the flake ID
/// type `$id`, then `$columns`; `$items` go in the module beside it.
///
/// ```
/// #[flakeid_seaorm::flake_id]
/// pub struct NoteId(i64);
///
/// flakeid_tests::flake_entity!(pub mod note = "notes", super::NoteId { pub body: String, });
///
/// fn main() {
///     // What SeaORM derives: entity, model, columns, active model.
///     let _body: note::Column = note::Column::Body;
/// }
/// ```
#[macro_export]
macro_rules! flake_entity {
    ($vis:vis mod $m:ident = $table:literal, $id:ty { $($columns:tt)* } $($items:item)*) => {
        // SeaORM's derives emit items a caller does not use.
        #[allow(dead_code, unreachable_pub)]
        $vis mod $m {
            use sea_orm::entity::prelude::*;

            #[flakeid_seaorm::flake_id]
            #[sea_orm::model]
            #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
            #[sea_orm(table_name = $table)]
            pub struct Model {
                #[sea_orm(primary_key)]
                pub id: $id,
                $($columns)*
            }

            $($items)*
        }
    };
}
