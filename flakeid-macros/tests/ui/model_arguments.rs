use flakeid_core::flake_id;

#[flake_id(generator = my_generator)]
#[sea_orm::model]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
}

fn main() {}
