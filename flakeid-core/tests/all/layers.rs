//! The source files of every crate of the workspace import one way only:
//! no file reaches, directly or through others, a file that reaches back to
//! it. In flakeid-core the modules also form layers, each importing only
//! from layers below it (see [`CORE_LAYERS`]).
//!
//! An import is any path in code (`use` items, expressions, types, impl
//! headers) that names an item of another file of the same crate, followed
//! through re-exports to the file that defines the item. Re-exports
//! themselves (`pub use`, a module's table of contents), doc links and
//! `#[cfg(test)]` code (tests may use any layer) are not imports. A failure lists the cycle or the offending edge with the path.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use syn::visit_mut::VisitMut;

/// flakeid-core's layers, lowest first. A file belongs to the first entry
/// whose module path prefixes its own; a file may import only from its own
/// layer or a lower one.
const CORE_LAYERS: &[(&str, u8)] = &[
    // What an ID is: errors, text forms, layouts, schemes' traits, clocks.
    ("crate::error", 0),
    ("crate::fork", 0),
    ("crate::rng", 0),
    ("crate::clock", 0),
    ("crate::encoding", 0),
    ("crate::layout", 0),
    ("crate::source", 0),
    ("crate::id", 0),
    ("crate::decoded", 0),
    ("crate::generator::policy", 0),
    ("crate::store", 0),
    // The generator, with its ceiling.
    ("crate::generator", 1),
    // Schemes beyond bit layouts, 128-bit flakes, public IDs.
    ("crate::schemes", 2),
    ("crate::flake128", 2),
    ("crate::public_id", 2),
    // Node sources and segments, with their SQL.
    ("crate::node", 3),
    ("crate::segment", 3),
    // The database ID function (it writes on the lease table).
    ("crate::sql::id_function", 4),
    ("crate::sql", 0),
    // The process-wide registry, and what generated code and other crates' traits call.
    ("crate::global", 5),
    ("crate::interop", 5),
    ("crate::__private", 5),
    ("crate", 6),
];

#[test]
fn no_crate_has_an_import_cycle_between_its_files() {
    let mut failures = Vec::new();
    for krate in workspace_crates() {
        let graph = Graph::of(&krate);
        for cycle in graph.cycles() {
            failures.push(format!("{}: {}", krate.name, cycle));
        }
    }
    assert!(
        failures.is_empty(),
        "import cycles between files:\n{}",
        failures.join("\n")
    );
}

