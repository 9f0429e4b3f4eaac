//! Lists the docs repeat from one source, checked against it: the preset
//! layouts (`presets::ALL`) wherever their names are listed, and each
//! crate's table of features (`Cargo.toml`'s `[features]`).

use std::collections::BTreeSet;

use cargo_metadata::MetadataCommand;
use flakeid_core::layout::presets;

use crate::repo;

/// Where the preset names are listed: a file, the text that starts the
/// list and the text that ends it. Names are the words written in backticks
/// (`twitter`, or within `--layout twitter`) or, where the list has none
/// (a CLI argument's help), the words between commas.
const PRESET_LISTS: &[(&str, &str, &str)] = &[
    (
        "flakeid-core/src/global/mod.rs",
        "| `FLAKEID_LAYOUT` |",
        "(`-` may",
    ),
    ("docs/ids.md", "| `FLAKEID_LAYOUT` |", "\n"),
    ("docs/cli.md", "Layouts are the presets", "), changed"),
    ("flakeid-cli/src/args.rs", "A preset layout:", "."),
];

/// The layout names written in `list`, `-` read as `_`.
fn names_in(list: &str) -> BTreeSet<String> {
    let is_name = |w: &&str| {
        w.starts_with(|c: char| c.is_ascii_lowercase())
            && w.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
    };
    let words: Vec<&str> = if list.contains('`') {
        list.split('`')
            .skip(1)
            .step_by(2)
            .flat_map(str::split_whitespace)
            .collect()
    } else {
        list.split(|c: char| c == ',' || c.is_whitespace() || c == '/')
            .collect()
    };
    words
        .into_iter()
        .filter(is_name)
        .map(|w| w.replace('-', "_"))
        .collect()
}

#[test]
fn every_list_of_presets_names_exactly_the_presets() {
    let presets: BTreeSet<String> = presets::ALL.iter().map(|(n, _)| (*n).to_owned()).collect();
    for (file, start, end) in PRESET_LISTS {
        let text =
            std::fs::read_to_string(repo().join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let from = text
            .find(start)
            .unwrap_or_else(|| panic!("{file}: no {start:?}"))
            + start.len();
        let end = end.replace("\\n", "\n");
        let to = text[from..]
            .find(&end)
            .unwrap_or_else(|| panic!("{file}: no {end:?} after {start:?}"));
        let listed = names_in(&text[from..from + to]);
        assert_eq!(
            listed, presets,
            "{file}: the presets listed after {start:?}"
        );
    }
}

#[test]
fn the_list_reader_sees_both_forms() {
    let names = |s: &str| names_in(s).into_iter().collect::<Vec<_>>();
    assert_eq!(
        names(" `twitter`, `js-safe` (or `--layout lsid`) | "),
        ["js_safe", "lsid", "twitter"]
    );
    assert_eq!(
        names(" twitter, discord,\n    /// js_safe"),
        ["discord", "js_safe", "twitter"]
    );
}

/// The features a crate's docs table lists: the first column of the table
/// under `# Features` in its `src/lib.rs`, names in backticks.
fn documented_features(lib_rs: &str) -> Option<BTreeSet<String>> {
    let section = lib_rs.split("//! # Features").nth(1)?;
    section.lines().find(|l| l.starts_with("//! | feature |"))?;
    let rows = section
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("//!") && !l.starts_with("//! # "));
    Some(
        rows.filter_map(|l| l.strip_prefix("//! | `"))
            .filter_map(|l| l.split(" |").next())
            .flat_map(|cell| cell.split(", ").map(|f| f.trim_matches('`').to_owned()))
            .collect(),
    )
}

#[test]
fn every_features_table_lists_exactly_the_crates_features() {
    let metadata = MetadataCommand::new().current_dir(repo()).no_deps().exec();
    let mut checked = 0;
    for package in metadata.expect("cargo metadata").packages {
        let lib = package.manifest_path.with_file_name("src/lib.rs");
        let Ok(text) = std::fs::read_to_string(&lib) else {
            continue;
        };
        let Some(documented) = documented_features(&text) else {
            continue;
        };
        // The manifest's features, the implicit ones of optional dependencies included.
        let features = package.features.into_keys().filter(|f| f != "default");
        assert_eq!(
            documented,
            features.collect(),
            "{}: the # Features table of src/lib.rs",
            package.name
        );
        checked += 1;
    }
    assert!(
        checked > 0,
        "no crate documents its features in a # Features table"
    );
}

/// The README files: the repository's page and each crate's registry page,
/// where Markdown shows a doctest's hidden `# ` lines as code.
#[test]
fn readme_rust_examples_hide_no_lines() {
    let mut hidden = Vec::new();
    for file in crate::markdown_files()
        .into_iter()
        .filter(|f| f.ends_with("README.md"))
    {
        let doc = crate::read(&file);
        for block in doc.blocks.iter().filter(|b| b.tag == "rust") {
            for (i, line) in block.lines.iter().enumerate() {
                if line == "#" || line.starts_with("# ") {
                    hidden.push(format!("{file}:{}: {line}", block.line + 1 + i));
                }
            }
        }
    }
    assert!(
        hidden.is_empty(),
        "README examples with hidden lines (shown as code on the page):\n{}",
        hidden.join("\n")
    );
}
