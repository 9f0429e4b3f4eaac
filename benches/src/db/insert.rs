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
                let mut query = sqlx_insert::<Postgres>(key, rows, |b, k| match k {
                    KeyValue::Flake(id) => {
                        b.push_bind(id);
                    }
                    KeyValue::Uuid(id) => {
                        b.push_bind(id);
                    }
                    KeyValue::Server => {}
                })?;
                self.runtime
                    .block_on(query.build().execute(&mut *conn))
                    .map(|r| r.rows_affected())
                    .map_err(|e| DbBenchError::sql(&context, e))
            }
            Conn::SqlxMy(conn) => {
                let mut query = sqlx_insert::<MySql>(key, rows, |b, k| match k {
                    KeyValue::Flake(id) => {
                        b.push_bind(id);
                    }
                    KeyValue::Uuid(id) => {
                        b.push_bind(id.as_bytes().to_vec());
                    }
                    KeyValue::Server => {}
                })?;
                self.runtime
                    .block_on(query.build().execute(&mut *conn))
                    .map(|r| r.rows_affected())
                    .map_err(|e| DbBenchError::sql(&context, e))
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

/// Diesel's `insert_into(items).values(&vec)` of rows with `BIGINT` keys;
/// the same code for both backends.
macro_rules! diesel_bigint_insert {
    ($conn:expr, $key:expr, $rows:expr) => {{
        let (conn, key, rows) = ($conn, $key, $rows);
        if key == Key::Db {
            let values: Vec<ds::NewAuto<'_>> = rows
                .iter()
                .map(|r| ds::NewAuto {
                    writer: r.writer,
                    seq: r.seq,
                    body: &r.body,
                })
                .collect();
            diesel::insert_into(ds::bigint_items::table)
                .values(&values)
                .execute(conn)
        } else {
            let values = rows
                .iter()
                .map(|r| {
                    Ok(ds::NewFlake {
                        id: item_id(key, r)?,
                        writer: r.writer,
                        seq: r.seq,
                        body: &r.body,
                    })
                })
                .collect::<Result<Vec<_>, DbBenchError>>()?;
            diesel::insert_into(ds::bigint_items::table)
                .values(&values)
                .execute(conn)
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
            let values: Vec<ds::NewServerUuid<'_>> = rows
                .iter()
                .map(|r| ds::NewServerUuid {
                    writer: r.writer,
                    seq: r.seq,
                    body: &r.body,
                })
                .collect();
            diesel::insert_into(ds::uuid_items::table)
                .values(&values)
                .execute(conn)
        }
        Key::UuidV4 | Key::UuidV7 => {
            let values = rows
                .iter()
                .map(|r| {
                    Ok(ds::NewUuid {
                        id: uuid_of(key, r)?,
                        writer: r.writer,
                        seq: r.seq,
                        body: &r.body,
                    })
                })
                .collect::<Result<Vec<_>, DbBenchError>>()?;
            diesel::insert_into(ds::uuid_items::table)
                .values(&values)
                .execute(conn)
        }
    };
    inserted
        .map(|n| n as u64)
        .map_err(|e| DbBenchError::sql("", e))
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
            let ids = rows
                .iter()
                .map(|r| uuid_of(key, r))
                .collect::<Result<Vec<_>, DbBenchError>>()?;
            let values: Vec<ds::NewBinary<'_>> = rows
                .iter()
                .zip(&ids)
                .map(|(r, id)| ds::NewBinary {
                    id: id.as_bytes(),
                    writer: r.writer,
                    seq: r.seq,
                    body: &r.body,
                })
                .collect();
            diesel::insert_into(ds::binary_items::table)
                .values(&values)
                .execute(conn)
        }
    };
    inserted
        .map(|n| n as u64)
        .map_err(|e| DbBenchError::sql("", e))
}

/// `INSERT INTO items (…) VALUES (…), (…)` with every value bound.
fn sqlx_insert<DB>(
    key: Key,
    rows: &[Row],
    push_key: impl Fn(&mut sqlx::query_builder::Separated<'_, DB, &'static str>, KeyValue),
) -> Result<QueryBuilder<DB>, DbBenchError>
where
    DB: sqlx::Database,
    for<'t> i32: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
    for<'t> i64: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
    for<'t> &'t str: sqlx::Encode<'t, DB> + sqlx::Type<DB>,
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
        push_key(&mut b, row.key);
        b.push_bind(row.writer)
            .push_bind(row.seq)
            .push_bind(row.body.as_str());
    });
    Ok(query)
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
    let payload = |r: &Row| (Set(r.writer), Set(r.seq), Set(r.body.clone()));
    let result = match key {
        Key::Db => {
            let models = rows.iter().map(|r| {
                let (writer, seq, body) = payload(r);
                so::auto_item::ActiveModel {
                    id: NotSet,
                    writer,
                    seq,
                    body,
                }
            });
            so::auto_item::Entity::insert_many(models)
                .exec_without_returning(db)
                .await
        }
        Key::FlakeBatch | Key::FlakeRow | Key::FlakeRowSeqNode => {
            let models = rows
                .iter()
                .map(|r| {
                    let (writer, seq, body) = payload(r);
                    let id = if with_ids {
                        NotSet
                    } else {
                        Set(item_id(key, r)?)
                    };
                    Ok(so::flake_item::ActiveModel {
                        id,
                        writer,
                        seq,
                        body,
                    })
                })
                .collect::<Result<Vec<_>, DbBenchError>>()?;
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
            let models = rows
                .iter()
                .map(|r| {
                    let (writer, seq, body) = payload(r);
                    let id: ActiveValue<uuid::Uuid> = if key == Key::PgUuidV7 {
                        NotSet
                    } else {
                        Set(uuid_of(key, r)?)
                    };
                    Ok(so::uuid_item::ActiveModel {
                        id,
                        writer,
                        seq,
                        body,
                    })
                })
                .collect::<Result<Vec<_>, DbBenchError>>()?;
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
