use flakeid_core::flake_id;

#[flake_id(diesel)]
#[derive(Queryable)]
#[diesel(table_name = users)]
pub struct User {
    pub key: i64,
    pub name: String,
}

fn main() {}
