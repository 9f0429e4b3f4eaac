//! Misuse of `#[flake_id]` is a precise compile error; each message is
//! pinned in `tests/ui/<crate>/*.stderr` (regenerate with
//! `FLAKEID_UI=overwrite`).
//!
//! Each case is checked by the compiler that built this test, with the
//! dependencies this test was built with (`flakeid_rustc_args::rustc_args!`),
//! so no dependency is compiled again for the cases.

#[path = "ui/normalize.rs"]
mod normalize;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use normalize::Context;

/// The compiler and the arguments that find this test's dependencies.
const RUSTC: (&str, &[&str]) = flakeid_rustc_args::rustc_args!();

/// The name each case is compiled under.
const CASE_CRATE: &str = "flakeid_ui_case";

/// The directories of cases: the attribute alone (with flakeid-core), with
/// real SeaORM models, with Diesel tables and models.
const CASE_DIRS: &[&str] = &["tests/ui/macros", "tests/ui/seaorm", "tests/ui/diesel"];

#[test]
fn ui() {
    let cases = cases();
    assert!(!cases.is_empty(), "no cases found in {CASE_DIRS:?}");
    let overwrite = std::env::var("FLAKEID_UI").is_ok_and(|v| v == "overwrite");
    let outcomes = check_all(&cases, overwrite);
    let mut report = String::new();
    let mut failed = 0;
    for (case, outcome) in cases.iter().zip(&outcomes) {
        match outcome {
            Ok(note) => println!("test {} ... ok{note}", case.display()),
            Err(why) => {
                println!("test {} ... FAILED", case.display());
                failed += 1;
                let _ = writeln!(report, "\n---- {} ----\n{why}", case.display());
            }
        }
    }
    assert!(
        failed == 0,
        "{failed} of {} compile-error cases failed:{report}\n\
         after a deliberate change of a message: FLAKEID_UI=overwrite cargo test -p flakeid-ui-tests, \
         then review the diff",
        cases.len()
    );
}

/// Every `.rs` file of the case directories, relative to this crate, sorted.
fn cases() -> Vec<PathBuf> {
    let mut cases = Vec::new();
    for dir in CASE_DIRS {
        let entries = std::fs::read_dir(manifest_dir().join(dir))
            .unwrap_or_else(|e| panic!("cannot read the case directory {dir}: {e}"));
        let mut files: Vec<PathBuf> = entries
            .map(|entry| entry.expect("a directory entry").path())
            .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
            .map(|path| Path::new(dir).join(path.file_name().expect("a file name")))
            .collect();
        files.sort();
        cases.extend(files);
    }
    cases
}

/// Checks the cases, as many at a time as there are cores; for each, `Ok`
/// with a note, or why it failed.
fn check_all(cases: &[PathBuf], overwrite: bool) -> Vec<Result<&'static str, String>> {
    let next = Mutex::new(0..cases.len());
    let outcomes = Mutex::new(vec![Ok(""); cases.len()]);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads.min(cases.len()) {
            s.spawn(|| {
                loop {
                    let Some(i) = next.lock().expect("not poisoned").next() else {
                        break;
                    };
                    let outcome = check(&cases[i], overwrite);
                    outcomes.lock().expect("not poisoned")[i] = outcome;
                }
            });
        }
    });
    outcomes.into_inner().expect("not poisoned")
}

/// Compiles one case and compares its normalized messages with the
/// `.stderr` file beside it (or writes that file when overwriting).
fn check(case: &Path, overwrite: bool) -> Result<&'static str, String> {
    let (failed_to_compile, stderr) = compile(case)?;
    if !failed_to_compile {
        return Err(format!(
            "the case compiled; it must not. Its warnings:\n{stderr}"
        ));
    }
    let pinned = manifest_dir().join(case.with_extension("stderr"));
    if overwrite {
        std::fs::write(&pinned, &stderr)
            .map_err(|e| format!("cannot write {}: {e}", pinned.display()))?;
        return Ok(" (written)");
    }
    let expected = match std::fs::read_to_string(&pinned) {
        Ok(text) => text.replace("\r\n", "\n"),
        Err(e) => {
            return Err(format!(
                "cannot read {}: {e}\nthe compiler said:\n{stderr}",
                pinned.display()
            ));
        }
    };
    if expected == stderr {
        Ok("")
    } else {
        Err(format!(
            "EXPECTED:\n{expected}\nACTUAL:\n{stderr}\nDIFF (- expected, + actual):\n{}",
            diff(&expected, &stderr)
        ))
    }
}

