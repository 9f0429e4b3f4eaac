//! The compiler's messages made independent of the machine, the toolchain
//! and the dependencies' line numbers, so that they can be pinned.
//!
//! These are trybuild 1.0's rules at its latest normalization level (the
//! pinned `.stderr` files were written by trybuild): paths of the
//! workspace, the Cargo registry, the standard library and build outputs
//! become `$WORKSPACE`, `$CARGO/<crate>-$VERSION`, `$RUST` and
//! `$OUT_DIR[<crate>]`; line numbers are kept only within the case itself;
//! counts of further implementations become `$N`; the compiler's closing
//! summary lines are dropped; the gutter is narrowed where hidden line
//! numbers made it wider than the case's own lines need.

use std::cmp;
use std::mem;

/// Where the case is, and the directories its messages name.
pub(crate) struct Context<'a> {
    /// The case's crate name.
    pub(crate) krate: &'a str,
    /// The test crate's directory, ending in `/`.
    pub(crate) source_dir: &'a str,
    /// The workspace's directory, ending in `/`; a relative path names a
    /// file of a workspace member, relative to it.
    pub(crate) workspace: &'a str,
    /// The case's path, relative to `source_dir`.
    pub(crate) input_file: &'a str,
    /// Cargo's target directory, ending in `/`.
    pub(crate) target_dir: &'a str,
}

/// One diagnostic as the compiler rendered it, normalized; empty for the
/// compiler's summary lines ("aborting due to …", "For more information …").
pub(crate) fn diagnostic(rendered: &str, cx: &Context<'_>) -> String {
    let rendered = rendered.replace("\r\n", "\n");
    let lines: Vec<&str> = rendered.lines().collect();
    let mut filter = Filter {
        all_lines: &lines,
        cx,
        hide_numbers: 0,
        other_types: None,
    };
    let mut normalized = String::new();
    for i in 0..lines.len() {
        if let Some(line) = filter.apply(i) {
            normalized += &line;
            if !normalized.ends_with("\n\n") {
                normalized.push('\n');
            }
        }
    }
    trim(&unindent(&normalized))
}

/// `text` without trailing whitespace, ending in one newline unless empty.
pub(crate) fn trim(text: &str) -> String {
    let mut trimmed = text.trim_end().to_owned();
    if !trimmed.is_empty() {
        trimmed.push('\n');
    }
    trimmed
}

struct Filter<'a> {
    all_lines: &'a [&'a str],
    cx: &'a Context<'a>,
    hide_numbers: usize,
    other_types: Option<usize>,
}

