diesel::table! {
    users (id) {
        id -> BigInt,
        name -> Text,
    }
}

/// An ID type, but declared without `diesel`: it has no Diesel impls.
#[flakeid_diesel::flakeid_core::flake_id]
pub struct UserId(i64);

#[flakeid_diesel::flake_id]
#[derive(diesel::Queryable, diesel::Insertable)]
#[diesel(table_name = users)]
pub struct User {
    pub id: UserId,
    pub name: String,
}

fn main() {}