/// Runs the compiler on `case` (type-checking only, like `cargo check`);
/// returns whether it reported an error, and its messages normalized.
fn compile(case: &Path) -> Result<(bool, String), String> {
    let (rustc, dependency_args) = RUSTC;
    let out = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("ui")
        .join(case.with_extension("rmeta"));
    if let Some(dir) = out.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    // From the workspace, where the dependencies were compiled: the
    // compiler finds their sources by the relative paths they were given
    // and shows their lines.
    // A test built through clippy-driver (`FLAKEID_TEST_LINT=1`) checks its
    // cases with the compiler beside it: the messages are the compiler's,
    // without clippy's lints or its denied warnings.
    let built_by = Path::new(rustc);
    let compiler = if built_by.file_stem().is_some_and(|s| s == "clippy-driver") {
        built_by.with_file_name(format!("rustc{}", std::env::consts::EXE_SUFFIX))
    } else {
        built_by.to_path_buf()
    };
    let output = Command::new(compiler)
        .env_remove("CLIPPY_ARGS")
        .current_dir(workspace_dir())
        .arg(manifest_dir().join(case))
        .args([
            "--crate-name",
            CASE_CRATE,
            "--crate-type",
            "bin",
            "--emit=metadata",
        ])
        .arg("-o")
        .arg(&out)
        .args([
            "--error-format=json",
            "--color=never",
            "--verbose",
            "-A",
            "dead_code",
        ])
        .args(dependency_args)
        .output()
        .map_err(|e| format!("cannot run {rustc}: {e}"))?;
    let workspace = format!("{}/", workspace_dir().display());
    let source_dir = format!("{}/", manifest_dir().display());
    let target_dir = format!("{}/", target_dir().display());
    let input_file = case.to_string_lossy();
    let cx = Context {
        krate: CASE_CRATE,
        source_dir: &source_dir,
        workspace: &workspace,
        input_file: &input_file,
        target_dir: &target_dir,
    };
    let mut seen = std::collections::HashSet::new();
    let mut stderr = String::new();
    let mut error = false;
    for line in String::from_utf8_lossy(&output.stderr).lines() {
        if !seen.insert(line.to_owned()) {
            continue;
        }
        let message: serde_json::Value = serde_json::from_str(line).map_err(|_| {
            format!(
                "{rustc} exited with {} and wrote a line that is not a JSON diagnostic:\n{}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            )
        })?;
        let level = message["level"].as_str().unwrap_or_default();
        if level == "failure-note" {
            continue;
        }
        error |= level == "error";
        let normalized =
            normalize::diagnostic(message["rendered"].as_str().unwrap_or_default(), &cx);
        if !stderr.is_empty() && !normalized.is_empty() {
            stderr.push('\n');
        }
        stderr.push_str(&normalized);
    }
    if output.status.code() != Some(u8::from(error).into()) {
        return Err(format!(
            "{rustc} exited with {} (errors reported: {error}):\n{stderr}",
            output.status
        ));
    }
    Ok((error, stderr))
}

/// The lines only in `expected` (`-`) and only in `actual` (`+`), in order:
/// enough to see what changed in a message.
fn diff(expected: &str, actual: &str) -> String {
    let (old, new): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    // Longest common subsequence, by dynamic programming: messages are short.
    let mut lcs = vec![vec![0_usize; new.len() + 1]; old.len() + 1];
    for i in (0..old.len()).rev() {
        for j in (0..new.len()).rev() {
            lcs[i][j] = if old[i] == new[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, String::new());
    while i < old.len() || j < new.len() {
        if i < old.len() && j < new.len() && old[i] == new[j] {
            (i, j) = (i + 1, j + 1);
        } else if j < new.len() && (i == old.len() || lcs[i][j + 1] >= lcs[i + 1][j]) {
            let _ = writeln!(out, "+{}", new[j]);
            j += 1;
        } else {
            let _ = writeln!(out, "-{}", old[i]);
            i += 1;
        }
    }
    out
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn workspace_dir() -> &'static Path {
    manifest_dir()
        .parent()
        .expect("ui-tests/ is inside the workspace")
}

/// Cargo's target directory: `CARGO_TARGET_TMPDIR` is its `tmp/`.
fn target_dir() -> &'static Path {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("the target directory")
}
