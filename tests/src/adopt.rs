//! The adoption's tables (`users` ← `posts` ← `comments`, `comments` also
//! → `users`) with auto-increment keys on PostgreSQL, MySQL/MariaDB and
//! SQLite, and plain SQL on one connection: what the adoption tests
//! (`tests/all/adopt.rs`) and the adoption benchmark (`flakeid-benches`,
//! `--bin adopt`) both build on.

use flakeid_sql::Dialect;
use sqlx::{Connection as _, MySqlConnection, PgConnection, SqliteConnection};

/// The database a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// PostgreSQL.
    Postgres,
    /// MySQL/MariaDB.
    MySql,
    /// SQLite.
    Sqlite,
}

impl Kind {
    /// The dialect.
    pub fn dialect(self) -> Dialect {
        match self {
            Kind::Postgres => Dialect::Postgres,
            Kind::MySql => Dialect::MySql,
            Kind::Sqlite => Dialect::Sqlite,
        }
    }

    /// `expr` as a 64-bit signed integer in this database's SQL (SQLite's
    /// integers are already).
    pub fn bigint(self, expr: &str) -> String {
        match self {
            Kind::Postgres => format!("CAST({expr} AS BIGINT)"),
            Kind::MySql => format!("CAST({expr} AS SIGNED)"),
            Kind::Sqlite => expr.to_owned(),
        }
    }

    /// Whether `error` (a statement's error, as text) is MariaDB's refusal
    /// of an insert that waited for an adoption's `LOCK TABLES`: error 1305,
    /// `FUNCTION … flakeid_next_id does not exist` (docs/adopt.md, "What
    /// runs, and which locks it takes"). Nothing is stored for it; the
    /// insert can be run again.
    pub fn refused_waiting_insert(self, error: &str) -> bool {
        self == Kind::MySql && error.contains("1305 (42000)")
    }
}

/// The width of the keys [`create_schema`] makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keys {
    /// 32-bit and 64-bit keys and references mixed (what the switch must
    /// widen: PostgreSQL `serial`, `bigint` identity and `bigserial`;
    /// MySQL `INT`, `BIGINT` and `INT UNSIGNED`; SQLite `INTEGER`, with and
    /// without `AUTOINCREMENT`).
    Mixed,
    /// Every key and reference 64-bit already (PostgreSQL `bigserial`,
    /// MySQL `BIGINT`; SQLite as [`Keys::Mixed`]).
    Wide,
}

/// Plain SQL on one connection.
#[allow(missing_docs)]
pub enum Sql {
    Pg(PgConnection),
    My(MySqlConnection),
    Lite(SqliteConnection),
}

/// A row of any of the three tables: key, two references, text.
pub type Row = (i64, Option<i64>, Option<i64>, String);

/// `$body` with `$c` bound to the connection of `$sql`, whichever database
/// it is to (one expression, compiled for each connection type).
macro_rules! on_connection {
    ($sql:expr, $c:ident => $body:expr) => {
        match $sql {
            Sql::Pg($c) => $body,
            Sql::My($c) => $body,
            Sql::Lite($c) => $body,
        }
    };
}

impl Sql {
    /// A connection to `url`.
    ///
    /// # Panics
    /// If it cannot connect.
    pub async fn connect(kind: Kind, url: &str) -> Sql {
        match kind {
            Kind::Postgres => Sql::Pg(PgConnection::connect(url).await.expect("connect")),
            Kind::MySql => Sql::My(MySqlConnection::connect(url).await.expect("connect")),
            Kind::Sqlite => Sql::Lite(SqliteConnection::connect(url).await.expect("open")),
        }
    }

    /// Runs one statement (text protocol: bodies and blocks allowed).
    pub async fn run(&mut self, sql: &str) -> Result<(), String> {
        let q = sqlx::raw_sql(sqlx::AssertSqlSafe(sql.to_owned()));
        on_connection!(self, c => q.execute(c).await.map(drop)).map_err(|e| e.to_string())
    }

    pub async fn ok(&mut self, sql: &str) {
        if let Err(e) = self.run(sql).await {
            panic!("{sql}\nfailed: {e}");
        }
    }

    /// Runs `statements` in order, stopping at the first error.
    pub async fn all(&mut self, statements: &[String]) -> Result<(), String> {
        for s in statements {
            self.run(s).await.map_err(|e| format!("{e}\nin: {s}"))?;
        }
        Ok(())
    }

