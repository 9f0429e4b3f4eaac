use flakeid_core::flake_id;

#[flake_id]
pub struct UserId(u64);

fn main() {}
