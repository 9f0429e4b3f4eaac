// `#[flake_id]` below `#[sea_orm::model]` would run on both structs the
// model attribute produces, after it: it must sit above.
#[flakeid_seaorm::flake_id]
pub struct UserId(i64);

pub mod user {
    use sea_orm::entity::prelude::*;

    #[sea_orm::model]
    #[flakeid_seaorm::flake_id]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "users")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::UserId,
        pub name: String,
    }
}

fn main() {}
