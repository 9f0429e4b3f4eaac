//! The source files of every crate of the workspace import one way only:
//! no file reaches, directly or through others, a file that reaches back to
//! it. In flakeid-core no folder does either, and the modules form the
//! layers that `src/lib.rs` lists under "# Layers": a module imports only
//! from its own layer (without a cycle between folders) and the layers
//! before it. In every file the tests come last.
//!
//! An import is any path in code that names an item of another file of the
//! same crate, followed through re-exports to the file that defines the
//! item:
//!
//! * `use` items, their groups and globs (a glob imports what the module
//!   re-exports), and every path in expressions, types, patterns and impl
//!   headers (`crate::`, `super::`, `self::` and names a `use` bound);
//! * paths spelled with the crate's own name (`extern crate self as name`);
//! * paths inside macro calls (`format!`, tracing's `target:` and fields),
//!   and the bodies of the crate's own `macro_rules!` macros where the crate
//!   calls them (`$crate::` included): an exported macro the crate never
//!   calls imports nothing;
//! * every target of a package: `src/lib.rs`, `src/main.rs`, `src/bin/*`.
//!
//! Re-exports themselves (`pub use`, a module's table of contents), doc
//! links and `#[cfg(test)]` code (tests may use any layer) are not imports.
//! A failure names the cycle or the offending edge with its path.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::visit_mut::VisitMut;

#[test]
fn no_target_has_an_import_cycle_between_its_files() {
    let mut failures = Vec::new();
    for target in workspace_targets() {
        let graph = Graph::of(&target);
        for cycle in graph.file_cycles() {
            failures.push(format!("{}: {cycle}", target.name));
        }
    }
    assert_none("import cycles between files", &failures);
}

#[test]
fn flakeid_core_has_no_import_cycle_between_its_folders() {
    let cycles = Graph::of(&core_target()).folder_cycles();
    assert_none("import cycles between folders of flakeid-core", &cycles);
}

#[test]
fn flakeid_core_imports_only_from_its_own_and_lower_layers() {
    let core = core_target();
    let layers = Layers::of(&core).unwrap_or_else(|e| panic!("{e}"));
    let graph = Graph::of(&core);
    let failures = layers.check(&graph);
    assert_none("flakeid-core against the layers of src/lib.rs", &failures);
}

#[test]
fn flakeid_core_defines_every_public_item_in_the_folder_its_path_names() {
    let failures = Graph::of(&core_target()).misplaced();
    assert_none("public items away from their path's folder", &failures);
}

#[test]
fn no_file_has_items_after_its_tests() {
    let mut failures = Vec::new();
    for target in workspace_targets() {
        let graph = Graph::of(&target);
        for file in &graph.files {
            failures.extend(
                items_after_tests(&file.ast)
                    .into_iter()
                    .map(|item| format!("{}: `{item}` after the tests", file.path.display())),
            );
        }
    }
    failures.sort();
    failures.dedup();
    assert_none("public items, then private helpers, then tests", &failures);
}

#[test]
fn the_checker_follows_use_groups_and_globs() {
    let graph = sample_graph(
        "use",
        &[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\nmod e;\n"),
            // A group (`c::Y`) and two globs: `b::*` (b's own items) and
            // `d::*` (what d re-exports: e's `E`).
            (
                "src/a.rs",
                "use crate::{b::*, c::Y};\nuse crate::d::*;\npub struct A(Y, B, E);\n",
            ),
            ("src/b.rs", "pub struct B;\n"),
            (
                "src/c.rs",
                "use crate::a::A;\npub struct Y(Option<Box<A>>);\n",
            ),
            ("src/d.rs", "pub use crate::e::E;\n"),
            ("src/e.rs", "pub struct E;\n"),
        ],
    );
    assert_imports(
        &graph,
        &[("a.rs", "b.rs"), ("a.rs", "c.rs"), ("a.rs", "e.rs")],
    );
    assert!(!graph.imports("d.rs", "e.rs"), "a re-export is no import");
    let cycles = graph.file_cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(cycles[0].contains("src/a.rs → src/c.rs") && cycles[0].contains("src/c.rs → src/a.rs"));
}

#[test]
fn the_checker_follows_paths_in_code() {
    let graph = sample_graph(
        "inline",
        &[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\n"),
            (
                "src/a.rs",
                "pub fn f() -> u32 {\n    crate::b::g() + super::c::h()\n}\n",
            ),
            (
                "src/b/mod.rs",
                "mod k;\npub fn g() -> u32 {\n    self::k::K\n}\n",
            ),
            ("src/b/k.rs", "pub const K: u32 = 1;\n"),
            (
                "src/c.rs",
                "pub fn h() -> u32 { 0 }\n#[cfg(test)]\nmod tests {\n    fn t() { crate::a::f(); }\n}\n\
                 #[cfg(all(test, unix))]\nmod unix_tests {\n    use super::*;\n    use crate::a::*;\n}\n",
            ),
        ],
    );
    assert_imports(
        &graph,
        &[
            ("a.rs", "b/mod.rs"),
            ("a.rs", "c.rs"),
            ("b/mod.rs", "b/k.rs"),
        ],
    );
    assert!(!graph.imports("c.rs", "a.rs"), "test code imports nothing");
}

#[test]
fn the_checker_expands_the_crates_own_macros() {
    let graph = sample_graph(
        "macros",
        &[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\nmod d;\n"),
            // `make!` is called by c: its body's `$crate::b::B` is c's import.
            // `exported!` is called by no file of the crate: no import of a.
            (
                "src/a.rs",
                "macro_rules! make {\n    () => { $crate::b::B::new() };\n}\npub(crate) use make;\n\
                 #[macro_export]\nmacro_rules! exported {\n    () => { $crate::d::D };\n}\n",
            ),
            (
                "src/b.rs",
                "pub struct B;\nimpl B { pub fn new() -> Self { B } }\n",
            ),
            (
                "src/c.rs",
                "pub fn f() -> crate::b::B {\n    crate::a::make!()\n}\n",
            ),
            ("src/d.rs", "pub struct D;\n"),
        ],
    );
    assert_imports(&graph, &[("c.rs", "b.rs"), ("c.rs", "a.rs")]);
    assert!(!graph.imports("a.rs", "b.rs"));
    assert!(!graph.imports("a.rs", "d.rs"));
}

