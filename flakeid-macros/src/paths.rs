//! Paths to the runtime crates as the user's crate names them.
//!
//! Dependencies are found in the user's `Cargo.toml` with
//! `proc-macro-crate`, so renamed, target-specific and `workspace = true`
//! dependencies work. Every path is absolute (`::name`): inside the crate
//! itself (`FoundCrate::Itself`, which is also what its doctests see) that
//! relies on the crate declaring `extern crate self as name;`, as
//! `flakeid-core` does.
//!
//! `proc-macro-crate` also reports `[dev-dependencies]`, which the library
//! and binaries cannot use. An ORM crate found only there gets its column
//! impls under `#[cfg(test)]` (unit tests), or unconditionally in
//! integration tests and benches, which Cargo marks with
//! `CARGO_TARGET_TMPDIR`.

use std::path::Path;

use proc_macro_crate::{FoundCrate, crate_name};
use proc_macro2::{Span, TokenStream};
use quote::quote;

/// Where generated code finds `flakeid-core` and the ORM crates.
pub(crate) struct Paths {
    /// `flakeid-core`, directly or through an ORM crate's re-export.
    pub(crate) core: TokenStream,
    /// `flakeid-seaorm`, when the user's crate depends on it.
    pub(crate) seaorm: Option<Dependency>,
    /// `flakeid-diesel`, when the user's crate depends on it.
    pub(crate) diesel: Option<Dependency>,
}

/// A dependency of the user's crate.
pub(crate) struct Dependency {
    /// `::name`, as the user's crate names it.
    pub(crate) path: TokenStream,
    /// Listed only in `[dev-dependencies]`, and the target being compiled
    /// is not an integration test or bench.
    pub(crate) test_only: bool,
}

impl Dependency {
    /// `#[cfg(test)]` when the dependency is only there in unit tests.
    pub(crate) fn cfg(&self) -> TokenStream {
        if self.test_only {
            quote!(#[cfg(test)])
        } else {
            TokenStream::new()
        }
    }
}

impl Paths {
    /// Resolves the paths, or explains which dependency is missing.
    pub(crate) fn resolve() -> syn::Result<Self> {
        let normal = normal_dependency_names();
        let core = find("flakeid-core", normal.as_deref());
        let seaorm = find("flakeid-seaorm", normal.as_deref());
        let diesel = find("flakeid-diesel", normal.as_deref());
        // A dependency usable in every target wins over a test-only one.
        let via = |orm: &Dependency| {
            let path = &orm.path;
            quote!(#path::__private::flakeid_core)
        };
        let core = if let Some(core) = usable(&core) {
            core.path.clone()
        } else if let Some(seaorm) = usable(&seaorm) {
            via(seaorm)
        } else if let Some(diesel) = usable(&diesel) {
            via(diesel)
        } else if let Some(core) = &core {
            core.path.clone()
        } else if let Some(orm) = seaorm.as_ref().or(diesel.as_ref()) {
            via(orm)
        } else {
            return Err(syn::Error::new(
                Span::call_site(),
                "#[flake_id] needs `flakeid-core` (or `flakeid-seaorm` / `flakeid-diesel`) \
                 in this crate's Cargo.toml: add `flakeid-core = \"0.1\"` to [dependencies]",
            ));
        };
        Ok(Self {
            core,
            seaorm,
            diesel,
        })
    }
}

fn usable(dependency: &Option<Dependency>) -> Option<&Dependency> {
    dependency.as_ref().filter(|d| !d.test_only)
}

/// The dependency on `package`, if the user's `Cargo.toml` has one.
fn find(package: &str, normal: Option<&[String]>) -> Option<Dependency> {
    let (name, itself) = match crate_name(package).ok()? {
        FoundCrate::Itself => (package.replace('-', "_"), true),
        FoundCrate::Name(name) => (name, false),
    };
    let listed_as_normal = normal.is_none_or(|names| names.contains(&name));
    let test_target = std::env::var_os("CARGO_TARGET_TMPDIR").is_some();
    let ident = syn::Ident::new(&name, Span::call_site());
    Some(Dependency {
        path: quote!(::#ident),
        test_only: !itself && !listed_as_normal && !test_target,
    })
}

/// The names (as Rust identifiers) of the user's `[dependencies]` and
/// `[build-dependencies]`, target-specific ones included; `None` if the
/// manifest cannot be read, in which case every dependency counts as normal.
fn normal_dependency_names() -> Option<Vec<String>> {
    let dir = std::env::var_os("CARGO_MANIFEST_DIR")?;
    let text = std::fs::read_to_string(Path::new(&dir).join("Cargo.toml")).ok()?;
    let manifest: toml_edit::DocumentMut = text.parse().ok()?;
    let targets = manifest
        .get("target")
        .and_then(toml_edit::Item::as_table_like)
        .into_iter()
        .flat_map(|targets| targets.iter().filter_map(|(_, t)| t.as_table_like()));
    let names = std::iter::once(manifest.as_table() as &dyn toml_edit::TableLike)
        .chain(targets)
        .flat_map(dependency_tables)
        .flat_map(|t| t.iter().map(|(name, _)| name.replace('-', "_")))
        .collect();
    Some(names)
}

fn dependency_tables(table: &dyn toml_edit::TableLike) -> Vec<&dyn toml_edit::TableLike> {
    ["dependencies", "build-dependencies"]
        .into_iter()
        .filter_map(|key| table.get(key).and_then(toml_edit::Item::as_table_like))
        .collect()
}

#[cfg(test)]
mod tests {
    //! Run against this crate's own manifest, which Cargo points
    //! `CARGO_MANIFEST_DIR` at when running unit tests.
    use super::*;

    #[test]
    fn normal_dependencies_exclude_dev_dependencies() {
        let names = normal_dependency_names().expect("the manifest of flakeid-macros is readable");
        for normal in [
            "proc_macro2",
            "quote",
            "syn",
            "proc_macro_crate",
            "toml_edit",
        ] {
            assert!(
                names.iter().any(|n| n == normal),
                "{normal} missing from {names:?}"
            );
        }
        for dev in ["trybuild", "flakeid_core", "serde_json"] {
            assert!(
                !names.iter().any(|n| n == dev),
                "{dev} listed as normal in {names:?}"
            );
        }
    }

    #[test]
    fn dev_dependency_is_test_only_outside_integration_tests() {
        // Unit tests run without CARGO_TARGET_TMPDIR, like a library build.
        assert!(std::env::var_os("CARGO_TARGET_TMPDIR").is_none());
        let names = normal_dependency_names();
        let core = find("flakeid-core", names.as_deref()).expect("a dev-dependency");
        assert!(core.test_only);
        assert_eq!(core.path.to_string(), ":: flakeid_core");
        assert_eq!(core.cfg().to_string(), "# [cfg (test)]");
        let syn = find("syn", names.as_deref()).expect("a dependency");
        assert!(!syn.test_only);
        assert!(syn.cfg().is_empty());
        assert!(find("flakeid-seaorm", names.as_deref()).is_none());
    }

    #[test]
    fn core_path_falls_back_to_a_test_only_dependency() {
        let paths = Paths::resolve().expect("flakeid-core is a dev-dependency");
        assert_eq!(paths.core.to_string(), ":: flakeid_core");
        assert!(paths.seaorm.is_none());
        assert!(paths.diesel.is_none());
    }
}
