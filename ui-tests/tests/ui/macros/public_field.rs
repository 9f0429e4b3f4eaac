use flakeid_core::flake_id;

#[flake_id]
pub struct UserId(pub i64);

fn main() {}