#[test]
fn the_checker_reads_tracing_fields() {
    let graph = sample_graph(
        "tracing",
        &[
            ("src/lib.rs", "mod a;\nmod b;\nmod c;\n"),
            (
                "src/a.rs",
                "use crate::b::TARGET;\npub fn f(n: u64) {\n    tracing::info!(target: TARGET, node = n, \
                 space = %crate::c::space(), \"claimed\");\n}\n",
            ),
            ("src/b.rs", "pub const TARGET: &str = \"t\";\n"),
            ("src/c.rs", "pub fn space() -> String { String::new() }\n"),
        ],
    );
    assert_imports(&graph, &[("a.rs", "b.rs"), ("a.rs", "c.rs")]);
}

#[test]
fn the_checker_reads_the_crates_own_name() {
    let graph = sample_graph(
        "self_name",
        &[
            (
                "src/lib.rs",
                "extern crate self as sample;\nmod a;\nmod b;\nmod c;\n",
            ),
            (
                "src/a.rs",
                "pub fn f() -> sample::b::B {\n    ::sample::c::make()\n}\n",
            ),
            ("src/b.rs", "pub struct B;\n"),
            ("src/c.rs", "pub fn make() -> crate::b::B { crate::b::B }\n"),
        ],
    );
    assert_imports(&graph, &[("a.rs", "b.rs"), ("a.rs", "c.rs")]);
}

#[test]
fn the_checker_reads_bin_targets() {
    let sample = Sample::new(
        "bins",
        &[
            ("Cargo.toml", "[package]\nname = \"sample\"\n"),
            ("src/lib.rs", "pub fn f() {}\n"),
            (
                "src/bin/tool.rs",
                "mod x;\nmod y;\nfn main() { sample::f() }\n",
            ),
            ("src/bin/tool/x.rs", "pub struct X(crate::y::Y);\n"),
            (
                "src/bin/tool/y.rs",
                "pub struct Y(Option<Box<super::x::X>>);\n",
            ),
        ],
    );
    let targets = targets_of(&sample.dir, "sample");
    let names: Vec<&str> = targets.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["sample (lib)", "sample (bin tool)"]);
    let cycles = Graph::of(&targets[1]).file_cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(cycles[0].contains("bin/tool/x.rs") && cycles[0].contains("bin/tool/y.rs"));
}

#[test]
fn the_checker_sees_a_cycle_between_folders() {
    // No two files form a cycle, but folder a reaches b and b reaches a.
    let graph = sample_graph(
        "folders",
        &[
            ("src/lib.rs", "mod a;\nmod b;\n"),
            ("src/a/mod.rs", "mod p;\nmod q;\n"),
            ("src/a/p.rs", "pub struct P(crate::b::r::R);\n"),
            ("src/a/q.rs", "pub struct Q;\n"),
            ("src/b/mod.rs", "pub(crate) mod r;\nmod s;\n"),
            ("src/b/r.rs", "pub struct R;\n"),
            ("src/b/s.rs", "pub struct S(crate::a::q::Q);\n"),
        ],
    );
    assert!(graph.file_cycles().is_empty());
    let cycles = graph.folder_cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(cycles[0].contains("crate::a → crate::b") && cycles[0].contains("crate::b → crate::a"));
}

#[test]
fn the_checker_sees_a_same_layer_cycle_and_an_import_up_the_layers() {
    let lib = "//! A crate.\n//!\n//! # Layers\n//!\n\
               //! 1. `a`, `b` — the bottom\n//! 2. `c` — on top\n//!\n//! # Other\n//!\n\
               //! 3. `d` — not a layer\nmod a;\nmod b;\nmod c;\n";
    let sample = Sample::new(
        "layers",
        &[
            ("src/lib.rs", lib),
            // a → b → a: one layer, two folders, one cycle.
            ("src/a.rs", "pub struct A(crate::b::B, crate::c::C);\n"),
            ("src/b.rs", "pub struct B(Option<Box<crate::a::A>>);\n"),
            // c → a: down the layers.
            ("src/c.rs", "pub struct C;\npub fn f(_: crate::a::A) {}\n"),
        ],
    );
    let target = sample.target();
    let layers = Layers::of(&target).unwrap();
    assert_eq!(
        layers.of,
        BTreeMap::from([("a".into(), 1), ("b".into(), 1), ("c".into(), 2)])
    );
    let graph = Graph::of(&target);
    assert_eq!(graph.folder_cycles().len(), 1);
    let failures = layers.check(&graph);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(failures[0].contains("src/a.rs (layer 1) uses `crate::c::C` from src/c.rs (layer 2)"));

    // A module left out of the list is an error too.
    let unlisted = Sample::new(
        "unlisted",
        &[
            (
                "src/lib.rs",
                "//! # Layers\n//!\n//! 1. `a` — all\nmod a;\nmod b;\n",
            ),
            ("src/a.rs", ""),
            ("src/b.rs", ""),
        ],
    );
    let target = unlisted.target();
    let failures = Layers::of(&target).unwrap().check(&Graph::of(&target));
    assert_eq!(
        failures,
        ["module `b` is declared in src/lib.rs but in no layer"]
    );
}

