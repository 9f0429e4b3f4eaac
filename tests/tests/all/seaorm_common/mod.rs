//! SeaORM behaviours, written once and run against each database by
//! `seaorm_common_tests!` (see `seaorm_sqlite.rs`, `seaorm_postgres.rs`,
//! `seaorm_mysql.rs`). Every test checks what the database stored with plain
//! SQL.
#![allow(unreachable_pub)]

pub mod entities;
mod graphs;

pub use graphs::*;

pub(crate) use crate::support::{NODE, init_generator};
use entities::{DepartmentId, EmployeeId, department, employee};
use flakeid_core::FlakeId;
use flakeid_seaorm::{Error, FlakeActiveModel, FlakeEntity};
use sea_orm::{
    ActiveModelTrait, ActiveValue::NotSet, ConnectionTrait, DatabaseBackend, DatabaseConnection,
    DbErr, EntityTrait, PrimaryKeyTrait, QueryResult, Schema, Set, Statement, TransactionTrait,
};

/// Creates `departments` and `employees` with `create_table_from_entity`,
/// plus the cyclic foreign keys by hand where the backend needs options
/// SeaORM's schema does not express.
pub async fn create_schema(db: &DatabaseConnection) -> Result<(), DbErr> {
    init_generator();
    let backend = db.get_database_backend();
    let schema = Schema::new(backend);
    db.execute(&schema.create_table_from_entity(department::Entity))
        .await?;
    db.execute(&schema.create_table_from_entity(employee::Entity))
        .await?;
    Ok(())
}

/// Creates the table of `entity` with `create_table_from_entity`.
pub async fn create_table<E: EntityTrait>(db: &DatabaseConnection, entity: E) {
    let schema = Schema::new(db.get_database_backend());
    db.execute(&schema.create_table_from_entity(entity))
        .await
        .unwrap_or_else(|e| panic!("create {}: {e}", entity.table_name()));
}

/// Stores a row by plain SQL (`insert`), then reads the table of `E`
/// through SeaORM: the error that gives (`why`: why it must fail).
pub async fn read_error<E: EntityTrait>(db: &DatabaseConnection, insert: &str, why: &str) -> DbErr {
    db.execute_unprepared(insert).await.expect("plain insert");
    E::find().all(db).await.expect_err(why)
}

pub async fn raw_all(db: &DatabaseConnection, sql: &str) -> Vec<QueryResult> {
    db.query_all_raw(Statement::from_string(db.get_database_backend(), sql))
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"))
}

/// Two integer columns of every row, read by plain SQL, sorted.
pub async fn sorted_pairs(db: &DatabaseConnection, sql: &str) -> Vec<(i64, i64)> {
    let mut pairs: Vec<(i64, i64)> = raw_all(db, sql)
        .await
        .iter()
        .map(|r| {
            (
                r.try_get_by_index(0).expect("first column"),
                r.try_get_by_index(1).expect("second column"),
            )
        })
        .collect();
    pairs.sort_unstable();
    pairs
}

/// `SELECT id FROM table ORDER BY id` with plain SQL.
pub async fn stored_ids(db: &DatabaseConnection, table: &str) -> Vec<i64> {
    raw_all(db, &format!("SELECT id FROM {table} ORDER BY id"))
        .await
        .iter()
        .map(|r| r.try_get_by_index::<i64>(0).expect("id is a BIGINT"))
        .collect()
}

/// A value a generator of the test layout issued just now has a tick well
/// above any rowid or auto-increment counter a test could produce.
pub fn assert_is_flake_id(raw: i64) {
    let id = DepartmentId::from_i64(raw).expect("a valid ID");
    let parts = id.decode().parts.expect("a layout's parts");
    assert_eq!(
        parts.node, NODE,
        "{raw} was not issued by this process's generator"
    );
    assert!(
        parts.tick > 1_000_000,
        "{raw} looks like a rowid, not a flake ID"
    );
}

fn new_department(name: &str) -> department::ActiveModel {
    department::ActiveModel {
        name: Set(name.to_owned()),
        head_id: Set(None),
        ..Default::default()
    }
}

