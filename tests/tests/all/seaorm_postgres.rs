//! SeaORM on PostgreSQL (container or `FLAKEID_TEST_POSTGRES_URL`).
use crate::seaorm_connect::postgres as connect;

seaorm_common_tests!(connect);