#[test]
fn the_checker_sees_items_away_from_their_paths_folder() {
    let sample = Sample::new(
        "homes",
        &[
            (
                "src/lib.rs",
                "mod decoded;\npub mod layout;\npub mod node;\nmod error;\n\
                 pub use decoded::Decoded;\npub use error::E;\n",
            ),
            ("src/decoded.rs", "pub struct Decoded;\n"),
            ("src/error.rs", "pub struct E;\npub struct Fenced;\n"),
            (
                "src/layout/mod.rs",
                "mod bits;\npub use bits::Bits;\n\
                 impl crate::Decoded {\n    pub fn new() -> Self { crate::Decoded }\n}\n",
            ),
            (
                "src/layout/bits.rs",
                "pub struct Bits;\nimpl Bits {\n    pub fn new() {}\n}\n",
            ),
            ("src/node/mod.rs", "pub use crate::error::Fenced;\n"),
        ],
    );
    let failures = Graph::of(&sample.target()).misplaced();
    assert_eq!(
        failures,
        [
            "src/layout/mod.rs has `pub` methods of `Decoded`, defined in src/decoded.rs",
            "`crate::node::Fenced` is defined in src/error.rs",
        ]
    );
}

#[test]
fn the_checker_sees_items_after_the_tests() {
    let file = syn::parse_file(
        "pub fn f() {}\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n\
         #[cfg(test)]\nmod more_tests {}\npub enum E {}\nimpl E {}\n",
    )
    .unwrap();
    assert_eq!(items_after_tests(&file), ["enum E", "impl E"]);
}

/// The import graph of a sample crate of `files`.
fn sample_graph(name: &str, files: &[(&str, &str)]) -> Graph {
    Graph::of(&Sample::new(name, files).target())
}

/// Fails unless each file `from` imports its file `to`.
fn assert_imports(graph: &Graph, edges: &[(&str, &str)]) {
    for (from, to) in edges {
        assert!(graph.imports(from, to), "{from} should import {to}");
    }
}

/// Fails, listing `failures` under `heading`, unless there are none.
fn assert_none(heading: &str, failures: &[String]) {
    assert!(failures.is_empty(), "{heading}:\n{}", failures.join("\n"));
}

/// The items of `file` after its first inline `#[cfg(test)]` module,
/// other than more test code.
fn items_after_tests(file: &syn::File) -> Vec<String> {
    let is_tests = |item: &syn::Item| {
        matches!(item, syn::Item::Mod(m) if m.content.is_some()) && is_test_only(item_attrs(item))
    };
    let Some(first) = file.items.iter().position(is_tests) else {
        return Vec::new();
    };
    file.items[first..]
        .iter()
        .filter(|item| !is_test_only(item_attrs(item)))
        .map(describe)
        .collect()
}

/// An item's kind and name, for messages.
fn describe(item: &syn::Item) -> String {
    let named = |kind: &str, ident: &syn::Ident| format!("{kind} {ident}");
    match item {
        syn::Item::Const(i) => named("const", &i.ident),
        syn::Item::Enum(i) => named("enum", &i.ident),
        syn::Item::Fn(i) => named("fn", &i.sig.ident),
        syn::Item::Mod(i) => named("mod", &i.ident),
        syn::Item::Static(i) => named("static", &i.ident),
        syn::Item::Struct(i) => named("struct", &i.ident),
        syn::Item::Trait(i) => named("trait", &i.ident),
        syn::Item::Type(i) => named("type", &i.ident),
        syn::Item::Impl(i) => match &*i.self_ty {
            syn::Type::Path(p) => format!("impl {}", segments(&p.path).join("::")),
            _ => "impl".to_owned(),
        },
        syn::Item::Macro(i) => match &i.ident {
            Some(ident) => named("macro", ident),
            None => format!("{}!", segments(&i.mac.path).join("::")),
        },
        _ => "an item".to_owned(),
    }
}

/// The layers `src/lib.rs` lists under "# Layers": numbered items, each
/// naming its modules in backticks before ` — `.
#[derive(Debug)]
struct Layers {
    of: BTreeMap<String, usize>,
}

impl Layers {
    fn of(target: &Target) -> Result<Self, String> {
        let text = fs::read_to_string(&target.root).map_err(|e| e.to_string())?;
        let mut of = BTreeMap::new();
        let mut in_section = false;
        let mut next = 1;
        for line in text.lines() {
            let Some(doc) = line.trim_start().strip_prefix("//!") else {
                continue;
            };
            let doc = doc.trim();
            if doc.starts_with('#') {
                in_section = doc == "# Layers";
                continue;
            }
            let Some((number, rest)) = doc.split_once(". ") else {
                continue;
            };
            let Ok(number) = number.parse::<usize>() else {
                continue;
            };
            if !in_section {
                continue;
            }
            if number != next {
                return Err(format!("layer {number} follows layer {}", next - 1));
            }
            next += 1;
            let names = rest.split(" — ").next().unwrap_or_default();
            for name in names.split('`').skip(1).step_by(2) {
                if of.insert(name.to_owned(), number).is_some() {
                    return Err(format!("module `{name}` is in two layers"));
                }
            }
        }
        if of.is_empty() {
            return Err(format!("{}: no \"# Layers\" list", target.root.display()));
        }
        Ok(Layers { of })
    }

    /// The layer of a file's module: its top-level module's; the crate root
    /// is above every layer.
    fn layer(&self, module: &str) -> Option<usize> {
        match module.split("::").nth(1) {
            None => Some(usize::MAX),
            Some(top) => self.of.get(top).copied(),
        }
    }

