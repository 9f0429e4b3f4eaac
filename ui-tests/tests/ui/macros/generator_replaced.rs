use flakeid_core::{ConfigError, Generator, flake_id};

fn my_generator() -> Result<&'static Generator, ConfigError> {
    unimplemented!()
}

#[flake_id(generator = my_generator)]
pub struct UserId(i64);

fn main() {}
