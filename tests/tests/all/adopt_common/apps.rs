//! Two applications on the adopted tables: SeaORM entities and Diesel
//! models whose keys are `#[flake_id]` types declaring the cut-over. Each
//! writes users, posts that reference old and new users, and comments that
//! reference old and new posts and users.

use flakeid_core::{FlakeId, flake_id};
use flakeid_tests::flake_entity;

use super::{CUT_OVER, Kind, Target};

/// The key of `users`; keys below the cut-over are from before the switch.
#[flake_id(seaorm, diesel, cut_over = CUT_OVER)]
pub struct UserId(i64);

/// The key of `posts`.
#[flake_id(seaorm, diesel, cut_over = CUT_OVER)]
pub struct PostId(i64);

/// The key of `comments`.
#[flake_id(seaorm, diesel, cut_over = CUT_OVER)]
pub struct CommentId(i64);

flake_entity!(pub mod user = "users", super::UserId { pub name: String, });
flake_entity! {
    pub mod post = "posts", super::PostId {
        pub user_id: super::UserId,
        pub title: String,
    }
}
flake_entity! {
    pub mod comment = "comments", super::CommentId {
        pub post_id: super::PostId,
        pub user_id: Option<super::UserId>,
        pub body: String,
    }
}

diesel::table! {
    users (id) {
        id -> BigInt,
        name -> Text,
    }
}

diesel::table! {
    posts (id) {
        id -> BigInt,
        user_id -> BigInt,
        title -> Text,
    }
}

diesel::table! {
    comments (id) {
        id -> BigInt,
        post_id -> BigInt,
        user_id -> Nullable<BigInt>,
        body -> Text,
    }
}

/// A `users` row to insert.
#[derive(diesel::Insertable)]
#[diesel(table_name = users)]
pub struct NewUser {
    pub id: UserId,
    pub name: String,
}

/// A `posts` row to insert.
#[derive(diesel::Insertable)]
#[diesel(table_name = posts)]
pub struct NewPost {
    pub id: PostId,
    pub user_id: UserId,
    pub title: String,
}

/// A `comments` row to insert.
#[derive(diesel::Insertable)]
#[diesel(table_name = comments)]
pub struct NewComment {
    pub id: CommentId,
    pub post_id: PostId,
    pub user_id: Option<UserId>,
    pub body: String,
}

/// What an app writes: `users`, `posts` and `comments` rows, in that order
/// (10,000 rows for 2,000 / 3,000 / 5,000). Posts reference old users
/// (keys 1..=`old_users`) and the app's new ones alternately; comments old
/// and new posts, and old, new or no users.
pub struct Rows {
    pub users: Vec<(UserId, String)>,
    pub posts: Vec<(PostId, UserId, String)>,
    pub comments: Vec<(CommentId, PostId, Option<UserId>, String)>,
}

impl Rows {
    pub fn new(
        app: &str,
        (users, posts, comments): (usize, usize, usize),
        old: (i64, i64),
    ) -> Rows {
        crate::support::init_generator();
        let user_ids = UserId::generate_many(users).expect("user keys");
        let post_ids = PostId::generate_many(posts).expect("post keys");
        let comment_ids = CommentId::generate_many(comments).expect("comment keys");
        let old_user =
            |i: usize| UserId::from_i64(1 + (i as i64 * 13) % old.0).expect("an old key");
        let old_post =
            |i: usize| PostId::from_i64(1 + (i as i64 * 17) % old.1).expect("an old key");
        Rows {
            users: numbered(&user_ids, |i, id| (id, format!("{app} user {i}"))),
            posts: numbered(&post_ids, |i, id| {
                let user = alternately(i, old_user, &user_ids);
                (id, user, format!("{app} post {i}"))
            }),
            comments: numbered(&comment_ids, |i, id| {
                let post = alternately(i, old_post, &post_ids);
                let user = match i % 3 {
                    0 => Some(old_user(i)),
                    1 => Some(user_ids[i % users]),
                    _ => None,
                };
                (id, post, user, format!("{app} comment {i}"))
            }),
        }
    }

    pub fn len(&self) -> usize {
        self.users.len() + self.posts.len() + self.comments.len()
    }
}

