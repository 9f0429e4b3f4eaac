// A key column whose name no unquoted CHECK reads the same on PostgreSQL
// and MySQL: #[flake_id] cannot write `CHECK (<column> > 0)` for it.
#[flakeid_seaorm::flake_id]
pub struct UserId(i64);

pub mod user {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "users")]
    pub struct Model {
        #[sea_orm(primary_key, column_name = "UserId")]
        pub id: super::UserId,
        pub name: String,
    }
}

pub mod order {
    use sea_orm::entity::prelude::*;

    #[flakeid_seaorm::flake_id]
    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "orders")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub order: super::UserId,
    }
}

fn main() {}