#[test]
fn flakeid_core_imports_only_from_lower_layers() {
    let core = workspace_crates()
        .into_iter()
        .find(|c| c.name == "flakeid-core")
        .expect("flakeid-core is a member");
    let graph = Graph::of(&core);
    let mut failures = Vec::new();
    for (from, edges) in &graph.edges {
        let from_layer = layer_of(&graph.files[*from].module);
        for (to, line) in edges {
            let to_layer = layer_of(&graph.files[*to].module);
            if to_layer > from_layer {
                failures.push(format!(
                    "{} (layer {from_layer}) uses `{line}` from {} (layer {to_layer})",
                    graph.files[*from].path.display(),
                    graph.files[*to].path.display()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "imports that point up the layers:\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_checker_sees_a_cycle_and_a_layer_breach() {
    // A crate of three files: a → b → a, and a lower file importing a higher one.
    let dir = std::env::temp_dir().join(format!("flakeid-layers-{}", std::process::id()));
    let src = dir.join("src");
    fs::create_dir_all(src.join("generator")).unwrap();
    fs::write(
        src.join("lib.rs"),
        "mod error;\nmod generator;\npub use generator::Generator;\n",
    )
    .unwrap();
    fs::write(src.join("error.rs"), "pub struct E(crate::Generator);\n").unwrap();
    fs::write(
        src.join("generator/mod.rs"),
        "mod state;\npub struct Generator(state::State);\n",
    )
    .unwrap();
    fs::write(
        src.join("generator/state.rs"),
        "use super::Generator;\npub struct State(Option<Box<Generator>>);\n",
    )
    .unwrap();
    let krate = Crate {
        name: "sample".into(),
        src,
    };
    let graph = Graph::of(&krate);
    let cycles = graph.cycles();
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(cycles[0].contains("generator/mod.rs") && cycles[0].contains("generator/state.rs"));
    let error = graph.by_module["crate::error"];
    let generator = graph.by_module["crate::generator"];
    assert!(graph.edges[&error].iter().any(|(to, _)| *to == generator));
    assert!(layer_of("crate::error") < layer_of("crate::generator"));
    fs::remove_dir_all(dir).ok();
}

fn layer_of(module: &str) -> u8 {
    CORE_LAYERS
        .iter()
        .find(|(prefix, _)| {
            module == *prefix || module.starts_with(&format!("{prefix}::")) || *prefix == "crate"
        })
        .map(|(_, layer)| *layer)
        .expect("every module has a layer")
}

struct Crate {
    name: String,
    src: PathBuf,
}

/// The library (or binary) crates of the workspace, from its `Cargo.toml`.
fn workspace_crates() -> Vec<Crate> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
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
        .filter_map(|m| {
            let dir = root.join(m);
            let src = dir.join("src");
            let package = fs::read_to_string(dir.join("Cargo.toml")).ok()?;
            let name = package
                .lines()
                .find_map(|l| l.strip_prefix("name = "))?
                .trim_matches('"')
                .to_owned();
            src.is_dir().then_some(Crate { name, src })
        })
        .collect()
}

/// One source file: its module path and what it declares and re-exports.
struct File {
    path: PathBuf,
    module: String,
    /// Names this file re-exports (`use … as name`, `pub use`), with the
    /// path they stand for, absolute (`crate::…`).
    uses: BTreeMap<String, Vec<String>>,
    /// Absolute paths this file refers to.
    refs: Vec<Vec<String>>,
    /// Sub-modules declared in this file and the file of each.
    children: BTreeMap<String, usize>,
}

struct Graph {
    files: Vec<File>,
    by_module: BTreeMap<String, usize>,
    edges: BTreeMap<usize, BTreeSet<(usize, String)>>,
}

impl Graph {
    fn of(krate: &Crate) -> Self {
        let mut graph = Graph {
            files: Vec::new(),
            by_module: BTreeMap::new(),
            edges: BTreeMap::new(),
        };
        let root = ["lib.rs", "main.rs"]
            .iter()
            .map(|f| krate.src.join(f))
            .find(|p| p.is_file())
            .expect("src/lib.rs or src/main.rs");
        graph.load(&root, "crate".into());
        let mut edges: BTreeMap<usize, BTreeSet<(usize, String)>> = BTreeMap::new();
        for (i, file) in graph.files.iter().enumerate() {
            for path in &file.refs {
                if let Some(to) = graph.resolve(path, 0)
                    && to != i
                {
                    edges.entry(i).or_default().insert((to, path.join("::")));
                }
            }
        }
        graph.edges = edges;
        graph
    }

    /// Parses `path` as module `module` and, recursively, its file modules.
    fn load(&mut self, path: &Path, module: String) -> usize {
        let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut ast = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let index = self.files.len();
        self.files.push(File {
            path: path.to_owned(),
            module: module.clone(),
            uses: BTreeMap::new(),
            refs: Vec::new(),
            children: BTreeMap::new(),
        });
        self.by_module.insert(module.clone(), index);
        // Where this file's sub-module files live.
        let dir = if matches!(
            path.file_name().and_then(|n| n.to_str()),
            Some("mod.rs" | "lib.rs" | "main.rs")
        ) {
            path.parent().unwrap().to_owned()
        } else {
            path.with_extension("")
        };
        let mut collector = Collector {
            module: module.clone(),
            inline: Vec::new(),
            uses: BTreeMap::new(),
            refs: Vec::new(),
            file_mods: Vec::new(),
            child_mods: ast
                .items
                .iter()
                .filter_map(|i| match i {
                    syn::Item::Mod(m) => Some(m.ident.to_string()),
                    _ => None,
                })
                .collect(),
        };
        collector.visit_file_mut(&mut ast);
        let Collector {
            uses,
            refs,
            file_mods,
            ..
        } = collector;
        self.files[index].uses = uses;
        self.files[index].refs = refs;
        for (name, explicit) in file_mods {
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
                let child_index = self.load(&child, format!("{module}::{name}"));
                self.files[index].children.insert(name, child_index);
            }
        }
        index
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
                    return self.resolve(&full, depth + 1).or(Some(file));
                }
            }
            return Some(file);
        }
        Some(file)
    }

    /// Every cycle among the files, as `a → b → … → a`.
    fn cycles(&self) -> Vec<String> {
        // Tarjan's strongly connected components.
        struct Tarjan<'g> {
            g: &'g Graph,
            index: Vec<Option<usize>>,
            low: Vec<usize>,
            on_stack: Vec<bool>,
            stack: Vec<usize>,
            next: usize,
            sccs: Vec<Vec<usize>>,
        }
        impl Tarjan<'_> {
            fn visit(&mut self, v: usize) {
                self.index[v] = Some(self.next);
                self.low[v] = self.next;
                self.next += 1;
                self.stack.push(v);
                self.on_stack[v] = true;
                let targets: Vec<usize> = self
                    .g
                    .edges
                    .get(&v)
                    .map(|e| e.iter().map(|(t, _)| *t).collect())
                    .unwrap_or_default();
                for w in targets {
                    match self.index[w] {
                        None => {
                            self.visit(w);
                            self.low[v] = self.low[v].min(self.low[w]);
                        }
                        Some(i) if self.on_stack[w] => self.low[v] = self.low[v].min(i),
                        Some(_) => {}
                    }
                }
                if Some(self.low[v]) == self.index[v] {
                    let mut scc = Vec::new();
                    loop {
                        let w = self.stack.pop().unwrap();
                        self.on_stack[w] = false;
                        scc.push(w);
                        if w == v {
                            break;
                        }
                    }
                    if scc.len() > 1 {
                        self.sccs.push(scc);
                    }
                }
            }
        }
        let n = self.files.len();
        let mut t = Tarjan {
            g: self,
            index: vec![None; n],
            low: vec![0; n],
            on_stack: vec![false; n],
            stack: Vec::new(),
            next: 0,
            sccs: Vec::new(),
        };
        for v in 0..n {
            if t.index[v].is_none() {
                t.visit(v);
            }
        }
        t.sccs
            .into_iter()
            .map(|scc| {
                let members: BTreeSet<usize> = scc.iter().copied().collect();
                let lines: Vec<String> = scc
                    .iter()
                    .flat_map(|from| {
                        self.edges[from]
                            .iter()
                            .filter(|(to, _)| members.contains(to))
                            .map(move |(to, line)| {
                                format!("{} → {} (`{line}`)", self.short(*from), self.short(*to))
                            })
                    })
                    .collect();
                lines.join("; ")
            })
            .collect()
    }

    fn short(&self, file: usize) -> String {
        let p = &self.files[file].path;
        let s = p.to_string_lossy();
        match s.find("/src/") {
            Some(i) => s[i + 1..].to_owned(),
            None => s.into_owned(),
        }
    }
}