impl Filter<'_> {
    fn apply(&mut self, index: usize) -> Option<String> {
        let mut line = self.all_lines[index].to_owned();
        if self.hide_numbers > 0 {
            hide_leading_numbers(&mut line);
            self.hide_numbers -= 1;
        }
        let trim_start = line.trim_start();
        let indent = line.len() - trim_start.len();
        if trim_start.starts_with("--> ") || trim_start.starts_with("::: ") {
            return Some(self.location(index, line, indent));
        }
        const DROPPED_PREFIXES: &[&str] = &[
            "error: aborting due to ",
            "error: Could not compile `",
            "error: could not compile `",
            "For more information about this error, try `rustc --explain",
            "Some errors have detailed explanations:",
            "For more information about an error, try `rustc --explain",
        ];
        if DROPPED_PREFIXES.iter().any(|p| line.starts_with(p))
            || line == "To learn more, run the command again with --verbose."
            || trim_start.starts_with("= note: this compiler was built on 2")
                && trim_start.ends_with("; consider upgrading it if it is out of date")
        {
            return None;
        }
        line.truncate(line.trim_end().len());

        let trim_start = line.trim_start();
        if trim_start.starts_with("and ") && line.ends_with(" others") {
            let num_start = indent + "and ".len();
            let num_end = line.len() - " others".len();
            if num_start < num_end && line[num_start..num_end].bytes().all(|b| b.is_ascii_digit()) {
                line.replace_range(num_start..num_end, "$N");
            }
        }

        let trimmed = line.trim_start();
        let trimmed = trimmed.strip_prefix("= note: ").unwrap_or(trimmed);
        if trimmed.starts_with("the full type name has been written to")
            || trimmed.starts_with("the full name for the type has been written to")
        {
            return None;
        }

        // At most eight implementations listed, then "and $N others".
        let trim_start = line.trim_start();
        if trim_start.starts_with("= help: the following types implement trait ")
            || trim_start.starts_with("= help: the following other types implement trait ")
        {
            self.other_types = Some(0);
        } else if let Some(count) = &mut self.other_types {
            if indent >= 12 && trim_start != "and $N others" {
                *count += 1;
                if *count == 9 {
                    if let Some(next) = self.all_lines.get(index + 1) {
                        let next_indent = next.len() - next.trim_start().len();
                        if indent == next_indent {
                            line.replace_range(indent - 2.., "and $N others");
                        }
                    }
                } else if *count > 9 {
                    return None;
                }
            } else {
                self.other_types = None;
            }
        }

        line = line.replace(self.cx.krate, "$CRATE");
        line = replace_case_insensitive(&line, self.cx.source_dir, "$DIR/");
        line = replace_case_insensitive(&line, self.cx.workspace, "$WORKSPACE/");
        Some(line)
    }

    /// A `--> path:line:col` or `::: path:line:col` line. Outside the case,
    /// the path loses its machine-specific prefix and its line numbers, and
    /// so do the code lines that follow it.
    fn location(&mut self, index: usize, line: String, indent: usize) -> String {
        let mut line = line.replace('\\', "/");
        let line_lower = line.to_ascii_lowercase();
        let start = indent + 4;
        let target_dir_pat = self.cx.target_dir.to_ascii_lowercase();
        let source_dir_pat = self.cx.source_dir.to_ascii_lowercase();
        let workspace_pat = self.cx.workspace.to_ascii_lowercase();
        let mut other_crate = false;
        if line_lower.find(&target_dir_pat) == Some(start) {
            other_crate = out_dir(&mut line, start + target_dir_pat.len(), start);
        } else if let Some(i) = line_lower.find(&source_dir_pat) {
            if i == start {
                line.replace_range(i..i + source_dir_pat.len(), "");
                let input_file_pat = self.cx.input_file.to_ascii_lowercase();
                if line_lower[i + source_dir_pat.len()..].starts_with(&input_file_pat) {
                    return line;
                }
            } else {
                line.replace_range(i..i + source_dir_pat.len() - 1, "$DIR");
            }
            other_crate = true;
        } else if let Some(i) = line_lower.find(&workspace_pat) {
            line.replace_range(i..i + workspace_pat.len() - 1, "$WORKSPACE");
            other_crate = true;
        } else if !line[start..].starts_with(['/', '$']) {
            // Cargo compiles the workspace's members with paths relative to
            // the workspace, and the compiler names their files so.
            line.insert_str(start, "$WORKSPACE/");
            other_crate = true;
        }
        if !other_crate {
            other_crate = rust_library(&mut line, start);
        }
        if !other_crate {
            other_crate = cargo_registry(&mut line, start);
        }
        if other_crate {
            hide_trailing_numbers(&mut line);
            self.hide_numbers = 1;
            while let Some(next_line) = self.all_lines.get(index + self.hide_numbers) {
                match next_line.trim_start().chars().next().unwrap_or_default() {
                    '0'..='9' | '|' | '.' => self.hide_numbers += 1,
                    _ => break,
                }
            }
        }
        line
    }
}

/// `<target>/debug/build/<crate>-<hash>/out/…` → `$OUT_DIR[<crate>]/…`;
/// `offset` is where the path below the target directory starts.
fn out_dir(line: &mut String, mut offset: usize, start: usize) -> bool {
    let mut crate_name: Option<String> = None;
    while let Some(slash) = line[offset..].find('/') {
        let component = &line[offset..offset + slash];
        if component == "out" {
            if let Some(name) = crate_name {
                line.replace_range(start..offset + 3, &format!("$OUT_DIR[{name}]"));
                return true;
            }
        } else if component.len() > 17
            && component.rfind('-') == Some(component.len() - 17)
            && is_ascii_lowercase_hex(&component[component.len() - 16..])
        {
            crate_name = Some(component[..component.len() - 17].to_owned());
        } else {
            crate_name = None;
        }
        offset += slash + 1;
    }
    false
}