async fn a_department(db: &DatabaseConnection) -> DepartmentId {
    new_department("parent")
        .insert(db)
        .await
        .expect("insert department")
        .id
}

/// The row of `E` keyed `id`, through SeaORM; it must be there.
async fn found<E: EntityTrait>(
    db: &DatabaseConnection,
    id: <E::PrimaryKey as PrimaryKeyTrait>::ValueType,
) -> E::Model {
    E::find_by_id(id)
        .one(db)
        .await
        .expect("select")
        .expect("found")
}

/// Plain SQL: the `head_id` stored for the department `dept`.
async fn stored_head(db: &DatabaseConnection, dept: DepartmentId) -> Option<i64> {
    let sql = format!("SELECT head_id FROM departments WHERE id = {}", dept.get());
    raw_all(db, &sql).await[0]
        .try_get_by_index::<Option<i64>>(0)
        .expect("BIGINT")
}

/// `Entity::insert_with_id` of `am`, run.
async fn insert_department_with_id(
    db: &DatabaseConnection,
    am: department::ActiveModel,
) -> sea_orm::InsertResult<department::ActiveModel> {
    department::Entity::insert_with_id(am)
        .await
        .expect("build")
        .exec(db)
        .await
        .expect("insert")
}

/// `n` new employees of `dept`, keys not set.
fn new_employees(dept: DepartmentId, n: usize) -> impl Iterator<Item = employee::ActiveModel> {
    (0..n).map(move |i| employee::ActiveModel {
        name: Set(format!("employee {i}")),
        department_id: Set(dept),
        ..Default::default()
    })
}

pub async fn active_model_insert_assigns_id_before_insert(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    let model = new_department("research").insert(db).await.expect("insert");
    assert_eq!(stored_ids(db, "departments").await, vec![model.id.get()]);
    assert_is_flake_id(model.id.get());
}

pub async fn active_model_save_assigns_id_and_inserts(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    let saved = new_department("sales").save(db).await.expect("save");
    let id = match saved.id {
        sea_orm::ActiveValue::Set(id) | sea_orm::ActiveValue::Unchanged(id) => id,
        NotSet => panic!("save left the key unset"),
    };
    assert_eq!(stored_ids(db, "departments").await, vec![id.get()]);
    assert_is_flake_id(id.get());
    // A second save of the same model is an UPDATE, not a new row.
    let mut again = saved;
    again.name = Set("sales and marketing".to_owned());
    again.save(db).await.expect("update");
    assert_eq!(stored_ids(db, "departments").await, vec![id.get()]);
}

pub async fn explicit_id_is_kept(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    let chosen = DepartmentId::generate().expect("a fresh ID");
    let mut am = new_department("chosen");
    am.id = Set(chosen);
    let model = am.insert(db).await.expect("insert");
    assert_eq!(model.id, chosen);
    let chosen2 = DepartmentId::generate().expect("a fresh ID");
    let mut am2 = new_department("chosen by insert_with_id");
    am2.id = Set(chosen2);
    insert_department_with_id(db, am2).await;
    assert_eq!(
        stored_ids(db, "departments").await,
        vec![chosen.get(), chosen2.get()]
    );
}

pub async fn entity_insert_with_id_assigns_before_insert(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    let result = insert_department_with_id(db, new_department("ops")).await;
    assert_eq!(
        stored_ids(db, "departments").await,
        vec![result.last_insert_id.get()]
    );
    assert_is_flake_id(result.last_insert_id.get());
}

pub async fn insert_many_with_ids_assigns_every_key(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    let dept = a_department(db).await;
    let employees = new_employees(dept, 5);
    employee::Entity::insert_many_with_ids(employees)
        .await
        .expect("build")
        .exec(db)
        .await
        .expect("insert");
    let ids = stored_ids(db, "employees").await;
    assert_eq!(ids.len(), 5);
    ids.iter().copied().for_each(assert_is_flake_id);
    let rows = raw_all(db, "SELECT department_id FROM employees").await;
    for row in rows {
        assert_eq!(row.try_get_by_index::<i64>(0).expect("BIGINT"), dept.get());
    }
}