    /// Modules missing from the list or listed but not declared, and
    /// imports up the layers.
    fn check(&self, graph: &Graph) -> Vec<String> {
        let root = &graph.files[graph.by_module["crate"]];
        let mut failures = Vec::new();
        for name in root.children.keys() {
            if !self.of.contains_key(name) {
                failures.push(format!(
                    "module `{name}` is declared in src/lib.rs but in no layer"
                ));
            }
        }
        for name in self.of.keys() {
            if !root.children.contains_key(name) {
                failures.push(format!(
                    "layer module `{name}` is not a module of src/lib.rs"
                ));
            }
        }
        for (from, edges) in &graph.edges {
            let Some(from_layer) = self.layer(&graph.files[*from].module) else {
                continue;
            };
            for (to, path) in edges {
                let Some(to_layer) = self.layer(&graph.files[*to].module) else {
                    continue;
                };
                if to_layer > from_layer {
                    failures.push(format!(
                        "{} (layer {from_layer}) uses `{path}` from {} (layer {to_layer})",
                        graph.short(*from),
                        graph.short(*to)
                    ));
                }
            }
        }
        failures
    }
}

/// One compiled target of a package: its root file.
struct Target {
    name: String,
    root: PathBuf,
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn core_target() -> Target {
    Target {
        name: "flakeid-core (lib)".into(),
        root: workspace_root().join("flakeid-core/src/lib.rs"),
    }
}

/// Every target of every member of the workspace, from its `Cargo.toml`.
fn workspace_targets() -> Vec<Target> {
    let root = workspace_root();
    let manifest = fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members = manifest
        .split("members = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("a members list");
    members
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .flat_map(|m| {
            let dir = root.join(m);
            let package = fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
            let name = package
                .lines()
                .find_map(|l| l.strip_prefix("name = "))
                .map(|n| n.trim_matches('"').to_owned())
                .unwrap_or_else(|| m.to_owned());
            targets_of(&dir, &name)
        })
        .collect()
}

/// The library, the main binary and the `src/bin` binaries of the package
/// in `dir`.
fn targets_of(dir: &Path, package: &str) -> Vec<Target> {
    let src = dir.join("src");
    let mut targets = Vec::new();
    for (file, kind) in [("lib.rs", "lib"), ("main.rs", "main")] {
        if src.join(file).is_file() {
            targets.push(Target {
                name: format!("{package} ({kind})"),
                root: src.join(file),
            });
        }
    }
    let mut bins: Vec<(String, PathBuf)> = fs::read_dir(src.join("bin"))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let path = entry.path();
            let name = path.file_stem()?.to_str()?.to_owned();
            if path.extension().is_some_and(|e| e == "rs") {
                Some((name, path))
            } else if path.join("main.rs").is_file() {
                Some((name, path.join("main.rs")))
            } else {
                None
            }
        })
        .collect();
    bins.sort();
    targets.extend(bins.into_iter().map(|(name, root)| Target {
        name: format!("{package} (bin {name})"),
        root,
    }));
    targets
}

/// One source file: its module path and what it declares and imports.
struct File {
    path: PathBuf,
    module: String,
    ast: syn::File,
    /// Names bound by this file's `use` items, with the path each stands
    /// for, absolute (`crate::…`).
    uses: BTreeMap<String, Vec<String>>,
    /// The names of `uses` that this file re-exports (`pub use`, `pub(crate) use` …).
    reexports: BTreeSet<String>,
    /// The names it re-exports as public API (`pub use`).
    public_reexports: BTreeSet<String>,
    /// The types of its inherent `impl` blocks that have `pub` methods.
    impls: Vec<Vec<String>>,
    /// Whether the module is public API (`pub mod` up to the crate root).
    public: bool,
    /// Absolute paths this file refers to.
    refs: Vec<Vec<String>>,
    /// Modules this file imports everything of (`use path::*`).
    globs: Vec<Vec<String>>,
    /// Sub-modules declared in this file and the file of each.
    children: BTreeMap<String, usize>,
}

struct Graph {
    root: PathBuf,
    files: Vec<File>,
    by_module: BTreeMap<String, usize>,
    edges: BTreeMap<usize, BTreeSet<(usize, String)>>,
}

impl Graph {
    fn of(target: &Target) -> Self {
        let mut graph = Graph {
            root: target.root.parent().unwrap().to_owned(),
            files: Vec::new(),
            by_module: BTreeMap::new(),
            edges: BTreeMap::new(),
        };
        graph.load(&target.root, "crate".into(), true);
        let crate_name = graph.files[0].ast.items.iter().find_map(|item| match item {
            syn::Item::ExternCrate(e) if e.ident == "self" => {
                e.rename.as_ref().map(|(_, name)| name.to_string())
            }
            _ => None,
        });
        let macros = graph.macros();
        // Twice: the first pass binds every `use`, so that the second
        // resolves names used before their `use` item.
        for _ in 0..2 {
            for i in 0..graph.files.len() {
                let file = &graph.files[i];
                let mut collector = Collector {
                    module: file.module.clone(),
                    inline: Vec::new(),
                    uses: file.uses.clone(),
                    reexports: BTreeSet::new(),
                    public_reexports: BTreeSet::new(),
                    impls: Vec::new(),
                    refs: Vec::new(),
                    globs: Vec::new(),
                    api_use: false,
                    child_mods: file
                        .ast
                        .items
                        .iter()
                        .filter_map(|item| match item {
                            syn::Item::Mod(m) => Some(m.ident.to_string()),
                            _ => None,
                        })
                        .collect(),
                    crate_name: crate_name.clone(),
                    macros: &macros,
                    expanding: Vec::new(),
                };
                let mut ast = file.ast.clone();
                collector.visit_file_mut(&mut ast);
                let file = &mut graph.files[i];
                file.uses = collector.uses;
                file.reexports = collector.reexports;
                file.public_reexports = collector.public_reexports;
                file.impls = collector.impls;
                file.refs = collector.refs;
                file.globs = collector.globs;
            }
        }
        let mut edges: BTreeMap<usize, BTreeSet<(usize, String)>> = BTreeMap::new();
        for (i, file) in graph.files.iter().enumerate() {
            let mut add = |path: &[String]| {
                if let Some(to) = graph.resolve(path, 0)
                    && to != i
                {
                    edges.entry(i).or_default().insert((to, path.join("::")));
                }
            };
            for path in &file.refs {
                add(path);
            }
            for glob in &file.globs {
                add(glob);
                if let Some(module) = graph.resolve(glob, 0) {
                    for name in &graph.files[module].reexports {
                        add(&graph.files[module].uses[name]);
                    }
                }
            }
        }
        graph.edges = edges;
        graph
    }

