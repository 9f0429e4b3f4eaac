//! The public API of each publishable library crate, listed by the
//! `public-api` crate and checked against its snapshot in
//! `tests/api/<crate>.txt`, so that a change to it (an accidental breaking
//! one above all) shows up in review as a diff of that file; and the number
//! of named public items of each crate, printed and held under a bound.
//!
//! ```sh
//! ./scripts/test.sh --workspace --test api
//! ```
//!
//! The crates are those of `cargo metadata` that are published and have a
//! library target. Their rustdoc JSON comes from one `cargo doc --no-deps`
//! of them all, every feature on, `--cfg docsrs` as docs.rs builds, in the
//! target directory of this test. After an intended change, write the new
//! snapshots and review their diff:
//!
//! ```sh
//! FLAKEID_BLESS=1 cargo test --workspace --test api
//! ```

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use cargo_metadata::MetadataCommand;
use public_api::PublicApi;
use rustdoc_types::{Crate, ItemEnum};

/// The most named public items (see [`named_items`]) a crate may have.
/// flakeid-core holds the ID types, layouts, text forms, the generator and
/// the process-wide source, with the other crates' traits; its bound is its
/// count today, so that it cannot grow unnoticed.
const MAX_NAMED_ITEMS: &[(&str, usize)] = &[("flakeid-core", 78)];

/// Set to `1` to write the snapshots instead of comparing.
const BLESS_VAR: &str = "FLAKEID_BLESS";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ lies in the repository")
        .to_owned()
}

fn cargo() -> Command {
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
}

/// A library crate of the workspace that is published.
struct Library {
    package: String,
    /// The library target's name, as rustdoc names its JSON file.
    lib: String,
}

/// The packages of `cargo metadata` that are published (`publish` not
/// `false`) and have a library target, by package name.
fn libraries(repo: &Path) -> Vec<Library> {
    let metadata = MetadataCommand::new().current_dir(repo).no_deps().exec();
    let mut libraries: Vec<Library> = metadata
        .expect("cargo metadata")
        .packages
        .into_iter()
        // `publish = false` is an empty list of registries.
        .filter(|p| p.publish.as_ref().is_none_or(|r| !r.is_empty()))
        .filter_map(|p| {
            let lib = p
                .targets
                .iter()
                .find(|t| t.is_lib() || t.is_rlib() || t.is_dylib() || t.is_proc_macro())?;
            Some(Library {
                package: p.name.to_string(),
                lib: lib.name.replace('-', "_"),
            })
        })
        .collect();
    libraries.sort_by(|a, b| a.package.cmp(&b.package));
    assert!(
        !libraries.is_empty(),
        "no published library in the workspace"
    );
    libraries
}

/// The crates and the directory of their rustdoc JSON, made once for all
/// the tests of this binary.
fn documented() -> &'static (Vec<Library>, PathBuf) {
    static DOCS: OnceLock<(Vec<Library>, PathBuf)> = OnceLock::new();
    DOCS.get_or_init(|| {
        let repo = repo();
        let libraries = libraries(&repo);
        let dir = document(&repo, &libraries);
        (libraries, dir)
    })
}

/// Writes `<lib>.json` of each library with one `cargo doc --no-deps` in
/// this test's target directory, and returns the directory holding them.
///
/// One cargo run for all the crates: one feature resolution, so each
/// dependency is checked once, not once per crate. rustdoc reads check
/// builds of the dependencies, which the tests' build does not make: cargo
/// checks them once per target directory (about 80 CPU-seconds, on two
/// cores), and in the same target directory and environment as the tests'
/// build (`scripts/test.sh`'s compiler wrapper, `CARGO_INCREMENTAL`) most
/// build scripts and procedural macros are not compiled again. cargo does not
/// know rustdoc's JSON output, so it documents the crates on every run
/// (about 8 CPU-seconds).
fn document(repo: &Path, libraries: &[Library]) -> PathBuf {
    // <target>/tmp
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR lies in the target directory");
    let status = cargo()
        .args(["doc", "--no-deps", "--lib", "--all-features"])
        .args(libraries.iter().flat_map(|l| ["-p", &l.package]))
        .arg("--target-dir")
        .arg(target)
        .current_dir(repo)
        // rustdoc's JSON output is unstable: RUSTC_BOOTSTRAP=1 for rustdoc
        // alone (see the script).
        .env("RUSTDOC", repo.join("scripts/lib/rustdoc-unstable"))
        .env(
            "RUSTDOCFLAGS",
            "-Z unstable-options --output-format json --cfg docsrs",
        )
        .status()
        .expect("run cargo doc");
    assert!(status.success(), "cargo doc (JSON) failed: {status}");
    target.join("doc")
}

