//! Rows by the time their key records: `column BETWEEN lo AND hi` on an ID
//! column; see [`IssuedIn`].

use std::ops::RangeBounds;
use std::time::SystemTime;

use flakeid_core::FlakeId;
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, Value};

use crate::Error;

/// A condition on an ID column selecting the IDs issued in a range of
/// times: `column BETWEEN lo AND hi` with the bounds of
/// [`FlakeId::time_bounds`]. On the primary key it runs as a range scan of
/// the key's index, so "rows created between `t0` and `t1`" needs no
/// `created_at` column or index. Works on foreign-key columns of an ID type
/// too (`comment::Column::PostId`).
///
/// Implemented for every SeaORM column; name the ID type the column holds:
/// `post::Column::Id.issued_in::<PostId>(t0..t1)?`. The bounds are exact for
/// ranges whose ends fall on the layout's tick edges (every millisecond for
/// 1 ms layouts); see [`FlakeId::time_bounds`] for the rules.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use flakeid_seaorm::{flake_id, IssuedIn};
/// use sea_orm::{DbBackend, EntityTrait, QueryFilter, QueryTrait};
///
/// #[flake_id]
/// pub struct PostId(i64);
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
///         pub title: String,
///     }
/// }
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1_750_000_000);
/// let last_hour = post::Entity::find()
///     .filter(post::Column::Id.issued_in::<PostId>(t0..t0 + Duration::from_secs(3600))?);
/// let (lo, hi) = PostId::time_bounds(t0..t0 + Duration::from_secs(3600))?.into_inner();
/// assert_eq!(
///     last_hour.build(DbBackend::Postgres).to_string(),
///     format!(
///         r#"SELECT "posts"."id", "posts"."title" FROM "posts" WHERE "posts"."id" BETWEEN {lo} AND {hi}"#
///     )
/// );
/// # Ok(()) }
/// ```
pub trait IssuedIn: ColumnTrait {
    /// `self BETWEEN lo AND hi` for the IDs of type `I` whose time lies in
    /// `range` (`t0..t1`, `t0..=t1`, `t0..`, `..t1`).
    ///
    /// # Errors
    /// [`Error::TimeBounds`]: `I`'s scheme records no time, or the range
    /// is empty or outside the layout's time. It converts into
    /// [`DbErr`](sea_orm::DbErr), so `?` works in functions returning SeaORM's
    /// errors.
    // The crate's one error type, as every function of the crate returns
    // it; a filter is built once per query.
    #[allow(clippy::result_large_err)]
    fn issued_in<I>(&self, range: impl RangeBounds<SystemTime>) -> Result<Expr, Error>
    where
        I: FlakeId + Into<Value>,
    {
        let (lo, hi) = I::time_bounds(range)
            .map_err(|source| Error::TimeBounds {
                id_type: I::NAME,
                source,
            })?
            .into_inner();
        Ok(self.between(lo, hi))
    }
}

impl<C: ColumnTrait> IssuedIn for C {}
