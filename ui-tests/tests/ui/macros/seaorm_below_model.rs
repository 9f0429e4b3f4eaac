// What `#[flake_id]` receives when written below `#[sea_orm::model]` or
// `#[derive(DeriveEntityModel)]`: the helper attributes, without the macro.
use flakeid_core::flake_id;

#[flake_id(seaorm)]
#[sea_orm(table_name = "users")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub name: String,
}

fn main() {}
