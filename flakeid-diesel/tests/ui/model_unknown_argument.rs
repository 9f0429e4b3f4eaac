use flakeid_core::flake_id;

#[flake_id]
pub struct UserId(i64);

diesel::table! {
    users (id) {
        id -> BigInt,
        name -> Text,
    }
}

// `generator = ..` belongs on the ID type, not on the model.
#[flake_id(generator = my_generator)]
#[derive(diesel::Insertable)]
#[diesel(table_name = users)]
pub struct NewUser {
    pub id: UserId,
    pub name: String,
}

fn main() {}