/// A library's rustdoc JSON: its path, and the crate as rustdoc-types reads
/// it.
fn rustdoc_json(dir: &Path, library: &Library) -> (PathBuf, Crate) {
    let path = dir.join(format!("{}.json", library.lib));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    // The version first: a JSON of another format may not read as `Crate`.
    #[derive(serde::Deserialize)]
    struct Format {
        format_version: u32,
    }
    let format: Format = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{}: not rustdoc JSON: {e}", path.display()));
    assert_eq!(
        format.format_version,
        rustdoc_types::FORMAT_VERSION,
        "{}: rustdoc wrote JSON format {}, and the public-api release pinned in \
         tests/Cargo.toml reads format {} (its rustdoc-types' FORMAT_VERSION): pin the release \
         whose rustdoc-types reads this rustdoc's format",
        path.display(),
        format.format_version,
        rustdoc_types::FORMAT_VERSION,
    );
    // As public-api reads it: the JSON of deeply generic types nests deeper
    // than serde_json's default limit.
    let mut de = serde_json::Deserializer::from_str(&text);
    de.disable_recursion_limit();
    let krate = serde::Deserialize::deserialize(&mut de)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (path, krate)
}

/// A library's public API as `public-api` lists it: every item at every
/// path it can be named by, with fields, variants, associated items, trait
/// impls and auto-trait impls (`Send`, `Sync` … follow from private fields
/// too: losing one is a breaking change no other line shows). Blanket impls
/// are left out: they follow from the rest, and a dependency adding one
/// would change every type's list.
fn public_api(json: &Path) -> PublicApi {
    public_api::Builder::from_rustdoc_json(json)
        .omit_blanket_impls(true)
        .build()
        .unwrap_or_else(|e| panic!("{}: {e}", json.display()))
}

/// The kind of a named public item, or `None` for what is not one.
fn named_kind(item: &ItemEnum) -> Option<&'static str> {
    Some(match item {
        ItemEnum::Module(_) => "modules",
        ItemEnum::Struct(_) | ItemEnum::Enum(_) | ItemEnum::Union(_) | ItemEnum::ExternType => {
            "types"
        }
        ItemEnum::Trait(_) | ItemEnum::TraitAlias(_) => "traits",
        ItemEnum::Function(_) => "functions",
        ItemEnum::TypeAlias(_) => "type aliases",
        ItemEnum::Constant { .. } | ItemEnum::Static(_) => "constants and statics",
        ItemEnum::Macro(_) | ItemEnum::ProcMacro(_) => "macros",
        // Left as `use` by public-api: a re-export of what this crate's
        // JSON does not describe (another crate's item or module).
        ItemEnum::Use(_) | ItemEnum::ExternCrate { .. } => "re-exports of other crates",
        _ => return None,
    })
}

