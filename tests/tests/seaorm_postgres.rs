//! SeaORM on PostgreSQL (container or `FLAKEID_TEST_POSTGRES_URL`).
mod seaorm_common;

use flakeid_tests::db::{self, TestDb};
use sea_orm::{Database, DatabaseConnection};

async fn connect() -> (TestDb, DatabaseConnection) {
    let test_db = db::postgres().await;
    let conn = Database::connect(test_db.url())
        .await
        .expect("connect to PostgreSQL");
    (test_db, conn)
}

seaorm_common_tests!(connect);
