//! Rows by the time their key records: `column BETWEEN lo AND hi` on an ID
//! column; see [`IssuedIn`].

use std::ops::RangeBounds;
use std::time::SystemTime;

use diesel::dsl;
use diesel::expression::AsExpression;
use diesel::prelude::ExpressionMethods;
use diesel::sql_types::SqlType;
use flakeid_core::{FlakeId, TimeBoundsError};

/// An expression on an ID column selecting the IDs issued in a range of
/// times, for `.filter(...)`: `column BETWEEN lo AND hi` with the bounds of
/// [`FlakeId::time_bounds`]. On the primary key it runs as a range scan of
/// the key's index, so "rows created between `t0` and `t1`" needs no
/// `created_at` column or index. Works on any `BigInt` (or, on MySQL,
/// `Unsigned<BigInt>`) column of an ID type, nullable foreign keys
/// included, with sync Diesel and `diesel-async`.
///
/// Implemented for every Diesel expression; name the ID type the column
/// holds: `posts::id.issued_in::<PostId>(t0..t1)?`. The bounds are exact for
/// ranges whose ends fall on the layout's tick edges (every millisecond for
/// 1 ms layouts); see [`FlakeId::time_bounds`] for the rules.
///
/// ```
/// use std::time::{Duration, SystemTime};
/// use diesel::prelude::*;
/// use flakeid_diesel::{flake_id, IssuedIn};
///
/// #[flake_id]
/// pub struct PostId(i64);
///
/// diesel::table! {
///     posts (id) {
///         id -> BigInt,
///         title -> Text,
///     }
/// }
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use flakeid_diesel::flakeid_core::{global, Generator, layout::presets};
/// global::init(Generator::builder(presets::twitter(), 1))?;
/// let mut conn = SqliteConnection::establish(":memory:")?;
/// diesel::sql_query("CREATE TABLE posts (id BIGINT PRIMARY KEY NOT NULL CHECK (id > 0), title TEXT NOT NULL)")
///     .execute(&mut conn)?;
/// let started = SystemTime::now();
/// let id = PostId::generate()?;
/// diesel::insert_into(posts::table)
///     .values((posts::id.eq(id), posts::title.eq("hello")))
///     .execute(&mut conn)?;
///
/// let recent: Vec<PostId> = posts::table
///     .filter(posts::id.issued_in::<PostId>(started - Duration::from_secs(60)..)?)
///     .select(posts::id)
///     .load(&mut conn)?;
/// assert_eq!(recent, [id]);
/// let older: i64 = posts::table
///     .filter(posts::id.issued_in::<PostId>(..started - Duration::from_secs(60))?)
///     .count()
///     .get_result(&mut conn)?;
/// assert_eq!(older, 0);
/// # Ok(()) }
/// ```
pub trait IssuedIn: ExpressionMethods {
    /// `self BETWEEN lo AND hi` for the IDs of type `I` whose time lies in
    /// `range` (`t0..t1`, `t0..=t1`, `t0..`, `..t1`).
    ///
    /// # Errors
    /// [`TimeBoundsError`]: `I`'s scheme records no time, or the range is
    /// empty or outside the layout's time.
    fn issued_in<I>(
        self,
        range: impl RangeBounds<SystemTime>,
    ) -> Result<dsl::Between<Self, I, I>, TimeBoundsError>
    where
        Self::SqlType: SqlType,
        I: FlakeId + AsExpression<Self::SqlType>,
    {
        let (lo, hi) = I::time_bounds(range)?.into_inner();
        Ok(self.between(lo, hi))
    }
}

impl<E: ExpressionMethods> IssuedIn for E {}
