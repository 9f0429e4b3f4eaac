// What `#[flake_id]` receives on `ModelEx` when written below
// `#[sea_orm::model]`, which copies it there.
use flakeid_core::flake_id;

#[flake_id(seaorm)]
#[derive(Clone, Debug, DeriveModelEx, DeriveActiveModelEx)]
#[sea_orm(table_name = "users")]
pub struct ModelEx {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub name: String,
}

fn main() {}
