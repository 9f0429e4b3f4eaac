//! A crate's public API as sorted lines of text, from rustdoc's JSON
//! output: every public item at every public path it can be named by,
//! with its signature; the members of types and traits (fields, variants,
//! methods, associated items) and the trait impls a type has, each under
//! the type's shortest public path. Auto-trait and blanket impls are left out (they
//! follow from the rest).

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::Value;

/// The rustdoc JSON format this renderer reads.
pub const FORMAT_VERSION: u64 = 57;

/// The public API of the crate `doc` describes, one item a line, sorted.
///
/// # Errors
/// A JSON document of another format version.
pub fn render(doc: &Value) -> Result<Vec<String>, String> {
    let version = doc["format_version"].as_u64().unwrap_or(0);
    if version != FORMAT_VERSION {
        return Err(format!(
            "rustdoc JSON format {version}; this renderer reads format {FORMAT_VERSION} \
             (tests/tests/api/render.rs)"
        ));
    }
    let root = id_key(&doc["root"]);
    let name = doc["index"][&root]["name"]
        .as_str()
        .unwrap_or("crate")
        .to_owned();
    let mut r = Renderer {
        doc,
        lines: BTreeSet::new(),
        visited: HashSet::new(),
        homes: BTreeMap::new(),
    };
    r.module(&root, &name);
    for (id, path) in std::mem::take(&mut r.homes) {
        if let Some(item) = r.item(&id).cloned() {
            r.members(&item, &path);
        }
    }
    Ok(r.lines.into_iter().collect())
}

struct Renderer<'a> {
    doc: &'a Value,
    lines: BTreeSet<String>,
    /// (module id, path) pairs walked, against glob cycles.
    visited: HashSet<(String, String)>,
    /// Types and traits, with the shortest public path of each: their
    /// members are rendered under it.
    homes: BTreeMap<String, String>,
}

fn id_key(id: &Value) -> String {
    match id {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        _ => String::new(),
    }
}

