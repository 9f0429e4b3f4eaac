//! A lexer of the SQL flakeid writes, per dialect, as the server reads it
//! (PostgreSQL with `standard_conforming_strings` on; MySQL/MariaDB in the
//! default mode, where backslashes escape in strings; SQLite): words,
//! quoted identifiers, string literals, comments, dollar-quoted bodies
//! (lexed in turn) and other characters. The `sql_names` target compares
//! statements written with a fuzzed name and with a plain one, token by
//! token with names and literals masked: a name that changes the
//! statement's shape was spliced, not quoted.

use flakeid_sql::Dialect;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A keyword, unquoted name, number or placeholder.
    Word(String),
    /// A quoted identifier, unescaped.
    Ident(String),
    /// A string literal, unescaped (`None`: bytes that are not UTF-8).
    Str(Option<String>),
    Comment,
    /// A PostgreSQL dollar-quoted body, lexed.
    Dollar(Vec<Tok>),
    Other(char),
    /// What a server would refuse or read differently: an unterminated
    /// quote or comment, a MySQL executable comment.
    Bad(&'static str),
}

impl Tok {
    /// The token with names and literals masked, for comparing shapes.
    pub(crate) fn shape(&self) -> Tok {
        match self {
            Tok::Ident(_) => Tok::Ident(String::new()),
            Tok::Str(_) => Tok::Str(None),
            Tok::Dollar(body) => Tok::Dollar(body.iter().map(Tok::shape).collect()),
            other => other.clone(),
        }
    }
}

