//! Records the compiler version and the versions of the compared crates
//! (from the workspace's Cargo.lock) so the bench can print what it measured.

use std::path::Path;
use std::process::Command;

const CRATES: [&str; 5] = ["flakeid-core", "ferroid", "snowflaked", "uuid", "ulid"];
/// What the database benchmark (`--bin db`) runs through.
const DB_CRATES: [&str; 6] = [
    "flakeid-core",
    "sea-orm",
    "diesel",
    "sqlx",
    "uuid",
    "testcontainers",
];

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_owned());
    let version = Command::new(&rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|| "unknown".to_owned());
    println!("cargo:rustc-env=FLAKEID_BENCH_RUSTC={version}");

    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let lock_path = Path::new(&manifest_dir).join("..").join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock_path.display());
    println!("cargo:rerun-if-changed=build.rs");
    let lock = std::fs::read_to_string(&lock_path).unwrap_or_default();
    println!(
        "cargo:rustc-env=FLAKEID_BENCH_VERSIONS={}",
        versions(&lock, &CRATES)
    );
    println!(
        "cargo:rustc-env=FLAKEID_BENCH_DB_VERSIONS={}",
        versions(&lock, &DB_CRATES)
    );
}

/// `name version` of each crate locked in `lock`.
fn versions(lock: &str, crates: &[&str]) -> String {
    let versions: Vec<String> = crates
        .iter()
        .map(|name| {
            // Several versions of a crate can be locked; list them all.
            let found: Vec<&str> = lock
                .split("[[package]]")
                .filter_map(|block| {
                    let mut lines = block.lines().map(str::trim);
                    let has_name = lines.clone().any(|l| l == format!("name = \"{name}\""));
                    let version = lines.find_map(|l| l.strip_prefix("version = \""));
                    version
                        .filter(|_| has_name)
                        .map(|v| v.trim_end_matches('"'))
                })
                .collect();
            if found.is_empty() {
                format!("{name} ?")
            } else {
                format!("{name} {}", found.join("/"))
            }
        })
        .collect();
    versions.join(", ")
}
