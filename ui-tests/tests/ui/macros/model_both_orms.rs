use flakeid_core::flake_id;

#[flake_id(seaorm, diesel)]
#[derive(DeriveEntityModel, Insertable)]
#[diesel(table_name = users)]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
}

fn main() {}
