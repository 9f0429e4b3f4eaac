//! Running flakeid's SQL on a SeaORM connection: the one executor that
//! leases, segments and the tables' migrations share.

use flakeid_sql::{AsyncSqlExecutor, Executed, SqlRow};
use flakeid_sql::{Dialect, SqlStatement, SqlType, SqlValue};
use sea_orm::{
    ConnectionTrait, DatabaseConnection, DbBackend, DbErr, QueryResult, Statement, Value,
};

/// Runs flakeid's statements (leases, segments) on a SeaORM connection
/// (pool).
#[derive(Debug, Clone)]
pub struct SeaOrmExecutor {
    db: DatabaseConnection,
}

impl SeaOrmExecutor {
    /// An executor on `db` (a clone of the application's connection pool).
    pub fn new(db: DatabaseConnection) -> Self {
        SeaOrmExecutor { db }
    }
}

/// The dialect of a SeaORM backend.
pub(crate) fn dialect(backend: DbBackend) -> Dialect {
    match backend {
        DbBackend::MySql => Dialect::MySql,
        DbBackend::Sqlite => Dialect::Sqlite,
        // PostgreSQL, and anything newer SeaORM may add that speaks it.
        _ => Dialect::Postgres,
    }
}

/// `s` as a SeaORM statement for `backend`, its values bound.
pub(crate) fn statement(backend: DbBackend, s: &SqlStatement) -> Statement {
    let values = s.values.iter().map(|v| match v {
        SqlValue::Text(t) => Value::String(Some(t.clone())),
        SqlValue::BigInt(i) => Value::BigInt(Some(*i)),
        SqlValue::Int(i) => Value::Int(Some(*i)),
        // No statement binds NULL; a typed NULL keeps every driver content.
        _ => Value::BigInt(None),
    });
    Statement::from_sql_and_values(backend, s.sql.clone(), values)
}

/// A row with the statement's columns, read by name and type.
pub(crate) fn row(s: &SqlStatement, r: &QueryResult) -> Result<SqlRow, DbErr> {
    let values = s
        .columns
        .iter()
        .map(|(name, ty)| {
            Ok(match ty {
                SqlType::Text => r
                    .try_get::<Option<String>>("", name)?
                    .map_or(SqlValue::Null, SqlValue::Text),
                _ => r
                    .try_get::<Option<i64>>("", name)?
                    .map_or(SqlValue::Null, SqlValue::BigInt),
            })
        })
        .collect::<Result<Vec<_>, DbErr>>()?;
    Ok(SqlRow::new(s.columns, values))
}

impl AsyncSqlExecutor for SeaOrmExecutor {
    type Error = DbErr;

    fn dialect(&self) -> Dialect {
        dialect(self.db.get_database_backend())
    }

    /// The statement's result carries the connection's `LAST_INSERT_ID()`
    /// on MySQL/MariaDB: one round trip, on whichever connection of the
    /// pool ran it.
    async fn execute(&self, s: &SqlStatement) -> Result<Executed, DbErr> {
        let backend = self.db.get_database_backend();
        let done = self.db.execute_raw(statement(backend, s)).await?;
        Ok(Executed {
            rows: done.rows_affected(),
            last_insert_id: s.reads_insert_id.then(|| done.last_insert_id()),
        })
    }

    async fn query(&self, s: &SqlStatement) -> Result<Vec<SqlRow>, DbErr> {
        let backend = self.db.get_database_backend();
        let rows = self.db.query_all_raw(statement(backend, s)).await?;
        rows.iter().map(|r| row(s, r)).collect()
    }
}
