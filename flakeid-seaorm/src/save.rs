//! What `save` does with a flake key, and the keys it must insert rather
//! than update.
//!
//! SeaORM's `save` inserts a row whose key is `NotSet` and updates one
//! whose key is set, so a key given in memory by
//! [`assign_id`](crate::FlakeActiveModel::assign_id) would make it
//! `UPDATE` a row that does not exist. The `before_save` hook that
//! `#[flake_id]` writes (see
//! [`before_save_key`](crate::FlakeActiveModel::before_save_key)) tells the two apart: this
//! process remembers each key `assign_id` set until a hook sees its row
//! inserted, and when asked to update a row whose key is `Set` the hook
//! first looks the key up. If no row has it, a remembered key's row is
//! inserted there and then (and the update that follows finds nothing
//! left to change); any other key is refused with
//! [`Error::KeyNotStored`] rather than updating nothing.

use std::any::TypeId;
use std::collections::{BTreeMap, HashMap};
use std::sync::{LazyLock, Mutex, PoisonError};

use flakeid_core::FlakeId;
use sea_orm::ActiveModelTrait;

/// How many keys set by `assign_id` and not stored yet this process
/// remembers at most; past that, the oldest is forgotten (a row whose key
/// was forgotten is refused by `save` with
/// [`Error::KeyNotStored`](crate::Error::KeyNotStored); its `insert` still
/// works).
pub const REMEMBERED_KEYS: usize = 65_536;

/// Remembers that `assign_id` set `id` as the key of a row of `A`'s table
/// that is not stored yet.
pub(crate) fn remember<A: ActiveModelTrait>(id: impl FlakeId) {
    let mut keys = KEYS.lock().unwrap_or_else(PoisonError::into_inner);
    keys.insert((TypeId::of::<A::Entity>(), id.get()));
}

/// Forgets `id`; whether it was remembered.
pub(crate) fn forget<A: ActiveModelTrait>(id: impl FlakeId) -> bool {
    let mut keys = KEYS.lock().unwrap_or_else(PoisonError::into_inner);
    keys.remove(&(TypeId::of::<A::Entity>(), id.get()))
}

type Key = (TypeId, i64);

/// The remembered keys, oldest first.
#[derive(Default)]
struct Remembered {
    age: HashMap<Key, u64>,
    by_age: BTreeMap<u64, Key>,
    next: u64,
}

static KEYS: LazyLock<Mutex<Remembered>> = LazyLock::new(Mutex::default);

impl Remembered {
    fn insert(&mut self, key: Key) {
        if self.age.contains_key(&key) {
            return;
        }
        if self.age.len() >= REMEMBERED_KEYS
            && let Some((_, oldest)) = self.by_age.pop_first()
        {
            self.age.remove(&oldest);
        }
        self.age.insert(key, self.next);
        self.by_age.insert(self.next, key);
        self.next += 1;
    }

    fn remove(&mut self, key: &Key) -> bool {
        match self.age.remove(key) {
            Some(age) => {
                self.by_age.remove(&age);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_key_is_forgotten_past_the_limit() {
        struct A;
        let key = |n: i64| (TypeId::of::<A>(), n);
        let mut keys = Remembered::default();
        for n in 1..=i64::try_from(REMEMBERED_KEYS).unwrap() + 1 {
            keys.insert(key(n));
        }
        assert_eq!(keys.age.len(), REMEMBERED_KEYS);
        assert!(!keys.remove(&key(1)), "the oldest is forgotten");
        assert!(keys.remove(&key(2)));
        assert!(!keys.remove(&key(2)), "a key is forgotten once");
        keys.insert(key(0));
        assert!(keys.remove(&key(0)));
    }
}
