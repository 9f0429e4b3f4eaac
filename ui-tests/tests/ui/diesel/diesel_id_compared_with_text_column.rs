// An ID is not text in SQL: comparing it with a `Text` column is refused.
use diesel::prelude::*;
use flakeid_diesel::{FlakeId, flake_id};

#[flake_id]
pub struct UserId(i64);

diesel::table! {
    users (id) {
        id -> BigInt,
        name -> Text,
    }
}

fn main() {
    let id = UserId::from_i64(1).unwrap();
    let _ = users::name.eq(id);
}
