//! Assigning IDs before the `INSERT`: [`FlakeActiveModel`] for one row,
//! [`FlakeEntity`] for `Entity::insert` / `insert_many`.
//!
//! Both are implemented for every entity whose primary key type is an ID
//! type; nothing needs to be written per entity.
//!
//! | Insert path | Who assigns the ID |
//! |---|---|
//! | `ActiveModel::insert`, `save`, `ActiveModelEx::insert`, `save` | the `before_save` hook `#[flake_id]` generates |
//! | `Entity::insert(am).exec` | [`FlakeEntity::insert_with_id`] (hooks do not run here) |
//! | `Entity::insert_many(..).exec` | [`FlakeEntity::insert_many_with_ids`] (one contiguous run per statement, see [`assign_ids`]) |
//! | JSON without an `id` | [`FlakeActiveModel::from_json_for_insert`], then `insert` |
//!
//! An ID that is already set is kept. A key set in memory with
//! [`FlakeActiveModel::assign_id`] (or [`assign_ids`]) is inserted by
//! `save` too, although SeaORM's `save` updates every row whose key is
//! set (see [`FlakeActiveModel::before_save_key`]).

use flakeid_core::FlakeId;
use sea_orm::{
    ActiveModelTrait, ActiveValue, ColumnTrait, ConnectionTrait, DbErr, EntityTrait, Insert,
    InsertMany, IntoActiveModel, PrimaryKeyTrait, QueryFilter, SelectExt, Value,
};

use crate::Error;
use crate::entity::{key_column, table_name};
use crate::save::{is_remembered, remember};

/// The primary key type of an ActiveModel's entity.
pub type KeyOf<A> =
    <<<A as ActiveModelTrait>::Entity as EntityTrait>::PrimaryKey as PrimaryKeyTrait>::ValueType;

/// An ActiveModel whose primary key is a flake ID.
///
/// Implemented for every ActiveModel whose entity's primary key type is an
/// ID type (`#[flake_id] pub struct UserId(i64);`).
pub trait FlakeActiveModel: ActiveModelTrait + Sized {
    /// The ID type of the primary key.
    type Id: FlakeId;

    /// Returns the key, first setting it to a fresh ID if it is not set.
    ///
    /// Use it to know a row's ID before it is written, e.g. to build rows
    /// that reference each other and write them in one transaction, or a
    /// nested `ActiveModelEx` graph whose rows name each other. The row
    /// is then stored by `insert` or by `save`: this process remembers the
    /// fresh key (among the last [`REMEMBERED_KEYS`](crate::REMEMBERED_KEYS)
    /// it gave), so that `save` inserts the row instead of updating a row
    /// that does not exist (see [`FlakeActiveModel::before_save_key`]).
    ///
    /// The ID is taken with `generate_async`: where the generator has to
    /// wait (the next tick, a lease renewing late), the task waits on the
    /// runtime's timer, never blocking its thread.
    ///
    /// # Errors
    /// [`Error::Generate`] if no ID can be generated,
    /// [`Error::InvalidKeyValue`] if the key holds a value that is not an ID.
    fn assign_id(&mut self) -> impl Future<Output = Result<Self::Id, DbErr>> + Send
    where
        Self: Send;

    /// The key, if it is set.
    ///
    /// # Errors
    /// [`Error::InvalidKeyValue`] if the key holds a value that is not an ID.
    fn key(&self) -> Result<Option<Self::Id>, DbErr>;

    /// Sets the key to `id`.
    ///
    /// # Errors
    /// SeaORM's, if the key column cannot take the value.
    fn set_key(&mut self, id: Self::Id) -> Result<(), DbErr>;

    /// `self` with its key set to a fresh ID unless it already has one.
    ///
    /// # Errors
    /// As [`FlakeActiveModel::assign_id`].
    fn with_id(mut self) -> impl Future<Output = Result<Self, DbErr>> + Send
    where
        Self: Send,
    {
        async move {
            self.assign_id().await?;
            Ok(self)
        }
    }

