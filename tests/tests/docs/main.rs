//! The documentation checker: every shell command shown in the README, the
//! crates' READMEs and the guide (`docs/`) runs here, each kind as
//! `docs/testing.md` ("How the documentation is checked") says, and every
//! fenced block says what it holds.
//!
//! ```sh
//! ./scripts/test.sh --workspace --test docs
//! ```
//!
//! One test per Markdown file runs its commands (the commands of a file
//! share its PostgreSQL database and install root); the rules of the form
//! are checked over all files at once.

// Items shared between this binary's modules are `pub`.
#![allow(unreachable_pub)]

mod lists;
mod markdown;
mod run;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use markdown::Document;

/// The repository's root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ lies in the repository")
        .to_owned()
}

/// Every Markdown file the checker reads, relative to the root: the
/// README, the README of each crate (a directory with a `Cargo.toml`, at
/// the root or under `examples/`), and every file under `docs/`.
fn markdown_files() -> BTreeSet<String> {
    let root = repo();
    ["README.md", "*/README.md", "examples/*/README.md"]
        .into_iter()
        .flat_map(|pattern| files(&root, pattern))
        .filter(|readme| readme.with_file_name("Cargo.toml").is_file())
        .chain(files(&root, "docs/**/*.md"))
        .map(|path| {
            let relative = path.strip_prefix(&root).expect("under the root");
            relative.to_string_lossy().into_owned()
        })
        .collect()
}

/// The files under `root` that match `pattern`.
fn files(root: &Path, pattern: &str) -> Vec<PathBuf> {
    glob::glob(&root.join(pattern).to_string_lossy())
        .expect("a valid pattern")
        .collect::<Result<_, _>>()
        .expect("read the repository")
}

fn read(file: &str) -> Document {
    let path = repo().join(file);
    Document::parse(
        &std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    )
}

