use flakeid_core::{ConfigError, Generator, flake_id};

fn my_source() -> Result<&'static Generator, ConfigError> {
    unimplemented!()
}

#[flake_id(source = my_source)]
pub struct UserId(i64);

fn main() {}