pub(crate) fn shape(d: Dialect, sql: &str) -> Vec<Tok> {
    lex(d, sql).iter().map(Tok::shape).collect()
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

pub(crate) fn lex(d: Dialect, sql: &str) -> Vec<Tok> {
    let chars: Vec<char> = sql.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let at = |i: usize| chars.get(i).copied();
    while let Some(c) = at(i) {
        let prev_word = i > 0 && is_word(chars[i - 1]);
        if c.is_whitespace() {
            i += 1;
        } else if c == '-' && at(i + 1) == Some('-') {
            // MySQL needs whitespace (or the end) after `--`.
            if d == Dialect::MySql && !at(i + 2).is_none_or(|c| c.is_whitespace() || c.is_control())
            {
                out.push(Tok::Other('-'));
                i += 1;
                continue;
            }
            while at(i).is_some_and(|c| c != '\n') {
                i += 1;
            }
            out.push(Tok::Comment);
        } else if c == '#' && d == Dialect::MySql {
            while at(i).is_some_and(|c| c != '\n') {
                i += 1;
            }
            out.push(Tok::Comment);
        } else if c == '/' && at(i + 1) == Some('*') {
            if d == Dialect::MySql && at(i + 2) == Some('!') {
                out.push(Tok::Bad("executable comment"));
                return out;
            }
            let nested = d == Dialect::Postgres;
            let mut depth = 1;
            i += 2;
            while depth > 0 {
                match (at(i), at(i + 1)) {
                    (None, _) => {
                        out.push(Tok::Bad("unterminated comment"));
                        return out;
                    }
                    (Some('*'), Some('/')) => {
                        depth -= 1;
                        i += 2;
                    }
                    (Some('/'), Some('*')) if nested => {
                        depth += 1;
                        i += 2;
                    }
                    _ => i += 1,
                }
            }
            out.push(Tok::Comment);
        } else if let Some(close) = ident_quote(d, c) {
            match quoted(&chars, i + 1, close, false) {
                Some((text, end)) => {
                    out.push(Tok::Ident(text));
                    i = end;
                }
                None => {
                    out.push(Tok::Bad("unterminated identifier"));
                    return out;
                }
            }
        } else if c == '\'' || (c == '"' && d == Dialect::MySql) {
            match quoted(&chars, i + 1, c, d == Dialect::MySql) {
                Some((text, end)) => {
                    out.push(Tok::Str(Some(text)));
                    i = end;
                }
                None => {
                    out.push(Tok::Bad("unterminated string"));
                    return out;
                }
            }
        } else if d == Dialect::Postgres
            && matches!(c, 'E' | 'e')
            && at(i + 1) == Some('\'')
            && !prev_word
        {
            match quoted(&chars, i + 2, '\'', true) {
                Some((text, end)) => {
                    out.push(Tok::Str(Some(text)));
                    i = end;
                }
                None => {
                    out.push(Tok::Bad("unterminated string"));
                    return out;
                }
            }
        } else if d == Dialect::MySql
            && matches!(c, 'X' | 'x')
            && at(i + 1) == Some('\'')
            && !prev_word
        {
            let start = i + 2;
            let Some(len) = chars[start..].iter().position(|&c| c == '\'') else {
                out.push(Tok::Bad("unterminated hex string"));
                return out;
            };
            let hex: String = chars[start..start + len].iter().collect();
            out.push(Tok::Str(from_hex(&hex)));
            // A character set introducer (`_utf8mb4 X'…'`) belongs to the string.
            if matches!(out.iter().rev().nth(1), Some(Tok::Word(w)) if w.starts_with('_')) {
                let s = out.pop();
                out.pop();
                out.extend(s);
            }
            i = start + len + 1;
        } else if c == '$'
            && d == Dialect::Postgres
            && !at(i + 1).is_some_and(|c| c.is_ascii_digit())
            && !prev_word
        {
            // `$tag$` … `$tag$`.
            let tag_len = chars[i + 1..]
                .iter()
                .position(|&c| !(c.is_alphanumeric() || c == '_'));
            match tag_len.map(|n| i + 1 + n) {
                Some(end) if chars[end] == '$' => {
                    let tag: String = chars[i..=end].iter().collect();
                    let rest: String = chars[end + 1..].iter().collect();
                    let Some(body_len) = rest.find(&tag) else {
                        out.push(Tok::Bad("unterminated dollar quote"));
                        return out;
                    };
                    out.push(Tok::Dollar(lex(d, &rest[..body_len])));
                    i = end + 1 + rest[..body_len].chars().count() + tag.chars().count();
                }
                _ => {
                    out.push(Tok::Other('$'));
                    i += 1;
                }
            }
        } else if is_word(c) {
            let start = i;
            while at(i).is_some_and(is_word) {
                i += 1;
            }
            out.push(Tok::Word(chars[start..i].iter().collect()));
        } else {
            out.push(Tok::Other(c));
            i += 1;
        }
    }
    out
}

/// The closing character of a quoted identifier that starts with `c`.
fn ident_quote(d: Dialect, c: char) -> Option<char> {
    match (d, c) {
        (Dialect::MySql, '`') => Some('`'),
        (Dialect::Postgres, '"') => Some('"'),
        (Dialect::Sqlite, '"' | '`') => Some(c),
        (Dialect::Sqlite, '[') => Some(']'),
        _ => None,
    }
}

/// The text quoted from `start` up to `close` (doubled inside: one; with
/// `backslashes`, a backslash escapes the next character), and the index
/// after the closing quote.
fn quoted(chars: &[char], start: usize, close: char, backslashes: bool) -> Option<(String, usize)> {
    let mut text = String::new();
    let mut i = start;
    loop {
        let c = *chars.get(i)?;
        if backslashes && c == '\\' {
            let next = *chars.get(i + 1)?;
            text.push(match next {
                'n' => '\n',
                'r' => '\r',
                't' => '\t',
                'b' => '\u{8}',
                '0' => '\0',
                'Z' => '\u{1a}',
                other => other,
            });
            i += 2;
        } else if c == close {
            if close != ']' && chars.get(i + 1) == Some(&close) {
                text.push(close);
                i += 2;
            } else {
                return Some((text, i + 1));
            }
        } else {
            text.push(c);
            i += 1;
        }
    }
}

fn from_hex(hex: &str) -> Option<String> {
    if !hex.len().is_multiple_of(2) || !hex.is_ascii() {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|k| u8::from_str_radix(&hex[k..k + 2], 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}