/// The named public items of a crate, counted by kind: each item of its
/// public API whose parent is a module (not a type, trait or impl), once
/// however many paths name it, the crate's root module aside. Counted:
/// modules, structs, enums, unions, traits, free functions, type aliases,
/// constants, statics, macros and re-exports of other crates' items; not
/// counted: methods, associated constants and types, fields, variants and
/// impls.
fn named_items(api: &PublicApi, krate: &Crate) -> BTreeMap<&'static str, usize> {
    let mut seen = HashSet::new();
    let mut counts = BTreeMap::new();
    for item in api.items() {
        let in_module = item
            .parent_id()
            .and_then(|p| krate.index.get(&p))
            .is_some_and(|p| matches!(p.inner, ItemEnum::Module(_)));
        let kind = krate
            .index
            .get(&item.id())
            .and_then(|i| named_kind(&i.inner));
        if let Some(kind) = kind
            && in_module
            && seen.insert(item.id())
        {
            *counts.entry(kind).or_default() += 1;
        }
    }
    counts
}

/// Writes to the test's standard error past libtest's capture, so that the
/// counts show in the output of a passing test too.
fn report(text: &str) {
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

#[test]
fn public_api_matches_the_snapshots() {
    let (libraries, dir) = documented();
    let bless = std::env::var(BLESS_VAR).is_ok_and(|v| v == "1");
    let snapshots = repo().join("tests/api");
    let mut changed = Vec::new();
    for library in libraries {
        let (json, _) = rustdoc_json(dir, library);
        let api = public_api(&json).to_string();
        assert!(!api.is_empty(), "{}: no public items", library.package);
        let snapshot = snapshots.join(format!("{}.txt", library.package));
        if bless {
            std::fs::create_dir_all(&snapshots).expect("mkdir tests/api");
            std::fs::write(&snapshot, &api)
                .unwrap_or_else(|e| panic!("{}: {e}", snapshot.display()));
            continue;
        }
        let old = match std::fs::read_to_string(&snapshot) {
            Ok(old) => old,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => panic!("{}: {e}", snapshot.display()),
        };
        if old != api {
            let diff = similar::TextDiff::from_lines(&old, &api)
                .unified_diff()
                .context_radius(1)
                .header(
                    &format!("tests/api/{}.txt", library.package),
                    "the public API now",
                )
                .to_string();
            changed.push(diff);
        }
    }
    // A snapshot of a crate that is no longer a published library.
    let known: HashSet<String> = libraries
        .iter()
        .map(|l| format!("{}.txt", l.package))
        .collect();
    for entry in std::fs::read_dir(&snapshots).expect("tests/api") {
        let path = entry.expect("a directory entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !known.contains(name) {
            if bless {
                std::fs::remove_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            } else {
                changed.push(format!(
                    "{}: no published library crate of the workspace is named so",
                    path.display()
                ));
            }
        }
    }
    assert!(
        changed.is_empty(),
        "the public API differs from its snapshot. If the change is intended, write the \
         snapshots with `{BLESS_VAR}=1 cargo test --workspace --test api` and commit them:\n\n{}",
        changed.join("\n")
    );
}

#[test]
fn named_public_items_within_bounds() {
    let (libraries, dir) = documented();
    let mut text = String::from(
        "named public items (not methods, associated items, fields, variants or impls):\n",
    );
    let mut over = Vec::new();
    let mut totals = HashMap::new();
    for library in libraries {
        let (json, krate) = rustdoc_json(dir, library);
        let counts = named_items(&public_api(&json), &krate);
        let total: usize = counts.values().sum();
        let kinds: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
        let _ = writeln!(
            text,
            "  {}: {total} ({})",
            library.package,
            kinds.join(", ")
        );
        totals.insert(library.package.as_str(), total);
    }
    report(&text);
    for &(package, bound) in MAX_NAMED_ITEMS {
        let Some(&count) = totals.get(package) else {
            over.push(format!(
                "{package}: has a bound but is not a published library crate"
            ));
            continue;
        };
        if count > bound {
            over.push(format!(
                "{package}: {count} named public items, more than its bound of {bound}"
            ));
        }
    }
    assert!(
        over.is_empty(),
        "{}\n(bounds: MAX_NAMED_ITEMS in tests/tests/api/main.rs)",
        over.join("\n")
    );
}
