use flakeid_core::flake_id;

#[flake_id(cut_over = "2124913425938116608")]
pub struct UserId(i64);

#[flake_id(cut_over = 1, cut_over = 2)]
pub struct PostId(i64);

fn main() {}
