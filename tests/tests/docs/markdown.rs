//! The documentation's fenced blocks and inline code spans, as
//! pulldown-cmark reads them (CommonMark); the rules they follow and the
//! commands they show.

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

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
    /// Whether a closing fence ends it: CommonMark ends an unclosed block,
    /// silently, with the document or the list item around it.
    pub closed: bool,
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

/// A Markdown file's fenced blocks and inline code spans.
#[derive(Debug, Clone, Default)]
pub struct Document {
    /// Every fenced block, in order.
    pub blocks: Vec<Block>,
    /// Inline code spans: (line, text).
    pub inline_code: Vec<(usize, String)>,
}

impl Document {
    /// Reads `text`.
    pub fn parse(text: &str) -> Document {
        let line_of = |offset: usize| 1 + text[..offset].matches('\n').count();
        let mut doc = Document::default();
        let mut open: Option<(Block, String)> = None;
        for (event, range) in Parser::new(text).into_offset_iter() {
            match event {
                Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(info))) => {
                    let block = Block {
                        tag: info.split([',', ' ']).next().unwrap_or_default().to_owned(),
                        info: info.to_string(),
                        line: line_of(range.start),
                        lines: Vec::new(),
                        closed: is_closed(&text[range]),
                    };
                    open = Some((block, String::new()));
                }
                Event::Text(t) => {
                    if let Some((_, body)) = &mut open {
                        body.push_str(&t);
                    }
                }
                Event::End(TagEnd::CodeBlock) => {
                    if let Some((mut block, body)) = open.take() {
                        block.lines = body.lines().map(str::to_owned).collect();
                        doc.blocks.push(block);
                    }
                }
                Event::Code(span) => doc
                    .inline_code
                    .push((line_of(range.start), span.trim().to_owned())),
                _ => {}
            }
        }
        doc
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

    /// Every rule this file breaks (`line N: what`): blocks never closed,
    /// with an unknown tag or none, `text` blocks that hold commands,
    /// `console` blocks that start with output, inline commands that no
    /// block of `shown` (the commands of every checked file) shows.
    pub fn violations(&self, shown: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        let tags = KNOWN_TAGS.join(", ");
        for block in &self.blocks {
            let line = block.line;
            if !block.closed {
                out.push(format!("line {line}: a fenced block is never closed"));
            }
            if block.tag.is_empty() {
                out.push(format!(
                    "line {line}: a fenced block without a tag: say what it holds ({tags})"
                ));
            } else if !KNOWN_TAGS.contains(&block.tag.as_str()) {
                out.push(format!(
                    "line {line}: unknown block tag {:?}: use one of {tags}",
                    block.tag
                ));
            }
            let text_lines = block.lines.iter().filter(|_| block.tag == "text");
            for (i, text) in text_lines.enumerate() {
                if let Some(start) = COMMAND_STARTS.iter().find(|s| text.starts_with(**s)) {
                    out.push(format!(
                        "line {}: a `text` block line starts with {start:?}: a command belongs in \
                         a `sh` block, a session with output in a `console` block: {text:?}",
                        line + 1 + i
                    ));
                }
            }
            if block.tag == "console"
                && let Some(first) = block.lines.iter().find(|l| !l.trim().is_empty())
                && !first.starts_with("$ ")
            {
                out.push(format!(
                    "line {}: a `console` block must start with a `$ ` command, not {first:?}",
                    line + 1
                ));
            }
        }
        for (line, span) in &self.inline_code {
            if is_command(span) && !shown.iter().any(|c| c == span) {
                out.push(format!(
                    "line {line}: inline command `{span}` is shown in no `sh` or `console` block: \
                     show it in one, where it is run"
                ));
            }
        }
        out
    }
}

/// Whether a fenced block's source (opening fence to end) ends with a
/// closing fence: a line of at least as many of the opening fence's
/// characters and nothing else.
fn is_closed(source: &str) -> bool {
    let mut lines = source.lines().map(str::trim);
    let opening = lines.next().unwrap_or_default();
    let fence = opening.chars().next().unwrap_or('`');
    let width = opening.chars().take_while(|c| *c == fence).count();
    lines
        .next_back()
        .is_some_and(|last| last.len() >= width && last.chars().all(|c| c == fence))
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

/// The commands of a `sh` block: one per line, `\` continuations joined,
/// blank lines and `#` comments skipped.
fn shell_commands(block: &Block) -> Vec<Command> {
    let mut commands: Vec<Command> = Vec::new();
    let mut continued = false;
    for (i, line) in block.lines.iter().enumerate() {
        let line = line.trim();
        let (text, continues) = match line.strip_suffix('\\') {
            Some(text) => (text.trim_end(), true),
            None => (line, false),
        };
        match commands.last_mut() {
            Some(last) if continued => last.text = format!("{} {text}", last.text),
            _ if text.is_empty() || text.starts_with('#') => continue,
            _ => commands.push(Command {
                text: text.to_owned(),
                line: block.line + 1 + i,
                expected_output: None,
            }),
        }
        continued = continues;
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
