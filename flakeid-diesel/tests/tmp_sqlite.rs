#[path = "../../tests/tests/diesel_common/mod.rs"]
mod diesel_common;
fn create_schema<C: diesel::Connection>(conn: &mut C, backend: diesel_common::Backend) {
    for statement in diesel_common::schema(backend) {
        diesel::connection::SimpleConnection::batch_execute(conn, &statement)
            .unwrap_or_else(|e| panic!("schema statement failed: {e}\n{statement}"));
    }
}
mod sqlite {
    use diesel::prelude::*;
    use crate::diesel_common::*;
    const BACKEND: Backend = Backend::Sqlite;
    type Conn = SqliteConnection;
    fn connect() -> ((), Conn) {
        init_generator();
        let mut conn = SqliteConnection::establish(":memory:").expect("open SQLite in memory");
        diesel::sql_query("PRAGMA foreign_keys = ON").execute(&mut conn).expect("fk");
        super::create_schema(&mut conn, BACKEND);
        ((), conn)
    }
    include!("../../tests/tests/diesel_common/sync_cases.rs");
}