/// Rows in one `insert_many_with_ids` get one contiguous run of the
/// generator, even while another caller takes IDs from it: the statement's
/// keys land together at the right edge of the key's index.
pub async fn insert_many_with_ids_reserves_one_contiguous_run(db: &DatabaseConnection) {
    const ROWS: usize = 5_000;
    create_schema(db).await.expect("schema");
    let dept = a_department(db).await;
    let employees = new_employees(dept, ROWS);
    // The IDs are assigned as the statement is built.
    let other = crate::support::ConcurrentCaller::start();
    let insert = employee::Entity::insert_many_with_ids(employees)
        .await
        .expect("build");
    let others = other.stop();
    insert.exec_without_returning(db).await.expect("insert");
    let ids = stored_ids(db, "employees").await;
    assert_eq!(ids.len(), ROWS);
    crate::support::assert_one_contiguous_run(&ids, &others);
}

pub async fn entity_insert_without_key_is_an_error_not_a_generated_key(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    // Hooks do not run for `Entity::insert`: the key stays out of the INSERT.
    let result = department::Entity::insert(new_department("forgotten"))
        .exec(db)
        .await;
    assert!(
        result.is_err(),
        "an INSERT without a key must fail: {result:?}"
    );
    assert_eq!(stored_ids(db, "departments").await, Vec::<i64>::new());
}

pub async fn create_table_from_entity_emits_plain_bigint_key(db: &DatabaseConnection) {
    let backend = db.get_database_backend();
    let stmt = Schema::new(backend).create_table_from_entity(department::Entity);
    let sql = backend.build(&stmt).to_string().to_lowercase();
    assert!(sql.contains("bigint"), "{sql}");
    for generated in ["auto_increment", "autoincrement", "identity", "serial"] {
        assert!(!sql.contains(generated), "{generated} in {sql}");
    }
    assert!(sql.contains("primary key check (id > 0)"), "{sql}");
    create_schema(db).await.expect("schema");
    let model = new_department("via created table")
        .insert(db)
        .await
        .expect("insert");
    assert_eq!(stored_ids(db, "departments").await, vec![model.id.get()]);
}

pub async fn foreign_keys_and_optional_foreign_keys_round_trip(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    let dept = a_department(db).await;
    let boss = employee::ActiveModel {
        name: Set("boss".to_owned()),
        department_id: Set(dept),
        ..Default::default()
    }
    .insert(db)
    .await
    .expect("insert employee");
    let mut am: department::ActiveModel = found::<department::Entity>(db, dept).await.into();
    am.head_id = Set(Some(boss.id));
    am.update(db).await.expect("update");

    let read = found::<department::Entity>(db, dept).await;
    assert_eq!(read.head_id, Some(boss.id));
    let emp = found::<employee::Entity>(db, boss.id).await;
    assert_eq!(emp.department_id, dept);
    assert_eq!(stored_head(db, dept).await, Some(boss.id.get()));

    let no_head = new_department("headless").insert(db).await.expect("insert");
    assert_eq!(stored_head(db, no_head.id).await, None);
    let read = found::<department::Entity>(db, no_head.id).await;
    assert_eq!(read.head_id, None);
}

pub async fn invalid_stored_ids_are_typed_errors(db: &DatabaseConnection) {
    init_generator();
    // Without `CHECK (id > 0)`, as a table made before it (or on MySQL
    // before 8.0.16, which ignores it) can hold 0 and negatives: tables
    // created from the entity refuse them.
    db.execute_unprepared(
        "CREATE TABLE departments (id BIGINT NOT NULL PRIMARY KEY, name VARCHAR(100) NOT NULL, \
         head_id BIGINT NULL)",
    )
    .await
    .expect("schema");
    for (bad, text) in [(0_i64, "0"), (-5, "-5")] {
        let err = read_error::<department::Entity>(
            db,
            &format!("INSERT INTO departments (id, name) VALUES ({bad}, 'bad')"),
            "an invalid stored ID must not be read as an ID",
        )
        .await;
        match Error::find(&err) {
            Some(Error::InvalidStoredId {
                id_type,
                column,
                value,
                ..
            }) => {
                assert_eq!(*id_type, "DepartmentId");
                assert!(column.contains("id"), "{column}");
                assert_eq!(value, text);
            }
            other => panic!("expected InvalidStoredId, got {other:?} from {err}"),
        }
        db.execute_unprepared("DELETE FROM departments")
            .await
            .expect("delete");
    }
}

