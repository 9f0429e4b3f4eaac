//! ID types in async-graphql (feature `async-graphql`): a scalar of their
//! own, `ID` conversions and connection cursors.
//!
//! Every `#[flake_id]` type becomes a **custom scalar named after the type**
//! (`scalar UserId`), described as a string of decimal digits (the
//! [`interop`](super) description). It is written as a **string** in
//! responses, so JavaScript clients never round it, and read with serde's
//! rules (see [`interop::serde`](super)): from the canonical decimal string
//! or from an integer (GraphQL variables are JSON, and serde accepts
//! integers too), never from a float, a negative number, `0`, a value above
//! the type's largest ID, or a string with signs, spaces, leading zeros or
//! other characters. A refused value is a GraphQL error that names it, e.g.
//! `Failed to parse "UserId": 0 is not a valid UserId: IDs start at 1`.
//!
//! Each type has its own scalar rather than the built-in `ID`, so that a
//! schema says which kind of ID a field holds and a `UserId` argument
//! refuses what is not one before a resolver runs. Where a schema must use
//! `ID` (Relay's `Node.id`, an existing contract), the type converts:
//! `async_graphql::ID::from(user_id)` (async-graphql's own conversion of
//! every `Display` type: the decimal string) and `UserId::try_from(id)`
//! (`FromStr`'s rules; an [`IdError`](crate::IdError) naming the value).
//!
//! The type is also a [`CursorType`](::async_graphql::connection::CursorType):
//! its cursor is its decimal string, so a
//! [`Connection`](::async_graphql::connection::Connection) keyed by the ID
//! pages by key (`WHERE id > $after ORDER BY id`), and a cursor that is not
//! an ID is an error naming it.
//!
//! ```
//! use async_graphql::connection::{Connection, Edge, query};
//! use async_graphql::{EmptyMutation, EmptySubscription, Object, Schema};
//! use flakeid_core::flake_id;
//!
//! #[flake_id]
//! pub struct UserId(i64);
//!
//! struct Query;
//!
//! #[Object]
//! impl Query {
//!     async fn user(&self, id: UserId) -> UserId {
//!         id
//!     }
//!
//!     async fn users(
//!         &self,
//!         after: Option<String>,
//!         first: Option<i32>,
//!     ) -> async_graphql::Result<Connection<UserId, UserId>> {
//!         query(after, None, first, None, |after: Option<UserId>, _: Option<UserId>, first, _| async move {
//!             // SELECT id FROM users WHERE id > $after ORDER BY id LIMIT $first + 1
//!             let after = after.map_or(0, |id| id.get());
//!             let ids: Vec<i64> = (1..=3).map(|n| n << 40).filter(|&id| id > after).collect();
//!             let page = first.unwrap_or(10);
//!             let mut connection = Connection::new(false, ids.len() > page);
//!             for id in ids.into_iter().take(page) {
//!                 let id = UserId::try_from(id)?;
//!                 connection.edges.push(Edge::new(id, id));
//!             }
//!             Ok::<_, async_graphql::Error>(connection)
//!         })
//!         .await
//!     }
//! }
//!
//! # tokio_test_block_on(async {
//! let schema = Schema::new(Query, EmptyMutation, EmptySubscription);
//! let res = schema.execute(r#"{ user(id: "9007199254740993") }"#).await;
//! assert_eq!(res.data.into_json()?["user"], "9007199254740993");
//!
//! let res = schema.execute(r#"{ user(id: "0") }"#).await;
//! assert_eq!(
//!     res.errors[0].message,
//!     r#"Failed to parse "UserId": 0 is not a valid UserId: IDs start at 1"#
//! );
//!
//! let res = schema.execute(r#"{ users(after: "1099511627776", first: 1) { edges { cursor node } pageInfo { hasNextPage } } }"#).await;
//! let page = res.data.into_json()?;
//! assert_eq!(page["users"]["edges"][0]["cursor"], "2199023255552");
//! assert_eq!(page["users"]["pageInfo"]["hasNextPage"], true);
//! assert!(schema.sdl().contains("scalar UserId"));
//! # Ok::<(), serde_json::Error>(())
//! # })?;
//! # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
//! # }
//! # Ok::<(), serde_json::Error>(())
//! ```

/// An async-graphql scalar named after the ID type, `TryFrom<async_graphql::ID>`
/// and `CursorType`; `#[flake_id]` calls it as
/// `__private::impl_async_graphql!(Type)`.
#[doc(hidden)]
#[macro_export]
macro_rules! __flakeid_core_impl_async_graphql {
    ($id:ty) => {
        // `ScalarType` (through serde, see `interop::serde`), `InputType` and
        // `OutputType` as async-graphql's own `scalar!` writes them.
        $crate::__private::async_graphql::scalar_internal!(
            $id,
            <$id as $crate::FlakeId>::NAME,
            ::core::option::Option::Some($crate::__private::api_description::<$id>()),
            ::core::option::Option::None
        );

        impl ::core::convert::TryFrom<$crate::__private::async_graphql::ID> for $id {
            type Error = $crate::IdError;

            fn try_from(
                id: $crate::__private::async_graphql::ID,
            ) -> ::core::result::Result<Self, $crate::IdError> {
                ::core::str::FromStr::from_str(&id.0)
            }
        }

        impl $crate::__private::async_graphql::connection::CursorType for $id {
            type Error = $crate::IdError;

            fn decode_cursor(s: &str) -> ::core::result::Result<Self, $crate::IdError> {
                ::core::str::FromStr::from_str(s)
            }

            fn encode_cursor(&self) -> ::std::string::String {
                ::std::string::ToString::to_string(self)
            }
        }
    };
}
