use flakeid_core::flake_id;

#[flake_id]
#[derive(Debug, Clone)]
pub struct UserId(i64);

fn main() {}
