//! rustdoc's JSON output for the library crates, every feature on.
//!
//! Under the test command the crates are documented from its build:
//! `scripts/test.sh` compiles the workspace's crates through
//! `scripts/lib/record-rustc`, which writes down each library's compile (its
//! working directory, arguments and `CARGO_*` environment) in
//! `target/<profile>/rustc-args/`. rustdoc is run with the same source,
//! edition, `--cfg`s and `--extern`s, so it reads the dependencies that build
//! compiled: no dependency is checked a second time, as `cargo doc` would
//! (rustdoc wants check builds, the tests link full ones), which cost the
//! test command about 400 CPU-seconds.
//!
//! Elsewhere (`cargo test --workspace --test api` on its own) the crates are
//! documented with `cargo doc --all-features` in the target directory
//! `target/api`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

use serde_json::Value;

/// The recorder's file name: when it is the workspace wrapper, the records
/// must be there.
const RECORDER: &str = "record-rustc";

/// Documents `crates` and returns the directory holding `<crate>.json`.
pub fn document(repo: &Path, crates: &[&str]) -> PathBuf {
    let recorder = std::env::var("RUSTC_WORKSPACE_WRAPPER")
        .is_ok_and(|w| Path::new(&w).file_name().is_some_and(|n| n == RECORDER));
    if recorder {
        document_recorded(repo, crates)
    } else {
        document_with_cargo(repo, crates)
    }
}

/// One compile of a library crate, as `record-rustc` wrote it down.
#[derive(Debug)]
struct Record {
    file: PathBuf,
    modified: std::time::SystemTime,
    cwd: PathBuf,
    rustc: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
}

impl Record {
    fn read(file: &Path) -> Result<Record, String> {
        let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let text = String::from_utf8(bytes).map_err(|e| format!("{}: {e}", file.display()))?;
        let mut fields = text.split_terminator('\0');
        let bad = || format!("{}: not a record of record-rustc", file.display());
        let cwd = PathBuf::from(fields.next().ok_or_else(bad)?);
        let count: usize = fields.next().ok_or_else(bad)?.parse().map_err(|_| bad())?;
        let mut args: Vec<String> = Vec::with_capacity(count);
        for _ in 0..count {
            args.push(fields.next().ok_or_else(bad)?.to_owned());
        }
        let env = fields
            .map(|kv| {
                kv.split_once('=')
                    .map(|(k, v)| (k.to_owned(), v.to_owned()))
                    .ok_or_else(bad)
            })
            .collect::<Result<_, _>>()?;
        // The wrapper is given the compiler first.
        let rustc = PathBuf::from(args.first().ok_or_else(bad)?);
        args.remove(0);
        let modified = std::fs::metadata(file)
            .and_then(|m| m.modified())
            .map_err(|e| format!("{}: {e}", file.display()))?;
        Ok(Record {
            file: file.to_owned(),
            modified,
            cwd,
            rustc,
            args,
            env,
        })
    }

    /// The `--cfg feature="…"` values.
    fn features(&self) -> BTreeSet<String> {
        self.values("--cfg")
            .filter_map(|v| v.strip_prefix("feature=\"")?.strip_suffix('"'))
            .map(str::to_owned)
            .collect()
    }

    /// Each value of `flag`, given as `flag value` or `flag=value`.
    fn values<'a>(&'a self, flag: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.args.iter().enumerate().filter_map(move |(i, a)| {
            if a == flag {
                self.args.get(i + 1).map(String::as_str)
            } else {
                a.strip_prefix(flag)?.strip_prefix('=')
            }
        })
    }

    /// rustdoc with what rustc was given to find the crate's source and
    /// dependencies and to set its edition, type and cfgs.
    fn rustdoc(&self, out: &Path) -> Command {
        const KEPT: [&str; 7] = [
            "--crate-name",
            "--crate-type",
            "--edition",
            "--cfg",
            "--check-cfg",
            "-L",
            "--extern",
        ];
        let mut cmd = Command::new(self.rustc.with_file_name("rustdoc"));
        let mut args = self.args.iter();
        while let Some(arg) = args.next() {
            if KEPT.contains(&arg.as_str()) {
                cmd.arg(arg);
                if let Some(value) = args.next() {
                    cmd.arg(value);
                }
            } else if KEPT
                .iter()
                .any(|k| arg.strip_prefix(k).is_some_and(|r| r.starts_with('=')))
                || (!arg.starts_with('-') && arg.ends_with(".rs"))
            {
                cmd.arg(arg);
            }
        }
        cmd.args(["-Z", "unstable-options", "--output-format", "json"])
            .args(["--cfg", "docsrs"])
            .arg("-o")
            .arg(out)
            .current_dir(&self.cwd)
            .env_clear()
            .envs(
                ["PATH", "HOME"]
                    .iter()
                    .filter_map(|k| Some((k, std::env::var_os(k)?))),
            )
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .env("RUSTC_BOOTSTRAP", "1");
        cmd
    }
}

