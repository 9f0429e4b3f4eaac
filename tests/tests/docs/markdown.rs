//! The rules for fenced blocks and inline code in the documentation, and
//! the commands they show.

use std::fmt;

/// The tags a fenced block may carry (the first word of its info string).
pub const KNOWN_TAGS: [&str; 8] = [
    "rust", "sh", "bash", "console", "text", "toml", "sql", "json",
];

/// How a `text` line may not start: a command belongs in `sh` or `console`.
const COMMAND_STARTS: [&str; 3] = ["$ ", "cargo ", "./"];

/// A fenced block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The first word of the info string (`rust` for `rust,ignore`).
    pub tag: String,
    /// The whole info string.
    pub info: String,
    /// The line of the opening fence (1-based).
    pub line: usize,
    /// The lines between the fences, without the block's indentation.
    pub lines: Vec<String>,
}

impl Block {
    /// Whether rustdoc compiles and runs this block (a `rust` block that is
    /// not `ignore`).
    pub fn is_doctest(&self) -> bool {
        self.tag == "rust" && !self.info.split(',').any(|w| w.trim() == "ignore")
    }
}

/// A command shown in a `sh`, `bash` or `console` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The command line as a shell reads it (continuation lines joined).
    pub text: String,
    /// The line it starts on (1-based).
    pub line: usize,
    /// For `console` blocks: the output shown below the command.
    pub expected_output: Option<Vec<String>>,
}

/// A rule the Markdown breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The line (1-based).
    pub line: usize,
    /// What is wrong.
    pub what: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.what)
    }
}

/// A Markdown file, read into its fenced blocks.
#[derive(Debug, Clone)]
pub struct Document {
    /// Every fenced block, in order.
    pub blocks: Vec<Block>,
    /// Inline code spans outside blocks: (line, text).
    pub inline_code: Vec<(usize, String)>,
    /// Problems of the form itself (an unclosed fence).
    pub malformed: Vec<Violation>,
}

impl Document {
    /// Reads `text`.
    pub fn parse(text: &str) -> Document {
        let mut blocks = Vec::new();
        let mut inline_code = Vec::new();
        let mut malformed = Vec::new();
        let mut open: Option<(Block, usize)> = None;
        for (i, raw) in text.lines().enumerate() {
            let number = i + 1;
            let trimmed = raw.trim_start();
            let indent = raw.len() - trimmed.len();
            if let Some((mut block, block_indent)) = open.take() {
                if trimmed.starts_with("```") && trimmed.trim_end() == "```" {
                    blocks.push(block);
                } else {
                    let line = if raw.len() >= block_indent && raw[..block_indent].trim().is_empty()
                    {
                        &raw[block_indent..]
                    } else {
                        trimmed
                    };
                    block.lines.push(line.to_owned());
                    open = Some((block, block_indent));
                }
                continue;
            }
            if let Some(info) = trimmed.strip_prefix("```") {
                let info = info.trim().to_owned();
                let tag = info.split(',').next().unwrap_or_default().trim().to_owned();
                open = Some((
                    Block {
                        tag,
                        info,
                        line: number,
                        lines: Vec::new(),
                    },
                    indent,
                ));
                continue;
            }
            inline_code.extend(code_spans(raw).into_iter().map(|span| (number, span)));
        }
        if let Some((block, _)) = open {
            malformed.push(Violation {
                line: block.line,
                what: "a fenced block is never closed".into(),
            });
        }
        Document {
            blocks,
            inline_code,
            malformed,
        }
    }

    /// The commands of the `sh`, `bash` and `console` blocks.
    pub fn commands(&self) -> Vec<Command> {
        let mut commands = Vec::new();
        for block in &self.blocks {
            match block.tag.as_str() {
                "sh" | "bash" => commands.extend(shell_commands(block)),
                "console" => commands.extend(console_commands(block)),
                _ => {}
            }
        }
        commands
    }

