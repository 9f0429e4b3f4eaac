//! `impl_id!`: the Diesel impls `#[flake_id]` emits for an ID type.
//!
//! They are generated in the user's crate (the orphan rule forbids
//! implementing Diesel's traits for the ID type here), so any `cfg` written
//! inside an exported macro would be evaluated against the user's features.
//! Hence the impls are generic over the backend (`DB: Backend` where the
//! primitive already has the impl), and the one MySQL-only SQL type goes
//! through a helper macro whose body is chosen by this crate's `mysql`
//! feature. Values and expressions delegate to the primitive's, so no
//! Diesel internals are named; each impl is written once, for `BigInt` and
//! `Unsigned<BigInt>` alike.

/// Diesel column impls for an ID type declared with `#[flake_id]`.
#[macro_export]
#[doc(hidden)]
macro_rules! __flakeid_diesel_impl_id {
    ($id:ty) => {
        $crate::__flakeid_diesel_impl_column!(
            $id,
            $crate::__private::diesel::sql_types::BigInt,
            i64,
            |v| v,
            $crate::__private::from_i64
        );

        impl<__ST, __DB> $crate::__private::diesel::deserialize::Queryable<__ST, __DB> for $id
        where
            __DB: $crate::__private::diesel::backend::Backend,
            __ST: $crate::__private::diesel::sql_types::SingleValue,
            Self: $crate::__private::diesel::deserialize::FromSql<__ST, __DB>,
        {
            type Row = Self;

            fn build(row: Self) -> $crate::__private::diesel::deserialize::Result<Self> {
                ::core::result::Result::Ok(row)
            }
        }

        impl $crate::__private::DieselId for $id {}

        $crate::__flakeid_diesel_impl_mysql!($id);
    };
}

/// An ID type as a column of SQL type `$st`, stored as the primitive
/// `$prim`: `AsExpression` for `T`, `&T`, `&&T` and their `Nullable` forms
/// (as Diesel's `#[derive(AsExpression)]` emits them, delegating to the
/// primitive's expression of `|v| conv`), and `ToSql` / `FromSql` for `$st`
/// and `Nullable<$st>` on every backend whose `$prim` has them. A value is
/// written as the `i64` `BigInt` it is (the same bytes as the `u64` of an
/// `Unsigned<BigInt>`: IDs are positive) and read through `$prim`, checked
/// by `$from`.
#[macro_export]
#[doc(hidden)]
macro_rules! __flakeid_diesel_impl_column {
    ($id:ty, $st:ty, $prim:ty, |$v:ident| $conv:expr, $from:path) => {
        $crate::__flakeid_diesel_impl_column!(@exprs $id, $st, $prim, |$v| $conv);
        $crate::__flakeid_diesel_impl_column!(
            @exprs $id, $crate::__private::diesel::sql_types::Nullable<$st>, $prim, |$v| $conv
        );

        impl<__DB> $crate::__private::diesel::serialize::ToSql<$st, __DB> for $id
        where
            __DB: $crate::__private::diesel::backend::Backend,
            $prim: $crate::__private::diesel::serialize::ToSql<$st, __DB>,
            i64: $crate::__private::diesel::serialize::ToSql<
                    $crate::__private::diesel::sql_types::BigInt,
                    __DB,
                >,
        {
            fn to_sql<'__b>(
                &'__b self,
                out: &mut $crate::__private::diesel::serialize::Output<'__b, '_, __DB>,
            ) -> $crate::__private::diesel::serialize::Result {
                <i64 as $crate::__private::diesel::serialize::ToSql<
                    $crate::__private::diesel::sql_types::BigInt,
                    __DB,
                >>::to_sql(&self.0, out)
            }
        }

        impl<__DB> $crate::__private::diesel::serialize::ToSql<
                $crate::__private::diesel::sql_types::Nullable<$st>,
                __DB,
            > for $id
        where
            __DB: $crate::__private::diesel::backend::Backend,
            Self: $crate::__private::diesel::serialize::ToSql<$st, __DB>,
        {
            fn to_sql<'__b>(
                &'__b self,
                out: &mut $crate::__private::diesel::serialize::Output<'__b, '_, __DB>,
            ) -> $crate::__private::diesel::serialize::Result {
                <Self as $crate::__private::diesel::serialize::ToSql<$st, __DB>>::to_sql(self, out)
            }
        }

        impl<__DB> $crate::__private::diesel::deserialize::FromSql<$st, __DB> for $id
        where
            __DB: $crate::__private::diesel::backend::Backend,
            $prim: $crate::__private::diesel::deserialize::FromSql<$st, __DB>,
        {
            fn from_sql(
                bytes: <__DB as $crate::__private::diesel::backend::Backend>::RawValue<'_>,
            ) -> $crate::__private::diesel::deserialize::Result<Self> {
                $from(<$prim as $crate::__private::diesel::deserialize::FromSql<$st, __DB>>::from_sql(
                    bytes,
                )?)
            }
        }
    };
    (@exprs $id:ty, $st:ty, $prim:ty, |$v:ident| $conv:expr) => {
        $crate::__flakeid_diesel_impl_column!(@expr [] $id, $st, $prim, |$v| $conv);
        $crate::__flakeid_diesel_impl_column!(@expr ['__e] &'__e $id, $st, $prim, |$v| $conv);
        $crate::__flakeid_diesel_impl_column!(
            @expr ['__e, '__e2] &'__e2 &'__e $id, $st, $prim, |$v| $conv
        );
    };
    (@expr [$($lt:lifetime),*] $ty:ty, $st:ty, $prim:ty, |$v:ident| $conv:expr) => {
        impl<$($lt),*> $crate::__private::diesel::expression::AsExpression<$st> for $ty {
            type Expression =
                <$prim as $crate::__private::diesel::expression::AsExpression<$st>>::Expression;

            fn as_expression(self) -> Self::Expression {
                let $v: i64 = self.0;
                <$prim as $crate::__private::diesel::expression::AsExpression<$st>>::as_expression(
                    $conv,
                )
            }
        }
    };
}

/// MySQL's `BIGINT UNSIGNED` (`Unsigned<BigInt>`, read as `u64`).
#[cfg(feature = "mysql")]
#[macro_export]
#[doc(hidden)]
macro_rules! __flakeid_diesel_impl_mysql {
    ($id:ty) => {
        $crate::__flakeid_diesel_impl_column!(
            $id,
            $crate::__private::diesel::sql_types::Unsigned<
                $crate::__private::diesel::sql_types::BigInt,
            >,
            u64,
            |v| $crate::__private::to_u64(v),
            $crate::__private::from_u64
        );
    };
}

/// Without the `mysql` feature there is no `Unsigned<BigInt>` to implement.
#[cfg(not(feature = "mysql"))]
#[macro_export]
#[doc(hidden)]
macro_rules! __flakeid_diesel_impl_mysql {
    ($id:ty) => {};
}
