use flakeid_core::flake_id;

#[flake_id]
pub union UserId {
    value: i64,
}

fn main() {}
