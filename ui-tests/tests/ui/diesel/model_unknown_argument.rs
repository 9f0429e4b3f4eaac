use flakeid_diesel::flake_id;

#[flake_id]
pub struct UserId(i64);

diesel::table! {
    users (id) {
        id -> BigInt,
        name -> Text,
    }
}

// The scheme belongs on the ID type, not on the model.
#[flake_id(layout = my_layout)]
#[derive(diesel::Insertable)]
#[diesel(table_name = users)]
pub struct NewUser {
    pub id: UserId,
    pub name: String,
}

fn main() {}
