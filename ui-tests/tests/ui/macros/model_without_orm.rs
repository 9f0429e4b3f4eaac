use flakeid_core::flake_id;

#[flake_id]
pub struct User {
    pub id: i64,
    pub name: String,
}

fn main() {}
