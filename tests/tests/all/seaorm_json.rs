//! SeaORM models as JSON: IDs are decimal strings that JavaScript (node)
//! reads and sends back exactly, and bad IDs in JSON input are errors naming
//! the field. Independent of the database (SQLite in memory where one is
//! needed).
use crate::seaorm_common;

use std::io::Write;
use std::process::{Command, Stdio};

use flakeid_core::FlakeId;
use flakeid_seaorm::{Error, FlakeActiveModel};
use seaorm_common::entities::{DepartmentId, EmployeeId, department};

const TWO_POW_53: i64 = 1 << 53;

fn departments() -> Vec<department::Model> {
    seaorm_common::init_generator();
    let mut models: Vec<department::Model> = (0..3)
        .map(|i| department::Model {
            id: DepartmentId::generate().expect("a fresh ID"),
            name: format!("department {i}"),
            head_id: (i % 2 == 0).then(|| EmployeeId::generate().expect("a fresh ID")),
        })
        .collect();
    models.push(department::Model {
        id: DepartmentId::from_i64(TWO_POW_53 + 1).expect("valid"),
        name: "just above 2^53".to_owned(),
        head_id: Some(EmployeeId::from_i64(TWO_POW_53 + 3).expect("valid")),
    });
    models
}

fn node(script: &str, stdin: &str) -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/js/");
    let mut child = Command::new("node")
        .arg(format!("{path}{script}"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("`node` must be installed to run the JavaScript round trip");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write to node");
    let out = child.wait_with_output().expect("node runs");
    assert!(
        out.status.success(),
        "node failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn model_ids_serialize_as_decimal_strings() {
    let model = &departments()[3];
    let json = serde_json::to_value(model).expect("serialize");
    assert_eq!(json["id"], serde_json::json!((TWO_POW_53 + 1).to_string()));
    assert_eq!(
        json["head_id"],
        serde_json::json!((TWO_POW_53 + 3).to_string())
    );
    let none = department::Model {
        head_id: None,
        ..model.clone()
    };
    assert_eq!(
        serde_json::to_value(&none).expect("serialize")["head_id"],
        serde_json::Value::Null
    );
}

#[test]
fn javascript_reads_every_id_exactly_and_sends_it_back_unchanged() {
    let models = departments();
    assert!(
        models.iter().all(|m| m.id.get() > TWO_POW_53),
        "IDs above 2^53 are the point"
    );
    let sent = serde_json::to_string(&models).expect("serialize");
    let received: Vec<serde_json::Value> =
        serde_json::from_str(&node("seaorm_echo.js", &sent)).expect("node wrote JSON");
    assert_eq!(received.len(), models.len());
    for (value, model) in received.iter().zip(&models) {
        assert_eq!(value["id_echo"], serde_json::json!(model.id.to_string()));
        // Number() would have rounded these IDs: only strings carry them.
        assert_eq!(value["id_exact"], serde_json::json!(false));
        let back: department::Model =
            serde_json::from_value(value.clone()).expect("model from node's JSON");
        assert_eq!(&back, model);
    }
}

fn bad_field(json: serde_json::Value) -> Error {
    let err = department::ActiveModel::from_json_for_insert(json).expect_err("bad ID accepted");
    Error::find(&err)
        .cloned()
        .unwrap_or_else(|| panic!("untyped error: {err}"))
}

#[test]
fn bad_ids_in_json_input_are_errors_naming_the_field() {
    for bad in [
        serde_json::json!(1.5),
        serde_json::json!(-3),
        serde_json::json!(0),
        serde_json::json!("99999999999999999999"),
        serde_json::json!(u64::MAX),
        serde_json::json!("12abc"),
        serde_json::json!(" 42"),
        serde_json::json!(true),
    ] {
        let err = bad_field(serde_json::json!({ "name": "x", "head_id": bad }));
        match &err {
            Error::Json { field, .. } => assert_eq!(field, "head_id", "{err}"),
            other => panic!("expected Error::Json for {bad}, got {other:?}"),
        }
        assert!(err.to_string().contains("head_id"), "{err}");
        let err = bad_field(serde_json::json!({ "id": bad, "name": "x" }));
        assert!(
            matches!(&err, Error::Json { field, .. } if field == "id"),
            "{bad}: {err:?}"
        );
    }
}

#[test]
fn json_ids_are_read_from_strings_or_integers() {
    let am = department::ActiveModel::from_json_for_insert(serde_json::json!({
        "id": "9007199254740993", "name": "x", "head_id": 12345,
    }))
    .expect("valid");
    assert_eq!(am.id.clone().unwrap().get(), TWO_POW_53 + 1);
    assert_eq!(
        am.head_id.clone().unwrap().map(EmployeeId::get),
        Some(12345)
    );
}
