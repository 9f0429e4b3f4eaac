//! The public API of each library crate, checked against its snapshot in
//! `tests/api/<crate>.txt`, so that a change to it (an accidental breaking
//! one above all) shows up in review as a diff of that file.
//!
//! ```sh
//! ./scripts/test.sh --workspace --test api
//! ```
//!
//! The API comes from rustdoc's JSON output (`RUSTC_BOOTSTRAP=1` and
//! `-Z unstable-options --output-format json`, every feature on,
//! `--cfg docsrs` as docs.rs builds; see `rustdoc.rs` for how the crates are
//! found), rendered by `render.rs` into sorted lines. After an intended change, write the new
//! snapshots and review their diff:
//!
//! ```sh
//! FLAKEID_BLESS=1 cargo test --workspace --test api
//! ```

// Items shared between this binary's modules are `pub`.
#![allow(unreachable_pub)]

mod render;
mod rustdoc;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The library crates, each with a snapshot.
const CRATES: [&str; 5] = [
    "flakeid-core",
    "flakeid-macros",
    "flakeid-seaorm",
    "flakeid-diesel",
    "flakeid-etcd",
];

/// Set to `1` to write the snapshots instead of comparing.
const BLESS_VAR: &str = "FLAKEID_BLESS";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ lies in the repository")
        .to_owned()
}

/// What a snapshot differs by: lines only in `new` (+) and only in `old` (-).
fn diff(old: &[String], new: &[String]) -> Vec<String> {
    let old_set: BTreeSet<&String> = old.iter().collect();
    let new_set: BTreeSet<&String> = new.iter().collect();
    let mut out: Vec<String> = old_set
        .difference(&new_set)
        .map(|l| format!("- {l}"))
        .collect();
    out.extend(new_set.difference(&old_set).map(|l| format!("+ {l}")));
    out
}

#[test]
fn public_api_matches_the_snapshots() {
    let docs = rustdoc::document(&repo(), &CRATES);
    let bless = std::env::var(BLESS_VAR).is_ok_and(|v| v == "1");
    let mut changed = Vec::new();
    for krate in CRATES {
        let json = docs.join(format!("{}.json", krate.replace('-', "_")));
        let text =
            std::fs::read_to_string(&json).unwrap_or_else(|e| panic!("{}: {e}", json.display()));
        let doc: Value = serde_json::from_str(&text).expect("rustdoc JSON");
        let api = render::render(&doc).unwrap_or_else(|e| panic!("{krate}: {e}"));
        assert!(!api.is_empty(), "{krate}: no public items");
        let snapshot = repo().join("tests/api").join(format!("{krate}.txt"));
        if bless {
            let mut text = api.join("\n");
            text.push('\n');
            std::fs::create_dir_all(snapshot.parent().expect("a dir")).expect("mkdir");
            std::fs::write(&snapshot, text)
                .unwrap_or_else(|e| panic!("{}: {e}", snapshot.display()));
            continue;
        }
        let old: Vec<String> = std::fs::read_to_string(&snapshot)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect();
        let d = diff(&old, &api);
        if !d.is_empty() {
            changed.push(format!(
                "{krate} ({}):\n{}",
                snapshot.display(),
                d.join("\n")
            ));
        }
    }
    assert!(
        changed.is_empty(),
        "the public API differs from its snapshot (- removed, + added). If the change is \
         intended, write the snapshots with `{BLESS_VAR}=1 cargo test --workspace --test api` and \
         commit them:\n\n{}",
        changed.join("\n\n")
    );
}

/// The renderer on a sample crate documented by the installed rustdoc: a
/// check that it reads this rustdoc's JSON as intended.
#[test]
fn renderer_reads_this_rustdoc() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let src = dir.path().join("lib.rs");
    std::fs::write(
        &src,
        r#"
pub mod m {
    pub struct S<T: Clone = u8> { pub a: T, b: u8 }
    impl<T: Clone> S<T> {
        pub fn new(a: T) -> Self { S { a, b: 0 } }
        pub const C: u32 = 1;
        fn hidden(&self) {}
        pub async fn go(&mut self, x: &'static str) -> Result<Vec<T>, Box<dyn std::error::Error + Send>> { Ok(vec![]) }
    }
    impl<T: Clone> std::fmt::Display for S<T> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { Ok(()) }
    }
    pub enum E { A, B(u8), C { x: i64 } }
    pub trait Tr: Send { type Out; fn f(&self) -> Self::Out; }
    mod private { pub struct Hidden; }
}
pub use m::{S, E as Renamed};
pub use std::time::Duration;
"#,
    )
    .expect("write the sample");
    let out = dir.path().join("doc");
    let status = Command::new("rustdoc")
        .args(["-Z", "unstable-options", "--output-format", "json"])
        .args([
            "--crate-name",
            "sample",
            "--edition",
            "2024",
            "--cap-lints",
            "allow",
        ])
        .arg(&src)
        .arg("-o")
        .arg(&out)
        .env("RUSTC_BOOTSTRAP", "1")
        .status()
        .expect("run rustdoc");
    assert!(status.success());
    let doc: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("sample.json")).expect("JSON"))
            .expect("rustdoc JSON");
    let api = render::render(&doc).expect("the format this renderer reads");
    for line in [
        "pub mod sample::m",
        "pub struct sample::m::S<T: core::clone::Clone = u8>",
        "pub struct sample::S<T: core::clone::Clone = u8>",
        "pub field sample::S::a: T",
        "pub fn sample::S::new(a: T) -> Self",
        "pub const sample::S::C: u32",
        "pub async fn sample::S::go(&mut self, x: &'static str) -> core::result::Result<alloc::vec::Vec<T>, alloc::boxed::Box<dyn core::error::Error + core::marker::Send>>",
        "impl<T: core::clone::Clone> core::fmt::Display for sample::m::S<T>",
        "pub enum sample::Renamed",
        "pub variant sample::m::E::B(u8)",
        "pub variant sample::m::E::C { x: i64 }",
        "pub trait sample::m::Tr: core::marker::Send",
        "type sample::m::Tr::Out",
        "fn sample::m::Tr::f(&self) -> Self::Out",
        "pub use core::time::Duration as sample::Duration",
    ] {
        assert!(
            api.iter().any(|l| l == line),
            "{line:?} missing from:\n{}",
            api.join("\n")
        );
    }
    assert!(
        !api.iter()
            .any(|l| l.contains("hidden") || l.contains("Hidden"))
    );
    assert!(
        !api.iter().any(|l| l.contains("Send for")),
        "no auto-trait impls"
    );
    // Members once, under the shortest public path.
    assert!(!api.iter().any(|l| l.starts_with("pub fn sample::m::S::")));
}