    /// What the `before_save` hook `#[flake_id]` generates does, for
    /// models declared with `#[flake_id(behavior = manual)]`: call it at
    /// the end of your own `before_save`.
    ///
    /// * On insert: a key that is not set gets a fresh ID.
    /// * On update (`save` of a model whose key is set, `update`) of a
    ///   key that is `Set` (not a loaded row's `Unchanged` key), one
    ///   primary-key lookup first. A row that exists is updated, as
    ///   SeaORM does. If none has the key and
    ///   [`assign_id`](FlakeActiveModel::assign_id) gave it in this
    ///   process, the row is inserted here, and the update that follows
    ///   finds nothing left to change: so `assign_id()` then `save` stores
    ///   the row, alone or anywhere in an `ActiveModelEx` graph. Any other
    ///   key without a row is [`Error::KeyNotStored`], never an `UPDATE`
    ///   of nothing.
    /// * A loaded row (key `Unchanged`) is left to SeaORM: no lookup.
    ///
    /// The last [`REMEMBERED_KEYS`](crate::REMEMBERED_KEYS) keys
    /// `assign_id` gave are remembered, stored or not (an insert rolled
    /// back with its transaction leaves a key `save` must insert again);
    /// the oldest is forgotten first. A row stored by a path that runs no
    /// hooks (`Entity::insert`, `insert_many`, plain SQL) is found by the
    /// lookup and updated. `insert` needs none of this: it always inserts.
    ///
    /// # Errors
    /// As [`FlakeActiveModel::assign_id`]; [`Error::KeyNotStored`]; the
    /// database's.
    fn before_save_key<C>(
        self,
        db: &C,
        insert: bool,
    ) -> impl Future<Output = Result<Self, DbErr>> + Send
    where
        Self: Send,
        C: ConnectionTrait,
        <Self::Entity as EntityTrait>::Model: IntoActiveModel<Self>,
    {
        before_save(self, db, insert)
    }

    /// Builds an ActiveModel for a new row from JSON, like SeaORM's
    /// `ActiveModel::from_json`, but accepting a document without the key
    /// (or with `"id": null`): the key is then left unset, so `insert` or
    /// `save` assigns a fresh ID. A key present in the document is kept.
    ///
    /// # Errors
    /// [`Error::Json`] naming the field for a value that does not fit it,
    /// e.g. an ID given as a float, a negative number, a number above the
    /// largest ID, or text that is not a decimal integer.
    #[cfg(feature = "with-json")]
    fn from_json_for_insert(json: serde_json::Value) -> Result<Self, DbErr>
    where
        Self: sea_orm::TryIntoModel<<Self::Entity as EntityTrait>::Model>,
        <Self::Entity as EntityTrait>::Model: IntoActiveModel<Self>,
        for<'de> <Self::Entity as EntityTrait>::Model: serde::Deserialize<'de> + serde::Serialize,
    {
        crate::json::from_json_for_insert(json)
    }
}

impl<A> FlakeActiveModel for A
where
    A: ActiveModelTrait,
    KeyOf<A>: FlakeId,
{
    type Id = KeyOf<A>;

    async fn assign_id(&mut self) -> Result<Self::Id, DbErr>
    where
        Self: Send,
    {
        if let Some(id) = self.key()? {
            return Ok(id);
        }
        let id = assign_fresh(self).await?;
        remember::<A>(id);
        Ok(id)
    }

    fn key(&self) -> Result<Option<Self::Id>, DbErr> {
        match self.get(key_column::<A>()?) {
            ActiveValue::Set(value) | ActiveValue::Unchanged(value) => {
                key_from_value::<A>(&value).map(Some)
            }
            ActiveValue::NotSet => Ok(None),
        }
    }

    fn set_key(&mut self, id: Self::Id) -> Result<(), DbErr> {
        self.try_set(key_column::<A>()?, Value::BigInt(Some(id.get())))
    }
}

/// Sets the key of every model in `models` that has none, with IDs reserved
/// in one step ([`FlakeId::generate_many_async`]: for a
/// [`Generator`](flakeid_core::Generator), one contiguous ascending run),
/// in the order of `models`; keys already set are checked and kept. As
/// with [`FlakeActiveModel::assign_id`], `save` inserts these rows.
///
/// Assign IDs this way when the rows are written, not when each row is
/// built: IDs taken as rows are created over time interleave with other
/// writers' IDs in the key's index (page splits in its middle, a larger
/// index); a run reserved at write time lands at its right edge.
///
/// Where the generator has to wait (a batch takes its IDs' ticks to be
/// due), the task waits on the runtime's timer.
///
/// # Errors
/// [`Error::Generate`] if no IDs can be generated, [`Error::InvalidKeyValue`]
/// if a key holds a value that is not an ID. On error no key is changed.
pub async fn assign_ids<A: FlakeActiveModel + Send>(models: &mut [A]) -> Result<(), DbErr> {
    for id in assign_missing(models).await? {
        remember::<A>(id);
    }
    Ok(())
}

/// `Entity::insert` / `insert_many` with IDs assigned first.
///
/// SeaORM runs no `ActiveModelBehavior` hook for these, so an ActiveModel
/// without a key would reach the database without one. Build the insert
/// through these functions instead: keys that are not set get a fresh ID,
/// keys that are set are kept.
///
/// Implemented for every entity whose primary key type is an ID type.
pub trait FlakeEntity: EntityTrait {
    /// [`EntityTrait::insert`] with the key set to a fresh ID if it is not
    /// set (taken as [`FlakeActiveModel::assign_id`] does, without blocking
    /// the runtime's thread).
    ///
    /// # Errors
    /// As [`FlakeActiveModel::assign_id`].
    fn insert_with_id<M>(
        model: M,
    ) -> impl Future<Output = Result<Insert<Self::ActiveModel>, DbErr>> + Send
    where
        M: IntoActiveModel<Self::ActiveModel>,
        Self::ActiveModel: FlakeActiveModel + Send,
    {
        let am = model.into_active_model();
        async move {
            let mut am = am;
            if am.key()?.is_none() {
                assign_fresh(&mut am).await?;
            }
            Ok(Self::insert(am))
        }
    }

