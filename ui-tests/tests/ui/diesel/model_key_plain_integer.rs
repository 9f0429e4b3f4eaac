use flakeid_diesel::flake_id;

#[flakeid_core::flake_id(seaorm)]
#[derive(Clone, Debug, DeriveEntityModel)]
#[sea_orm(table_name = "users")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub name: String,
}

#[flake_id]
#[derive(diesel::Insertable)]
#[diesel(table_name = posts)]
pub struct NewPost {
    pub id: Option<i64>,
}

fn main() {}
