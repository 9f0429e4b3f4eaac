// ID types are BIGINT columns only: a schema with `id -> Integer` (what
// `diesel print-schema` writes for SQLite's `INTEGER PRIMARY KEY` unless
// `sqlite_integer_primary_key_is_bigint = true`) cannot hold them.
use diesel::prelude::*;
use flakeid_diesel::{FlakeId, flake_id};

#[flake_id]
pub struct UserId(i64);

diesel::table! {
    users (id) {
        id -> Integer,
    }
}

fn main() {
    let id = UserId::from_i64(1).unwrap();
    let _ = users::id.eq(id);
}
