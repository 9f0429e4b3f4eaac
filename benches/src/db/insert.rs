//! One batch `INSERT` per path: SeaORM, Diesel and sqlx, on PostgreSQL and
//! MariaDB/MySQL. Each path starts from the same [`Row`]s and sends one
//! multi-row statement; each returns the number of rows the server reports
//! inserted.

use diesel::{Connection as _, RunQueryDsl as _};
use flakeid_seaorm::FlakeEntity as _;
use sea_orm::{ActiveValue, ConnectOptions, Database, DatabaseConnection, EntityTrait as _};
use sqlx::{Connection as _, MySql, Postgres, QueryBuilder};

use flakeid_tests::db::redact;

use super::DbBenchError;
use super::config::{Key, Path, Server};
use super::keys::{KeyValue, Row};
use super::schema::{ItemId, TABLE, diesel_schema as ds, seaorm as so};

/// A connection that inserts batches of one key along one path.
pub struct Inserter {
    server: Server,
    key: Key,
    path: Path,
    conn: Conn,
    runtime: tokio::runtime::Runtime,
}

impl Inserter {
    /// Connects to `url`.
    ///
    /// # Errors
    /// If the runtime cannot be built or the connection fails.
    pub fn connect(server: Server, key: Key, path: Path, url: &str) -> Result<Self, DbBenchError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| DbBenchError::io("building the writer's runtime", e))?;
        let context = format!("connecting to {}", redact(url));
        let conn = match (path, server.is_postgres()) {
            (Path::Diesel, true) => Conn::DieselPg(
                diesel::PgConnection::establish(url).map_err(|e| DbBenchError::sql(&context, e))?,
            ),
            (Path::Diesel, false) => Conn::DieselMy(
                diesel::MysqlConnection::establish(url)
                    .map_err(|e| DbBenchError::sql(&context, e))?,
            ),
            (Path::Sqlx, true) => Conn::SqlxPg(
                runtime
                    .block_on(sqlx::PgConnection::connect(url))
                    .map_err(|e| DbBenchError::sql(&context, e))?,
            ),
            (Path::Sqlx, false) => Conn::SqlxMy(
                runtime
                    .block_on(sqlx::MySqlConnection::connect(url))
                    .map_err(|e| DbBenchError::sql(&context, e))?,
            ),
            (Path::SeaOrm | Path::SeaOrmWithIds, _) => {
                let mut options = ConnectOptions::new(url.to_owned());
                options
                    .max_connections(1)
                    .min_connections(1)
                    .sqlx_logging(false);
                Conn::SeaOrm(
                    runtime
                        .block_on(Database::connect(options))
                        .map_err(|e| DbBenchError::sql(&context, e))?,
                )
            }
        };
        Ok(Inserter {
            server,
            key,
            path,
            conn,
            runtime,
        })
    }

    /// Inserts `rows` in one statement and returns the number of rows the
    /// server reports inserted.
    ///
    /// # Errors
    /// The statement's error, or a row without the key its table needs.
    pub fn insert(&mut self, rows: &[Row]) -> Result<u64, DbBenchError> {
        let context = format!(
            "inserting {} rows ({} key via {} on {})",
            rows.len(),
            self.key,
            self.path,
            self.server
        );
        let key = self.key;
        match &mut self.conn {
            Conn::DieselPg(conn) => diesel_pg(conn, key, rows),
            Conn::DieselMy(conn) => diesel_mysql(conn, key, rows),
            Conn::SqlxPg(conn) => {
                let query = sqlx_insert::<Postgres, _>(key, rows, |id| id)?;
                sqlx_execute(&self.runtime, conn, query, &context).map(|r| r.rows_affected())
            }
            Conn::SqlxMy(conn) => {
                let query = sqlx_insert::<MySql, _>(key, rows, |id| id.as_bytes().to_vec())?;
                sqlx_execute(&self.runtime, conn, query, &context).map(|r| r.rows_affected())
            }
            Conn::SeaOrm(db) => {
                let with_ids = self.path == Path::SeaOrmWithIds;
                self.runtime
                    .block_on(seaorm_insert(db, key, with_ids, rows))
            }
        }
        .map_err(|e| match e {
            DbBenchError::Sql { message, .. } => DbBenchError::Sql { context, message },
            other => other,
        })
    }
}

fn missing_key(key: Key, row: &Row) -> DbBenchError {
    DbBenchError::Argument(format!(
        "row {} of writer {} has key {:?}, which does not fit key {key}",
        row.seq, row.writer, row.key
    ))
}

