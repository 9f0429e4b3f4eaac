//! SQLite's `CREATE TABLE` text, read token by token: the key column's
//! definition rewritten for the switch (`BIGINT NOT NULL … CHECK (key >
//! 0)`, no `AUTOINCREMENT`), and whether the table has a rowid.

use super::error::AdoptError;
use super::plan::CHECK;
use flakeid_sql::Dialect;

/// A `CREATE TABLE` text with its key column rewritten.
pub(crate) struct Rewritten {
    pub(crate) sql: String,
    /// The key had `AUTOINCREMENT`.
    pub(crate) autoincrement: bool,
}

/// Rewrites the definition of `column` in `create`: type `BIGINT` (`INT`
/// in a `STRICT` table), no `AUTOINCREMENT`, `NOT NULL`, and the check.
pub(crate) fn rewrite(create: &str, column: &str, table: &str) -> Result<Rewritten, AdoptError> {
    let fail = |reason: &str| AdoptError::Rewrite {
        table: table.to_owned(),
        reason: reason.to_owned(),
    };
    let toks = tokens(create);
    let open = toks
        .iter()
        .position(|t| t.text == "(")
        .ok_or_else(|| fail("no column list"))?;
    // The items of the column list: (first token, end token), exclusive.
    let mut depth = 0;
    let mut items = Vec::new();
    let mut start = open + 1;
    let mut close = None;
    for (i, t) in toks.iter().enumerate().skip(open) {
        match t.text {
            "(" => depth += 1,
            ")" => {
                depth -= 1;
                if depth == 0 {
                    items.push((start, i));
                    close = Some(i);
                    break;
                }
            }
            "," if depth == 1 => {
                items.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
    }
    let close = close.ok_or_else(|| fail("the column list does not end"))?;
    let strict = toks[close + 1..]
        .iter()
        .any(|t| t.word().is_some_and(|w| w.eq_ignore_ascii_case("strict")));
    let (item_start, item_end) = items
        .iter()
        .copied()
        .find(|&(s, e)| {
            toks[s..e]
                .iter()
                .find(|t| !t.blank)
                .is_some_and(|t| t.name().eq_ignore_ascii_case(column))
        })
        .ok_or_else(|| fail("the key's column definition is not in the column list"))?;
    let item = &toks[item_start..item_end];
    let name_at = item
        .iter()
        .position(|t| !t.blank)
        .ok_or_else(|| fail("an empty column definition"))?;
    // The type: words (and one parenthesised size) before the first constraint.
    let mut type_end = name_at + 1;
    let mut i = name_at + 1;
    while i < item.len() {
        let t = &item[i];
        if t.blank {
            i += 1;
            continue;
        }
        match t.word() {
            Some(w) if !CONSTRAINT_WORDS.iter().any(|c| c.eq_ignore_ascii_case(w)) => {
                i += 1;
                type_end = i;
            }
            _ if t.text == "(" => {
                let mut depth = 0;
                while i < item.len() {
                    match item[i].text {
                        "(" => depth += 1,
                        ")" => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                i += 1;
                type_end = i;
                break;
            }
            _ => break,
        }
    }
    let mut out = String::new();
    for t in &toks[..item_start] {
        out.push_str(t.text);
    }
    for t in &item[..=name_at] {
        out.push_str(t.text);
    }
    out.push_str(if strict { " INT" } else { " BIGINT" });
    let mut autoincrement = false;
    let mut not_null = false;
    let mut previous_not = false;
    for t in &item[type_end..] {
        if t.word()
            .is_some_and(|w| w.eq_ignore_ascii_case("autoincrement"))
        {
            autoincrement = true;
            continue;
        }
        if let Some(w) = t.word() {
            not_null |= previous_not && w.eq_ignore_ascii_case("null");
            previous_not = w.eq_ignore_ascii_case("not");
        }
        out.push_str(t.text);
    }
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    if !not_null {
        out.push_str(" NOT NULL");
    }
    let c = Dialect::Sqlite.quote(column);
    out.push_str(&format!(
        " CONSTRAINT {} CHECK ({c} > 0)",
        Dialect::Sqlite.quote(CHECK)
    ));
    // What followed the item (a separator's space, then the rest).
    let after_item = &toks[item_end..];
    let blank_tail: String = item[type_end..]
        .iter()
        .rev()
        .take_while(|t| t.blank)
        .map(|t| t.text)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    out.push_str(&blank_tail);
    for t in after_item {
        out.push_str(t.text);
    }
    Ok(Rewritten {
        sql: out,
        autoincrement,
    })
}

/// Whether `create` defines a table `WITHOUT ROWID`.
pub(crate) fn without_rowid(create: &str) -> bool {
    let words: Vec<String> = tokens(create)
        .iter()
        .filter_map(|t| t.word().map(str::to_ascii_lowercase))
        .collect();
    words
        .windows(2)
        .any(|w| w[0] == "without" && w[1] == "rowid")
}

/// Words that start a column constraint (and so end the type).
const CONSTRAINT_WORDS: &[&str] = &[
    "CONSTRAINT",
    "PRIMARY",
    "NOT",
    "NULL",
    "UNIQUE",
    "CHECK",
    "DEFAULT",
    "COLLATE",
    "REFERENCES",
    "GENERATED",
    "AS",
];

/// A token of SQLite's SQL: a word, a quoted name or string, a punctuation
/// character, or blank (spaces and comments).
struct Token<'a> {
    text: &'a str,
    blank: bool,
}

impl Token<'_> {
    /// The token as a bare word.
    fn word(&self) -> Option<&str> {
        let first = self.text.chars().next()?;
        (first.is_alphanumeric() || first == '_').then_some(self.text)
    }

    /// The token as a name: unquoted.
    fn name(&self) -> String {
        let t = self.text;
        let (open, close) = match t.chars().next() {
            Some('"') => ('"', '"'),
            Some('`') => ('`', '`'),
            Some('\'') => ('\'', '\''),
            Some('[') => return t.trim_start_matches('[').trim_end_matches(']').to_owned(),
            _ => return t.to_owned(),
        };
        let inner = &t[1..t.len().saturating_sub(1).max(1)];
        inner.replace(&format!("{close}{close}"), &open.to_string())
    }
}

fn tokens(sql: &str) -> Vec<Token<'_>> {
    let bytes = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let c = bytes[i];
        let blank = match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r') {
                    i += 1;
                }
                true
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                true
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i = (i + 2).min(bytes.len());
                true
            }
            b'"' | b'`' | b'\'' => {
                i += 1;
                loop {
                    if i >= bytes.len() {
                        break;
                    }
                    if bytes[i] == c {
                        if bytes.get(i + 1) == Some(&c) {
                            i += 2;
                            continue;
                        }
                        i += 1;
                        break;
                    }
                    i += 1;
                }
                false
            }
            b'[' => {
                while i < bytes.len() && bytes[i] != b']' {
                    i += 1;
                }
                i = (i + 1).min(bytes.len());
                false
            }
            c if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 => {
                while i < bytes.len()
                    && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] >= 0x80)
                {
                    i += 1;
                }
                false
            }
            _ => {
                i += 1;
                false
            }
        };
        out.push(Token {
            text: &sql[start..i],
            blank,
        });
    }
    out
}

#[cfg(test)]
#[path = "../tests/unit/sqlite_create.rs"]
mod tests;
