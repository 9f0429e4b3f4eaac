//! What Cargo cannot see of the architecture, checked:
//!
//! * which workspace crate may depend on which (Cargo only refuses cycles):
//!   the key crate on none, each satellite on the key crate and the crates
//!   below it, the ORM crates translating for the satellites they opt into;
//! * that the key crate, with its default features, compiles only the
//!   mission: its non-optional dependencies are exactly the ones listed;
//! * the layers of flakeid-core's modules, as its `src/lib.rs` lists them:
//!   no `crate::` path (in `use` items, inline paths or `$crate::` in macro
//!   bodies) reaches a module of a higher layer.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use cargo_metadata::{Dependency, DependencyKind, MetadataCommand, Package};

/// Each published workspace crate and the workspace crates it may depend on
/// (normal dependencies, optional ones included), one crate a line, with
/// the `flakeid-` of every name left out.
const ALLOWED: &str = "
    macros:
    core:        macros
    sql:         core
    schemes:     core sql
    flake128:    core
    lease:       core sql
    segment:     core sql schemes
    id-function: core sql lease
    adopt:       core sql id-function
    etcd:        core sql lease
    seaorm:      core macros sql lease segment flake128
    diesel:      core macros sql lease segment flake128
    cli:         core sql lease id-function adopt seaorm
";

/// [`ALLOWED`] read: crate → the crates it may depend on, full names.
fn allowed() -> BTreeMap<String, BTreeSet<String>> {
    let full = |short: &str| format!("flakeid-{short}");
    ALLOWED
        .lines()
        .filter_map(|line| line.split_once(':'))
        .map(|(krate, deps)| {
            (
                full(krate.trim()),
                deps.split_whitespace().map(full).collect(),
            )
        })
        .collect()
}

/// What flakeid-core needs whatever its features: nothing that touches a
/// database or an ORM.
const CORE_REQUIRED: &[&str] = &["libc", "thiserror", "tracing"];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ lies in the repository")
        .to_owned()
}

/// `cargo metadata --no-deps`: the workspace's packages.
fn packages() -> Vec<Package> {
    let metadata = MetadataCommand::new().current_dir(repo()).no_deps().exec();
    metadata.expect("cargo metadata").packages
}

/// A package's normal dependencies (the loom model check's aside): name →
/// optional.
fn normal_dependencies(package: &Package) -> BTreeMap<&str, bool> {
    let loom = |d: &Dependency| {
        d.target
            .as_ref()
            .is_some_and(|t| t.to_string() == "cfg(loom)")
    };
    package
        .dependencies
        .iter()
        .filter(|d| d.kind == DependencyKind::Normal && !loom(d))
        .map(|d| (d.name.as_str(), d.optional))
        .collect()
}

