use flakeid_core::flake_id;

#[flake_id]
pub enum UserId {
    Small(i32),
}

fn main() {}