pub async fn json_without_id_gets_an_id_on_insert(db: &DatabaseConnection) {
    create_schema(db).await.expect("schema");
    let am = department::ActiveModel::from_json_for_insert(serde_json::json!({
        "name": "from JSON",
        "head_id": null,
    }))
    .expect("from JSON");
    assert!(am.id.is_not_set());
    let model = am.insert(db).await.expect("insert");
    assert_eq!(stored_ids(db, "departments").await, vec![model.id.get()]);
    assert_is_flake_id(model.id.get());
}

/// Builds departments and employees that reference each other with IDs
/// known before anything is written, writes them in one transaction, and
/// checks every reference with plain SQL.
pub async fn write_cycle(
    db: &DatabaseConnection,
    departments: Vec<department::ActiveModel>,
    employees: Vec<employee::ActiveModel>,
) -> Result<(), DbErr> {
    // PostgreSQL and SQLite: constraints are DEFERRABLE INITIALLY DEFERRED,
    // checked at COMMIT. Elsewhere no constraint can be deferred:
    // departments first without their head, then employees, then the
    // heads, all before COMMIT.
    let deferred = matches!(
        db.get_database_backend(),
        DatabaseBackend::Postgres | DatabaseBackend::Sqlite
    );
    let heads: Vec<(DepartmentId, Option<EmployeeId>)> = if deferred {
        Vec::new()
    } else {
        departments
            .iter()
            .map(|d| (d.id.clone().unwrap(), d.head_id.clone().unwrap()))
            .collect()
    };
    let departments = departments.into_iter().map(|mut d| {
        if !deferred {
            d.head_id = Set(None);
        }
        d
    });
    let txn = db.begin().await?;
    department::Entity::insert_many_with_ids(departments)
        .await?
        .exec(&txn)
        .await?;
    employee::Entity::insert_many_with_ids(employees)
        .await?
        .exec(&txn)
        .await?;
    for (id, head) in heads {
        department::ActiveModel {
            id: sea_orm::ActiveValue::Unchanged(id),
            head_id: Set(head),
            ..Default::default()
        }
        .update(&txn)
        .await?;
    }
    txn.commit().await
}

