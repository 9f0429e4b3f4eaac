//! flakeid's integration tests, as one test binary: every module below is
//! compiled and linked once, and the tests of all of them share one
//! PostgreSQL and one MySQL-family server (a container each, started on
//! first use and removed when the binary exits; see `flakeid_tests::db`).
//!
//! Run everything with `./scripts/test.sh --workspace --test all`; one
//! module, or any test whose path contains a filter, with
//! `./scripts/test.sh --workspace --test all -- seaorm_postgres::`.

// Items shared by the test modules (helpers, schemas, ID types, entities).
mod adopt_common;
mod diesel_common;
mod diesel_flakes;
mod lease_common;
mod schemes_common;
#[macro_use]
mod seaorm_common;
mod seaorm_connect;
mod support;

// The fixtures themselves: servers, isolation, failing loudly, and the
// second PostgreSQL server (18) every PostgreSQL test also runs on.
mod harness;
mod postgres18;

// Keys through SeaORM, per database, and as JSON.
mod seaorm_json;
mod seaorm_model_key;
mod seaorm_mysql;
mod seaorm_postgres;
mod seaorm_sqlite;

// Keys through Diesel, sync and async, per database.
mod diesel_async;
mod diesel_keys;

// Every ID scheme stored through each ORM on each database.
mod schemes_diesel;
mod schemes_diesel_async;
mod schemes_seaorm;

// Rows by the time their key records: each ORM's filter on a million rows.
mod time_bounds;

// ID types as plain sqlx values on each database, in API schemas, in
// GraphQL servers (async-graphql's types, seaography's schema of SeaORM
// entities) and in TypeScript.
mod graphql;
mod graphql_seaography;
mod openapi_schema;
mod protobuf;
mod sqlx_types;
mod typescript;

// Keys the database counts out or refuses, and the names in its SQL.
mod diesel_sequences;
mod key_check;
mod seaorm_sequences;
mod sql_names;

// IDs issued by the database itself, next to the application's; IDs read
// in SQL; existing tables switched from auto-increment to flake keys.
mod adopt;
mod sql_id_function;

// Node leases: the table through both ORMs, real processes competing,
// killed, stopped and restarted, and the database paused; the store on etcd.
mod lease_etcd;
mod lease_first_deploy;
mod lease_fleet;
mod lease_partition;
mod lease_pause;
mod lease_processes;
mod lease_stores;

// Migrations at start-up: sixteen replicas of SeaORM and Diesel
// applications running their migrations at the same moment.
mod migrations_at_startup;

// Generation that never holds up the async runtime it runs on: a ticker
// beside 100,000 inserts through SeaORM and diesel-async, with waits forced.
mod async_generation;

// Segments: one row handing out ranges to processes, one killed; short
// keys and DecimalId generator IDs from it; the database paused.
mod segments;

// The order of items in every source file of the workspace.
mod item_order;
