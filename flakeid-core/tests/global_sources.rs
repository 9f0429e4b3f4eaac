//! ID types over flakeid-core's layouts with a source of their own
//! (`#[flake_id(layout = …, source = …)]`): a source of another layout is
//! refused, the first call after the source is built waits at most a tick,
//! a source may be chosen at run time, and reading a value configures no
//! process-wide generator (in a child process of its own). (ID types over
//! the layouts and schemes of flakeid-schemes are tested there.)
#![cfg(feature = "macros")]

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use flakeid_core::layout::presets;
use flakeid_core::{ConfigError, FlakeId, GenerateError, Generator, IdSource, flake_id, global};

/// A `generator = …` function over a lazily built generator; a build
/// error is a test failure.
macro_rules! source_fn {
    ($name:ident: $ty:ty = $build:expr) => {
        fn $name() -> Result<&'static $ty, ConfigError> {
            static G: OnceLock<$ty> = OnceLock::new();
            Ok(G.get_or_init(|| $build))
        }
    };
}

/// A source chosen at run time.
fn any_source() -> Result<&'static dyn IdSource, ConfigError> {
    Ok(js_safe_ids()?)
}

#[flake_id(layout = presets::js_safe, source = any_source)]
pub struct AnyId(i64);

#[flake_id]
pub struct PlainId(i64);

source_fn!(fresh_twitter_ids: Generator =
    Generator::builder(presets::twitter(), 9).build().expect("twitter generator"));

/// An ID type whose generator is built on its first use.
#[flake_id(layout = presets::twitter, source = fresh_twitter_ids)]
pub struct FreshId(i64);

source_fn!(js_safe_ids: Generator =
    Generator::builder(presets::js_safe(), 3).build().expect("js_safe generator"));

/// Declared with one layout, given a source of another: its IDs would
/// decode as other times and nodes.
#[flake_id(layout = presets::twitter, source = js_safe_ids)]
pub struct MismatchedId(i64);

#[test]
fn a_source_of_another_layout_than_the_type_declares_is_refused() {
    for e in [
        MismatchedId::generate().unwrap_err(),
        MismatchedId::try_generate().unwrap_err(),
    ] {
        let GenerateError::Config(ConfigError::SourceMismatch {
            type_name,
            declared,
            issued,
        }) = &e.error
        else {
            panic!("expected SourceMismatch, got {e}");
        };
        assert_eq!(*type_name, "MismatchedId");
        assert!(declared.contains("the twitter layout"), "{declared}");
        assert!(issued.contains("the js_safe layout"), "{issued}");
        assert!(e.to_string().contains("MismatchedId"), "{e}");
    }
    // Types whose layout and source agree are unaffected.
    assert!(FreshId::generate().is_ok());
    assert!(AnyId::generate().is_ok());
}

/// The bound `FlakeId::try_generate` documents: the first call after the
/// source is built may find it in its build tick, and then says so with
/// a `retry_after` of at most one tick (1 ms here), after which it issues.
/// (The clock's reading may lag by its ticker's wake-up latency on an
/// overloaded machine, as `MonotonicClock` documents: a call after the
/// wait may then still find the build tick, and says so with the same
/// bound.)
#[test]
fn the_first_try_generate_after_the_source_is_built_waits_at_most_one_tick() {
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut tries = 0;
    let issued = loop {
        tries += 1;
        match FreshId::try_generate() {
            // The build fell just before a tick boundary, or the wait was
            // long enough.
            Ok(id) => break id,
            Err(e) => {
                let GenerateError::WouldBlock { retry_after, .. } = e.error else {
                    panic!("expected WouldBlock, got {e}");
                };
                assert!(retry_after <= Duration::from_millis(1), "{retry_after:?}");
                assert_eq!(e.id_type, "FreshId");
                assert!(
                    Instant::now() < deadline,
                    "still no ID after {tries} tries in 5 s"
                );
                std::thread::sleep(retry_after);
            }
        }
    };
    assert_eq!(issued.decode().parts.map(|p| p.node), Some(9));
}

#[test]
fn a_source_chosen_at_run_time_backs_an_id_type() {
    let id = AnyId::generate().expect("a fresh ID");
    assert!(std::ptr::addr_eq(
        AnyId::source().expect("source"),
        js_safe_ids().expect("generator")
    ));
    assert_eq!(id.decode().field("node"), Some(3));
}

/// Runs this binary's test `name` in a child process whose only `FLAKEID_*`
/// variable is `FLAKEID_NODE_ID=3`, and requires it to pass.
fn run_child(name: &str) {
    let exe = std::env::current_exe().expect("test binary");
    let mut cmd = std::process::Command::new(exe);
    cmd.args([name, "--exact", "--test-threads=1"]);
    for (key, _) in std::env::vars_os() {
        if key.to_string_lossy().starts_with("FLAKEID_") {
            cmd.env_remove(key);
        }
    }
    cmd.env("FLAKEID_NODE_ID", "3").env(CHILD, "1");
    let out = cmd.output().expect("child runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child {name} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const CHILD: &str = "FLAKEID_TEST_ID_SOURCES_CHILD";

#[test]
fn reading_a_value_does_not_configure_the_process_wide_generator() {
    if std::env::var_os(CHILD).is_none() {
        run_child("reading_a_value_does_not_configure_the_process_wide_generator");
        return;
    }
    // The environment configures a generator, but only on first use.
    assert!(global::get().is_none());
    assert!(PlainId::from_i64(i64::MAX).is_ok());
    assert!("12".parse::<PlainId>().is_ok());
    assert!(
        global::get().is_none(),
        "validation configured the generator"
    );

    let generated = PlainId::generate().expect("a fresh ID");
    assert!(global::get().is_some_and(|g| g.node() == 3));
    assert!(PlainId::from_i64(generated.get()).is_ok());
}