    /// Parses `path` as module `module` and, recursively, its file modules
    /// (not those only compiled for tests).
    fn load(&mut self, path: &Path, module: String, public: bool) -> usize {
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let index = self.files.len();
        // Where this file's sub-module files live: beside `lib.rs`, `main.rs`
        // and `mod.rs`, in a folder of its own name for others (`a.rs`: `a/`,
        // a binary `src/bin/tool.rs`: `src/bin/tool/`).
        let dir = if path
            .file_name()
            .is_some_and(|n| n == "lib.rs" || n == "main.rs" || n == "mod.rs")
        {
            path.parent().unwrap().to_owned()
        } else {
            path.with_extension("")
        };
        let file_mods: Vec<(String, Option<String>, bool)> = ast
            .items
            .iter()
            .filter_map(|item| match item {
                syn::Item::Mod(m) if m.content.is_none() && !is_test_only(&m.attrs) => Some((
                    m.ident.to_string(),
                    path_attr(&m.attrs),
                    matches!(m.vis, syn::Visibility::Public(_)),
                )),
                _ => None,
            })
            .collect();
        self.files.push(File {
            path: path.to_owned(),
            module: module.clone(),
            ast,
            uses: BTreeMap::new(),
            reexports: BTreeSet::new(),
            public_reexports: BTreeSet::new(),
            impls: Vec::new(),
            public,
            refs: Vec::new(),
            globs: Vec::new(),
            children: BTreeMap::new(),
        });
        self.by_module.insert(module.clone(), index);
        for (name, explicit, public_mod) in file_mods {
            let child = match explicit {
                Some(p) => path.parent().unwrap().join(p),
                None => {
                    let flat = dir.join(format!("{name}.rs"));
                    if flat.is_file() {
                        flat
                    } else {
                        dir.join(&name).join("mod.rs")
                    }
                }
            };
            if child.is_file() {
                let child_index =
                    self.load(&child, format!("{module}::{name}"), public && public_mod);
                self.files[index].children.insert(name, child_index);
            }
        }
        index
    }

    /// The crate's `macro_rules!` macros (not those only compiled for
    /// tests), by name: each definition's body.
    fn macros(&self) -> BTreeMap<String, Vec<TokenStream>> {
        fn walk(items: &[syn::Item], out: &mut BTreeMap<String, Vec<TokenStream>>) {
            for item in items {
                match item {
                    syn::Item::Macro(m)
                        if m.mac.path.is_ident("macro_rules") && !is_test_only(&m.attrs) =>
                    {
                        if let Some(name) = &m.ident {
                            out.entry(name.to_string())
                                .or_default()
                                .push(m.mac.tokens.clone());
                        }
                    }
                    syn::Item::Mod(m) if !is_test_only(&m.attrs) => {
                        if let Some((_, items)) = &m.content {
                            walk(items, out);
                        }
                    }
                    _ => {}
                }
            }
        }
        let mut out = BTreeMap::new();
        for file in &self.files {
            walk(&file.ast.items, &mut out);
        }
        out
    }

    /// The file defining what the absolute `path` names (following
    /// re-exports), if it is in this crate.
    fn resolve(&self, path: &[String], depth: usize) -> Option<usize> {
        if depth > 16 || path.first().map(String::as_str) != Some("crate") {
            return None;
        }
        let mut file = self.by_module["crate"];
        for (i, segment) in path.iter().enumerate().skip(1) {
            if let Some(&child) = self.files[file].children.get(segment) {
                file = child;
                continue;
            }
            // Not a file module: a re-export, an item of this file, or an
            // item of an inline module (all of it this file's).
            if let Some(target) = self.files[file].uses.get(segment) {
                let mut full = target.clone();
                full.extend(path[i + 1..].iter().cloned());
                if full != path {
                    if full.first().map(String::as_str) != Some("crate") {
                        // An item of another crate, re-exported.
                        return None;
                    }
                    return self.resolve(&full, depth + 1).or(Some(file));
                }
            }
            return Some(file);
        }
        Some(file)
    }

    /// The folder a file belongs to: a top-level module is one (file or
    /// folder); deeper, a file belongs to the folder it sits in, a
    /// `mod.rs` (or a file with sub-module files) to its own.
    fn folder(&self, file: usize) -> String {
        let f = &self.files[file];
        let depth = f.module.split("::").count();
        let own = depth <= 2
            || !f.children.is_empty()
            || f.path.file_name().is_some_and(|n| n == "mod.rs");
        if own {
            f.module.clone()
        } else {
            f.module.rsplit_once("::").unwrap().0.to_owned()
        }
    }

