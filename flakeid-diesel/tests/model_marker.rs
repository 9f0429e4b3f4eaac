//! `#[flake_id]` on a Diesel model: the key is found and checked, and the
//! ID type gets its Diesel column impls because it is declared with
//! `flakeid_diesel::flake_id`.

use flakeid_diesel::flake_id;
use flakeid_diesel::flakeid_core::Generator;

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
fn models_keep_their_fields() -> Result<(), flakeid_diesel::flakeid_core::IdError> {
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

diesel::table! {
    notes (id) {
        id -> BigInt,
        body -> Text,
    }
}

/// A row with a constructor of its own: `#[flake_id]` writes none, so
/// nothing clashes.
#[flake_id]
#[derive(diesel::Insertable)]
#[diesel(table_name = notes)]
pub struct NewNote {
    /// Assigned by the application.
    pub id: NoteId,
    /// Trimmed text.
    pub body: String,
}

/// The key of `notes`.
#[flake_id(layout = flakeid_diesel::flakeid_core::layout::presets::twitter, source = note_ids)]
pub struct NoteId(i64);

fn note_ids() -> Result<&'static Generator, flakeid_diesel::flakeid_core::ConfigError> {
    static GENERATOR: std::sync::OnceLock<Generator> = std::sync::OnceLock::new();
    if let Some(g) = GENERATOR.get() {
        return Ok(g);
    }
    let g =
        Generator::builder(flakeid_diesel::flakeid_core::layout::presets::twitter(), 3).build()?;
    Ok(GENERATOR.get_or_init(|| g))
}

impl NewNote {
    /// The model's own constructor.
    pub fn new(body: &str) -> Self {
        Self {
            id: NoteId::generate().expect("a fresh ID"),
            body: body.trim().to_owned(),
        }
    }
}

#[test]
fn a_model_keeps_its_own_constructor() {
    let note = NewNote::new("  hello ");
    assert_eq!(note.body, "hello");
    let parts = note.id.decode().parts.expect("a bit layout");
    assert_eq!(parts.node, 3);
}

#[test]
fn keys_set_where_rows_are_built_are_fresh() -> Result<(), Box<dyn std::error::Error>> {
    let a = NewAccountFromNote {
        id: NoteId::generate()?,
        body: "x".to_owned(),
    };
    let b = NewAccountFromNote {
        id: NoteId::generate()?,
        body: "y".to_owned(),
    };
    assert!(
        b.id > a.id,
        "fresh keys increase: {a:?} then {b:?}",
        a = a.id,
        b = b.id
    );
    Ok(())
}

/// A model built with a struct literal, drawing from the same generator.
#[flake_id]
#[derive(diesel::Insertable)]
#[diesel(table_name = notes)]
pub struct NewAccountFromNote {
    /// Assigned where the row is built.
    pub id: NoteId,
    /// Text.
    pub body: String,
}