    /// [`EntityTrait::insert_many`] after [`assign_ids`]: the models without
    /// a key get IDs reserved in one step, one contiguous ascending run, so
    /// the statement's rows land together at the right edge of the key's
    /// index (as an auto-increment batch does) even while other writers
    /// insert. Nothing is built if any model fails.
    ///
    /// # Errors
    /// As [`assign_ids`].
    fn insert_many_with_ids<M, I>(
        models: I,
    ) -> impl Future<Output = Result<InsertMany<Self::ActiveModel>, DbErr>> + Send
    where
        M: IntoActiveModel<Self::ActiveModel>,
        I: IntoIterator<Item = M>,
        Self::ActiveModel: FlakeActiveModel + Send,
    {
        let ams: Vec<Self::ActiveModel> = models
            .into_iter()
            .map(IntoActiveModel::into_active_model)
            .collect();
        async move {
            let mut ams = ams;
            assign_missing(&mut ams).await?;
            Ok(Self::insert_many(ams))
        }
    }
}

impl<E: EntityTrait> FlakeEntity for E {}

/// Sets `am`'s key, which is not set, to a fresh ID: for a row about to be
/// inserted (no `save` needs to recognise it later).
pub(crate) async fn assign_fresh<A: FlakeActiveModel>(am: &mut A) -> Result<A::Id, DbErr> {
    let id = A::Id::generate_async().await.map_err(|e| Error::Generate {
        id_type: e.id_type,
        table: table_name::<A>(),
        source: e.error,
    })?;
    am.set_key(id)?;
    Ok(id)
}

/// The generated `before_save`: on insert, a fresh ID for a key that is
/// not set; on update of a key that is `Set`, the insert of a row whose
/// key `assign_id` gave and that no row has yet (see [`crate::save`]'s docs).
pub(crate) async fn before_save<A, C>(mut am: A, db: &C, insert: bool) -> Result<A, DbErr>
where
    A: FlakeActiveModel + Send,
    C: ConnectionTrait,
    <A::Entity as EntityTrait>::Model: IntoActiveModel<A>,
{
    if insert {
        if am.key()?.is_none() {
            assign_fresh(&mut am).await?;
        }
        return Ok(am);
    }
    let column = key_column::<A>()?;
    if !matches!(am.get(column), ActiveValue::Set(_)) {
        // Loaded (`Unchanged`) or not set: SeaORM's update as it is.
        return Ok(am);
    }
    let Some(id) = am.key()? else {
        return Ok(am);
    };
    let stored = A::Entity::find()
        .filter(column.eq(Value::BigInt(Some(id.get()))))
        .exists(db)
        .await?;
    if stored {
        return Ok(am);
    }
    if !is_remembered::<A>(id) {
        return Err(Error::KeyNotStored {
            id_type: A::Id::NAME,
            table: table_name::<A>(),
            value: id.get(),
        }
        .into());
    }
    // Everything `Unchanged`: the update that follows changes nothing and
    // reads the row back.
    let model = A::Entity::insert(am).exec_with_returning(db).await?;
    Ok(model.into_active_model())
}

/// [`assign_ids`] without remembering the keys; the keys it set.
async fn assign_missing<A: FlakeActiveModel>(models: &mut [A]) -> Result<Vec<A::Id>, DbErr> {
    let mut missing = Vec::new();
    for (i, am) in models.iter().enumerate() {
        if am.key()?.is_none() {
            missing.push(i);
        }
    }
    if missing.is_empty() {
        return Ok(Vec::new());
    }
    let ids = A::Id::generate_many_async(missing.len())
        .await
        .map_err(|e| Error::Generate {
            id_type: e.id_type,
            table: table_name::<A>(),
            source: e.error,
        })?;
    for (&i, &id) in missing.iter().zip(&ids) {
        models[i].set_key(id)?;
    }
    Ok(ids)
}

fn key_from_value<A>(value: &Value) -> Result<KeyOf<A>, DbErr>
where
    A: ActiveModelTrait,
    KeyOf<A>: FlakeId,
{
    let id = match *value {
        Value::BigInt(Some(n)) => KeyOf::<A>::from_i64(n).ok(),
        Value::BigUnsigned(Some(n)) => KeyOf::<A>::from_u64(n).ok(),
        _ => None,
    };
    id.ok_or_else(|| {
        Error::InvalidKeyValue {
            id_type: KeyOf::<A>::NAME,
            table: table_name::<A>(),
            value: format!("{value:?}"),
        }
        .into()
    })
}