    /// Public items defined outside the folder their public path names: a
    /// public module's `pub use` of an item defined elsewhere (the crate
    /// root may re-export from its private modules), and `pub` methods of
    /// an inherent `impl` outside the folder of the type's definition.
    /// `__private` (what generated code calls) is no public path.
    fn misplaced(&self) -> Vec<String> {
        let within = |module: &str, folder: &str| {
            module == folder || module.starts_with(&format!("{folder}::"))
        };
        let top_is_private = |file: usize| {
            let module = &self.files[file].module;
            let top: Vec<&str> = module.split("::").take(2).collect();
            self.by_module
                .get(&top.join("::"))
                .is_some_and(|&t| !self.files[t].public)
        };
        let mut failures = Vec::new();
        for (i, file) in self.files.iter().enumerate() {
            if file.public && file.module != "crate::__private" {
                for name in &file.public_reexports {
                    let Some(defined) = self.resolve(&file.uses[name], 0) else {
                        continue;
                    };
                    let module = &self.files[defined].module;
                    let root_reexport = file.module == "crate" && top_is_private(defined);
                    if defined != i && !within(module, &file.module) && !root_reexport {
                        failures.push(format!(
                            "`{}::{name}` is defined in {}",
                            file.module,
                            self.short(defined)
                        ));
                    }
                }
            }
            for ty in &file.impls {
                let Some(defined) = self.resolve(ty, 0) else {
                    continue;
                };
                let folder = self.folder(defined);
                if !within(&file.module, &folder) {
                    failures.push(format!(
                        "{} has `pub` methods of `{}`, defined in {}",
                        self.short(i),
                        ty.last().map_or("?", String::as_str),
                        self.short(defined)
                    ));
                }
            }
        }
        failures
    }

    /// Whether a file ending in `from` imports a file ending in `to`.
    fn imports(&self, from: &str, to: &str) -> bool {
        let find = |name: &str| {
            self.files
                .iter()
                .position(|f| f.path.ends_with(name))
                .unwrap_or_else(|| panic!("no file {name}"))
        };
        let (from, to) = (find(from), find(to));
        self.edges
            .get(&from)
            .is_some_and(|e| e.iter().any(|(t, _)| *t == to))
    }

    /// Every cycle among the files, as `a → b (`path`); …`.
    fn file_cycles(&self) -> Vec<String> {
        let nodes: Vec<usize> = (0..self.files.len()).collect();
        let next = |v: &usize| -> Vec<usize> {
            self.edges
                .get(v)
                .map(|e| e.iter().map(|(t, _)| *t).collect())
                .unwrap_or_default()
        };
        strongly_connected(&nodes, next)
            .into_iter()
            .map(|scc| {
                let members: BTreeSet<usize> = scc.iter().copied().collect();
                let lines: Vec<String> = scc
                    .iter()
                    .flat_map(|from| {
                        self.edges[from]
                            .iter()
                            .filter(|(to, _)| members.contains(to))
                            .map(move |(to, path)| {
                                format!("{} → {} (`{path}`)", self.short(*from), self.short(*to))
                            })
                    })
                    .collect();
                lines.join("; ")
            })
            .collect()
    }

    /// Every cycle among the folders, each edge with one path that makes it.
    fn folder_cycles(&self) -> Vec<String> {
        let mut folder_edges: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for (from, edges) in &self.edges {
            for (to, path) in edges {
                let (a, b) = (self.folder(*from), self.folder(*to));
                if a != b {
                    folder_edges
                        .entry(a)
                        .or_default()
                        .entry(b)
                        .or_insert_with(|| format!("{} uses `{path}`", self.short(*from)));
                }
            }
        }
        let nodes: Vec<String> = (0..self.files.len())
            .map(|f| self.folder(f))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let next = |v: &String| -> Vec<String> {
            folder_edges
                .get(v)
                .map(|e| e.keys().cloned().collect())
                .unwrap_or_default()
        };
        strongly_connected(&nodes, next)
            .into_iter()
            .map(|scc| {
                let members: BTreeSet<&String> = scc.iter().collect();
                let lines: Vec<String> = scc
                    .iter()
                    .flat_map(|from| {
                        folder_edges[from]
                            .iter()
                            .filter(|(to, _)| members.contains(to))
                            .map(move |(to, why)| format!("{from} → {to} ({why})"))
                    })
                    .collect();
                lines.join("; ")
            })
            .collect()
    }

    fn short(&self, file: usize) -> String {
        let p = &self.files[file].path;
        let src = self.root.ancestors().find(|a| a.ends_with("src"));
        match src.and_then(|s| p.strip_prefix(s.parent()?).ok()) {
            Some(rel) => rel.display().to_string(),
            None => p.display().to_string(),
        }
    }
}

/// The strongly connected components of more than one node (Tarjan).
fn strongly_connected<N: Ord + Clone>(nodes: &[N], next: impl Fn(&N) -> Vec<N>) -> Vec<Vec<N>> {
    struct Tarjan<N> {
        index: BTreeMap<N, usize>,
        low: BTreeMap<N, usize>,
        on_stack: BTreeSet<N>,
        stack: Vec<N>,
        sccs: Vec<Vec<N>>,
    }
    fn visit<N: Ord + Clone>(t: &mut Tarjan<N>, v: &N, next: &dyn Fn(&N) -> Vec<N>) {
        let i = t.index.len();
        t.index.insert(v.clone(), i);
        t.low.insert(v.clone(), i);
        t.stack.push(v.clone());
        t.on_stack.insert(v.clone());
        for w in next(v) {
            if !t.index.contains_key(&w) {
                visit(t, &w, next);
                let low = t.low[v].min(t.low[&w]);
                t.low.insert(v.clone(), low);
            } else if t.on_stack.contains(&w) {
                let low = t.low[v].min(t.index[&w]);
                t.low.insert(v.clone(), low);
            }
        }
        if t.low[v] == t.index[v] {
            let mut scc = Vec::new();
            loop {
                let w = t.stack.pop().unwrap();
                t.on_stack.remove(&w);
                let done = &w == v;
                scc.push(w);
                if done {
                    break;
                }
            }
            if scc.len() > 1 {
                t.sccs.push(scc);
            }
        }
    }
    let mut t = Tarjan {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        on_stack: BTreeSet::new(),
        stack: Vec::new(),
        sccs: Vec::new(),
    };
    for v in nodes {
        if !t.index.contains_key(v) {
            visit(&mut t, v, &next);
        }
    }
    t.sccs
}

