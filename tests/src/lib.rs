//! Test support for flakeid's integration tests: real database servers.
//!
//! [`db`] hands every test its own fresh database on a PostgreSQL or
//! MySQL-family server, started in a container once per test binary (or taken
//! from `FLAKEID_TEST_POSTGRES_URL` / `FLAKEID_TEST_MYSQL_URL`).
//! [`ticker`] tells how long the other tasks of an async runtime held up
//! its thread; [`proxy`] cuts a process's connections to a server (a
//! one-sided network partition).
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
