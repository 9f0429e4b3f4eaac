//! `impl_id!`: the Diesel impls `#[flake_id]` emits for an ID type.
//!
//! They are generated in the user's crate (the orphan rule forbids
//! implementing Diesel's traits for the ID type here), so any `cfg` written
//! inside an exported macro would be evaluated against the user's features.
//! Hence the impls are generic over the backend (`DB: Backend` where `i64`
//! already has the impl), and the one MySQL-only impl set goes through a
//! helper macro whose body is chosen by this crate's `mysql` feature.
//! Expressions delegate to the `i64`'s, so no Diesel internals are named.

/// Diesel column impls for an ID type declared with `#[flake_id]`.
#[macro_export]
#[doc(hidden)]
macro_rules! __flakeid_diesel_impl_id {
    ($id:ty) => {
        $crate::__flakeid_diesel_impl_as_expression!(
            $id,
            $crate::__private::diesel::sql_types::BigInt,
            i64,
            |v| v
        );

        impl<__DB>
            $crate::__private::diesel::serialize::ToSql<
                $crate::__private::diesel::sql_types::BigInt,
                __DB,
            > for $id
        where
            __DB: $crate::__private::diesel::backend::Backend,
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

        impl<__DB>
            $crate::__private::diesel::deserialize::FromSql<
                $crate::__private::diesel::sql_types::BigInt,
                __DB,
            > for $id
        where
            __DB: $crate::__private::diesel::backend::Backend,
            i64: $crate::__private::diesel::deserialize::FromSql<
                    $crate::__private::diesel::sql_types::BigInt,
                    __DB,
                >,
        {
            fn from_sql(
                bytes: <__DB as $crate::__private::diesel::backend::Backend>::RawValue<'_>,
            ) -> $crate::__private::diesel::deserialize::Result<Self> {
                $crate::__private::from_i64(
                    <i64 as $crate::__private::diesel::deserialize::FromSql<
                        $crate::__private::diesel::sql_types::BigInt,
                        __DB,
                    >>::from_sql(bytes)?,
                )
            }
        }

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

/// `AsExpression` for `T`, `&T`, `&&T` and their `Nullable` forms, as
/// Diesel's `#[derive(AsExpression)]` emits them, delegating to the
/// primitive's expression.
#[macro_export]
#[doc(hidden)]
macro_rules! __flakeid_diesel_impl_as_expression {
    ($id:ty, $st:ty, $prim:ty, |$v:ident| $conv:expr) => {
        $crate::__flakeid_diesel_impl_as_expression!(@one $id, $st, $prim, |$v| $conv);
        $crate::__flakeid_diesel_impl_as_expression!(
            @one $id,
            $crate::__private::diesel::sql_types::Nullable<$st>,
            $prim,
            |$v| $conv
        );

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
    };
    (@one $id:ty, $st:ty, $prim:ty, |$v:ident| $conv:expr) => {
        impl $crate::__private::diesel::expression::AsExpression<$st> for $id {
            type Expression =
                <$prim as $crate::__private::diesel::expression::AsExpression<$st>>::Expression;

            fn as_expression(self) -> Self::Expression {
                let $v: i64 = self.0;
                <$prim as $crate::__private::diesel::expression::AsExpression<$st>>::as_expression(
                    $conv,
                )
            }
        }

        impl<'__e> $crate::__private::diesel::expression::AsExpression<$st> for &'__e $id {
            type Expression =
                <$prim as $crate::__private::diesel::expression::AsExpression<$st>>::Expression;

            fn as_expression(self) -> Self::Expression {
                let $v: i64 = self.0;
                <$prim as $crate::__private::diesel::expression::AsExpression<$st>>::as_expression(
                    $conv,
                )
            }
        }

        impl<'__e, '__e2> $crate::__private::diesel::expression::AsExpression<$st>
            for &'__e2 &'__e $id
        {
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

/// MySQL's `BIGINT UNSIGNED` (`Unsigned<BigInt>`, read and written as `u64`).
#[cfg(feature = "mysql")]
#[macro_export]
#[doc(hidden)]
macro_rules! __flakeid_diesel_impl_mysql {
    ($id:ty) => {
        $crate::__flakeid_diesel_impl_as_expression!(
            $id,
            $crate::__private::diesel::sql_types::Unsigned<
                $crate::__private::diesel::sql_types::BigInt,
            >,
            u64,
            |v| $crate::__private::to_u64(v)
        );

        impl $crate::__private::diesel::serialize::ToSql<
                $crate::__private::diesel::sql_types::Unsigned<
                    $crate::__private::diesel::sql_types::BigInt,
                >,
                $crate::__private::diesel::mysql::Mysql,
            > for $id
        {
            fn to_sql<'__b>(
                &'__b self,
                out: &mut $crate::__private::diesel::serialize::Output<
                    '__b,
                    '_,
                    $crate::__private::diesel::mysql::Mysql,
                >,
            ) -> $crate::__private::diesel::serialize::Result {
                <u64 as $crate::__private::diesel::serialize::ToSql<
                    $crate::__private::diesel::sql_types::Unsigned<
                        $crate::__private::diesel::sql_types::BigInt,
                    >,
                    $crate::__private::diesel::mysql::Mysql,
                >>::to_sql(&$crate::__private::to_u64(self.0), &mut out.reborrow())
            }
        }

        impl $crate::__private::diesel::deserialize::FromSql<
                $crate::__private::diesel::sql_types::Unsigned<
                    $crate::__private::diesel::sql_types::BigInt,
                >,
                $crate::__private::diesel::mysql::Mysql,
            > for $id
        {
            fn from_sql(
                bytes: <$crate::__private::diesel::mysql::Mysql as $crate::__private::diesel::backend::Backend>::RawValue<'_>,
            ) -> $crate::__private::diesel::deserialize::Result<Self> {
                $crate::__private::from_u64(<u64 as $crate::__private::diesel::deserialize::FromSql<
                    $crate::__private::diesel::sql_types::Unsigned<
                        $crate::__private::diesel::sql_types::BigInt,
                    >,
                    $crate::__private::diesel::mysql::Mysql,
                >>::from_sql(bytes)?)
            }
        }
    };
}

/// Without the `mysql` feature there is no `Unsigned<BigInt>` to implement.
#[cfg(not(feature = "mysql"))]
#[macro_export]
#[doc(hidden)]
macro_rules! __flakeid_diesel_impl_mysql {
    ($id:ty) => {};
}