/// Walks one file's syntax: its `use` items and every other path, in code
/// and in macro calls.
struct Collector<'m> {
    module: String,
    /// Inline modules entered (`mod tests { … }`), innermost last.
    inline: Vec<String>,
    uses: BTreeMap<String, Vec<String>>,
    reexports: BTreeSet<String>,
    public_reexports: BTreeSet<String>,
    impls: Vec<Vec<String>>,
    refs: Vec<Vec<String>>,
    globs: Vec<Vec<String>>,
    /// The `use` item being read is a `pub use`.
    api_use: bool,
    /// The names of the modules this file declares (file or inline): a
    /// path may start with one of them.
    child_mods: BTreeSet<String>,
    /// The crate's name for itself (`extern crate self as name`).
    crate_name: Option<String>,
    /// The crate's `macro_rules!` bodies by name.
    macros: &'m BTreeMap<String, Vec<TokenStream>>,
    /// The macros being expanded, outermost first (no recursion).
    expanding: Vec<String>,
}

impl Collector<'_> {
    /// The module path of the current position (inline modules included).
    fn here(&self) -> Vec<String> {
        let mut p: Vec<String> = self.module.split("::").map(str::to_owned).collect();
        p.extend(self.inline.iter().cloned());
        p
    }

    /// `segments` as an absolute path, if it starts at `crate` (or the
    /// crate's own name), `self`, `super` or a name a `use` bound.
    fn absolute(&self, segments: &[String]) -> Option<Vec<String>> {
        let first = segments.first()?;
        let is_crate_name = |s: &String| self.crate_name.as_ref() == Some(s);
        if is_crate_name(first) || (first == "::" && segments.get(1).is_some_and(is_crate_name)) {
            let skip = if first == "::" { 2 } else { 1 };
            let mut full = vec!["crate".to_owned()];
            full.extend(segments[skip..].iter().cloned());
            return Some(full);
        }
        let mut base = self.here();
        let rest = match first.as_str() {
            "crate" => return Some(segments.to_vec()),
            "self" => &segments[1..],
            "super" => {
                let mut rest = segments;
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop();
                    rest = &rest[1..];
                }
                rest
            }
            _ => {
                // A name brought in by a `use` of this file.
                if let Some(target) = self.uses.get(first) {
                    let mut full = target.clone();
                    full.extend(segments[1..].iter().cloned());
                    return Some(full);
                }
                // A module declared here (`use error::X` in the file declaring `mod error;`).
                // (Alone, such a name is a local binding: a module is no value.)
                if self.inline.is_empty() && segments.len() > 1 && self.child_mods.contains(first) {
                    segments
                } else {
                    return None;
                }
            }
        };
        base.extend(rest.iter().cloned());
        Some(base)
    }

    fn record(&mut self, segments: Vec<String>) {
        if let Some(abs) = self.absolute(&segments)
            && abs.len() > 1
        {
            self.refs.push(abs);
        }
    }

    fn use_tree(&mut self, prefix: Vec<String>, tree: &syn::UseTree, public: bool) {
        match tree {
            syn::UseTree::Path(p) => {
                let mut next = prefix;
                next.push(p.ident.to_string());
                self.use_tree(next, &p.tree, public);
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                let mut full = prefix;
                if name != "self" {
                    full.push(name.clone());
                }
                let alias = if name == "self" {
                    full.last().cloned().unwrap_or_default()
                } else {
                    name
                };
                self.bind(alias, full, public);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix;
                if r.ident != "self" {
                    full.push(r.ident.to_string());
                }
                self.bind(r.rename.to_string(), full, public);
            }
            syn::UseTree::Glob(_) => {
                if !public && let Some(abs) = self.absolute(&prefix) {
                    self.globs.push(abs);
                }
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix.clone(), t, public);
                }
            }
        }
    }

    fn bind(&mut self, alias: String, full: Vec<String>, public: bool) {
        if let Some(abs) = self.absolute(&full) {
            // A re-export makes the item reachable here; it is followed when
            // resolving paths, but is no import of this file's own code.
            if abs.len() > 1 && !public {
                self.refs.push(abs.clone());
            }
            if self.inline.is_empty() && alias != "_" {
                if public {
                    self.reexports.insert(alias.clone());
                }
                if self.api_use {
                    self.public_reexports.insert(alias.clone());
                }
                self.uses.insert(alias, abs);
            }
        }
    }

    /// The paths in a macro's tokens: `a::b`, `$crate::a`, `::a`, names a
    /// `use` bound, and the bodies of the crate's macros called in them.
    fn scan(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            if let TokenTree::Group(g) = &trees[i] {
                self.scan(g.stream());
                i += 1;
                continue;
            }
            let after_dot = i > 0 && is_punct(&trees[i - 1], '.');
            match read_path(&trees, i) {
                Some((segments, next)) => {
                    if !after_dot {
                        if trees.get(next).is_some_and(|t| is_punct(t, '!')) {
                            self.call(&segments);
                        } else {
                            self.record(segments);
                        }
                    }
                    i = next;
                }
                None => i += 1,
            }
        }
    }

    /// A macro call: the macro's own path, and the body of the crate's
    /// macro of that name, read as if written here.
    fn call(&mut self, segments: &[String]) {
        self.record(segments.to_vec());
        let name = segments.last().cloned().unwrap_or_default();
        if self.expanding.contains(&name) {
            return;
        }
        let Some(bodies) = self.macros.get(&name) else {
            return;
        };
        self.expanding.push(name);
        for body in bodies.clone() {
            self.scan(body);
        }
        self.expanding.pop();
    }
}