fn item_id(key: Key, row: &Row) -> Result<ItemId, DbBenchError> {
    let raw = row.key.flake().ok_or_else(|| missing_key(key, row))?;
    ItemId::try_from(raw).map_err(|e| DbBenchError::Argument(e.to_string()))
}

fn uuid_of(key: Key, row: &Row) -> Result<uuid::Uuid, DbBenchError> {
    row.key.uuid().ok_or_else(|| missing_key(key, row))
}

/// The row's UUID key as the 16 bytes it holds, borrowed from the row.
fn uuid_bytes(key: Key, row: &Row) -> Result<&[u8], DbBenchError> {
    match &row.key {
        KeyValue::Uuid(id) => Ok(id.as_bytes()),
        _ => Err(missing_key(key, row)),
    }
}

/// Diesel's `insert_into(table).values(&vec)` of `rows`, each made into a
/// `$new` with the fields given and the row's `writer`, `seq` and `body`;
/// the same code for every table and both backends.
macro_rules! diesel_insert {
    ($conn:expr, $table:expr, $rows:expr, |$r:ident| $($new:ident)::+ { $($field:ident: $value:expr),* $(,)? }) => {{
        let values = $rows
            .iter()
            .map(|$r| -> Result<_, DbBenchError> {
                Ok($($new)::+ {
                    $($field: $value,)*
                    writer: $r.writer,
                    seq: $r.seq,
                    body: &$r.body,
                })
            })
            .collect::<Result<Vec<_>, DbBenchError>>()?;
        diesel::insert_into($table).values(&values).execute($conn)
    }};
}

/// Diesel's insert of rows with `BIGINT` keys; the same code for both
/// backends.
macro_rules! diesel_bigint_insert {
    ($conn:expr, $key:expr, $rows:expr) => {{
        let (conn, key, rows) = ($conn, $key, $rows);
        if key == Key::Db {
            diesel_insert!(conn, ds::bigint_items::table, rows, |r| ds::NewAuto {})
        } else {
            diesel_insert!(conn, ds::bigint_items::table, rows, |r| ds::NewFlake {
                id: item_id(key, r)?
            })
        }
    }};
}

/// Diesel on PostgreSQL: UUIDs as `uuid`.
fn diesel_pg(conn: &mut diesel::PgConnection, key: Key, rows: &[Row]) -> Result<u64, DbBenchError> {
    let inserted = match key {
        Key::Db | Key::FlakeBatch | Key::FlakeRow | Key::FlakeRowSeqNode => {
            diesel_bigint_insert!(conn, key, rows)
        }
        Key::PgUuidV7 => {
            diesel_insert!(conn, ds::uuid_items::table, rows, |r| ds::NewServerUuid {})
        }
        Key::UuidV4 | Key::UuidV7 => {
            diesel_insert!(conn, ds::uuid_items::table, rows, |r| ds::NewUuid {
                id: uuid_of(key, r)?
            })
        }
    };
    diesel_count(inserted)
}

/// Diesel on MySQL/MariaDB: UUIDs as `BINARY(16)`.
fn diesel_mysql(
    conn: &mut diesel::MysqlConnection,
    key: Key,
    rows: &[Row],
) -> Result<u64, DbBenchError> {
    let inserted = match key {
        Key::Db | Key::FlakeBatch | Key::FlakeRow | Key::FlakeRowSeqNode => {
            diesel_bigint_insert!(conn, key, rows)
        }
        Key::UuidV4 | Key::UuidV7 | Key::PgUuidV7 => {
            diesel_insert!(conn, ds::binary_items::table, rows, |r| ds::NewBinary {
                id: uuid_bytes(key, r)?
            })
        }
    };
    diesel_count(inserted)
}

fn diesel_count(inserted: diesel::QueryResult<usize>) -> Result<u64, DbBenchError> {
    inserted
        .map(|n| n as u64)
        .map_err(|e| DbBenchError::sql("", e))
}

