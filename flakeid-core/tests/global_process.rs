//! The process-wide generator, each scenario in a child process of its own
//! with exactly the environment it needs (so tests never race on process
//! environment or on the one global generator). (The process-wide generator
//! on a leased node is tested in flakeid-lease.)

use std::process::Command;

use flakeid_core::layout::presets;
use flakeid_core::{ConfigError, Generator, global};

#[path = "all/support/config_errors.rs"]
mod config_errors;

use config_errors::{fails_with_clock, invalid_var};

/// Opens test `$test`: in the parent process, runs the test in a child
/// process of its own with the variables `$var = $value` as its only
/// `FLAKEID_*` variables, requires it to pass and returns; in the child,
/// goes on with the test.
macro_rules! in_child {
    ($test:ident $(, $var:literal = $value:literal)* $(,)?) => {
        let _: fn() = $test;
        if !is_child() {
            run_child(stringify!($test), &[$(($var, $value)),*]);
            return;
        }
    };
}

const CHILD: &str = "FLAKEID_TEST_GLOBAL_CHILD";

fn is_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// Runs test `name` of this binary in a child process with `vars` as the
/// only `FLAKEID_*` variables, requires it to pass, and returns its stderr.
fn run_child(name: &str, vars: &[(&str, &str)]) -> String {
    let exe = std::env::current_exe().unwrap();
    let mut cmd = Command::new(exe);
    cmd.args([name, "--exact", "--test-threads=1", "--nocapture"]);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("FLAKEID_") {
            cmd.env_remove(key);
        }
    }
    cmd.envs(vars.iter().copied()).env(CHILD, "1");
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child {name} failed:\n{stdout}\n{stderr}"
    );
    stderr.into_owned()
}

#[test]
fn lazily_configures_from_the_environment() {
    in_child!(
        lazily_configures_from_the_environment,
        "FLAKEID_NODE_ID" = "5",
        "FLAKEID_LAYOUT" = "discord"
    );
    let g = global::generator().unwrap();
    assert_eq!(g.node(), 5);
    assert_eq!(g.layout(), &presets::discord());
    assert!(std::ptr::eq(g, global::generator().unwrap()));
    let id = g.next_id().unwrap();
    assert_eq!(g.layout().decompose(id).node, 5);
}

#[test]
fn lazy_error_is_stored_and_init_can_replace_it() {
    in_child!(lazy_error_is_stored_and_init_can_replace_it);
    assert_eq!(global::generator().unwrap_err(), ConfigError::MissingNodeId);
    assert_eq!(global::generator().unwrap_err(), ConfigError::MissingNodeId);
    let g = global::init(Generator::builder(presets::tsid(), 9)).unwrap();
    assert!(std::ptr::eq(g, global::generator().unwrap()));
    assert_eq!(g.node(), 9);
}

#[test]
fn init_is_idempotent_for_the_same_configuration_only() {
    in_child!(init_is_idempotent_for_the_same_configuration_only);
    let first = global::init(Generator::builder(presets::twitter(), 3)).unwrap();
    let id = first.next_id().unwrap();
    let again = global::init(Generator::builder(presets::twitter(), 3)).unwrap();
    assert!(std::ptr::eq(first, again));
    assert!(
        again.next_id().unwrap() > id,
        "the running generator keeps its state"
    );
    assert_eq!(
        global::init(Generator::builder(presets::twitter(), 4)).unwrap_err(),
        ConfigError::AlreadyInitialized
    );
    assert_eq!(
        global::init(Generator::builder(presets::discord(), 3)).unwrap_err(),
        ConfigError::AlreadyInitialized
    );
    // A builder error is reported as such, not as "already initialised".
    assert_eq!(
        global::init(Generator::builder(presets::twitter(), 5000)).unwrap_err(),
        ConfigError::NodeOutOfRange {
            node: 5000,
            max: 1023
        }
    );
}

#[test]
fn init_from_env_reports_bad_values() {
    in_child!(
        init_from_env_reports_bad_values,
        "FLAKEID_NODE_ID" = "2000",
        "FLAKEID_LAYOUT" = "twitter"
    );
    let message = r#"FLAKEID_NODE_ID="2000" is invalid: out of range: the twitter layout allows node IDs 0..=1023"#;
    let err = global::init_from_env().unwrap_err();
    assert_eq!(err.to_string(), message);
    assert_eq!(invalid_var(err), ("FLAKEID_NODE_ID", "2000".into()));
    assert_eq!(global::generator().unwrap_err().to_string(), message);
}

#[test]
fn lazy_generator_rejects_a_signed_node_id() {
    in_child!(
        lazy_generator_rejects_a_signed_node_id,
        "FLAKEID_NODE_ID" = "+5"
    );
    let message = r#"FLAKEID_NODE_ID="+5" is invalid: expected plain decimal digits 0-9 (no sign, no other characters)"#;
    assert_eq!(global::generator().unwrap_err().to_string(), message);
    assert_eq!(global::init_from_env().unwrap_err().to_string(), message);
}

#[test]
fn lazy_generator_rejects_an_epoch_in_the_future() {
    in_child!(
        lazy_generator_rejects_an_epoch_in_the_future,
        "FLAKEID_NODE_ID" = "5",
        "FLAKEID_LAYOUT" = "discord",
        "FLAKEID_EPOCH" = "3000-01-01T00:00:00Z"
    );
    let err = fails_with_clock(
        || global::generator().unwrap_err(),
        |now| {
            format!(
                r#"FLAKEID_EPOCH="3000-01-01T00:00:00Z" is invalid: epoch 32503680000000 ms is in the future: the clock reads {now} ms since the Unix epoch"#
            )
        },
    );
    assert_eq!(invalid_var(err).0, "FLAKEID_EPOCH");
}

#[test]
fn init_from_env_rejects_an_epoch_the_layout_ran_out_from() {
    in_child!(
        init_from_env_rejects_an_epoch_the_layout_ran_out_from,
        "FLAKEID_DEV_MODE" = "1",
        "FLAKEID_LAYOUT" = "instagram",
        "FLAKEID_EPOCH" = "1000"
    );
    fails_with_clock(
        || global::init_from_env().unwrap_err(),
        |now| {
            format!(
                r#"FLAKEID_EPOCH="1000" is invalid: the instagram layout's time field, counted from this epoch, ran out at 1099511628776 ms: the clock reads {now} ms since the Unix epoch"#
            )
        },
    );
}

#[test]
fn dev_mode_announces_its_random_node() {
    if !is_child() {
        let stderr = run_child(
            "dev_mode_announces_its_random_node",
            &[("FLAKEID_DEV_MODE", "1")],
        );
        assert!(stderr.contains("random node ID"), "{stderr}");
        return;
    }
    let g = global::init_from_env().unwrap();
    assert!(g.node() <= 1023);
}
