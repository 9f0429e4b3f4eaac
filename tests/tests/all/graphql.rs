//! ID types in a real async-graphql schema served by axum, stored in
//! PostgreSQL and read by a JavaScript client (node, `tests/js/graphql_client.js`):
//! a mutation and queries with IDs above 2^53, bad IDs refused with GraphQL
//! errors naming the value, and keyset pagination through a `Connection`
//! whose cursor is the ID. What the database stored is read with plain SQL.

use std::process::Command;

use async_graphql::connection::{Connection, Edge, query};
use async_graphql::{Context, EmptySubscription, Executor, ID, Object, Schema, SimpleObject};
use axum::Json;
use axum::extract::State;
use axum::routing::post;
use flakeid_core::{FlakeId, flake_id};
use flakeid_tests::db;
use serde_json::Value;
use sqlx::postgres::PgPool;

use crate::support::init_generator;

/// A user's key: Twitter's layout, so generated IDs are far above 2^53.
#[flake_id]
pub(crate) struct GqlUserId(i64);

/// The smallest integer JavaScript's `Number` cannot hold exactly.
const ABOVE_2_53: i64 = (1 << 53) + 1;

#[derive(SimpleObject)]
struct User {
    id: GqlUserId,
    name: String,
}

impl From<(GqlUserId, String)> for User {
    fn from((id, name): (GqlUserId, String)) -> Self {
        User { id, name }
    }
}

struct QueryRoot;

#[Object]
impl QueryRoot {
    /// The user with this ID, if any.
    async fn user(&self, ctx: &Context<'_>, id: GqlUserId) -> async_graphql::Result<Option<User>> {
        let row: Option<(GqlUserId, String)> =
            sqlx::query_as("SELECT id, name FROM gql_users WHERE id = $1")
                .bind(id)
                .fetch_optional(ctx.data::<PgPool>()?)
                .await?;
        Ok(row.map(User::from))
    }

    /// The same, for a schema that must take the built-in `ID`.
    async fn node(&self, ctx: &Context<'_>, id: ID) -> async_graphql::Result<Option<User>> {
        self.user(ctx, GqlUserId::try_from(id)?).await
    }

    /// Users in key order, `first` at a time after the cursor `after`.
    async fn users(
        &self,
        ctx: &Context<'_>,
        after: Option<String>,
        first: Option<i32>,
    ) -> async_graphql::Result<Connection<GqlUserId, User>> {
        let pool = ctx.data::<PgPool>()?;
        query(
            after,
            None,
            first,
            None,
            |after: Option<GqlUserId>, _: Option<GqlUserId>, first, _| async move {
                let first = first.unwrap_or(10);
                let limit = i64::try_from(first + 1)?;
                let rows: Vec<(GqlUserId, String)> = sqlx::query_as(
                    "SELECT id, name FROM gql_users WHERE id > $1 ORDER BY id LIMIT $2",
                )
                .bind(after.map_or(0, GqlUserId::get))
                .bind(limit)
                .fetch_all(pool)
                .await?;
                let mut connection = Connection::new(after.is_some(), rows.len() > first);
                connection.edges.extend(
                    rows.into_iter()
                        .take(first)
                        .map(|(id, name)| Edge::new(id, User { id, name })),
                );
                Ok::<_, async_graphql::Error>(connection)
            },
        )
        .await
    }
}

struct MutationRoot;

#[Object]
impl MutationRoot {
    /// Stores a user under `id`, or under a fresh ID when none is given.
    async fn create_user(
        &self,
        ctx: &Context<'_>,
        name: String,
        id: Option<GqlUserId>,
    ) -> async_graphql::Result<User> {
        let id = match id {
            Some(id) => id,
            None => GqlUserId::generate_async().await?,
        };
        let row: (GqlUserId, String) =
            sqlx::query_as("INSERT INTO gql_users (id, name) VALUES ($1, $2) RETURNING id, name")
                .bind(id)
                .bind(name)
                .fetch_one(ctx.data::<PgPool>()?)
                .await?;
        Ok(User::from(row))
    }
}

