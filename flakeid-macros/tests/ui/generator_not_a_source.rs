use flakeid_core::{ConfigError, flake_id};

struct Counter;

fn my_generator() -> Result<&'static Counter, ConfigError> {
    Ok(&Counter)
}

#[flake_id(generator = my_generator)]
pub struct UserId(i64);

fn main() {}
