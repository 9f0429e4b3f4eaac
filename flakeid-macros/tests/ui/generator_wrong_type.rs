use flakeid_core::flake_id;

fn my_generator() -> u64 {
    7
}

#[flake_id(generator = my_generator)]
pub struct UserId(i64);

fn main() {}
