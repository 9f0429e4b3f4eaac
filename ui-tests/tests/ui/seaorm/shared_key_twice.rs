// Two models keyed by one ID type, both marking it: the second needs
// `#[flake_id(shared_key)]`.
#[flakeid_seaorm::flake_id]
pub struct UserId(i64);

pub mod user {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "users")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::UserId,
        pub name: String,
    }
}

pub mod profile {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "profiles")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::UserId,
        pub bio: String,
    }
}

fn main() {}
