//! SeaORM on PostgreSQL (container or `FLAKEID_TEST_POSTGRES_URL`).
mod seaorm_common;
mod seaorm_connect;

use seaorm_connect::postgres as connect;

seaorm_common_tests!(connect);
