use flakeid_core::flake_id;

#[flake_id]
pub struct UserId();

#[flake_id]
pub struct PostId;

fn main() {}
