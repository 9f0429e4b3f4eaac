// A model key whose type SeaORM accepts but that is not an ID type.
pub mod user {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq, DeriveValueType)]
    pub struct Key(i64);

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "users")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: Key,
        pub name: String,
    }
}

fn main() {}
