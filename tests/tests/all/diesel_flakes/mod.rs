//! The Diesel tables and rows that 128-bit flakes are stored in, shared by
//! the sync and async Diesel scheme tests.
#![allow(unreachable_pub)]

use diesel::sql_types::{Integer, Text};

/// 128-bit flakes, with the SQL type each backend stores them in.
pub mod flakes {
    use diesel::prelude::*;
    use flakeid_core::flake128::Flake128;

    diesel::table! {
        /// PostgreSQL: `uuid`.
        flakes_uuid (id) {
            id -> Uuid,
            pos -> Integer,
            parent -> Nullable<Uuid>,
        }
    }

    diesel::table! {
        /// PostgreSQL `bytea`, MySQL/MariaDB `BINARY(16)`, SQLite `BLOB`.
        flakes_binary (id) {
            id -> Binary,
            pos -> Integer,
            parent -> Nullable<Binary>,
        }
    }

    #[derive(Queryable, Selectable, Insertable, Debug, PartialEq, Clone)]
    #[diesel(table_name = flakes_uuid)]
    pub struct UuidRow {
        pub id: Flake128,
        pub pos: i32,
        pub parent: Option<Flake128>,
    }

    #[derive(Queryable, Selectable, Insertable, Debug, PartialEq, Clone)]
    #[diesel(table_name = flakes_binary)]
    pub struct BinaryRow {
        pub id: Flake128,
        pub pos: i32,
        pub parent: Option<Flake128>,
    }
}

/// A flake read back as text by plain SQL, with its insertion position.
#[derive(diesel::QueryableByName, Debug, PartialEq)]
pub struct FlakeText {
    #[diesel(sql_type = Integer)]
    pub pos: i32,
    #[diesel(sql_type = Text)]
    pub id_text: String,
}
