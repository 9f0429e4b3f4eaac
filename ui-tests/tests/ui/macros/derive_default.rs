use flakeid_core::flake_id;

#[flake_id]
#[derive(Default)]
pub struct UserId(i64);

fn main() {}
