use flakeid_core::flake_id;

#[flake_id]
pub fn user_id() -> i64 {
    1
}

fn main() {}
