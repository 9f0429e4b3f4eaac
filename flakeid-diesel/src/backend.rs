//! Running flakeid's SQL on Diesel connections: the backend trait (a
//! statement on each backend, the rows its queries return), its errors, and
//! the tables' DDL that leases, segments and migrations share.

use std::time::Duration;

use diesel::backend::Backend;
use diesel::connection::LoadConnection;
use diesel::result::{ConnectionError, DatabaseErrorKind, QueryResult};
use flakeid_sql::{Dialect, SqlStatement};
use flakeid_sql::{Executed, SqlRow};

/// A Diesel backend flakeid's statements run on (PostgreSQL, MySQL,
/// SQLite, with this crate's feature of the same name).
pub trait DieselBackend: Backend + Sized {
    /// The backend's SQL dialect.
    const DIALECT: Dialect;

    /// Executes a statement that is not a query: the rows it changed, and
    /// on MySQL/MariaDB the connection's `LAST_INSERT_ID()` right after it
    /// when the statement asks (a second round trip).
    ///
    /// # Errors
    /// The database's error.
    fn execute<C: LoadConnection<Backend = Self>>(
        conn: &mut C,
        s: &SqlStatement,
    ) -> QueryResult<Executed>;

    /// Runs a query; its rows with the statement's columns.
    ///
    /// # Errors
    /// The database's error.
    fn load<C: LoadConnection<Backend = Self>>(
        conn: &mut C,
        s: &SqlStatement,
    ) -> QueryResult<Vec<SqlRow>>;
}

/// The rows flakeid's queries return, by the name of their first column:
/// Diesel reads rows into types known when it is compiled.
#[cfg(any(feature = "postgres", feature = "mysql", feature = "sqlite"))]
pub(crate) mod rows {
    use diesel::sql_types::{BigInt, Nullable, Text};
    use flakeid_sql::SqlRow;
    use flakeid_sql::{SqlStatement, SqlValue};

    /// A row of the lease table, with the database's clock.
    #[derive(diesel::QueryableByName)]
    pub(crate) struct Node {
        #[diesel(sql_type = BigInt)]
        node_id: i64,
        #[diesel(sql_type = Nullable<Text>)]
        owner: Option<String>,
        #[diesel(sql_type = BigInt)]
        fence: i64,
        #[diesel(sql_type = BigInt)]
        lease_until: i64,
        #[diesel(sql_type = BigInt)]
        high_water: i64,
        #[diesel(sql_type = Nullable<Text>)]
        holder: Option<String>,
        #[diesel(sql_type = BigInt)]
        db_now: i64,
    }