#[test]
fn workspace_crates_depend_only_on_the_crates_below_them() {
    let packages = packages();
    let names: BTreeSet<&str> = packages.iter().map(|p| p.name.as_str()).collect();
    let allowed = allowed();
    let mut wrong = Vec::new();
    for package in &packages {
        let name = package.name.as_str();
        // `publish = false` is an empty list of registries.
        let publishable = package.publish.as_ref().is_none_or(|r| !r.is_empty());
        let Some(may) = allowed.get(name) else {
            if publishable {
                wrong.push(format!("{name}: a published crate missing from ALLOWED"));
            }
            continue;
        };
        for dep in normal_dependencies(package)
            .into_keys()
            .filter(|d| names.contains(d))
        {
            if !may.contains(dep) {
                wrong.push(format!("{name} depends on {dep}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "dependencies against the architecture:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_key_crate_needs_nothing_beyond_the_mission() {
    let packages = packages();
    let core = packages
        .iter()
        .find(|p| p.name.as_str() == "flakeid-core")
        .expect("flakeid-core");
    let required: BTreeSet<&str> = normal_dependencies(core)
        .into_iter()
        .filter_map(|(name, optional)| (!optional).then_some(name))
        .collect();
    assert_eq!(
        required,
        CORE_REQUIRED.iter().copied().collect(),
        "flakeid-core's non-optional dependencies"
    );
    let defaults: BTreeSet<&str> = core.features["default"]
        .iter()
        .map(String::as_str)
        .collect();
    assert_eq!(
        defaults,
        BTreeSet::from(["macros", "serde"]),
        "flakeid-core's default features"
    );
}

/// The crates a user opts into (leases, segments, other schemes, 128-bit
/// flakes, database-issued IDs, adoption): an application on an ORM crate's
/// default features compiles none of them.
const EXTRAS: &[&str] = &[
    "flakeid-lease",
    "flakeid-segment",
    "flakeid-schemes",
    "flakeid-flake128",
    "flakeid-id-function",
    "flakeid-adopt",
];

#[test]
fn the_orm_crates_bring_no_extra_by_default() {
    let packages = packages();
    for orm in ["flakeid-seaorm", "flakeid-diesel"] {
        let package = packages
            .iter()
            .find(|p| p.name.as_str() == orm)
            .expect("the ORM crate");
        let deps = normal_dependencies(package);
        // The features the defaults turn on, followed through the crate's own features.
        let mut on: Vec<String> = vec!["default".to_owned()];
        let mut seen = BTreeSet::new();
        while let Some(feature) = on.pop() {
            if !seen.insert(feature.clone()) {
                continue;
            }
            for enabled in package.features.get(&feature).into_iter().flatten() {
                match enabled.strip_prefix("dep:") {
                    Some(dep) => assert!(
                        !EXTRAS.contains(&dep),
                        "{orm}: `{feature}` (on by default) enables {dep}"
                    ),
                    None if !enabled.contains('/') => on.push(enabled.to_owned()),
                    None => {}
                }
            }
        }
        for extra in EXTRAS {
            if let Some(optional) = deps.get(extra) {
                assert!(optional, "{orm} depends on {extra} whatever its features");
            }
        }
    }
}

/// The layers of flakeid-core's modules, bottom first, from its lib.rs.
fn core_layers(lib_rs: &str) -> Vec<Vec<String>> {
    let section = lib_rs
        .split("//! # Layers")
        .nth(1)
        .expect("a # Layers section in lib.rs");
    section
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("//!") && !l.starts_with("//! # "))
        .filter_map(|l| l.strip_prefix("//! ")?.split_once(". "))
        .filter(|(n, _)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .map(|(_, rest)| rest)
        .filter_map(|rest| rest.split(" — ").next())
        .map(|mods| {
            mods.split(", ")
                .map(|m| m.trim_matches('`').to_owned())
                .collect()
        })
        .collect()
}

/// The modules of the crate a Rust source names with `crate::` or
/// `$crate::` paths, outside comments: `crate::a::…`, `crate::{a, b::c}`.
fn crate_paths(source: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in source
        .lines()
        .map(str::trim_start)
        .filter(|l| !l.starts_with("//"))
    {
        for (i, _) in line.match_indices("crate::") {
            if i > 0 && line[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let rest = &line[i + "crate::".len()..];
            if let Some(group) = rest.strip_prefix('{') {
                let group = group.split('}').next().unwrap_or_default();
                found.extend(group.split(',').map(|p| first_segment(p.trim())));
            } else {
                found.insert(first_segment(rest));
            }
        }
    }
    found.retain(|m| !m.is_empty());
    found
}

fn first_segment(path: &str) -> String {
    path.chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// The `.rs` files under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    glob::glob(&dir.join("**/*.rs").to_string_lossy())
        .expect("a valid pattern")
        .collect::<Result<_, _>>()
        .expect("read a source dir")
}

#[test]
fn core_modules_import_only_their_layer_and_those_below() {
    let src = repo().join("flakeid-core/src");
    let layers = core_layers(&std::fs::read_to_string(src.join("lib.rs")).expect("lib.rs"));
    let layer_of: BTreeMap<&str, usize> = layers
        .iter()
        .enumerate()
        .flat_map(|(i, mods)| mods.iter().map(move |m| (m.as_str(), i)))
        .collect();
    let mut unlisted = BTreeSet::new();
    let mut wrong = Vec::new();
    for file in rust_files(&src) {
        let relative = file.strip_prefix(&src).expect("under src");
        let module = first_segment(&relative.to_string_lossy());
        if module == "lib" {
            continue;
        }
        let Some(&own) = layer_of.get(module.as_str()) else {
            unlisted.insert(module);
            continue;
        };
        let text = std::fs::read_to_string(&file).expect("a source file");
        for used in crate_paths(&text) {
            // Generated code and the crate's exported macros name `__private` through `$crate`.
            match layer_of.get(used.as_str()) {
                Some(&layer) if layer > own && used != "__private" => {
                    wrong.push(format!(
                        "{} uses crate::{used} (layer {} > {})",
                        relative.display(),
                        layer + 1,
                        own + 1
                    ));
                }
                _ => {}
            }
        }
    }
    assert!(
        unlisted.is_empty(),
        "modules missing from lib.rs's # Layers: {unlisted:?}"
    );
    assert!(
        wrong.is_empty(),
        "imports against the layers:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_path_reader_sees_every_form() {
    let source = "use crate::clock::Clock;\nuse crate::{layout::Parts, error};\n\
                  // crate::global in a comment\nlet x = crate::source::f();\n\
                  macro_rules! m { () => { $crate::node::X } }\nuse my_crate::telemetry;";
    let found: Vec<String> = crate_paths(source).into_iter().collect();
    assert_eq!(found, ["clock", "error", "layout", "node", "source"]);
    let lib = "//! # Layers\n//!\n//! Listed. From the bottom.\n//!\n//! 1. `a`, `b` — low\n//! 2. `c` — high\n//!\n//! # Next";
    assert_eq!(
        core_layers(lib),
        [vec!["a".to_owned(), "b".to_owned()], vec!["c".to_owned()]]
    );
}
