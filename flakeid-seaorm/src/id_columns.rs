//! Which columns of an entity hold IDs, and of which ID type: [`IdColumns`],
//! which `#[flake_id]` implements for a model from its fields' types.
//!
//! SeaORM's column definitions do not say it: an ID column is a `BIGINT`
//! like any `i64` column. Integrations that must treat IDs apart (a
//! GraphQL schema writing them as strings, see the `seaography` feature)
//! read it here.

use flakeid_core::FlakeId;
use sea_orm::{EntityTrait, IdenStatic, Iterable};

/// The columns of an entity that hold IDs: its key and its foreign keys of
/// an ID type, `NOT NULL` or nullable (`Option<PostId>`).
///
/// `#[flake_id]` on a model implements it from the model's fields: each
/// field whose type is an ID type or an `Option` of one is reported with
/// that type. Implement it by hand for an entity without the attribute,
/// such as a junction table keyed by two foreign keys:
///
/// ```
/// use flakeid_seaorm::{flake_id, IdColumnVisitor, IdColumns};
///
/// #[flake_id] pub struct PostId(i64);
/// #[flake_id] pub struct TagId(i64);
///
/// mod post {
///     use sea_orm::entity::prelude::*;
///
///     #[flakeid_seaorm::flake_id]
///     #[sea_orm::model]
///     #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
///     #[sea_orm(table_name = "posts")]
///     pub struct Model {
///         #[sea_orm(primary_key)]
///         pub id: super::PostId,
///         pub pinned_tag_id: Option<super::TagId>,
///         pub views: i64,
///     }
/// }
///
/// mod tag {
///     use sea_orm::entity::prelude::*;
///
///     #[flakeid_seaorm::flake_id]
///     #[sea_orm::model]
///     #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
///     #[sea_orm(table_name = "tags")]
///     pub struct Model {
///         #[sea_orm(primary_key)]
///         pub id: super::TagId,
///         pub label: String,
///     }
/// }
///
/// mod post_tag {
///     use sea_orm::entity::prelude::*;
///
///     #[sea_orm::model]
///     #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
///     #[sea_orm(table_name = "post_tags")]
///     pub struct Model {
///         #[sea_orm(primary_key, auto_increment = false)]
///         pub post_id: super::PostId,
///         #[sea_orm(primary_key, auto_increment = false)]
///         pub tag_id: super::TagId,
///     }
///
///     impl ActiveModelBehavior for ActiveModel {}
///
///     impl flakeid_seaorm::IdColumns for Entity {
///         fn visit_id_columns<V: flakeid_seaorm::IdColumnVisitor<Self>>(visitor: &mut V) {
///             visitor.column::<super::PostId>(Column::PostId);
///             visitor.column::<super::TagId>(Column::TagId);
///         }
///     }
/// }
///
/// /// Names each ID column with its ID type.
/// struct Names(Vec<String>);
///
/// impl<E: sea_orm::EntityTrait> IdColumnVisitor<E> for Names {
///     fn column<I: flakeid_seaorm::FlakeId>(&mut self, column: E::Column) {
///         self.0.push(format!("{} {}", sea_orm::IdenStatic::as_str(&column), I::NAME));
///     }
/// }
///
/// # fn main() {
/// let mut names = Names(Vec::new());
/// post::Entity::visit_id_columns(&mut names);
/// post_tag::Entity::visit_id_columns(&mut names);
/// assert_eq!(names.0, ["id PostId", "pinned_tag_id TagId", "post_id PostId", "tag_id TagId"]);
/// # }
/// ```
pub trait IdColumns: EntityTrait {
    /// Calls [`IdColumnVisitor::column`] once for each column holding IDs,
    /// in the order of the model's fields.
    fn visit_id_columns<V: IdColumnVisitor<Self>>(visitor: &mut V);
}

/// What [`IdColumns::visit_id_columns`] reports each ID column of `E` to.
pub trait IdColumnVisitor<E: EntityTrait> {
    /// `column` holds IDs of type `I` (nullable or not: the column's
    /// definition says which).
    fn column<I: FlakeId>(&mut self, column: E::Column);
}

/// How the `IdColumns` impl that `#[flake_id]` writes tells ID fields from
/// the others: for a field of type `T` it calls
/// `(&&&Probe::<T>::new()).visit::<Entity, V>(visitor, "column")`, and
/// method resolution picks the first trait below whose impl applies (`T`
/// an ID type, `T` an `Option` of one, anything else), the most references
/// first. The column is looked up by the name SeaORM gives it; a field that
/// is no column (`#[sea_orm(ignore)]`) is skipped.
#[doc(hidden)]
pub mod probe {
    use std::marker::PhantomData;

    use super::{EntityTrait, FlakeId, IdColumnVisitor, IdenStatic, Iterable};

    /// A field's type, for method resolution.
    pub struct Probe<T>(PhantomData<fn() -> T>);

    impl<T> Probe<T> {
        /// The probe of `T`.
        #[allow(clippy::new_without_default)]
        pub fn new() -> Self {
            Probe(PhantomData)
        }
    }

    /// A field of an ID type.
    pub trait Id {
        /// Reports the column `name` as holding this ID type.
        fn visit<E: EntityTrait, V: IdColumnVisitor<E>>(&self, visitor: &mut V, name: &str);
    }

    impl<T: FlakeId> Id for &&Probe<T> {
        fn visit<E: EntityTrait, V: IdColumnVisitor<E>>(&self, visitor: &mut V, name: &str) {
            if let Some(column) = column::<E>(name) {
                visitor.column::<T>(column);
            }
        }
    }

    /// A field of an `Option` of an ID type.
    pub trait NullableId {
        /// Reports the column `name` as holding this ID type.
        fn visit<E: EntityTrait, V: IdColumnVisitor<E>>(&self, visitor: &mut V, name: &str);
    }

    impl<T: FlakeId> NullableId for &Probe<Option<T>> {
        fn visit<E: EntityTrait, V: IdColumnVisitor<E>>(&self, visitor: &mut V, name: &str) {
            if let Some(column) = column::<E>(name) {
                visitor.column::<T>(column);
            }
        }
    }

    /// Any other field.
    pub trait NotId {
        /// Reports nothing.
        fn visit<E: EntityTrait, V: IdColumnVisitor<E>>(&self, visitor: &mut V, name: &str);
    }

    impl<T> NotId for Probe<T> {
        fn visit<E: EntityTrait, V: IdColumnVisitor<E>>(&self, _: &mut V, _: &str) {}
    }

    fn column<E: EntityTrait>(name: &str) -> Option<E::Column> {
        E::Column::iter().find(|column| column.as_str() == name)
    }
}