/// `INSERT INTO items (…) VALUES (…), (…)` with every value bound, UUID
/// keys as `uuid` makes them.
fn sqlx_insert<DB, U>(
    key: Key,
    rows: &[Row],
    uuid: impl Fn(uuid::Uuid) -> U,
) -> Result<QueryBuilder<DB>, DbBenchError>
where
    DB: sqlx::Database,
    for<'t> i32: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
    for<'t> i64: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
    for<'t> &'t str: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
    U: for<'t> sqlx::Encode<'t, DB> + sqlx::Type<DB> + 'static,
{
    if let Some(row) = rows
        .iter()
        .find(|r| (r.key == KeyValue::Server) != key.server_assigned())
    {
        return Err(missing_key(key, row));
    }
    let columns = if key.server_assigned() {
        "writer, seq, body"
    } else {
        "id, writer, seq, body"
    };
    let mut query = QueryBuilder::new(format!("INSERT INTO {TABLE} ({columns}) "));
    query.push_values(rows, |mut b, row| {
        match row.key {
            KeyValue::Flake(id) => {
                b.push_bind(id);
            }
            KeyValue::Uuid(id) => {
                b.push_bind(uuid(id));
            }
            KeyValue::Server => {}
        }
        b.push_bind(row.writer)
            .push_bind(row.seq)
            .push_bind(row.body.as_str());
    });
    Ok(query)
}

/// Runs `query` on `conn`.
fn sqlx_execute<DB>(
    runtime: &tokio::runtime::Runtime,
    conn: &mut DB::Connection,
    mut query: QueryBuilder<DB>,
    context: &str,
) -> Result<DB::QueryResult, DbBenchError>
where
    DB: sqlx::Database,
    for<'c> &'c mut DB::Connection: sqlx::Executor<'c, Database = DB>,
    DB::Arguments: sqlx::IntoArguments<DB>,
{
    runtime
        .block_on(query.build().execute(conn))
        .map_err(|e| DbBenchError::sql(context, e))
}

/// The SeaORM active models of `rows`, each a `$model` with the `id` given
/// and the row's `writer`, `seq` and `body` set.
macro_rules! seaorm_models {
    ($rows:expr, |$r:ident| $($model:ident)::+ { id: $id:expr $(,)? }) => {
        $rows
            .iter()
            .map(|$r| -> Result<_, DbBenchError> {
                Ok($($model)::+ {
                    id: $id,
                    writer: ActiveValue::Set($r.writer),
                    seq: ActiveValue::Set($r.seq),
                    body: ActiveValue::Set($r.body.clone()),
                })
            })
            .collect::<Result<Vec<_>, DbBenchError>>()?
    };
}

/// `Entity::insert_many(models).exec_without_returning(db)`, or
/// `Entity::insert_many_with_ids(models).await?` for `with_ids`.
async fn seaorm_insert(
    db: &DatabaseConnection,
    key: Key,
    with_ids: bool,
    rows: &[Row],
) -> Result<u64, DbBenchError> {
    use sea_orm::ActiveValue::{NotSet, Set};
    let result = match key {
        Key::Db => {
            // Lazily: `insert_many` takes the models as they come.
            let models = rows.iter().map(|r| so::auto_item::ActiveModel {
                id: NotSet,
                writer: Set(r.writer),
                seq: Set(r.seq),
                body: Set(r.body.clone()),
            });
            so::auto_item::Entity::insert_many(models)
                .exec_without_returning(db)
                .await
        }
        Key::FlakeBatch | Key::FlakeRow | Key::FlakeRowSeqNode => {
            let models = seaorm_models!(rows, |r| so::flake_item::ActiveModel {
                id: if with_ids {
                    NotSet
                } else {
                    Set(item_id(key, r)?)
                }
            });
            let insert = if with_ids {
                so::flake_item::Entity::insert_many_with_ids(models)
                    .await
                    .map_err(|e| DbBenchError::sql("insert_many_with_ids", e))?
            } else {
                so::flake_item::Entity::insert_many(models)
            };
            insert.exec_without_returning(db).await
        }
        Key::UuidV4 | Key::UuidV7 | Key::PgUuidV7 => {
            let models = seaorm_models!(rows, |r| so::uuid_item::ActiveModel {
                id: if key == Key::PgUuidV7 {
                    NotSet
                } else {
                    Set(uuid_of(key, r)?)
                }
            });
            so::uuid_item::Entity::insert_many(models)
                .exec_without_returning(db)
                .await
        }
    };
    result.map_err(|e| DbBenchError::sql("", e))
}

enum Conn {
    DieselPg(diesel::PgConnection),
    DieselMy(diesel::MysqlConnection),
    SqlxPg(sqlx::PgConnection),
    SqlxMy(sqlx::MySqlConnection),
    SeaOrm(DatabaseConnection),
}
