use flakeid_core::flake_id;

#[flake_id(behavior = manual)]
pub struct UserId(i64);

fn main() {}
