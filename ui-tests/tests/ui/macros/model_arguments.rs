use flakeid_core::{flake_id, layout::presets};

#[flake_id(seaorm, layout = presets::discord)]
#[sea_orm::model]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
}

fn main() {}
