use flakeid_core::flake_id;

#[flake_id(seaorm)]
#[sea_orm::model]
#[derive(Clone, Debug, DeriveEntityModel)]
#[sea_orm(table_name = "users")]
pub struct Model {
    pub id: i64,
    pub name: String,
}

fn main() {}