pub async fn cyclic_references_written_in_one_transaction(db: &DatabaseConnection) {
    init_generator();
    let fk = |deferrable: &str| {
        format!(
            "CREATE TABLE departments (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), name VARCHAR(100) NOT NULL, head_id BIGINT NULL);
             CREATE TABLE employees (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), name VARCHAR(100) NOT NULL, department_id BIGINT NOT NULL
                 REFERENCES departments (id) {deferrable});
             ALTER TABLE departments ADD CONSTRAINT departments_head_fk FOREIGN KEY (head_id) REFERENCES employees (id) {deferrable};"
        )
    };
    match db.get_database_backend() {
        DatabaseBackend::Postgres => {
            db.execute_unprepared(&fk("DEFERRABLE INITIALLY DEFERRED"))
                .await
                .expect("schema");
        }
        DatabaseBackend::MySql => {
            for stmt in fk("").split(';').filter(|s| !s.trim().is_empty()) {
                db.execute_unprepared(stmt).await.expect("schema");
            }
        }
        _ => {
            // SQLite cannot add a constraint later; declare both inline.
            db.execute_unprepared(
                "PRAGMA foreign_keys = ON;
                 CREATE TABLE departments (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), name TEXT NOT NULL,
                     head_id BIGINT NULL REFERENCES employees (id) DEFERRABLE INITIALLY DEFERRED);
                 CREATE TABLE employees (id BIGINT NOT NULL PRIMARY KEY CHECK (id > 0), name TEXT NOT NULL,
                     department_id BIGINT NOT NULL REFERENCES departments (id) DEFERRABLE INITIALLY DEFERRED);",
            )
            .await
            .expect("schema");
        }
    }

    // IDs known in advance: every reference is set before any row is written.
    let mut departments = Vec::new();
    let mut employees = Vec::new();
    for d in 0..3 {
        let dept_id = DepartmentId::generate().expect("a fresh ID");
        let staff: Vec<EmployeeId> = (0..3)
            .map(|_| EmployeeId::generate().expect("a fresh ID"))
            .collect();
        departments.push(department::ActiveModel {
            id: Set(dept_id),
            name: Set(format!("department {d}")),
            head_id: Set(Some(staff[0])),
        });
        for (e, id) in staff.iter().enumerate() {
            employees.push(employee::ActiveModel {
                id: Set(*id),
                name: Set(format!("employee {d}.{e}")),
                department_id: Set(dept_id),
            });
        }
    }
    let expected_heads: Vec<(i64, i64)> = departments
        .iter()
        .map(|d| {
            (
                d.id.clone().unwrap().get(),
                d.head_id.clone().unwrap().unwrap().get(),
            )
        })
        .collect();
    let expected_staff: Vec<(i64, i64)> = employees
        .iter()
        .map(|e| {
            (
                e.id.clone().unwrap().get(),
                e.department_id.clone().unwrap().get(),
            )
        })
        .collect();

    write_cycle(db, departments, employees)
        .await
        .expect("cycle written");

    let mut want = expected_heads;
    want.sort_unstable();
    assert_eq!(
        sorted_pairs(db, "SELECT id, head_id FROM departments").await,
        want
    );
    let mut want = expected_staff;
    want.sort_unstable();
    assert_eq!(
        sorted_pairs(db, "SELECT id, department_id FROM employees").await,
        want
    );
    // Every head works in the department it heads.
    let joined = raw_all(
        db,
        "SELECT COUNT(*) FROM departments d JOIN employees e ON e.id = d.head_id AND e.department_id = d.id",
    )
    .await;
    assert_eq!(joined[0].try_get_by_index::<i64>(0).expect("count"), 3);
}

/// One `#[tokio::test]` per behaviour: the async fn `$name` of the module
/// `$m` (this one unless given) called with a connection `$connect` makes
/// (an async fn returning a guard and a `DatabaseConnection`), then `$arg`s.
macro_rules! seaorm_tests {
    ($connect:path; $($names:tt)*) => {
        seaorm_tests!($connect, crate::seaorm_common; $($names)*);
    };
    ($connect:path, $($m:ident)::+;) => {};
    ($connect:path, $($m:ident)::+; $name:ident $(($($arg:expr),*))? $(, $($rest:tt)*)?) => {
        #[tokio::test]
        async fn $name() {
            let (_guard, db) = $connect().await;
            $($m::)+$name(&db $($(, $arg)*)?).await;
        }

        seaorm_tests!($connect, $($m)::+; $($($rest)*)?);
    };
}

/// The behaviours every database runs.
macro_rules! seaorm_common_tests {
    ($connect:path) => {
        seaorm_tests!($connect;
            active_model_insert_assigns_id_before_insert,
            active_model_save_assigns_id_and_inserts,
            explicit_id_is_kept,
            entity_insert_with_id_assigns_before_insert,
            insert_many_with_ids_assigns_every_key,
            insert_many_with_ids_reserves_one_contiguous_run,
            entity_insert_without_key_is_an_error_not_a_generated_key,
            create_table_from_entity_emits_plain_bigint_key,
            foreign_keys_and_optional_foreign_keys_round_trip,
            invalid_stored_ids_are_typed_errors,
            json_without_id_gets_an_id_on_insert,
            cyclic_references_written_in_one_transaction,
            graph_nested_insert_with_keys_not_set,
            save_after_assign_id_inserts_a_model,
            save_after_assign_id_inserts_a_graph,
            append_to_a_loaded_parent,
            many_to_many_through_a_junction_table,
            save_of_a_set_key_no_row_has_is_refused,
            save_updates_a_row_stored_without_hooks,
            save_inserts_after_a_rolled_back_transaction,
            save_inserts_a_graph_after_its_rollback,
            cyclic_references_in_a_graph,
        );
    };
}
