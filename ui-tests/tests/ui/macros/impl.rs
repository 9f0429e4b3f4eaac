use flakeid_core::flake_id;

pub struct UserId(i64);

#[flake_id]
impl UserId {}

fn main() {}
