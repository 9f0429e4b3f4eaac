// `#[flake_id]` on something that is neither an ID newtype nor a model.
#[flakeid_seaorm::flake_id]
pub enum Status {
    Active,
    Retired,
}

fn main() {}