/// A path starting at `trees[i]` and the index after it: `::`-separated
/// identifiers, optionally after a leading `::` or as `$crate::…`; `None`
/// for anything else (a `$var` of a macro is skipped).
fn read_path(trees: &[TokenTree], i: usize) -> Option<(Vec<String>, usize)> {
    let mut segments = Vec::new();
    let mut j = i;
    if is_path_sep(trees, j) {
        segments.push("::".to_owned());
        j += 2;
    } else if is_punct(&trees[j], '$') {
        return match trees.get(j + 1) {
            Some(TokenTree::Ident(id)) if id == "crate" => {
                segments.push("crate".to_owned());
                read_rest(trees, j + 2, segments)
            }
            Some(TokenTree::Ident(_)) => Some((Vec::new(), j + 2)),
            _ => None,
        };
    }
    match trees.get(j) {
        Some(TokenTree::Ident(id)) => {
            segments.push(id.to_string());
            read_rest(trees, j + 1, segments)
        }
        _ => None,
    }
}

fn read_rest(
    trees: &[TokenTree],
    mut j: usize,
    mut segments: Vec<String>,
) -> Option<(Vec<String>, usize)> {
    while is_path_sep(trees, j) {
        match trees.get(j + 2) {
            Some(TokenTree::Ident(id)) => {
                segments.push(id.to_string());
                j += 3;
            }
            _ => break,
        }
    }
    Some((segments, j))
}

fn is_punct(tree: &TokenTree, c: char) -> bool {
    matches!(tree, TokenTree::Punct(p) if p.as_char() == c)
}

/// Whether `trees[j..]` starts with `::`.
fn is_path_sep(trees: &[TokenTree], j: usize) -> bool {
    matches!(
        (trees.get(j), trees.get(j + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':'
    )
}

fn segments(path: &syn::Path) -> Vec<String> {
    let mut s: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    if path.leading_colon.is_some() {
        s.insert(0, "::".into());
    }
    s
}

/// Whether `attrs` hold a `#[cfg(..)]` that only tests meet (`test`,
/// `all(test, ..)`): test code may use any layer.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    fn needs_test(meta: &syn::Meta) -> bool {
        match meta {
            syn::Meta::Path(p) => p.is_ident("test"),
            syn::Meta::List(l) if l.path.is_ident("all") => l
                .parse_args_with(
                    syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
                )
                .is_ok_and(|all| all.iter().any(needs_test)),
            _ => false,
        }
    }
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && a.parse_args::<syn::Meta>().is_ok_and(|m| needs_test(&m))
    })
}

/// A `#[path = "…"]` attribute's file.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    /// The attributes of the kinds of item named, none of any other.
    macro_rules! attrs_of {
        ($($kind:ident),*) => {
            match item {
                $(syn::Item::$kind(i) => &i.attrs,)*
                _ => &[],
            }
        };
    }
    attrs_of!(
        Const, Enum, Fn, Impl, Macro, Mod, Static, Struct, Trait, Type, Union, Use
    )
}

impl VisitMut for Collector<'_> {
    fn visit_item_mut(&mut self, item: &mut syn::Item) {
        if !is_test_only(item_attrs(item)) {
            syn::visit_mut::visit_item_mut(self, item);
        }
    }

    fn visit_item_use_mut(&mut self, i: &mut syn::ItemUse) {
        let prefix = if i.leading_colon.is_some() {
            vec!["::".to_owned()]
        } else {
            Vec::new()
        };
        let public = !matches!(i.vis, syn::Visibility::Inherited);
        self.api_use = matches!(i.vis, syn::Visibility::Public(_));
        self.use_tree(prefix, &i.tree, public);
        self.api_use = false;
    }

    fn visit_item_impl_mut(&mut self, i: &mut syn::ItemImpl) {
        let has_pub_fn = i.items.iter().any(|item| {
            matches!(item, syn::ImplItem::Fn(f) if matches!(f.vis, syn::Visibility::Public(_)))
        });
        if i.trait_.is_none()
            && has_pub_fn
            && self.inline.is_empty()
            && let syn::Type::Path(ty) = &*i.self_ty
        {
            let mut path = segments(&ty.path);
            if path.len() == 1 && !self.uses.contains_key(&path[0]) {
                // A type of this file.
                path = self.here().into_iter().chain(path).collect();
            }
            if let Some(abs) = self.absolute(&path) {
                self.impls.push(abs);
            }
        }
        syn::visit_mut::visit_item_impl_mut(self, i);
    }

    fn visit_item_mod_mut(&mut self, m: &mut syn::ItemMod) {
        if let Some((_, items)) = &mut m.content {
            self.inline.push(m.ident.to_string());
            for item in items {
                self.visit_item_mut(item);
            }
            self.inline.pop();
        }
    }

    fn visit_attribute_mut(&mut self, _: &mut syn::Attribute) {
        // Doc comments and other attributes are not imports.
    }

    fn visit_visibility_mut(&mut self, _: &mut syn::Visibility) {
        // `pub(super)`, `pub(in crate::x)` name who may see an item, not what it uses.
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        // A `macro_rules!` body is read where the crate calls the macro.
        if mac.path.is_ident("macro_rules") {
            return;
        }
        self.call(&segments(&mac.path));
        // Arguments that are expressions (`format!`, `matches!`) are read
        // as such; any other body (tracing's `target:` and fields, a macro
        // of the crate's own syntax) token by token.
        match mac.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        ) {
            Ok(args) => {
                for mut e in args {
                    self.visit_expr_mut(&mut e);
                }
            }
            Err(_) => self.scan(mac.tokens.clone()),
        }
    }

    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        self.record(segments(path));
        syn::visit_mut::visit_path_mut(self, path);
    }
}

/// A sample crate written to a temporary directory, removed on drop.
struct Sample {
    dir: PathBuf,
}

impl Sample {
    fn new(name: &str, files: &[(&str, &str)]) -> Self {
        let dir =
            std::env::temp_dir().join(format!("flakeid-layers-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        for (path, text) in files {
            let path = dir.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        Sample { dir }
    }

    /// The sample's library.
    fn target(&self) -> Target {
        Target {
            name: "sample (lib)".into(),
            root: self.dir.join("src/lib.rs"),
        }
    }
}

impl Drop for Sample {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}