/// The standard library's sources, from rust-src or from the compiler's
/// build paths, → `$RUST/…`.
fn rust_library(line: &mut String, start: usize) -> bool {
    if let Some(pos) = line.find("/rustlib/src/rust/src/") {
        line.replace_range(start..pos + 17, "$RUST");
        true
    } else if let Some(pos) = line.find("/rustlib/src/rust/library/") {
        line.replace_range(start..pos + 25, "$RUST");
        true
    } else if line[start..].starts_with("/rustc/")
        && line
            .get(start + 7..start + 47)
            .is_some_and(is_ascii_lowercase_hex)
        && line[start + 47..].starts_with("/library/")
    {
        line.replace_range(start..start + 55, "$RUST");
        true
    } else {
        false
    }
}

/// `…/registry/src/<registry>-<hash>/<crate>-<version>/…` →
/// `$CARGO/<crate>-$VERSION/…`.
fn cargo_registry(line: &mut String, start: usize) -> bool {
    let prefix = "/registry/src/";
    let Some(pos) = line.find(prefix) else {
        return false;
    };
    let rest = &line[pos + prefix.len()..];
    let Some(slash) = rest.find('/') else {
        return false;
    };
    let Some((_registry, hash)) = rest[..slash].rsplit_once('-') else {
        return false;
    };
    if hash.len() != 16 || !is_ascii_lowercase_hex(hash) {
        return false;
    }
    line.replace_range(start..pos + prefix.len() + slash, "$CARGO");
    let rest = &line[start + 7..];
    let end_of_version = rest.find('/');
    if let Some(end_of_crate_name) = end_of_version
        .and_then(|end| rest[..end].find('.'))
        .and_then(|end| rest[..end].rfind('-'))
    {
        let end_of_version = end_of_version.unwrap_or_default();
        line.replace_range(
            start + end_of_crate_name + 8..start + end_of_version + 7,
            "$VERSION",
        );
    }
    true
}

