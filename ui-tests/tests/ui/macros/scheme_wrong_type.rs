use flakeid_core::flake_id;

fn my_scheme() -> u64 {
    7
}

#[flake_id(scheme = my_scheme)]
pub struct UserId(i64);

fn main() {}