    /// A row of one `BIGINT` column, named as the field.
    macro_rules! bigint_row {
        ($(#[$doc:meta])* $row:ident { $column:ident }) => {
            $(#[$doc])*
            #[derive(diesel::QueryableByName)]
            pub(crate) struct $row {
                #[diesel(sql_type = BigInt)]
                $column: i64,
            }

            impl Named for $row {
                fn named(self) -> Vec<(&'static str, SqlValue)> {
                    vec![(stringify!($column), SqlValue::BigInt(self.$column))]
                }
            }
        };
    }

    bigint_row!(
        /// A segment row's `max_id`.
        MaxId { max_id }
    );
    bigint_row!(
        /// Whether the migration lock was taken.
        Locked { locked }
    );
    bigint_row!(
        /// Whether the migration lock was released.
        Released { released }
    );
    bigint_row!(
        /// SQLite: the connection's busy timeout, in milliseconds.
        Timeout { timeout }
    );

    /// A space of the lease table.
    #[derive(diesel::QueryableByName)]
    pub(crate) struct Space {
        #[diesel(sql_type = Text)]
        space: String,
    }

    /// MySQL/MariaDB: the connection's `LAST_INSERT_ID()`.
    #[derive(diesel::QueryableByName)]
    pub(crate) struct LastInsertId {
        #[diesel(sql_type = BigInt)]
        last_insert_id: i64,
    }

    /// The one `LAST_INSERT_ID()` read; a negative value (never set by an
    /// advance) reads as `u64::MAX`, which the segment source refuses.
    pub(crate) fn last_insert_id(ids: &[LastInsertId]) -> diesel::QueryResult<u64> {
        let id = ids.first().ok_or(diesel::result::Error::NotFound)?;
        Ok(u64::try_from(id.last_insert_id).unwrap_or(u64::MAX))
    }

    /// The row as the statement's columns, by name.
    pub(crate) trait Named {
        fn named(self) -> Vec<(&'static str, SqlValue)>;
    }

    impl Named for Node {
        fn named(self) -> Vec<(&'static str, SqlValue)> {
            let text = |v: Option<String>| v.map_or(SqlValue::Null, SqlValue::Text);
            vec![
                ("node_id", SqlValue::BigInt(self.node_id)),
                ("owner", text(self.owner)),
                ("fence", SqlValue::BigInt(self.fence)),
                ("lease_until", SqlValue::BigInt(self.lease_until)),
                ("high_water", SqlValue::BigInt(self.high_water)),
                ("holder", text(self.holder)),
                ("db_now", SqlValue::BigInt(self.db_now)),
            ]
        }
    }

    impl Named for Space {
        fn named(self) -> Vec<(&'static str, SqlValue)> {
            vec![("space", SqlValue::Text(self.space))]
        }
    }

    /// `rows` as rows of the statement's columns.
    pub(crate) fn of<R: Named>(s: &SqlStatement, rows: Vec<R>) -> Vec<SqlRow> {
        rows.into_iter()
            .map(|r| {
                let named = r.named();
                let values = s
                    .columns
                    .iter()
                    .map(|(column, _)| {
                        named
                            .iter()
                            .find(|(n, _)| n == column)
                            .map_or(SqlValue::Null, |(_, v)| v.clone())
                    })
                    .collect();
                SqlRow::new(s.columns, values)
            })
            .collect()
    }

    /// The query's first column, which tells the row type.
    pub(crate) fn kind(s: &SqlStatement) -> Option<&'static str> {
        s.columns.first().map(|(name, _)| *name)
    }

    /// A query of columns no row type reads.
    pub(crate) fn unknown(s: &SqlStatement) -> diesel::result::Error {
        diesel::result::Error::DeserializationError(
            format!(
                "flakeid-diesel has no row type for the columns {:?}",
                s.columns
            )
            .into(),
        )
    }
}

/// The statement with its values bound, in placeholder order.
#[cfg(any(feature = "postgres", feature = "mysql", feature = "sqlite"))]
pub(crate) fn bind<DB>(
    s: &SqlStatement,
) -> diesel::query_builder::BoxedSqlQuery<'static, DB, diesel::query_builder::SqlQuery>
where
    DB: Backend
        + diesel::sql_types::HasSqlType<diesel::sql_types::Text>
        + diesel::sql_types::HasSqlType<diesel::sql_types::BigInt>
        + diesel::sql_types::HasSqlType<diesel::sql_types::Integer>,
    String: diesel::serialize::ToSql<diesel::sql_types::Text, DB>,
    i64: diesel::serialize::ToSql<diesel::sql_types::BigInt, DB>,
    i32: diesel::serialize::ToSql<diesel::sql_types::Integer, DB>,
    Option<i64>:
        diesel::serialize::ToSql<diesel::sql_types::Nullable<diesel::sql_types::BigInt>, DB>,
{
    use diesel::sql_types::{BigInt, Integer, Nullable, Text};
    use flakeid_sql::SqlValue;
    s.values.iter().fold(
        diesel::sql_query(s.sql.clone()).into_boxed::<DB>(),
        |q, v| match v {
            SqlValue::Text(t) => q.bind::<Text, _>(t.clone()),
            SqlValue::BigInt(i) => q.bind::<BigInt, _>(*i),
            SqlValue::Int(i) => q.bind::<Integer, _>(*i),
            // No statement binds NULL; a typed NULL keeps every driver content.
            _ => q.bind::<Nullable<BigInt>, _>(None::<i64>),
        },
    )
}

macro_rules! diesel_backend {
    ($feature:literal, $db:ty, $dialect:expr) => {
        #[cfg(feature = $feature)]
        impl DieselBackend for $db {
            const DIALECT: Dialect = $dialect;

            fn execute<C: LoadConnection<Backend = Self>>(
                conn: &mut C,
                s: &SqlStatement,
            ) -> QueryResult<Executed> {
                use diesel::RunQueryDsl as _;
                let rows = bind::<$db>(s).execute(conn)?;
                let last_insert_id = if s.reads_insert_id {
                    let ids: Vec<rows::LastInsertId> =
                        diesel::sql_query(SqlStatement::MYSQL_LAST_INSERT_ID).load(conn)?;
                    Some(rows::last_insert_id(&ids)?)
                } else {
                    None
                };
                Ok(Executed {
                    rows: u64::try_from(rows).unwrap_or(u64::MAX),
                    last_insert_id,
                })
            }

            fn load<C: LoadConnection<Backend = Self>>(
                conn: &mut C,
                s: &SqlStatement,
            ) -> QueryResult<Vec<SqlRow>> {
                use diesel::RunQueryDsl as _;
                let query = bind::<$db>(s);
                Ok(match rows::kind(s) {
                    Some("node_id") => rows::of(s, query.load::<rows::Node>(conn)?),
                    Some("max_id") => rows::of(s, query.load::<rows::MaxId>(conn)?),
                    Some("space") => rows::of(s, query.load::<rows::Space>(conn)?),
                    Some("locked") => rows::of(s, query.load::<rows::Locked>(conn)?),
                    Some("released") => rows::of(s, query.load::<rows::Released>(conn)?),
                    Some("timeout") => rows::of(s, query.load::<rows::Timeout>(conn)?),
                    _ => return Err(rows::unknown(s)),
                })
            }
        }
    };
}

diesel_backend!("postgres", diesel::pg::Pg, Dialect::Postgres);
diesel_backend!("mysql", diesel::mysql::Mysql, Dialect::MySql);
diesel_backend!("sqlite", diesel::sqlite::Sqlite, Dialect::Sqlite);

/// Why one of flakeid's statements could not run on Diesel.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DieselStoreError {
    /// The connection could not be (re)opened.
    #[error("cannot connect: {0}")]
    Connect(#[from] ConnectionError),
    /// The statement failed.
    #[error(transparent)]
    Query(#[from] diesel::result::Error),
    /// The statement (with the connect before it, if any) did not finish
    /// within the executor's deadline; its connection was given up.
    #[error("no answer within {0:?}: the connection was given up")]
    Deadline(Duration),
    /// No thread could be started to run the statement with a deadline.
    #[error("cannot start a thread for the statement: {0}")]
    Thread(String),
}

/// How long a statement of flakeid's waits for another process's write
/// on SQLite (one writer at a time) before it fails with "database is
/// locked": sqlx's default, so that Diesel and SeaORM behave alike.
pub(crate) const SQLITE_BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Runs `sql` (a table's `CREATE`/`DROP`) on the caller's connection. On
/// SQLite, where a connection Diesel opened gives up at once when another
/// process writes, it tries again for up to [`SQLITE_BUSY_TIMEOUT`], so
/// that replicas starting together all create the table.
#[cfg(any(feature = "lease", feature = "segment"))]
pub(crate) fn run_ddl<C>(conn: &mut C, sql: &str) -> QueryResult<()>
where
    C: diesel::connection::Connection,
    C::Backend: DieselBackend,
{
    let start = std::time::Instant::now();
    let mut pause = Duration::from_millis(5);
    loop {
        match conn.batch_execute(sql) {
            Err(e)
                if <C::Backend as DieselBackend>::DIALECT == Dialect::Sqlite
                    && is_sqlite_busy(&e)
                    && start.elapsed() < SQLITE_BUSY_TIMEOUT =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(100));
            }
            done => return done,
        }
    }
}

/// SQLite's `SQLITE_BUSY`, which Diesel reports as an unknown database error.
pub(crate) fn is_sqlite_busy(e: &diesel::result::Error) -> bool {
    matches!(
        e,
        diesel::result::Error::DatabaseError(DatabaseErrorKind::Unknown, info)
            if info.message() == "database is locked"
    )
}