/// Runs every command of `file`, each as its kind requires; fails with
/// every command that failed.
fn check_commands(file: &str) {
    let doc = read(file);
    let context = run::Context::new(&repo());
    let mut failures = Vec::new();
    for command in doc.commands() {
        println!("{file}:{}: {}", command.line, command.text);
        match context.check(&command) {
            Ok(done) => println!("    ok: {done}"),
            Err(why) => {
                println!("    FAILED: {why}");
                failures.push(format!(
                    "{file}:{}: `{}`: {why}",
                    command.line, command.text
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} documented commands failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// A test per checked file, and the list of them.
macro_rules! checked_files {
    ($($test:ident => $file:literal),* $(,)?) => {
        const CHECKED: &[&str] = &[$($file),*];
        mod commands {
            $(#[test] fn $test() { crate::check_commands($file) })*
        }
    };
}

checked_files!(
    readme => "README.md",
    flakeid_core_readme => "flakeid-core/README.md",
    flakeid_macros_readme => "flakeid-macros/README.md",
    flakeid_seaorm_readme => "flakeid-seaorm/README.md",
    flakeid_diesel_readme => "flakeid-diesel/README.md",
    flakeid_etcd_readme => "flakeid-etcd/README.md",
    flakeid_cli_readme => "flakeid-cli/README.md",
    flakeid_sql_readme => "flakeid-sql/README.md",
    flakeid_lease_readme => "flakeid-lease/README.md",
    flakeid_segment_readme => "flakeid-segment/README.md",
    flakeid_schemes_readme => "flakeid-schemes/README.md",
    flakeid_flake128_readme => "flakeid-flake128/README.md",
    flakeid_id_function_readme => "flakeid-id-function/README.md",
    flakeid_adopt_readme => "flakeid-adopt/README.md",
    guide_summary => "docs/SUMMARY.md",
    guide_ids => "docs/ids.md",
    guide_node_ids => "docs/node-ids.md",
    guide_seaorm => "docs/seaorm.md",
    guide_diesel => "docs/diesel.md",
    guide_sqlx => "docs/sqlx.md",
    guide_index_size => "docs/index-size.md",
    guide_openapi => "docs/openapi.md",
    guide_api_layers => "docs/api-layers.md",
    guide_seaography => "docs/seaography.md",
    guide_service => "docs/service.md",
    guide_database_ids => "docs/database-ids.md",
    guide_adopt => "docs/adopt.md",
    guide_segments => "docs/segments.md",
    guide_cli => "docs/cli.md",
    guide_schemes => "docs/schemes.md",
    guide_crates => "docs/crates.md",
    guide_testing => "docs/testing.md",
);

/// Each Markdown file has its test above, and each test its file.
#[test]
fn every_markdown_file_is_checked() {
    let found = markdown_files();
    let listed: BTreeSet<String> = CHECKED.iter().map(|f| (*f).to_owned()).collect();
    let missing: Vec<_> = found.difference(&listed).collect();
    let gone: Vec<_> = listed.difference(&found).collect();
    assert!(
        missing.is_empty() && gone.is_empty(),
        "add a line to checked_files! for each of {missing:?}; remove those of {gone:?}"
    );
}

/// Every fenced block has a known tag, no `text` block holds a command,
/// and every inline command is shown in a block (where it runs).
#[test]
fn blocks_and_inline_code_follow_the_rules() {
    let docs: Vec<(String, Document)> = markdown_files()
        .into_iter()
        .map(|f| {
            let doc = read(&f);
            (f, doc)
        })
        .collect();
    let shown: Vec<String> = docs
        .iter()
        .flat_map(|(_, d)| d.commands().into_iter().map(|c| c.text))
        .collect();
    let problems: Vec<String> = docs
        .iter()
        .flat_map(|(file, doc)| {
            doc.violations(&shown)
                .into_iter()
                .map(move |v| format!("{file}:{v}"))
        })
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// A file with Rust blocks that rustdoc would run is included by a crate
/// as doctests (`#[cfg(doctest)]` and `#[doc = include_str!("…")]`).
#[test]
fn rust_blocks_run_as_doctests() {
    let root = repo();
    // The crates' sources (workspace members lie at most two levels down).
    let mut included = BTreeSet::new();
    for path in ["*/src/**/*.rs", "*/*/src/**/*.rs"]
        .into_iter()
        .flat_map(|pattern| files(&root, pattern))
        .filter(|path| !path.starts_with(root.join("target")))
    {
        let text = std::fs::read_to_string(&path).expect("read a source file");
        if !text.contains("#[cfg(doctest)]") {
            continue;
        }
        for part in text.split("include_str!(\"").skip(1) {
            let Some((target, _)) = part.split_once('"') else {
                continue;
            };
            let resolved = path.parent().expect("a file's dir").join(target);
            if let Ok(resolved) = resolved.canonicalize() {
                included.insert(resolved);
            }
        }
    }
    let mut missing = Vec::new();
    for file in markdown_files() {
        if read(&file).blocks.iter().any(markdown::Block::is_doctest) {
            let path = root.join(&file).canonicalize().expect("the file exists");
            if !included.contains(&path) {
                missing.push(file);
            }
        }
    }
    assert!(
        missing.is_empty(),
        "these files have Rust blocks that no crate runs as doctests; include each in a crate \
         under #[cfg(doctest)] with #[doc = include_str!(…)] (the guide's chapters: \
         examples/src/lib.rs): {missing:?}"
    );
}

/// The checker's rules, on sample text.
mod rules {
    use crate::markdown::Document;
    use crate::run::{Context, Kind, classify};

    fn violations(text: &str) -> Vec<String> {
        let doc = Document::parse(text);
        let shown: Vec<String> = doc.commands().into_iter().map(|c| c.text).collect();
        doc.violations(&shown)
    }

    /// The one violation `text` has.
    fn the_violation(text: &str) -> String {
        let mut v = violations(text);
        assert_eq!(v.len(), 1, "{v:?}");
        v.remove(0)
    }

    #[test]
    fn a_block_without_a_tag_or_with_an_unknown_one_fails() {
        let v = the_violation("a\n```\nls\n```\n");
        assert!(
            v.starts_with("line 2: a fenced block without a tag"),
            "{v:?}"
        );
        let v = the_violation("```shell\nls\n```\n");
        assert!(v.contains("unknown block tag \"shell\""), "{v:?}");
        let v = violations("```rust,ignore\nlet x = 1;\n```\n```sql\nSELECT 1\n```\n");
        assert!(v.is_empty(), "{v:?}");
    }

    #[test]
    fn a_text_block_with_a_command_fails() {
        let v = the_violation("```text\ncargo run -p x\n```\n");
        assert!(v.starts_with("line 2: a `text` block line starts with \"cargo \""));
        the_violation("```text\n$ flakeid decode 5\nid 5\n```\n");
        the_violation("```text\n./scripts/test.sh\n```\n");
        assert!(violations("```text\nnode 1023: held\n```\n").is_empty());
    }

    #[test]
    fn an_unclosed_block_fails() {
        let v = violations("```sh\nls\n");
        assert_eq!(v, ["line 1: a fenced block is never closed"]);
    }

    #[test]
    fn a_console_block_starts_with_a_command() {
        the_violation("```console\nid 5\n$ flakeid decode 5\n```\n");
    }

    #[test]
    fn inline_commands_must_be_shown_in_a_block() {
        let v = the_violation("Run `cargo run -p flakeid-service` now.\n");
        assert!(v.contains("inline command `cargo run -p flakeid-service`"));
        // A span may run over a line break (a space, as CommonMark reads it).
        let v = the_violation("Run `cargo run -p\nflakeid-service` now.\n");
        assert!(v.starts_with("line 1: inline command `cargo run -p flakeid-service`"));
        let v = violations("Run `./scripts/test.sh`:\n\n```sh\n./scripts/test.sh\n```\n");
        assert!(v.is_empty(), "{v:?}");
        // Names of tools and subcommands, and forms of commands, are not
        // commands.
        assert!(violations("`cargo test` and `cargo doc`, `flakeid nodes`\n").is_empty());
        assert!(violations("`./scripts/test.sh --workspace …`, `./`\n").is_empty());
    }

    #[test]
    fn commands_are_read_from_sh_and_console_blocks() {
        let doc = Document::parse(
            "```sh\n# a comment\ncargo run -p a \\\n    --bin b   # trailing\n\nflakeid x\n```\n\
             ```console\n$ flakeid decode 5\nid 5\n\n$ true\n```\n\
             ```text\nnot a command\n```\n",
        );
        let commands = doc.commands();
        let texts: Vec<&str> = commands.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "cargo run -p a --bin b   # trailing",
                "flakeid x",
                "flakeid decode 5",
                "true"
            ]
        );
        assert_eq!(commands[0].line, 3);
        assert_eq!(
            commands[2].expected_output,
            Some(vec!["id 5".into(), String::new()])
        );
        assert_eq!(commands[3].expected_output, Some(vec![]));
    }

    #[test]
    fn indented_blocks_lose_their_indentation() {
        let doc = Document::parse("- item:\n\n  ```sh\n  ls -l\n  ```\n");
        assert_eq!(doc.blocks[0].lines, ["ls -l"]);
        assert_eq!(doc.commands()[0].text, "ls -l");
    }

    #[test]
    fn a_console_command_prints_what_is_shown() {
        let doc = Document::parse(
            "```console\n$ printf 'id 5\\nnode 3\\n'\nid 5\nnode 3\n\
             $ printf 'id 5\\nnode 4\\n'\nid 5\nnode 3\n\
             $ seq 10\n1\n...\n1[..]\n```\n",
        );
        let context = Context::new(&crate::repo());
        let results: Vec<_> = doc.commands().iter().map(|c| context.check(c)).collect();
        assert!(results[0].is_ok(), "{results:?}");
        let diff = results[1].as_ref().expect_err("node 4 is not node 3");
        assert!(
            diff.contains("- node 3") && diff.contains("+ node 4"),
            "{diff}"
        );
        assert!(results[2].is_ok(), "{results:?}");
    }

    #[test]
    fn kinds_of_commands() {
        assert_eq!(classify("./scripts/test.sh"), Kind::TestCommand);
        assert_eq!(
            classify("./scripts/test.sh --workspace --test all -- x::"),
            Kind::TestSelection(vec![
                "--workspace".into(),
                "--test".into(),
                "all".into(),
                "--".into(),
                "x::".into()
            ])
        );
        assert_eq!(classify("./scripts/chaos.sh"), Kind::Chaos);
        assert_eq!(classify("./scripts/fuzz.sh id_from_str 600"), Kind::Fuzz);
        assert_eq!(classify("./scripts/fuzz.sh all 5"), Kind::Fuzz);
        assert_eq!(classify("./scripts/fuzz.sh --list"), Kind::Plain);
        assert_eq!(
            classify("FLAKEID_BLESS=1 cargo test --workspace --test api"),
            Kind::Bless(vec!["--workspace".into(), "--test".into(), "api".into()])
        );
        assert_eq!(classify("cargo run -p flakeid-service"), Kind::Service);
        assert_eq!(
            classify("cargo run -p flakeid-examples --bin seaorm_quickstart"),
            Kind::Plain
        );
    }
}
