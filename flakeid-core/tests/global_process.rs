//! The process-wide generator, each scenario in a child process of its own
//! with exactly the environment it needs (so tests never race on process
//! environment or on the one global generator).

use std::process::Command;

use flakeid_core::layout::presets;
use flakeid_core::{ConfigError, Generator, global};

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
    if !is_child() {
        run_child(
            "lazily_configures_from_the_environment",
            &[("FLAKEID_NODE_ID", "5"), ("FLAKEID_LAYOUT", "discord")],
        );
        return;
    }
    let g = global::generator().unwrap();
    assert_eq!(g.node(), 5);
    assert_eq!(g.layout(), &presets::discord());
    assert!(std::ptr::eq(g, global::generator().unwrap()));
    let id = g.next_id().unwrap();
    assert_eq!(g.layout().decompose(id).node, 5);
}

#[test]
fn lazy_error_is_stored_and_init_can_replace_it() {
    if !is_child() {
        run_child("lazy_error_is_stored_and_init_can_replace_it", &[]);
        return;
    }
    assert_eq!(global::generator().unwrap_err(), ConfigError::MissingNodeId);
    assert_eq!(global::generator().unwrap_err(), ConfigError::MissingNodeId);
    let g = global::init(Generator::builder(presets::tsid(), 9)).unwrap();
    assert!(std::ptr::eq(g, global::generator().unwrap()));
    assert_eq!(g.node(), 9);
}

#[test]
fn init_is_idempotent_for_the_same_configuration_only() {
    if !is_child() {
        run_child("init_is_idempotent_for_the_same_configuration_only", &[]);
        return;
    }
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
    if !is_child() {
        run_child(
            "init_from_env_reports_bad_values",
            &[("FLAKEID_NODE_ID", "2000"), ("FLAKEID_LAYOUT", "twitter")],
        );
        return;
    }
    let message = r#"FLAKEID_NODE_ID="2000" is invalid: out of range: the twitter layout allows node IDs 0..=1023"#;
    let err = global::init_from_env().unwrap_err();
    assert_eq!(err.to_string(), message);
    assert!(matches!(
        err,
        ConfigError::InvalidEnv {
            var: "FLAKEID_NODE_ID",
            ..
        }
    ));
    assert_eq!(global::generator().unwrap_err().to_string(), message);
}

#[test]
fn lazy_generator_rejects_a_signed_node_id() {
    if !is_child() {
        run_child(
            "lazy_generator_rejects_a_signed_node_id",
            &[("FLAKEID_NODE_ID", "+5")],
        );
        return;
    }
    let message = r#"FLAKEID_NODE_ID="+5" is invalid: expected plain decimal digits 0-9 (no sign, no other characters)"#;
    assert_eq!(global::generator().unwrap_err().to_string(), message);
    assert_eq!(global::init_from_env().unwrap_err().to_string(), message);
}

/// The clock reading in a message that ends in "the clock reads N ms since
/// the Unix epoch", which must lie within `before..=now`.
fn clock_in(message: &str, before: u64) -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let reading = message
        .strip_suffix(" ms since the Unix epoch")
        .and_then(|m| m.rsplit(' ').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no clock reading in {message}"));
    assert!((before..=now).contains(&reading), "{message}");
    reading
}

fn unix_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

#[test]
fn lazy_generator_rejects_an_epoch_in_the_future() {
    if !is_child() {
        run_child(
            "lazy_generator_rejects_an_epoch_in_the_future",
            &[
                ("FLAKEID_NODE_ID", "5"),
                ("FLAKEID_LAYOUT", "discord"),
                ("FLAKEID_EPOCH", "3000-01-01T00:00:00Z"),
            ],
        );
        return;
    }
    let before = unix_millis();
    let err = global::generator().unwrap_err();
    let msg = err.to_string();
    let now = clock_in(&msg, before);
    assert_eq!(
        msg,
        format!(
            r#"FLAKEID_EPOCH="3000-01-01T00:00:00Z" is invalid: epoch 32503680000000 ms is in the future: the clock reads {now} ms since the Unix epoch"#
        )
    );
    assert!(matches!(
        err,
        ConfigError::InvalidEnv {
            var: "FLAKEID_EPOCH",
            ..
        }
    ));
}

#[test]
fn init_from_env_rejects_an_epoch_the_layout_ran_out_from() {
    if !is_child() {
        run_child(
            "init_from_env_rejects_an_epoch_the_layout_ran_out_from",
            &[
                ("FLAKEID_DEV_MODE", "1"),
                ("FLAKEID_LAYOUT", "instagram"),
                ("FLAKEID_EPOCH", "1000"),
            ],
        );
        return;
    }
    let before = unix_millis();
    let msg = global::init_from_env().unwrap_err().to_string();
    let now = clock_in(&msg, before);
    assert_eq!(
        msg,
        format!(
            r#"FLAKEID_EPOCH="1000" is invalid: the instagram layout's time field, counted from this epoch, ran out at 1099511628776 ms: the clock reads {now} ms since the Unix epoch"#
        )
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

/// A node ID leased for one ID space (layout and epoch) is fenced by that
/// lease only: an ID type of another layout must not draw process-wide IDs
/// with it, unfenced.
#[test]
#[cfg(feature = "macros")]
fn a_leased_node_id_serves_only_its_own_layout() {
    if !is_child() {
        run_child("a_leased_node_id_serves_only_its_own_layout", &[]);
        return;
    }
    use flakeid_core::node::{LeaseOptions, MemoryLeaseStore};
    use flakeid_core::{GenerateError, flake_id};

    #[flake_id]
    struct PostId(i64);
    #[flake_id(layout = presets::sonyflake)]
    struct EventId(i64);

    let lease = LeaseOptions::new("posts", presets::twitter())
        .nodes(3..=3)
        .claim(MemoryLeaseStore::new())
        .unwrap();
    global::init(lease.generator_builder()).unwrap();
    assert!(global::generator().unwrap().is_fenced());
    assert_eq!(
        PostId::generate().unwrap().decode().parts.map(|p| p.node),
        Some(3)
    );
    let e = EventId::generate().unwrap_err();
    assert!(
        matches!(
            &e,
            GenerateError::Config(ConfigError::LeasedForOneLayout { leased })
                if leased == "the twitter layout"
        ),
        "{e}"
    );
}
