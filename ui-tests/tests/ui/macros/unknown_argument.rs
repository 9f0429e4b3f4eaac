use flakeid_core::flake_id;

#[flake_id(genrator = my_generator)]
pub struct UserId(i64);

#[flake_id(layout = a, source = b, source = b)]
pub struct PostId(i64);

fn main() {}