    /// Every rule this file breaks: blocks with an unknown tag or none,
    /// `text` blocks that hold commands, `console` blocks that start with
    /// output, inline commands that no block of `shown` (the commands of
    /// every checked file) shows.
    pub fn violations(&self, shown: &[String]) -> Vec<Violation> {
        let mut out = self.malformed.clone();
        for block in &self.blocks {
            if block.tag.is_empty() {
                out.push(Violation {
                    line: block.line,
                    what: format!(
                        "a fenced block without a tag: say what it holds ({})",
                        KNOWN_TAGS.join(", ")
                    ),
                });
            } else if !KNOWN_TAGS.contains(&block.tag.as_str()) {
                out.push(Violation {
                    line: block.line,
                    what: format!(
                        "unknown block tag {:?}: use one of {}",
                        block.tag,
                        KNOWN_TAGS.join(", ")
                    ),
                });
            }
            if block.tag == "text" {
                for (i, line) in block.lines.iter().enumerate() {
                    if let Some(start) = COMMAND_STARTS.iter().find(|s| line.starts_with(**s)) {
                        out.push(Violation {
                            line: block.line + 1 + i,
                            what: format!(
                                "a `text` block line starts with {start:?}: a command belongs in a \
                                 `sh` block, a session with output in a `console` block: {line:?}"
                            ),
                        });
                    }
                }
            }
            if block.tag == "console"
                && let Some(first) = block.lines.iter().find(|l| !l.trim().is_empty())
                && !first.starts_with("$ ")
            {
                out.push(Violation {
                    line: block.line + 1,
                    what: format!(
                        "a `console` block must start with a `$ ` command, not {first:?}"
                    ),
                });
            }
        }
        for (line, span) in &self.inline_code {
            if is_command(span) && !shown.iter().any(|c| c == span) {
                out.push(Violation {
                    line: *line,
                    what: format!(
                        "inline command `{span}` is shown in no `sh` or `console` block: show it in \
                         one, where it is run"
                    ),
                });
            }
        }
        out
    }
}

/// Whether an inline code span is a command: it starts with `./` and a
/// file name, or it is `cargo`, a subcommand and at least one argument. A
/// span with `…` is a form of commands, not one to run.
pub fn is_command(span: &str) -> bool {
    let words: Vec<&str> = span.split_whitespace().collect();
    let script = span.len() > 2 && span.starts_with("./");
    let cargo = words.first() == Some(&"cargo") && words.len() >= 3;
    (script || cargo) && !span.contains('…')
}

/// The inline code spans of one line (`` `x` ``, not across lines).
fn code_spans(line: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        let after = &rest[start..];
        let ticks = after.len() - after.trim_start_matches('`').len();
        let body = &after[ticks..];
        let closing = "`".repeat(ticks);
        match body.find(&closing) {
            Some(end) => {
                spans.push(body[..end].trim().to_owned());
                rest = &body[end + ticks..];
            }
            None => break,
        }
    }
    spans
}

/// The commands of a `sh` block: one per line, `\` continuations joined,
/// blank lines and `#` comments skipped.
fn shell_commands(block: &Block) -> Vec<Command> {
    let mut commands = Vec::new();
    let mut current: Option<(String, usize)> = None;
    for (i, line) in block.lines.iter().enumerate() {
        let number = block.line + 1 + i;
        let (text, start) = match current.take() {
            Some((text, start)) => (format!("{text} {}", line.trim()), start),
            None => {
                let t = line.trim();
                if t.is_empty() || t.starts_with('#') {
                    continue;
                }
                (t.to_owned(), number)
            }
        };
        if let Some(joined) = text.strip_suffix('\\') {
            current = Some((joined.trim_end().to_owned(), start));
        } else {
            commands.push(Command {
                text,
                line: start,
                expected_output: None,
            });
        }
    }
    if let Some((text, line)) = current {
        commands.push(Command {
            text,
            line,
            expected_output: None,
        });
    }
    commands
}

/// The commands of a `console` block: each `$ ` line, with the lines
/// below it up to the next `$ ` line as its output.
fn console_commands(block: &Block) -> Vec<Command> {
    let mut commands: Vec<Command> = Vec::new();
    for (i, line) in block.lines.iter().enumerate() {
        if let Some(text) = line.strip_prefix("$ ") {
            commands.push(Command {
                text: text.trim().to_owned(),
                line: block.line + 1 + i,
                expected_output: Some(Vec::new()),
            });
        } else if let Some(Command {
            expected_output: Some(output),
            ..
        }) = commands.last_mut()
        {
            output.push(line.clone());
        }
    }
    commands
}
