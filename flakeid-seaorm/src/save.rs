//! What `save` does with a flake key, and the keys it must insert rather
//! than update.
//!
//! SeaORM's `save` inserts a row whose key is `NotSet` and updates one
//! whose key is set, so a key given in memory by
//! [`assign_id`](crate::FlakeActiveModel::assign_id) would make it
//! `UPDATE` a row that does not exist. The `before_save` hook that
//! `#[flake_id]` writes (see
//! [`before_save_key`](crate::FlakeActiveModel::before_save_key)) tells the
//! two apart: this process remembers the keys `assign_id` set, and when
//! asked to update a row whose key is `Set` the hook first looks the key
//! up. If no row has it, a remembered key's row is inserted there and then
//! (and the update that follows finds nothing left to change); any other
//! key is refused with [`Error::KeyNotStored`] rather than updating
//! nothing.
//!
//! Why memory, and not something the model carries: the hook sees the
//! ActiveModel alone, one `ActiveValue` per column. A loaded row's key is
//! `Unchanged`, a key set by hand is `Set`, and a key from `assign_id` must
//! be told from both while holding the very value the application copies
//! into other rows: there is no third state to give it (`NotSet` would
//! lose the value, `#[sea_orm(ignore)]` fields are not part of the
//! ActiveModel).
//!
//! A key stays remembered after its row is inserted: the insert may be
//! rolled back with its transaction (a graph's own, when a later row of it
//! is refused), and the `save` retried then must insert it again. Only the
//! oldest keys are forgotten, past [`REMEMBERED_KEYS`].

use std::any::TypeId;
use std::sync::{LazyLock, Mutex, PoisonError};

use flakeid_core::FlakeId;
use hashlink::LinkedHashSet;
use sea_orm::ActiveModelTrait;

/// How many of the keys `assign_id` set this process remembers at most (the
/// most recent; a key stays remembered after its row is stored, so that a
/// `save` retried after a rollback still inserts); past that, the oldest is
/// forgotten. A row whose key
/// was forgotten before it was stored is refused by `save` with
/// [`Error::KeyNotStored`](crate::Error::KeyNotStored); its `insert` still
/// works.
pub const REMEMBERED_KEYS: usize = 65_536;

/// Remembers that `assign_id` set `id` as the key of a row of `A`'s table.
pub(crate) fn remember<A: ActiveModelTrait>(id: impl FlakeId) {
    let mut keys = KEYS.lock().unwrap_or_else(PoisonError::into_inner);
    remember_in(&mut keys, (TypeId::of::<A::Entity>(), id.get()));
}

/// Whether `assign_id` set `id` as the key of a row of `A`'s table, among
/// the last [`REMEMBERED_KEYS`] keys it set.
pub(crate) fn is_remembered<A: ActiveModelTrait>(id: impl FlakeId) -> bool {
    let keys = KEYS.lock().unwrap_or_else(PoisonError::into_inner);
    keys.contains(&(TypeId::of::<A::Entity>(), id.get()))
}

type Key = (TypeId, i64);

/// The remembered keys, oldest first.
static KEYS: LazyLock<Mutex<LinkedHashSet<Key>>> = LazyLock::new(Mutex::default);

fn remember_in(keys: &mut LinkedHashSet<Key>, key: Key) {
    if keys.insert(key) && keys.len() > REMEMBERED_KEYS {
        keys.pop_front();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_key_is_forgotten_past_the_limit() {
        struct A;
        let key = |n: i64| (TypeId::of::<A>(), n);
        let mut keys = LinkedHashSet::new();
        for n in 1..=i64::try_from(REMEMBERED_KEYS).unwrap() + 1 {
            remember_in(&mut keys, key(n));
        }
        assert_eq!(keys.len(), REMEMBERED_KEYS);
        assert!(!keys.contains(&key(1)), "the oldest is forgotten");
        assert!(keys.contains(&key(2)));
        // Remembered again, a key is the newest: the next one pushes out 3.
        remember_in(&mut keys, key(2));
        remember_in(&mut keys, key(0));
        assert!(keys.contains(&key(2)));
        assert!(!keys.contains(&key(3)));
        assert_eq!(keys.len(), REMEMBERED_KEYS);
    }
}
