// A model keyed by an ID type, written the way SeaORM's guide writes
// models, without `#[flake_id]` above it: its inserts would leave the key to
// the database (a rowid, an IDENTITY or AUTO_INCREMENT value, written before
// any error). It must not compile, and the error must name the fix.
#[flakeid_seaorm::flake_id]
pub struct UserId(i64);

pub mod user {
    use sea_orm::entity::prelude::*;

    #[sea_orm::model]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "users")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: super::UserId,
        pub name: String,
    }

    impl ActiveModelBehavior for ActiveModel {}
}

fn main() {}
