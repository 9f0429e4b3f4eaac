use flakeid_diesel::flake_id;

diesel::table! {
    users (id) {
        id -> BigInt,
        name -> Text,
    }
}

/// Not an ID type: it lacks `#[flake_id]`.
pub struct Key(i64);

#[flake_id]
#[derive(diesel::Queryable)]
#[diesel(table_name = users)]
pub struct User {
    pub id: Key,
    pub name: String,
}

fn main() {}