    /// One `BIGINT` (`NULL` as `None`).
    pub async fn int(&mut self, sql: &str) -> Option<i64> {
        let q = sqlx::AssertSqlSafe(sql.to_owned());
        on_connection!(self, c => sqlx::query_scalar(q).fetch_one(c).await)
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// One text.
    pub async fn text(&mut self, sql: &str) -> Option<String> {
        let q = sqlx::AssertSqlSafe(sql.to_owned());
        on_connection!(self, c => sqlx::query_scalar(q).fetch_one(c).await)
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// Rows of BIGINTs.
    pub async fn ints(&mut self, sql: &str) -> Vec<Vec<Option<i64>>> {
        fn values<R: sqlx::Row>(rows: Vec<R>) -> Vec<Vec<Option<i64>>>
        where
            usize: sqlx::ColumnIndex<R>,
            Option<i64>: for<'r> sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
        {
            rows.iter()
                .map(|r| (0..r.len()).map(|i| r.get(i)).collect())
                .collect()
        }
        let q = sqlx::AssertSqlSafe(sql.to_owned());
        on_connection!(self, c => sqlx::query(q).fetch_all(c).await.map(values))
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// Inserts a user named `name` (no quote in it) with the key column's
    /// default; its key. `prepared`: as a prepared statement with `name`
    /// bound, as SeaORM and sqlx's `query` send it; otherwise as text, as
    /// a SQL script or `raw_sql` sends it.
    ///
    /// # Errors
    /// The database's error, as text.
    pub async fn insert_user(&mut self, name: &str, prepared: bool) -> Result<i64, String> {
        use sqlx::Row as _;
        let key = self.kind().bigint("id");
        let value = match (self.kind(), prepared) {
            (_, false) => format!("'{name}'"),
            (Kind::Postgres, true) => "$1".to_owned(),
            (_, true) => "?".to_owned(),
        };
        let sql = format!("INSERT INTO users (name) VALUES ({value}) RETURNING {key}");
        let q = || sqlx::AssertSqlSafe(sql.clone());
        let t = || sqlx::raw_sql(sqlx::AssertSqlSafe(sql.clone()));
        if prepared {
            on_connection!(self, c => sqlx::query_scalar(q()).bind(name).fetch_one(c).await)
        } else {
            on_connection!(self, c => t().fetch_one(c).await.and_then(|r| r.try_get(0)))
        }
        .map_err(|e| e.to_string())
    }

    /// The `users` rows [`insert_user`](Self::insert_user) wrote (named
    /// `writer …`): key and name.
    pub async fn writers_rows(&mut self) -> Vec<(i64, String)> {
        let sql = format!(
            "SELECT {}, name FROM users WHERE name LIKE 'writer %'",
            self.kind().bigint("id")
        );
        let q = sqlx::AssertSqlSafe(sql.clone());
        on_connection!(self, c => sqlx::query_as(q).fetch_all(c).await)
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    /// The database this connection is to.
    pub fn kind(&self) -> Kind {
        match self {
            Sql::Pg(_) => Kind::Postgres,
            Sql::My(_) => Kind::MySql,
            Sql::Lite(_) => Kind::Sqlite,
        }
    }

    /// Every row of `table` as [`Row`]s, by key.
    pub async fn rows(&mut self, kind: Kind, table: &str) -> Vec<Row> {
        let cast = |c: &str| kind.bigint(c);
        let (a, b, t) = match table {
            "users" => ("NULL", "NULL", "name"),
            "posts" => ("user_id", "NULL", "title"),
            _ => ("post_id", "user_id", "body"),
        };
        let sql = format!(
            "SELECT {}, {}, {}, {t} FROM {table} ORDER BY id",
            cast("id"),
            cast(a),
            cast(b)
        );
        let q = sqlx::AssertSqlSafe(sql.clone());
        on_connection!(self, c => sqlx::query_as(q).fetch_all(c).await)
            .unwrap_or_else(|e| panic!("{sql}: {e}"))
    }
}

/// Creates the three tables with auto-increment keys of width `keys`, and
/// `users` + `posts` + `comments` rows (their keys 1, 2, 3 …).
pub async fn create_schema(
    sql: &mut Sql,
    kind: Kind,
    keys: Keys,
    (users, posts, comments): (u32, u32, u32),
) {
    let wide = keys == Keys::Wide;
    let statements: Vec<String> = match kind {
        Kind::Postgres => {
            let (users_key, int) = if wide {
                ("bigserial", "bigint")
            } else {
                ("serial", "integer")
            };
            vec![
                format!("CREATE TABLE users (id {users_key} PRIMARY KEY, name text NOT NULL)"),
                format!(
                    "CREATE TABLE posts (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, \
                     user_id {int} NOT NULL REFERENCES users (id), title text NOT NULL)"
                ),
                format!(
                    "CREATE TABLE comments (id bigserial PRIMARY KEY, \
                     post_id bigint NOT NULL REFERENCES posts (id), \
                     user_id {int} REFERENCES users (id), body text NOT NULL)"
                ),
                "CREATE INDEX comments_post_id ON comments (post_id)".into(),
                format!(
                    "INSERT INTO users (name) SELECT 'user ' || g FROM generate_series(1, {users}) g"
                ),
                format!(
                    "INSERT INTO posts (user_id, title) SELECT 1 + (g * 7919) % {users}, \
                     'post ' || g FROM generate_series(1, {posts}::bigint) g"
                ),
                format!(
                    "INSERT INTO comments (post_id, user_id, body) \
                     SELECT 1 + (g * 104729) % {posts}, \
                     CASE WHEN g % 10 = 0 THEN NULL ELSE 1 + (g * 31) % {users} END, \
                     'comment ' || g FROM generate_series(1, {comments}::bigint) g"
                ),
            ]
        }
        Kind::MySql => {
            let (int, unsigned) = if wide {
                ("BIGINT", "BIGINT")
            } else {
                ("INT", "INT UNSIGNED")
            };
            vec![
                format!(
                    "CREATE TABLE users (id {int} NOT NULL AUTO_INCREMENT PRIMARY KEY, \
                     name VARCHAR(64) NOT NULL) ENGINE=InnoDB"
                ),
                format!(
                    "CREATE TABLE posts (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, \
                     user_id {int} NOT NULL COMMENT 'the author', title VARCHAR(64) NOT NULL, \
                     CONSTRAINT posts_user FOREIGN KEY (user_id) REFERENCES users (id)) \
                     ENGINE=InnoDB"
                ),
                format!(
                    "CREATE TABLE comments (id {unsigned} NOT NULL AUTO_INCREMENT PRIMARY KEY, \
                     post_id BIGINT NOT NULL, user_id {int} NULL DEFAULT NULL, \
                     body VARCHAR(64) NOT NULL, \
                     CONSTRAINT comments_post FOREIGN KEY (post_id) REFERENCES posts (id), \
                     CONSTRAINT comments_user FOREIGN KEY (user_id) REFERENCES users (id)) \
                     ENGINE=InnoDB"
                ),
                format!(
                    "INSERT INTO users (name) SELECT CONCAT('user ', seq) FROM seq_1_to_{users}"
                ),
                format!(
                    "INSERT INTO posts (user_id, title) SELECT 1 + (seq * 7919) % {users}, \
                     CONCAT('post ', seq) FROM seq_1_to_{posts}"
                ),
                format!(
                    "INSERT INTO comments (post_id, user_id, body) \
                     SELECT 1 + (seq * 104729) % {posts}, \
                     CASE WHEN seq % 10 = 0 THEN NULL ELSE 1 + (seq * 31) % {users} END, \
                     CONCAT('comment ', seq) FROM seq_1_to_{comments}"
                ),
            ]
        }
        Kind::Sqlite => vec![
            "CREATE TABLE users (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL)".into(),
            "CREATE TABLE posts (id INTEGER PRIMARY KEY, \
             user_id INTEGER NOT NULL REFERENCES users (id), title TEXT NOT NULL)"
                .into(),
            "CREATE TABLE comments (id INTEGER PRIMARY KEY AUTOINCREMENT, \
             post_id INTEGER NOT NULL REFERENCES posts (id), user_id INTEGER REFERENCES users, \
             body TEXT NOT NULL)"
                .into(),
            "CREATE INDEX comments_post_id ON comments (post_id)".into(),
            "CREATE TRIGGER users_renamed AFTER UPDATE OF name ON users \
             BEGIN UPDATE posts SET title = title WHERE user_id = NEW.id; END"
                .into(),
            format!(
                "WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < {users}) \
                 INSERT INTO users (name) SELECT 'user ' || g FROM s"
            ),
            format!(
                "WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < {posts}) \
                 INSERT INTO posts (user_id, title) SELECT 1 + (g * 7919) % {users}, 'post ' || g \
                 FROM s"
            ),
            format!(
                "WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s \
                 WHERE g < {comments}) INSERT INTO comments (post_id, user_id, body) \
                 SELECT 1 + (g * 104729) % {posts}, \
                 CASE WHEN g % 10 = 0 THEN NULL ELSE 1 + (g * 31) % {users} END, \
                 'comment ' || g FROM s"
            ),
        ],
    };
    for s in statements {
        sql.ok(&s).await;
    }
}
