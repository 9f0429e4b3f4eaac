//! Every source file of the workspace reads top-down: its public items
//! (with the impls that sit beside them), then the private helpers they
//! use, then its tests. A file that puts a public item below a private one,
//! or anything below its `#[cfg(test)]` module, fails here with the line.
//!
//! What counts, at the top level of a file (brace depth 0):
//! - public: an item whose line starts with `pub` (any visibility);
//! - private: any other `fn`, `struct`, `enum`, `trait`, `type`, `const`,
//!   `static`, `union` or inline `mod`;
//! - tests: `mod tests` or an inline module under `#[cfg(test)]`;
//! - neither: `impl` blocks and `macro_rules!` (they go where what they
//!   serve is), `use` and `mod name;` lines.
//!
//! Test targets (files under a `tests/` directory) are left out: their
//! tests are their items.

use std::path::{Path, PathBuf};

/// Where an item stands in the order.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Rank {
    Public,
    Private,
    Tests,
}

#[test]
fn public_items_come_first_then_private_helpers_then_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ lies in the repository")
        .to_owned();
    let mut files = Vec::new();
    // Every crate's src/ (the library crates found by name, so that a new
    // one is checked without being listed), the examples, benches and
    // test support.
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("the repository")
        .flatten()
        .map(|e| e.path().join("src"))
        .filter(|src| src.is_dir())
        .collect();
    dirs.push(root.join("examples"));
    dirs.sort();
    for dir in dirs {
        rust_files(&dir, &mut files);
    }
    assert!(files.len() > 100, "found only {} source files", files.len());
    let mut wrong = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a source file");
        let shown = file.strip_prefix(&root).unwrap_or(file).display();
        wrong.extend(
            out_of_order(&text)
                .into_iter()
                .map(|(line, what)| format!("{shown}:{line}: {what}")),
        );
    }
    assert!(
        wrong.is_empty(),
        "items out of order (public items, then private helpers, then tests):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_check_finds_each_kind_of_misplaced_item() {
    let good = "use std::fmt;\nmod inner;\n\n/// Doc.\npub struct A;\n\nimpl A {\n    fn x() {}\n}\n\n\
                pub(crate) fn b() {}\n\nfn helper() -> &'static str {\n    \"{ pub fn no() }\"\n}\n\n\
                impl fmt::Debug for A {\n    fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {\n        \
                Ok(())\n    }\n}\n\nconst K: u8 = 1;\n\n#[cfg(test)]\nmod tests {\n    pub fn t() {}\n}\n";
    assert_eq!(out_of_order(good), vec![]);
    let public_after_private = "fn helper() {}\n\npub fn api() {}\n";
    assert_eq!(
        out_of_order(public_after_private),
        vec![(
            3,
            "public item below a private one (line 1): `pub fn api() {}`".to_owned()
        )]
    );
    let after_tests = "pub fn api() {}\n\n#[cfg(test)]\nmod tests {}\n\nfn late() {}\n";
    assert_eq!(
        out_of_order(after_tests),
        vec![(
            6,
            "item below the tests (line 4): `fn late() {}`".to_owned()
        )]
    );
    let cfg_test_module = "#[cfg(test)]\nmod checks {\n}\n\npub const LATE: u8 = 0;\n";
    assert_eq!(
        out_of_order(cfg_test_module),
        vec![(
            5,
            "item below the tests (line 2): `pub const LATE: u8 = 0;`".to_owned()
        )]
    );
}

/// The `.rs` files under `dir`, but none under a `tests` directory.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path.is_dir() {
            if name != "tests" && name != "target" {
                rust_files(&path, out);
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The misplaced items of a file: (line, what is wrong).
fn out_of_order(text: &str) -> Vec<(usize, String)> {
    let mut wrong = Vec::new();
    let mut depth = 0i64;
    let mut cfg_test = false;
    let mut first_private: Option<usize> = None;
    let mut tests_at: Option<usize> = None;
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        if depth == 0 {
            if line.starts_with("#[cfg(test)]") {
                cfg_test = true;
            }
            if let Some(rank) = rank(line, cfg_test) {
                if let Some(t) = tests_at.filter(|_| rank != Rank::Tests) {
                    wrong.push((number, format!("item below the tests (line {t}): `{line}`")));
                } else if let (Rank::Public, Some(p)) = (rank, first_private) {
                    wrong.push((
                        number,
                        format!("public item below a private one (line {p}): `{line}`"),
                    ));
                }
                match rank {
                    Rank::Private => {
                        first_private.get_or_insert(number);
                    }
                    Rank::Tests => {
                        tests_at.get_or_insert(number);
                    }
                    Rank::Public => {}
                }
            }
            if !line.starts_with("#[") && !line.starts_with("//") && !line.trim().is_empty() {
                cfg_test = false;
            }
        }
        depth += braces(line);
    }
    wrong
}

/// The rank of a top-level line that starts an item, if it starts one
/// that has a place in the order.
fn rank(line: &str, cfg_test: bool) -> Option<Rank> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let first = *words.first()?;
    let public = first.starts_with("pub");
    let rest: Vec<&str> = words
        .iter()
        .skip(usize::from(public))
        .copied()
        .skip_while(|w| matches!(*w, "async" | "unsafe" | "extern" | "\"C\""))
        .collect();
    let keyword = *rest.first()?;
    let keyword = if keyword == "const" && rest.get(1) == Some(&"fn") {
        "fn"
    } else {
        keyword
    };
    if keyword == "mod" {
        if line.trim_end().ends_with(';') {
            return None;
        }
        if rest.get(1) == Some(&"tests") || cfg_test {
            return Some(Rank::Tests);
        }
    } else if !matches!(
        keyword,
        "fn" | "struct" | "enum" | "trait" | "type" | "const" | "static" | "union"
    ) {
        return None;
    }
    Some(if public { Rank::Public } else { Rank::Private })
}

/// The change in brace depth over a line, outside strings, characters and
/// comments.
fn braces(line: &str) -> i64 {
    let mut depth = 0;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => break,
            '"' => {
                while let Some(d) = chars.next() {
                    match d {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '\'' => {
                // A character literal ('{', '\''), or a lifetime ('a).
                let ahead: Vec<char> = chars.clone().take(3).collect();
                if ahead.first() == Some(&'\\') {
                    // '\'' or '\n': up to the closing quote after the escape.
                    chars.next();
                    chars.next();
                    while chars.next().is_some_and(|d| d != '\'') {}
                } else if ahead.get(1) == Some(&'\'') {
                    chars.next();
                    chars.next();
                }
            }
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
    }
    depth
}
