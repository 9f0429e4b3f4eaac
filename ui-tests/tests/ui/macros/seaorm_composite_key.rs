use flakeid_core::flake_id;

#[flake_id(seaorm)]
#[derive(Clone, Debug, DeriveEntityModel)]
#[sea_orm(table_name = "memberships")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub user_id: i64,
    #[sea_orm(primary_key, auto_increment = false)]
    pub group_id: i64,
}

fn main() {}
