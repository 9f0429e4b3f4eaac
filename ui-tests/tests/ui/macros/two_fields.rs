use flakeid_core::flake_id;

#[flake_id]
pub struct UserId(i64, u8);

fn main() {}