/// The SeaORM app: `insert_many_with_ids` in batches of 500.
pub async fn seaorm_app(target: &Target, rows: &Rows) {
    use flakeid_seaorm::FlakeEntity;
    use sea_orm::{EntityTrait, Set};
    let db = target.seaorm().await;
    /// Inserts `rows.$table` 500 at a time into the table of `$m`, each row
    /// made an active model by `$model`.
    macro_rules! in_batches {
        ($table:ident, $m:ident, $model:expr) => {
            for chunk in rows.$table.chunks(500) {
                $m::Entity::insert_many_with_ids(chunk.iter().map($model))
                    .await
                    .expect(stringify!($table))
                    .exec_without_returning(&db)
                    .await
                    .expect(concat!("SeaORM inserts ", stringify!($table)));
            }
        };
    }
    in_batches!(users, user, |(id, name)| user::ActiveModel {
        id: Set(*id),
        name: Set(name.clone()),
    });
    in_batches!(posts, post, |(id, user, title)| post::ActiveModel {
        id: Set(*id),
        user_id: Set(*user),
        title: Set(title.clone()),
    });
    in_batches!(comments, comment, |(id, post, user, body)| {
        comment::ActiveModel {
            id: Set(*id),
            post_id: Set(*post),
            user_id: Set(*user),
            body: Set(body.clone()),
        }
    });
    // The models read back: old keys and new keys alike.
    let first = user::Entity::find_by_id(UserId::from_i64(1).expect("key 1"))
        .one(&db)
        .await
        .expect("SeaORM reads an old user")
        .expect("user 1");
    assert_eq!(first.id.decode().before_cut_over, Some(CUT_OVER));
    let (new_id, _) = &rows.users[0];
    let new = user::Entity::find_by_id(*new_id)
        .one(&db)
        .await
        .expect("SeaORM reads a new user")
        .expect("the new user");
    assert!(new.id.decode().timestamp.is_some());
}

/// Inserts `$rows.$table` 500 at a time into `$table` on `$conn`, each
/// row made an insertable by `$row`.
macro_rules! diesel_batches {
    ($conn:expr, $rows:ident.$table:ident, $row:expr) => {
        for chunk in $rows.$table.chunks(500) {
            let batch: Vec<_> = chunk.iter().map($row).collect();
            diesel::insert_into($table::table)
                .values(batch)
                .execute($conn)
                .expect(concat!("Diesel inserts ", stringify!($table)));
        }
    };
}

/// Inserts `rows` through a Diesel connection of type `$conn`.
macro_rules! diesel_insert {
    ($conn:ty, $url:expr, $rows:expr) => {{
        use diesel::{Connection as _, RunQueryDsl as _};
        let rows: &Rows = $rows;
        let mut conn = <$conn>::establish($url).unwrap_or_else(|e| panic!("Diesel connects: {e}"));
        diesel_batches!(&mut conn, rows.users, |(id, name)| NewUser {
            id: *id,
            name: name.clone(),
        });
        diesel_batches!(&mut conn, rows.posts, |(id, user, title)| NewPost {
            id: *id,
            user_id: *user,
            title: title.clone(),
        });
        diesel_batches!(&mut conn, rows.comments, |(id, post, user, body)| {
            NewComment {
                id: *id,
                post_id: *post,
                user_id: *user,
                body: body.clone(),
            }
        });
    }};
}

/// The Diesel app: `insert_into(..).values(&vec)` in batches of 500.
pub async fn diesel_app(target: &Target, rows: Rows) {
    let (kind, url) = (target.kind, target.path());
    tokio::task::spawn_blocking(move || match kind {
        Kind::Postgres => diesel_insert!(diesel::PgConnection, &url, &rows),
        Kind::MySql => diesel_insert!(diesel::MysqlConnection, &url, &rows),
        Kind::Sqlite => diesel_insert!(diesel::SqliteConnection, &url, &rows),
    })
    .await
    .expect("the Diesel app's thread");
}

/// For the `i`th row: an old key (`old(i)`) for even `i`, else one of the
/// `new` keys.
fn alternately<T: Copy>(i: usize, old: impl Fn(usize) -> T, new: &[T]) -> T {
    if i.is_multiple_of(2) {
        old(i)
    } else {
        new[i % new.len()]
    }
}

/// A row for each of `ids`, made by `row` from its index and key.
fn numbered<T: Copy, R>(ids: &[T], row: impl Fn(usize, T) -> R) -> Vec<R> {
    ids.iter().enumerate().map(|(i, &id)| row(i, id)).collect()
}