fn is_ascii_lowercase_hex(s: &str) -> bool {
    s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// `"10 | T: Send,"` → `"   | T: Send,"`.
fn hide_leading_numbers(line: &mut String) {
    let n = line
        .bytes()
        .take_while(|b| *b == b' ' || b.is_ascii_digit())
        .count();
    line.replace_range(..n, &" ".repeat(n));
}

/// `"main.rs:22:29"` → `"main.rs"`.
fn hide_trailing_numbers(line: &mut String) {
    for _ in 0..2 {
        let digits = line.bytes().rev().take_while(u8::is_ascii_digit).count();
        if digits == 0 || !line[..line.len() - digits].ends_with(':') {
            return;
        }
        line.truncate(line.len() - digits - 1);
    }
}

/// Replaces `pattern` (a directory, ending in `/`) in any case by
/// `replacement`, turning backslashes of the path after it into slashes.
fn replace_case_insensitive(line: &str, pattern: &str, replacement: &str) -> String {
    let line_lower = line.to_ascii_lowercase().replace('\\', "/");
    let pattern_lower = pattern.to_ascii_lowercase().replace('\\', "/");
    let mut replaced = String::with_capacity(line.len());

    let line_lower = line_lower.as_str();
    let mut split = line_lower.split(&pattern_lower);
    let mut pos = 0;
    let mut insert_replacement = false;
    while let Some(keep) = split.next() {
        if insert_replacement {
            replaced.push_str(replacement);
            pos += pattern.len();
        }
        let mut keep = &line[pos..pos + keep.len()];
        if insert_replacement {
            let end_of_maybe_path = keep.find([' ', ':']).unwrap_or(keep.len());
            replaced.push_str(&keep[..end_of_maybe_path].replace('\\', "/"));
            pos += end_of_maybe_path;
            keep = &keep[end_of_maybe_path..];
        }
        replaced.push_str(keep);
        pos += keep.len();
        insert_replacement = true;
        if replaced.ends_with(|ch: char| ch.is_ascii_alphanumeric())
            && let Some(ch) = line[pos..].chars().next()
        {
            replaced.push(ch);
            pos += ch.len_utf8();
            split = line_lower[pos..].split(&pattern_lower);
            insert_replacement = false;
        }
    }
    replaced
}

#[derive(PartialEq)]
enum LineKind {
    /// `error…:`, `warning…:`.
    Heading,
    /// A gutter line; how many spaces of its indent may be cut.
    Code(usize),
    /// `note:`, `help:`, `...`, a note's continuation.
    Note,
    /// Anything else, with its leading spaces.
    Other(usize),
}

/// Narrows each diagnostic's gutter to what its remaining line numbers
/// need (hidden numbers of other files widened it).
fn unindent(diag: &str) -> String {
    let mut normalized = String::new();
    let mut lines = diag.lines();

    while let Some(line) = lines.next() {
        normalized.push_str(line);
        normalized.push('\n');

        if line_kind(line, true, &mut false) != LineKind::Heading {
            continue;
        }
        let mut ahead = lines.clone();
        let Some(next_line) = ahead.next() else {
            continue;
        };
        let LineKind::Code(indent) = line_kind(next_line, false, &mut false) else {
            continue;
        };
        if !next_line[indent + 1..].starts_with("--> ") {
            continue;
        }
        let mut lines_in_block = 1;
        let mut least_indent = indent;
        let mut previous_line_is_note = false;
        for line in ahead {
            match line_kind(line, false, &mut previous_line_is_note) {
                LineKind::Heading => break,
                LineKind::Code(indent) => {
                    lines_in_block += 1;
                    least_indent = cmp::min(least_indent, indent);
                }
                LineKind::Note => lines_in_block += 1,
                LineKind::Other(spaces) if spaces > 10 => lines_in_block += 1,
                LineKind::Other(_) => break,
            }
        }
        let mut previous_line_is_note = false;
        for _ in 0..lines_in_block {
            let Some(line) = lines.next() else { break };
            match line_kind(line, false, &mut previous_line_is_note) {
                LineKind::Code(_) | LineKind::Other(_) => {
                    let space = line.find(' ').unwrap_or(0);
                    normalized.push_str(&line[..space]);
                    normalized.push_str(line.get(space + least_indent..).unwrap_or(""));
                }
                LineKind::Heading | LineKind::Note => normalized.push_str(line),
            }
            normalized.push('\n');
        }
    }
    normalized
}

fn line_kind(line: &str, first_line_in_block: bool, previous_line_is_note: &mut bool) -> LineKind {
    let previous_line_was_note = mem::replace(previous_line_is_note, false);

    for heading in ["error", "warning"] {
        if line
            .strip_prefix(heading)
            .is_some_and(|rest| rest.starts_with([':', '[']))
        {
            return LineKind::Heading;
        }
    }
    if first_line_in_block && line.starts_with("note: ") {
        return LineKind::Heading;
    }
    if line.starts_with("note:")
        || line == "..."
        || line.starts_with("help:")
        || previous_line_was_note && line.starts_with("      ")
    {
        *previous_line_is_note = true;
        return LineKind::Note;
    }

    let is_space = |b: &u8| *b == b' ';
    if let Some(rest) = line.strip_prefix("... ") {
        return LineKind::Code(rest.bytes().take_while(is_space).count());
    }
    let mut spaces = line.bytes().take_while(is_space).count();
    let digits = line[spaces..]
        .bytes()
        .take_while(u8::is_ascii_digit)
        .count();
    spaces += line[spaces + digits..].bytes().take_while(is_space).count();
    let rest = &line[digits + spaces..];
    let marker = |m: &str| rest == m || rest.strip_prefix(m).is_some_and(|r| r.starts_with(' '));
    if spaces > 0
        && (marker("|")
            || digits > 0 && (marker("~") || marker("+") || marker("-"))
            || digits == 0
                && (rest.starts_with("--> ") || rest.starts_with("::: ") || rest.starts_with("= ")))
    {
        return LineKind::Code(spaces - 1);
    }
    LineKind::Other(if digits == 0 { spaces } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CX: Context<'static> = Context {
        krate: "flakeid_ui_case",
        source_dir: "/w/ui-tests/",
        workspace: "/w/",
        input_file: "tests/ui/seaorm/case.rs",
        target_dir: "/w/target/",
    };

    #[test]
    fn lines_outside_the_case_lose_their_numbers_and_the_gutter_narrows() {
        let rendered = "\
error[E0277]: `Key` is not an ID type
   --> /w/ui-tests/tests/ui/seaorm/case.rs:8:5
    |
8   |     #[flakeid_seaorm::flake_id]
    |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^ not declared with `#[flake_id]`
    |
note: required by a bound in `before_save`
   --> flakeid-seaorm/src/lib.rs:412:27
    |
412 |     pub fn before_save<A: FlakeActiveModel>(am: A) {
    |                           ^^^^^^^^^^^^^^^^ required by this bound in `before_save`
";
        let expected = "\
error[E0277]: `Key` is not an ID type
 --> tests/ui/seaorm/case.rs:8:5
  |
8 |     #[flakeid_seaorm::flake_id]
  |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^ not declared with `#[flake_id]`
  |
note: required by a bound in `before_save`
 --> $WORKSPACE/flakeid-seaorm/src/lib.rs
  |
  |     pub fn before_save<A: FlakeActiveModel>(am: A) {
  |                           ^^^^^^^^^^^^^^^^ required by this bound in `before_save`
";
        assert_eq!(diagnostic(rendered, &CX), expected);
    }

    #[test]
    fn registry_std_and_out_dir_paths_are_named_by_variables() {
        // A `-->` line right below the heading sets the gutter: it narrows
        // to one space; a `:::` line keeps its indent.
        let cases = [
            (
                "  --> /home/u/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/sea-orm-2.0.4/src/lib.rs:3:1",
                " --> $CARGO/sea-orm-$VERSION/src/lib.rs",
            ),
            (
                "  ::: /rustc/59807616e1b2d4a3c5f6e7d8c9b0a1f2e3d4c5b6/library/core/src/cmp.rs:10:1",
                "  ::: $RUST/core/src/cmp.rs",
            ),
            (
                "  --> /w/target/debug/build/etcd-client-0123456789abcdef/out/etcdserverpb.rs:7:2",
                " --> $OUT_DIR[etcd-client]/etcdserverpb.rs",
            ),
            (
                "  --> /w/ui-tests/tests/ui/seaorm/case.rs:7:2",
                " --> tests/ui/seaorm/case.rs:7:2",
            ),
            (
                "  --> flakeid-core/src/id.rs:7:2",
                " --> $WORKSPACE/flakeid-core/src/id.rs",
            ),
        ];
        for (line, expected) in cases {
            assert_eq!(
                diagnostic(&format!("error: x\n{line}\n"), &CX),
                format!("error: x\n{expected}\n")
            );
        }
    }

    #[test]
    fn long_lists_of_implementations_end_with_a_placeholder_count() {
        // `--verbose` makes the compiler list every implementation.
        let mut rendered = String::from(
            "error[E0277]: x\n   = help: the following other types implement trait `T`:\n",
        );
        for i in 0..12 {
            rendered.push_str(&format!("             `A{i}` implements `T`\n"));
        }
        let normalized = diagnostic(&rendered, &CX);
        assert!(normalized.contains("`A7` implements"), "{normalized}");
        assert!(!normalized.contains("`A8` implements"), "{normalized}");
        assert!(
            normalized.trim_end().ends_with("and $N others"),
            "{normalized}"
        );
        assert_eq!(
            normalized.matches("and $N others").count(),
            1,
            "{normalized}"
        );
    }

    #[test]
    fn the_compilers_summary_lines_are_dropped() {
        for summary in [
            "error: aborting due to 2 previous errors",
            "For more information about this error, try `rustc --explain E0277`.",
            "Some errors have detailed explanations: E0277, E0599.",
        ] {
            assert_eq!(diagnostic(summary, &CX), "");
        }
    }
}