/// Serves `schema` at `/graphql` on a local port, runs the JavaScript
/// client `script` (a file of `tests/js`) with the endpoint's URL and
/// `args`, stops the server, and returns what the client printed, as JSON.
/// A failing client fails the test with its standard error.
pub(crate) async fn run_client<E: Executor>(schema: E, script: &str, args: &[String]) -> Value {
    async fn graphql<E: Executor>(
        State(schema): State<E>,
        Json(request): Json<async_graphql::Request>,
    ) -> Json<async_graphql::Response> {
        Json(schema.execute(request).await)
    }
    let app = axum::Router::new()
        .route("/graphql", post(graphql::<E>))
        .with_state(schema);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/graphql", listener.local_addr().expect("address"));
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let script = format!("{}/js/{script}", env!("CARGO_MANIFEST_DIR"));
    let args = args.to_vec();
    let out = tokio::task::spawn_blocking(move || {
        Command::new("node")
            .arg(script)
            .arg(url)
            .args(args)
            .output()
            .expect("`node` must be installed to run the GraphQL client")
    })
    .await
    .expect("node finished");
    server.abort();
    assert!(
        out.status.success(),
        "the client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the client's JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn javascript_client_sees_stored_ids_and_pages_by_id() {
    init_generator();
    let db = db::postgres().await;
    let pool = PgPool::connect(db.url()).await.expect("connect");
    sqlx::query("CREATE TABLE gql_users (id BIGINT PRIMARY KEY, name TEXT NOT NULL)")
        .execute(&pool)
        .await
        .expect("create table");

    let schema = Schema::build(QueryRoot, MutationRoot, EmptySubscription)
        .data(pool.clone())
        .finish();
    assert!(
        schema.sdl().contains("scalar GqlUserId"),
        "{}",
        schema.sdl()
    );
    let seen = run_client(schema, "graphql_client.js", &[ABOVE_2_53.to_string()]).await;

    // Every ID the client saw is one the database stored, as the same digits.
    let stored: Vec<String> =
        sqlx::query_scalar("SELECT id::text FROM gql_users ORDER BY gql_users.id")
            .fetch_all(&pool)
            .await
            .expect("stored IDs");
    assert_eq!(stored.len(), 6, "{seen}");
    assert!(stored.contains(&ABOVE_2_53.to_string()));
    let mut created: Vec<String> =
        serde_json::from_value(seen["created"].clone()).expect("created");
    created.sort_by_key(|id| id.parse::<i64>().expect("digits"));
    assert_eq!(created, stored);
    assert!(
        stored
            .iter()
            .all(|id| id.parse::<i64>().expect("digits") > 1 << 53),
        "{stored:?}"
    );
    let fetched: Vec<String> = serde_json::from_value(seen["fetched"].clone()).expect("fetched");
    assert_eq!(fetched.len(), 2 * stored.len());
    // Pages of two walk every row once, in key order.
    let walked: Vec<String> = serde_json::from_value(seen["walked"].clone()).expect("walked");
    assert_eq!(walked, stored);
    assert_eq!(seen["pages"], 3);

    // Bad IDs are GraphQL errors naming the value.
    let errors = seen["errors"].as_object().expect("errors by input");
    for (input, expected) in [
        ("\"0\"", "0 is not a valid GqlUserId: IDs start at 1"),
        ("\"-5\"", "\"-5\""),
        ("\"12abc\"", "\"12abc\""),
        ("\"99999999999999999999\"", "99999999999999999999"),
        ("1.5", "1.5"),
        // A float is read as a 64-bit float before the scalar sees it: the
        // error names the value as read, the nearest double above 2^53.
        ("9007199254740993.0", "floating point `9007199254740994.0`"),
        ("-5", "-5 is not a valid GqlUserId: IDs are positive"),
        ("cursor", "not a valid GqlUserId"),
        ("node", "\"x1\""),
    ] {
        let message = errors[input]
            .as_str()
            .unwrap_or_else(|| panic!("no error for {input}: {seen}"));
        assert!(message.contains(expected), "{input}: {message}");
    }
    assert!(
        errors["cursor"].as_str().is_some_and(|m| m.contains("abc")),
        "{seen}"
    );
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM gql_users")
        .fetch_one(&pool)
        .await
        .expect("count");
    assert_eq!(count, 6, "a refused ID stored nothing");
}

/// A user's key with a type prefix: `usr_…` in decimal.
#[flake_id(prefix = "usr")]
pub(crate) struct PfxUserId(i64);

/// An order's key with a type prefix: `ord_…` in base62, which sorts like
/// the keys (Twitter's layout: generated keys are far above 2^53).
#[flake_id(prefix = "ord", text = base62)]
pub(crate) struct PfxOrderId(i64);

#[derive(SimpleObject)]
struct Order {
    id: PfxOrderId,
    user_id: PfxUserId,
}

struct PrefixedQuery;

#[Object]
impl PrefixedQuery {
    /// The order with this ID, if any.
    async fn order(
        &self,
        ctx: &Context<'_>,
        id: PfxOrderId,
    ) -> async_graphql::Result<Option<Order>> {
        let row: Option<(PfxOrderId, PfxUserId)> =
            sqlx::query_as("SELECT id, user_id FROM gql_orders WHERE id = $1")
                .bind(id)
                .fetch_optional(ctx.data::<PgPool>()?)
                .await?;
        Ok(row.map(|(id, user_id)| Order { id, user_id }))
    }

    /// Orders in key order, `first` at a time after the cursor `after`.
    async fn orders(
        &self,
        ctx: &Context<'_>,
        after: Option<String>,
        first: Option<i32>,
    ) -> async_graphql::Result<Connection<PfxOrderId, Order>> {
        let pool = ctx.data::<PgPool>()?;
        query(
            after,
            None,
            first,
            None,
            |after: Option<PfxOrderId>, _: Option<PfxOrderId>, first, _| async move {
                let first = first.unwrap_or(10);
                let limit = i64::try_from(first + 1)?;
                let rows: Vec<(PfxOrderId, PfxUserId)> = sqlx::query_as(
                    "SELECT id, user_id FROM gql_orders WHERE id > $1 ORDER BY id LIMIT $2",
                )
                .bind(after.map_or(0, PfxOrderId::get))
                .bind(limit)
                .fetch_all(pool)
                .await?;
                let mut connection = Connection::new(after.is_some(), rows.len() > first);
                connection.edges.extend(
                    rows.into_iter()
                        .take(first)
                        .map(|(id, user_id)| Edge::new(id, Order { id, user_id })),
                );
                Ok::<_, async_graphql::Error>(connection)
            },
        )
        .await
    }
}

struct PrefixedMutation;

#[Object]
impl PrefixedMutation {
    /// Stores an order of `user_id` under a fresh ID.
    async fn create_order(
        &self,
        ctx: &Context<'_>,
        user_id: PfxUserId,
    ) -> async_graphql::Result<Order> {
        let id = PfxOrderId::generate_async().await?;
        let (id, user_id): (PfxOrderId, PfxUserId) = sqlx::query_as(
            "INSERT INTO gql_orders (id, user_id) VALUES ($1, $2) RETURNING id, user_id",
        )
        .bind(id)
        .bind(user_id)
        .fetch_one(ctx.data::<PgPool>()?)
        .await?;
        Ok(Order { id, user_id })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn javascript_client_round_trips_prefixed_ids_and_refuses_another_types() {
    init_generator();
    let db = db::postgres().await;
    let pool = PgPool::connect(db.url()).await.expect("connect");
    sqlx::query("CREATE TABLE gql_orders (id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL)")
        .execute(&pool)
        .await
        .expect("create table");

    let schema = Schema::build(PrefixedQuery, PrefixedMutation, EmptySubscription)
        .data(pool.clone())
        .finish();
    let sdl = schema.sdl();
    assert!(sdl.contains("scalar PfxOrderId"), "{sdl}");
    assert!(
        sdl.contains("`ord_` and 11 base62 characters (0-9A-Za-z), which sort like the IDs"),
        "{sdl}"
    );
    let user = PfxUserId::try_from(ABOVE_2_53).expect("an ID");
    let seen = run_client(schema, "graphql_prefixed_client.js", &[user.to_string()]).await;

    // The database stored bare keys; the client saw each as `ord_` and its
    // base62, and the user's key exactly.
    let stored: Vec<(i64, i64)> = sqlx::query_as("SELECT id, user_id FROM gql_orders ORDER BY id")
        .fetch_all(&pool)
        .await
        .expect("stored rows");
    assert_eq!(stored.len(), 5, "{seen}");
    assert!(
        stored
            .iter()
            .all(|&(id, user_id)| id > 1 << 53 && user_id == ABOVE_2_53)
    );
    let as_text: Vec<String> = stored
        .iter()
        .map(|&(id, _)| {
            format!(
                "ord_{}",
                PfxOrderId::try_from(id).expect("an ID").to_base62()
            )
        })
        .collect();
    let mut created: Vec<String> =
        serde_json::from_value(seen["created"].clone()).expect("created");
    created.sort();
    assert_eq!(created, as_text, "string order is key order");
    let fetched: Vec<String> = serde_json::from_value(seen["fetched"].clone()).expect("fetched");
    assert_eq!(fetched.len(), 5);
    let walked: Vec<String> = serde_json::from_value(seen["walked"].clone()).expect("walked");
    assert_eq!(walked, as_text);
    assert_eq!(seen["pages"], 3);

    // Another type's ID, a bare key or a bare base62 is refused, naming
    // the value and the expected prefix.
    let errors = &seen["errors"];
    let user_text = user.to_string();
    for (case, expected) in [
        (
            "user_as_order",
            format!("\"{user_text}\" is not a PfxOrderId: expected prefix ord_"),
        ),
        (
            "order_as_user",
            format!(
                "\"{}\" is not a PfxUserId: expected prefix usr_",
                created_first(&seen)
            ),
        ),
        (
            "bare_key",
            "\"9007199254740993\" is not a PfxOrderId: expected prefix ord_".to_owned(),
        ),
        ("bare_base62", "expected prefix ord_".to_owned()),
        (
            "cursor",
            format!("\"{user_text}\" is not a PfxOrderId: expected prefix ord_"),
        ),
    ] {
        let message = errors[case]
            .as_str()
            .unwrap_or_else(|| panic!("no error for {case}: {seen}"));
        assert!(message.contains(&expected), "{case}: {message}");
    }
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM gql_orders")
        .fetch_one(&pool)
        .await
        .expect("count");
    assert_eq!(count, 5, "a refused ID stored nothing");
}

/// The first order the client created: the ID it sent as a user's.
fn created_first(seen: &serde_json::Value) -> String {
    seen["created"][0].as_str().expect("an order ID").to_owned()
}
