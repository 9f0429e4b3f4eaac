use flakeid_core::flake_id;

#[flake_id(diesel)]
#[derive(Insertable)]
#[diesel(table_name = users, primary_key(user_id))]
pub struct NewUser {
    pub id: i64,
    pub name: String,
}

fn main() {}