/// `target/api`, beside the target directory's profiles.
fn api_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    // target/<profile>/deps/api-HASH → target
    exe.ancestors()
        .nth(3)
        .expect("the test binary lies in target/<profile>/deps")
        .join("api")
}

/// `cargo metadata`'s feature names of each package, by crate name.
fn all_features(repo: &Path) -> Vec<(String, BTreeSet<String>)> {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["metadata", "--no-deps", "--format-version", "1"])
        .current_dir(repo)
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata failed: {}",
        out.status
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON");
    meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .map(|p| {
            let name = p["name"].as_str().expect("a name").to_owned();
            let features = p["features"]
                .as_object()
                .expect("features")
                .keys()
                .cloned()
                .collect();
            (name, features)
        })
        .collect()
}

/// The records of the test command's build, one a crate: the compile with
/// every feature on.
fn records(repo: &Path, crates: &[&str]) -> Vec<Record> {
    let exe = std::env::current_exe().expect("the test binary's path");
    // target/<profile>/deps/api-HASH → target/<profile>/rustc-args
    let dir = exe
        .ancestors()
        .nth(2)
        .expect("the test binary lies in target/<profile>/deps")
        .join("rustc-args");
    let features = all_features(repo);
    let mut chosen = Vec::new();
    for krate in crates {
        let name = krate.replace('-', "_");
        let all = &features
            .iter()
            .find(|(n, _)| n == krate)
            .unwrap_or_else(|| panic!("{krate} is not a package of the workspace"))
            .1;
        let mut seen = Vec::new();
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| {
            panic!(
                "{}: {e}: the test command's build (scripts/lib/record-rustc) records how it \
                 compiled the library crates there",
                dir.display()
            )
        });
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if file.rsplit_once('-').is_some_and(|(n, _)| n == name) {
                let record = Record::read(&path).unwrap_or_else(|e| panic!("{e}"));
                seen.push(record);
            }
        }
        // The latest such compile: an older one (before a dependency
        // changed) can name files of an older build.
        seen.sort_by_key(|r| std::cmp::Reverse(r.modified));
        let index = seen.iter().position(|r| &r.features() == all);
        let Some(index) = index else {
            panic!(
                "{krate}: no compile with every feature on ({all:?}) among the records in {}: {:?}",
                dir.display(),
                seen.iter()
                    .map(|r| (r.file.display().to_string(), r.features()))
                    .collect::<Vec<_>>()
            );
        };
        chosen.push(seen.swap_remove(index));
    }
    chosen
}

/// rustdoc on each crate as the test command's build compiled it, all at once.
fn document_recorded(repo: &Path, crates: &[&str]) -> PathBuf {
    let records = records(repo, crates);
    let out = api_dir().join("doc");
    let children: Vec<(&Record, Child)> = records
        .iter()
        .map(|r| {
            let child = r
                .rustdoc(&out)
                .spawn()
                .unwrap_or_else(|e| panic!("run rustdoc for {}: {e}", r.file.display()));
            (r, child)
        })
        .collect();
    for (record, mut child) in children {
        let status = child.wait().expect("wait for rustdoc");
        assert!(
            status.success(),
            "rustdoc (JSON) failed ({status}) with the compile recorded in {}; after \
             `cargo clean` or a dependency change, build again with ./scripts/test.sh",
            record.file.display()
        );
    }
    out
}

/// `cargo doc` with JSON output in the target directory `target/api`.
fn document_with_cargo(repo: &Path, crates: &[&str]) -> PathBuf {
    let target = api_dir();
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .args(["doc", "--no-deps", "--all-features", "--lib"])
        .args(crates.iter().flat_map(|c| ["-p", c]))
        .arg("--target-dir")
        .arg(&target)
        .current_dir(repo)
        .env("RUSTC_BOOTSTRAP", "1")
        // No lint wrapper (`FLAKEID_TEST_LINT=1`'s clippy-driver) for the
        // crates this documents: the test command's own build lints them.
        .env_remove("RUSTC_WORKSPACE_WRAPPER")
        .env_remove("CLIPPY_ARGS")
        .env(
            "RUSTDOCFLAGS",
            "-Z unstable-options --output-format json --cfg docsrs",
        );
    let status = cargo.status().expect("run cargo doc");
    assert!(status.success(), "cargo doc (JSON) failed: {status}");
    target.join("doc")
}
