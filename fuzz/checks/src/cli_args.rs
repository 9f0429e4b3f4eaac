//! The `flakeid` command's argument parsing, and its commands that touch
//! no database or file (`decode`, `convert`, `generate` of up to
//! [`MAX_IDS`] IDs that waits at most a second for the clock, `sql` and
//! `sql decode-functions` without `--out`), run in-process.
//!
//! The input is the arguments, separated by NUL bytes (the program's name
//! is put in front). Property: parsing gives a command or clap's refusal
//! (exit code 2, or 0 for `--help` and `--version`); a command either
//! writes its output or refuses with a usage error that names the
//! argument, having written nothing; only `generate` may fail otherwise
//! (a clock it cannot use). What `decode`, `convert` and `generate` write
//! reads back: every text form of an ID they print decodes to the same ID,
//! and generated IDs increase.

use flakeid_cli::{Cli, CliError};
use flakeid_core::encoding::TextForm;

use crate::input::text;

/// The most IDs a `generate` run in-process may print.
pub const MAX_IDS: u64 = 1_000;

pub fn check(data: &[u8]) {
    let text = text(data);
    let args: Vec<String> = std::iter::once("flakeid".to_owned())
        .chain(text.split('\0').map(str::to_owned))
        .collect();
    let cli = match Cli::parse_from_args(args.clone()) {
        Ok(cli) => cli,
        Err((message, code)) => {
            assert!(
                code == 0 || code == 2,
                "{args:?}: exit code {code}: {message}"
            );
            assert!(!message.is_empty());
            return;
        }
    };
    if !cli.in_process(MAX_IDS) {
        return;
    }
    let subcommand = args[1..]
        .iter()
        .find(|a| !a.starts_with('-'))
        .cloned()
        .unwrap_or_default();
    let mut out = Vec::new();
    let result = cli.run(&mut out);
    let output = String::from_utf8(out).expect("the output is UTF-8");
    match result {
        Ok(()) => {
            assert!(
                !output.is_empty() || subcommand == "generate",
                "{args:?} wrote nothing"
            );
            match subcommand.as_str() {
                "decode" => decoded(&output, &args),
                "convert" => converted(&output, &args),
                "generate" => generated(&output, &args),
                _ => assert!(output.ends_with('\n'), "{args:?}: {output:?}"),
            }
        }
        Err(CliError::Usage { argument, message }) => {
            assert!(
                output.is_empty(),
                "{args:?} refused after writing {output:?}"
            );
            assert!(!argument.is_empty() && !message.is_empty(), "{args:?}");
        }
        Err(CliError::Failed(message)) => {
            assert!(
                output.is_empty(),
                "{args:?} failed after writing {output:?}"
            );
            assert_eq!(subcommand, "generate", "{args:?} failed: {message}");
        }
    }
}

/// `convert`'s lines: one ID, or each form labelled, all the same value.
fn converted(output: &str, args: &[String]) {
    let lines: Vec<&str> = output.lines().collect();
    if let [single] = lines[..] {
        let forms = [TextForm::Decimal, TextForm::Base62, TextForm::Crockford];
        assert!(
            forms.iter().any(|f| f.decode(single).is_ok()),
            "{args:?}: {output:?}"
        );
        return;
    }
    let value = |label: &str, form: TextForm| {
        let line = lines.iter().find_map(|l| l.strip_prefix(label));
        line.and_then(|v| form.decode(v.trim()).ok())
    };
    let decimal = value("decimal ", TextForm::Decimal);
    assert!(decimal.is_some(), "{args:?}: {output:?}");
    assert_eq!(value("base62 ", TextForm::Base62), decimal, "{output:?}");
    assert_eq!(
        value("crockford ", TextForm::Crockford),
        decimal,
        "{output:?}"
    );
}

/// `generate`'s lines: IDs in one of the forms, each larger than the one
/// before.
fn generated(output: &str, args: &[String]) {
    let forms = [TextForm::Decimal, TextForm::Base62, TextForm::Crockford];
    let increasing = forms.iter().any(|form| {
        let ids: Option<Vec<u64>> = output.lines().map(|l| form.decode(l).ok()).collect();
        ids.is_some_and(|ids| ids.iter().all(|&id| id >= 1) && ids.windows(2).all(|w| w[0] < w[1]))
    });
    assert!(increasing, "{args:?}: {output:?}");
}

/// `decode`'s text or JSON: the ID, and its base62 and Crockford forms
/// that read back as it.
fn decoded(output: &str, args: &[String]) {
    let (id, base62, crockford) = if args.iter().any(|a| a == "--json") {
        let json: serde_json::Value =
            serde_json::from_str(output).expect("decode --json writes JSON");
        let field = |name: &str| json[name].as_str().map(str::to_owned);
        (field("id"), field("base62"), field("crockford"))
    } else {
        let field = |label: &str| {
            output
                .lines()
                .find_map(|l| l.strip_prefix(label))
                .map(|v| v.trim().to_owned())
        };
        (field("id "), field("base62 "), field("crockford "))
    };
    let id = id.and_then(|id| TextForm::Decimal.decode(&id).ok());
    let id = id.unwrap_or_else(|| panic!("{args:?}: no id in {output:?}"));
    assert!(id >= 1, "{args:?}: {output:?}");
    assert_eq!(
        base62.map(|t| TextForm::Base62.decode(&t)),
        Some(Ok(id)),
        "{output:?}"
    );
    assert_eq!(
        crockford.map(|t| TextForm::Crockford.decode(&t)),
        Some(Ok(id)),
        "{output:?}"
    );
}