/// Walks one file's syntax: its `use` items, every other path, its
/// `mod name;` declarations.
struct Collector {
    module: String,
    /// Inline modules entered (`mod tests { … }`), innermost last.
    inline: Vec<String>,
    uses: BTreeMap<String, Vec<String>>,
    refs: Vec<Vec<String>>,
    file_mods: Vec<(String, Option<String>)>,
    /// The names of the modules this file declares (file or inline): a
    /// path may start with one of them.
    child_mods: BTreeSet<String>,
}

impl Collector {
    /// The module path of the current position (inline modules included).
    fn here(&self) -> Vec<String> {
        let mut p: Vec<String> = self.module.split("::").map(str::to_owned).collect();
        p.extend(self.inline.iter().cloned());
        p
    }

    /// `segments` as an absolute path, if it starts at `crate`, `self` or `super`.
    fn absolute(&self, segments: &[String]) -> Option<Vec<String>> {
        let first = segments.first()?;
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

    fn use_tree(&mut self, prefix: Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                let mut next = prefix;
                next.push(p.ident.to_string());
                self.use_tree(next, &p.tree);
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
                self.bind(alias, full);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix;
                if r.ident != "self" {
                    full.push(r.ident.to_string());
                }
                self.bind(r.rename.to_string(), full);
            }
            syn::UseTree::Glob(_) => self.record(prefix),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix.clone(), t);
                }
            }
        }
    }

    fn bind(&mut self, alias: String, full: Vec<String>) {
        if let Some(abs) = self.absolute(&full) {
            if abs.len() > 1 {
                self.refs.push(abs.clone());
            }
            if self.inline.is_empty() && alias != "_" {
                self.uses.insert(alias, abs);
            }
        }
    }
}

fn segments(path: &syn::Path) -> Vec<String> {
    let mut s: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    if path.leading_colon.is_some() {
        s.insert(0, "::".into());
    }
    s
}

/// Whether `attrs` hold `#[cfg(test)]`: test code may use any layer.
fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

impl VisitMut for Collector {
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
        // A re-export (`pub use`, `pub(crate) use`) makes the item reachable
        // here; it is followed when resolving paths, but is no import of
        // this file's own code.
        let refs = self.refs.len();
        self.use_tree(prefix, &i.tree);
        if !matches!(i.vis, syn::Visibility::Inherited) {
            self.refs.truncate(refs);
        }
    }

    fn visit_item_mod_mut(&mut self, m: &mut syn::ItemMod) {
        let name = m.ident.to_string();
        match &mut m.content {
            None => {
                let explicit = m.attrs.iter().find_map(|a| {
                    if !a.path().is_ident("path") {
                        return None;
                    }
                    match &a.meta {
                        syn::Meta::NameValue(nv) => match &nv.value {
                            syn::Expr::Lit(syn::ExprLit {
                                lit: syn::Lit::Str(s),
                                ..
                            }) => Some(s.value()),
                            _ => None,
                        },
                        _ => None,
                    }
                });
                self.file_mods.push((name, explicit));
            }
            Some((_, items)) => {
                self.inline.push(name);
                for item in items {
                    self.visit_item_mut(item);
                }
                self.inline.pop();
            }
        }
    }

    fn visit_attribute_mut(&mut self, _: &mut syn::Attribute) {
        // Doc comments and other attributes are not imports.
    }

    fn visit_visibility_mut(&mut self, _: &mut syn::Visibility) {
        // `pub(super)`, `pub(in crate::x)` name who may see an item, not what it uses.
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        self.record(segments(&mac.path));
        // Paths inside macro calls (e.g. `format!`, `matches!`) are parsed
        // as expressions where possible.
        if let Ok(args) = mac.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        ) {
            for mut e in args {
                self.visit_expr_mut(&mut e);
            }
        }
    }

    fn visit_path_mut(&mut self, path: &mut syn::Path) {
        self.record(segments(path));
        syn::visit_mut::visit_path_mut(self, path);
    }
}