impl Renderer<'_> {
    fn item(&self, id: &str) -> Option<&Value> {
        self.doc["index"].get(id)
    }

    /// Notes `path` as a public path of the type or trait `id`.
    fn home(&mut self, id: &str, path: &str) {
        let better = |old: &String| (path.len(), path) < (old.len(), old.as_str());
        match self.homes.get(id) {
            Some(old) if !better(old) => {}
            _ => {
                self.homes.insert(id.to_owned(), path.to_owned());
            }
        }
    }

    /// The path rustdoc documents an item under, if it knows one.
    fn known_path(&self, id: &str) -> Option<String> {
        let path = self.doc["paths"].get(id)?["path"].as_array()?;
        Some(
            path.iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("::"),
        )
    }

    fn module(&mut self, id: &str, path: &str) {
        if !self.visited.insert((id.to_owned(), path.to_owned())) {
            return;
        }
        let Some(module) = self.item(id).map(|m| m["inner"]["module"].clone()) else {
            return;
        };
        if module["is_stripped"].as_bool() == Some(true) {
            return;
        }
        for child in module["items"].as_array().into_iter().flatten() {
            self.child(&id_key(child), path);
        }
    }

    /// An item listed in the module at `path`.
    fn child(&mut self, id: &str, path: &str) {
        let Some(item) = self.item(id).cloned() else {
            return;
        };
        if item["visibility"] != "public" {
            return;
        }
        let inner = &item["inner"];
        if let Some(u) = inner.get("use") {
            let target = id_key(&u["id"]);
            let glob = u["is_glob"].as_bool() == Some(true);
            let name = u["name"].as_str().unwrap_or_default();
            match self.item(&target).cloned() {
                Some(t) if glob => {
                    if t["inner"].get("module").is_some() {
                        // The module's items, as if listed here.
                        let _ = self.visited.insert((target.clone(), format!("{path}::*")));
                        for child in t["inner"]["module"]["items"]
                            .as_array()
                            .into_iter()
                            .flatten()
                        {
                            self.child(&id_key(child), path);
                        }
                    } else {
                        self.push(format!(
                            "pub use {path}::* (enum variants of {})",
                            u["source"]
                        ));
                    }
                }
                Some(t) => self.named(&target, &t, &format!("{path}::{name}")),
                None => {
                    let source = u["source"].as_str().unwrap_or_default();
                    let target_path = self
                        .known_path(&target)
                        .unwrap_or_else(|| source.to_owned());
                    if glob {
                        self.push(format!("pub use {target_path}::* at {path}"));
                    } else {
                        self.push(format!("pub use {target_path} as {path}::{name}"));
                    }
                }
            }
            return;
        }
        let name = item["name"].as_str().unwrap_or_default().to_owned();
        self.named(id, &item, &format!("{path}::{name}"));
    }

    /// `item` (whose id is `id`) named by `path`.
    fn named(&mut self, id: &str, item: &Value, path: &str) {
        let inner = &item["inner"];
        let Some((kind, body)) = inner.as_object().and_then(|o| o.iter().next()) else {
            return;
        };
        match kind.as_str() {
            "module" => {
                self.push(format!("pub mod {path}"));
                self.module(id, path);
            }
            "struct" | "union" | "enum" => {
                let g = self.generics(&body["generics"]);
                self.push(format!("pub {kind} {path}{}{}", g.params, g.where_clause));
                self.home(id, path);
            }
            "trait" => {
                let g = self.generics(&body["generics"]);
                let bounds = self.bounds(&body["bounds"]);
                let supertraits = if bounds.is_empty() {
                    String::new()
                } else {
                    format!(": {bounds}")
                };
                let unsafety = if body["is_unsafe"] == true {
                    "unsafe "
                } else {
                    ""
                };
                self.push(format!(
                    "pub {unsafety}trait {path}{}{supertraits}{}",
                    g.params, g.where_clause
                ));
                self.home(id, path);
            }
            "function" => {
                let line = self.function(path, body);
                self.push(format!("pub {line}"));
            }
            "type_alias" => {
                let g = self.generics(&body["generics"]);
                let ty = self.ty(&body["type"]);
                self.push(format!(
                    "pub type {path}{}{} = {ty}",
                    g.params, g.where_clause
                ));
            }
            "constant" => {
                let ty = self.ty(&body["type"]);
                self.push(format!("pub const {path}: {ty}"));
            }
            "static" => {
                let ty = self.ty(&body["type"]);
                let m = if body["is_mutable"] == true {
                    "mut "
                } else {
                    ""
                };
                self.push(format!("pub static {m}{path}: {ty}"));
            }
            "macro" => self.push(format!("pub macro {path}!")),
            "proc_macro" => {
                let kind = body["kind"].as_str().unwrap_or("proc_macro");
                self.push(format!("pub proc_macro({kind}) {path}"));
            }
            "trait_alias" => self.push(format!("pub trait alias {path}")),
            other => self.push(format!("pub {other} {path}")),
        }
    }

    /// Fields, variants, associated items and impls of a type or trait,
    /// under `base`.
    fn members(&mut self, item: &Value, base: &str) {
        let base = base.to_owned();
        let inner = &item["inner"];
        if let Some(s) = inner.get("struct").or_else(|| inner.get("union")) {
            match &s["kind"] {
                Value::Object(k) if k.contains_key("plain") => {
                    self.fields(&k["plain"]["fields"], &base);
                }
                Value::Object(k) if k.contains_key("tuple") => {
                    let fields = self.tuple_fields(&k["tuple"], true);
                    self.push(format!("pub struct {base}({fields})"));
                }
                _ => self.fields(&s["fields"], &base),
            }
        }
        if let Some(e) = inner.get("enum") {
            for v in e["variants"].as_array().into_iter().flatten() {
                let Some(v) = self.item(&id_key(v)).cloned() else {
                    continue;
                };
                let name = v["name"].as_str().unwrap_or_default();
                let kind = &v["inner"]["variant"]["kind"];
                let shape = match kind {
                    Value::Object(k) if k.contains_key("tuple") => {
                        format!("({})", self.tuple_fields(&k["tuple"], false))
                    }
                    Value::Object(k) if k.contains_key("struct") => {
                        let fields: Vec<String> = k["struct"]["fields"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|f| self.item(&id_key(f)).cloned())
                            .map(|f| {
                                format!(
                                    "{}: {}",
                                    f["name"].as_str().unwrap_or_default(),
                                    self.ty(&f["inner"]["struct_field"])
                                )
                            })
                            .collect();
                        format!(" {{ {} }}", fields.join(", "))
                    }
                    _ => String::new(),
                };
                self.push(format!("pub variant {base}::{name}{shape}"));
            }
        }
        if let Some(t) = inner.get("trait") {
            for member in t["items"].as_array().into_iter().flatten() {
                if let Some(m) = self.item(&id_key(member)).cloned() {
                    self.assoc(&m, &base, "");
                }
            }
        }
        let impls = inner
            .as_object()
            .and_then(|o| o.values().next())
            .map(|b| b["impls"].clone())
            .unwrap_or(Value::Null);
        for i in impls.as_array().into_iter().flatten() {
            let Some(imp) = self.item(&id_key(i)).cloned() else {
                continue;
            };
            let imp = &imp["inner"]["impl"];
            if imp["is_synthetic"] == true || !imp["blanket_impl"].is_null() {
                continue;
            }
            let g = self.generics(&imp["generics"]);
            let for_ty = self.ty(&imp["for"]);
            if imp["trait"].is_null() {
                for member in imp["items"].as_array().into_iter().flatten() {
                    if let Some(m) = self.item(&id_key(member)).cloned()
                        && m["visibility"] == "public"
                    {
                        self.assoc(&m, &base, "pub ");
                    }
                }
            } else {
                let negative = if imp["is_negative"] == true { "!" } else { "" };
                let unsafety = if imp["is_unsafe"] == true {
                    "unsafe "
                } else {
                    ""
                };
                let tr = self.path_ty(&imp["trait"]);
                self.push(format!(
                    "{unsafety}impl{} {negative}{tr} for {for_ty}{}",
                    g.params, g.where_clause
                ));
            }
        }
    }

    fn fields(&mut self, fields: &Value, base: &str) {
        for f in fields.as_array().into_iter().flatten() {
            let Some(f) = self.item(&id_key(f)).cloned() else {
                continue;
            };
            if f["visibility"] == "public" {
                let ty = self.ty(&f["inner"]["struct_field"]);
                let name = f["name"].as_str().unwrap_or_default();
                self.push(format!("pub field {base}::{name}: {ty}"));
            }
        }
    }

    /// A method, associated const or type of `base`.
    fn assoc(&mut self, m: &Value, base: &str, vis: &str) {
        let name = m["name"].as_str().unwrap_or_default();
        let path = format!("{base}::{name}");
        let inner = &m["inner"];
        if let Some(f) = inner.get("function") {
            let line = self.function(&path, f);
            self.push(format!("{vis}{line}"));
        } else if let Some(c) = inner.get("assoc_const") {
            let ty = self.ty(&c["type"]);
            self.push(format!("{vis}const {path}: {ty}"));
        } else if let Some(t) = inner.get("assoc_type") {
            let bounds = self.bounds(&t["bounds"]);
            let bounds = if bounds.is_empty() {
                String::new()
            } else {
                format!(": {bounds}")
            };
            let value = if t["type"].is_null() {
                String::new()
            } else {
                format!(" = {}", self.ty(&t["type"]))
            };
            self.push(format!("{vis}type {path}{bounds}{value}"));
        }
    }

    fn function(&self, path: &str, f: &Value) -> String {
        let header = &f["header"];
        let mut quals = String::new();
        for (key, word) in [
            ("is_const", "const "),
            ("is_async", "async "),
            ("is_unsafe", "unsafe "),
        ] {
            if header[key] == true {
                quals.push_str(word);
            }
        }
        let g = self.generics(&f["generics"]);
        let inputs: Vec<String> = f["sig"]["inputs"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|pair| {
                let name = pair[0].as_str().unwrap_or("_");
                let ty = &pair[1];
                if name == "self" {
                    match ty {
                        Value::Object(o) if o.get("generic") == Some(&Value::from("Self")) => {
                            "self".to_owned()
                        }
                        Value::Object(o) if o.contains_key("borrowed_ref") => {
                            let r = &o["borrowed_ref"];
                            if r["type"]["generic"] == "Self" {
                                let m = if r["is_mutable"] == true { "mut " } else { "" };
                                let l = r["lifetime"]
                                    .as_str()
                                    .map(|l| format!("{l} "))
                                    .unwrap_or_default();
                                format!("&{l}{m}self")
                            } else {
                                format!("self: {}", self.ty(ty))
                            }
                        }
                        _ => format!("self: {}", self.ty(ty)),
                    }
                } else {
                    format!("{name}: {}", self.ty(ty))
                }
            })
            .collect();
        let output = match &f["sig"]["output"] {
            Value::Null => String::new(),
            ty => format!(" -> {}", self.ty(ty)),
        };
        format!(
            "{quals}fn {path}{}({}){output}{}",
            g.params,
            inputs.join(", "),
            g.where_clause
        )
    }

    fn generics(&self, g: &Value) -> Generics {
        let mut params = Vec::new();
        for p in g["params"].as_array().into_iter().flatten() {
            let name = p["name"].as_str().unwrap_or_default();
            let kind = &p["kind"];
            if let Some(l) = kind.get("lifetime") {
                let outlives: Vec<&str> = l["outlives"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                if outlives.is_empty() {
                    params.push(name.to_owned());
                } else {
                    params.push(format!("{name}: {}", outlives.join(" + ")));
                }
            } else if let Some(t) = kind.get("type") {
                if t["is_synthetic"] == true {
                    continue; // `impl Trait` in argument position
                }
                let bounds = self.bounds(&t["bounds"]);
                let mut s = name.to_owned();
                if !bounds.is_empty() {
                    s.push_str(&format!(": {bounds}"));
                }
                if !t["default"].is_null() {
                    s.push_str(&format!(" = {}", self.ty(&t["default"])));
                }
                params.push(s);
            } else if let Some(c) = kind.get("const") {
                params.push(format!("const {name}: {}", self.ty(&c["type"])));
            }
        }
        let mut preds = Vec::new();
        for w in g["where_predicates"].as_array().into_iter().flatten() {
            if let Some(b) = w.get("bound_predicate") {
                let bounds = self.bounds(&b["bounds"]);
                if !bounds.is_empty() {
                    preds.push(format!("{}: {bounds}", self.ty(&b["type"])));
                }
            } else if let Some(l) = w.get("lifetime_predicate") {
                preds.push(format!("{}: {}", l["lifetime"], l["outlives"]));
            } else if let Some(e) = w.get("eq_predicate") {
                preds.push(format!("{} = {}", self.ty(&e["lhs"]), self.term(&e["rhs"])));
            }
        }
        Generics {
            params: if params.is_empty() {
                String::new()
            } else {
                format!("<{}>", params.join(", "))
            },
            where_clause: if preds.is_empty() {
                String::new()
            } else {
                format!(" where {}", preds.join(", "))
            },
        }
    }

    fn bounds(&self, bounds: &Value) -> String {
        let parts: Vec<String> = bounds
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|b| {
                if let Some(t) = b.get("trait_bound") {
                    let modifier = match t["modifier"].as_str() {
                        Some("maybe") => "?",
                        Some("maybe_const") => "~const ",
                        _ => "",
                    };
                    Some(format!("{modifier}{}", self.path_ty(&t["trait"])))
                } else {
                    b.get("outlives").and_then(Value::as_str).map(str::to_owned)
                }
            })
            .collect();
        parts.join(" + ")
    }

    /// A path (of a trait or type) with its generic arguments.
    fn path_ty(&self, p: &Value) -> String {
        let id = id_key(&p["id"]);
        let name = self
            .known_path(&id)
            .unwrap_or_else(|| p["path"].as_str().unwrap_or_default().to_owned());
        format!("{name}{}", self.args(&p["args"]))
    }

    fn args(&self, args: &Value) -> String {
        if let Some(a) = args.get("angle_bracketed") {
            let mut parts: Vec<String> = a["args"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|arg| {
                    if let Some(t) = arg.get("type") {
                        self.ty(t)
                    } else if let Some(l) = arg.get("lifetime") {
                        l.as_str().unwrap_or_default().to_owned()
                    } else if let Some(c) = arg.get("const") {
                        c["expr"].as_str().unwrap_or("_").to_owned()
                    } else {
                        "_".to_owned()
                    }
                })
                .collect();
            for c in a["constraints"].as_array().into_iter().flatten() {
                let name = c["name"].as_str().unwrap_or_default();
                let binding = &c["binding"];
                if let Some(eq) = binding.get("equality") {
                    parts.push(format!("{name} = {}", self.term(eq)));
                } else if let Some(b) = binding.get("constraint") {
                    parts.push(format!("{name}: {}", self.bounds(b)));
                }
            }
            if parts.is_empty() {
                String::new()
            } else {
                format!("<{}>", parts.join(", "))
            }
        } else if let Some(p) = args.get("parenthesized") {
            let inputs: Vec<String> = p["inputs"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| self.ty(t))
                .collect();
            let output = match &p["output"] {
                Value::Null => String::new(),
                t => format!(" -> {}", self.ty(t)),
            };
            format!("({}){output}", inputs.join(", "))
        } else {
            String::new()
        }
    }

    fn term(&self, t: &Value) -> String {
        if let Some(ty) = t.get("type") {
            self.ty(ty)
        } else if let Some(c) = t.get("constant") {
            c["expr"].as_str().unwrap_or("_").to_owned()
        } else {
            "_".to_owned()
        }
    }

    /// The types of the tuple fields `ids`, joined with commas: `_` for
    /// a field not found, or (`public_only`) not public.
    fn tuple_fields(&self, ids: &Value, public_only: bool) -> String {
        let fields: Vec<String> = ids
            .as_array()
            .into_iter()
            .flatten()
            .map(|f| match self.item(&id_key(f)) {
                Some(f) if !public_only || f["visibility"] == "public" => {
                    self.ty(&f["inner"]["struct_field"])
                }
                _ => "_".to_owned(),
            })
            .collect();
        fields.join(", ")
    }

    fn ty(&self, t: &Value) -> String {
        let Some((kind, v)) = t.as_object().and_then(|o| o.iter().next()) else {
            return t.as_str().unwrap_or("_").to_owned();
        };
        match kind.as_str() {
            "resolved_path" => self.path_ty(v),
            "generic" | "primitive" => v.as_str().unwrap_or_default().to_owned(),
            "borrowed_ref" => {
                let l = v["lifetime"]
                    .as_str()
                    .map(|l| format!("{l} "))
                    .unwrap_or_default();
                let m = if v["is_mutable"] == true { "mut " } else { "" };
                format!("&{l}{m}{}", self.ty(&v["type"]))
            }
            "raw_pointer" => {
                let m = if v["is_mutable"] == true {
                    "mut"
                } else {
                    "const"
                };
                format!("*{m} {}", self.ty(&v["type"]))
            }
            "tuple" => {
                let parts: Vec<String> = v
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|t| self.ty(t))
                    .collect();
                if parts.len() == 1 {
                    format!("({},)", parts[0])
                } else {
                    format!("({})", parts.join(", "))
                }
            }
            "slice" => format!("[{}]", self.ty(v)),
            "array" => format!(
                "[{}; {}]",
                self.ty(&v["type"]),
                v["len"].as_str().unwrap_or("_")
            ),
            "impl_trait" => format!("impl {}", self.bounds(v)),
            "dyn_trait" => {
                let mut parts: Vec<String> = v["traits"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|p| self.path_ty(&p["trait"]))
                    .collect();
                if let Some(l) = v["lifetime"].as_str() {
                    parts.push(l.to_owned());
                }
                format!("dyn {}", parts.join(" + "))
            }
            "function_pointer" => {
                let inputs: Vec<String> = v["sig"]["inputs"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|pair| self.ty(&pair[1]))
                    .collect();
                let output = match &v["sig"]["output"] {
                    Value::Null => String::new(),
                    t => format!(" -> {}", self.ty(t)),
                };
                format!("fn({}){output}", inputs.join(", "))
            }
            "qualified_path" => {
                let name = v["name"].as_str().unwrap_or_default();
                let self_ty = self.ty(&v["self_type"]);
                let tr = &v["trait"];
                if tr.is_null() || tr["path"] == "" {
                    format!("{self_ty}::{name}{}", self.args(&v["args"]))
                } else {
                    format!("<{self_ty} as {}>::{name}", self.path_ty(tr))
                }
            }
            "infer" => "_".to_owned(),
            other => format!("<{other}>"),
        }
    }

    fn push(&mut self, line: String) {
        self.lines.insert(line);
    }
}

struct Generics {
    params: String,
    where_clause: String,
}
