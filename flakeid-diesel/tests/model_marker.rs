//! `#[flake_id]` on a Diesel model: the key is found and checked, and the
//! ID type gets its Diesel column impls because this crate depends on
//! `flakeid-diesel`.

use flakeid_core::{FlakeId, flake_id};

/// The key of `users`.
#[flake_id]
pub struct UserId(i64);

diesel::table! {
    users (id) {
        id -> BigInt,
        name -> Text,
    }
}

diesel::table! {
    accounts (account_key) {
        account_key -> BigInt,
        owner -> Nullable<BigInt>,
    }
}

/// A user row to insert.
#[flake_id]
#[derive(diesel::Insertable)]
#[diesel(table_name = users)]
pub struct NewUser {
    /// Assigned by the application.
    pub id: UserId,
    /// Display name.
    pub name: String,
}

/// An account row, keyed by a field not named `id`.
#[flake_id]
#[derive(diesel::Insertable)]
#[diesel(table_name = accounts, primary_key(account_key))]
pub struct NewAccount {
    /// Assigned by the application.
    pub account_key: UserId,
    /// An optional foreign key of the same ID type.
    pub owner: Option<UserId>,
}

fn is_diesel_expression<T>()
where
    T: diesel::expression::AsExpression<diesel::sql_types::BigInt>
        + diesel::expression::AsExpression<diesel::sql_types::Nullable<diesel::sql_types::BigInt>>,
{
}

#[test]
fn id_type_is_a_diesel_bigint() {
    is_diesel_expression::<UserId>();
    is_diesel_expression::<&UserId>();
}

#[test]
fn models_keep_their_fields() -> Result<(), flakeid_core::IdError> {
    let id = UserId::try_from(5_i64)?;
    let user = NewUser {
        id,
        name: "alice".into(),
    };
    let account = NewAccount {
        account_key: id,
        owner: Some(id),
    };
    assert_eq!(user.id.get(), 5);
    assert_eq!(account.owner, Some(user.id));
    Ok(())
}
