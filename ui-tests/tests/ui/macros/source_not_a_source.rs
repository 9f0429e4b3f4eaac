use flakeid_core::{ConfigError, flake_id, layout::presets};

struct Counter;

fn my_source() -> Result<&'static Counter, ConfigError> {
    Ok(&Counter)
}

#[flake_id(layout = presets::twitter, source = my_source)]
pub struct UserId(i64);

fn main() {}
