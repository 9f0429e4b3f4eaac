//! The `flakeid` command (src/main.rs runs [`main`]): decode, generate and
//! convert flakeid IDs, print the database ID function, and list the node
//! lease table. Run `flakeid --help`.
//!
//! Not a library for users: its items are hidden and carry no semver
//! guarantee. It is a library so that the command's parsing and the
//! commands that touch no database or file run in-process, where the fuzz
//! targets (`fuzz/`) drive them.

mod adopt;
mod args;
mod db;
mod nodes;
mod script;

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Parser, Subcommand};
use flakeid_core::Generator;
use flakeid_core::encoding::TextForm as Encoding;
use flakeid_core::encoding::format_rfc3339;
use flakeid_core::layout::presets;
use flakeid_id_function::{DecodeFunctions, IdFunction, IdPart};
use flakeid_sql::Dialect;

use args::{
    DecodeFunctionsArgs, DialectArg, FunctionArgs, IdText, LayoutArgs, SqlCommand, TextForm,
};

pub use args::CliError;

/// Decode, generate and convert time-ordered flakeid IDs, print the SQL of
/// the database ID function, and list node leases.
#[doc(hidden)]
#[derive(Debug, Parser)]
#[command(name = "flakeid", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

impl Cli {
    /// Parses `args` (the program's name first) as the command does; a
    /// refusal is clap's message and the exit code it would exit with (2
    /// for a usage error, 0 for `--help` and `--version`).
    pub fn parse_from_args<I: IntoIterator<Item = String>>(args: I) -> Result<Cli, (String, i32)> {
        Cli::try_parse_from(args).map_err(|e| (e.to_string(), e.exit_code()))
    }

    /// Whether the command works within the process: it reads no database
    /// and writes no file (`nodes`, `sql adopt` and `--out` do), and ends
    /// soon: `generate` prints up to `max_ids` IDs, and waits at most a
    /// second for the clock (IDs beyond what a tick holds wait for the
    /// ticks after it).
    pub fn in_process(&self, max_ids: u64) -> bool {
        match &self.command {
            Command::Decode { .. } | Command::Convert { .. } => true,
            Command::Generate { count, layout, .. } => {
                // A layout that does not build is refused at once.
                *count <= max_ids
                    && layout.build().map_or(true, |layout| {
                        let ticks = count.saturating_sub(1) / layout.capacity_per_tick();
                        let ticks = u32::try_from(ticks).unwrap_or(u32::MAX);
                        layout.tick().saturating_mul(ticks) <= Duration::from_secs(1)
                    })
            }
            Command::Sql { what, function } => match what {
                None => function.out.is_none(),
                Some(SqlCommand::DecodeFunctions(args)) => args.out.is_none(),
                Some(SqlCommand::Adopt(_)) => false,
            },
            Command::Nodes { .. } => false,
        }
    }

    /// Runs the command, writing its output to `out`.
    ///
    /// # Errors
    /// [`CliError`]: a bad argument, or a failed operation.
    pub fn run(self, out: &mut dyn Write) -> Result<(), CliError> {
        run(self.command, out)
    }
}

/// The `flakeid` command: parses the process's arguments and runs.
#[doc(hidden)]
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.run(&mut std::io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => e.report(),
    }
}

// Parsed once per run: the size of the largest variant (`sql`'s options)
// costs nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Split an ID into its time, node fields and sequence.
    #[command(after_help = "Examples:\n  \
        flakeid decode 175928847299117063 --layout discord\n  \
        flakeid decode 0Czks0tP37X --layout discord --json\n  \
        flakeid decode 1288834974657 --layout twitter --epoch 1704067200000\n  \
        flakeid decode usr_2Wy7oTY6sFs --prefix usr")]
    Decode {
        /// The ID: decimal, base62 (11 characters) or Crockford base32 (13
        /// characters), after a type prefix and `_` if it has one
        /// (`usr_2124913425938116608`).
        id: String,
        /// How the ID's number is written (default: decimal if it reads as one, else by its length).
        #[arg(long, value_enum, default_value_t = TextForm::Auto)]
        from: TextForm,
        /// The type prefix the ID must have (`usr` for `usr_…`): an ID with
        /// another prefix, or none, is refused. Without it, a prefix is
        /// read and shown, not checked.
        #[arg(long, value_name = "PREFIX", value_parser = args::type_prefix)]
        prefix: Option<String>,
        #[command(flatten)]
        layout: LayoutArgs,
        /// Keys below this value were issued before the table switched to
        /// flake keys (the cut-over `flakeid sql adopt` printed).
        #[arg(long, value_name = "KEY")]
        cut_over: Option<u64>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Issue IDs of a layout and node. For tests and scripts only: two
    /// writers using the same node ID at the same time issue the same IDs,
    /// so never use a node ID that an application or another script uses.
    #[command(after_help = "Examples:\n  \
        flakeid generate --node 5 --count 3\n  \
        flakeid generate --layout sonyflake --node 42 --format base62")]
    Generate {
        /// The node ID (0 up to the layout's largest node).
        #[arg(long)]
        node: u64,
        /// How many IDs to print, one per line.
        #[arg(long, short = 'n', default_value_t = 1)]
        count: u64,
        /// How to write the IDs.
        #[arg(long, value_enum, default_value_t = TextForm::Decimal)]
        format: TextForm,
        #[command(flatten)]
        layout: LayoutArgs,
    },
    /// Write an ID in another text form (no layout involved).
    #[command(after_help = "Examples:\n  \
        flakeid convert 175928847299117063 --to base62\n  \
        flakeid convert 0Czks0tP37X --to decimal\n  \
        flakeid convert 175928847299117063 --to all")]
    Convert {
        /// The ID: decimal, base62 (11 characters) or Crockford base32 (13 characters).
        id: String,
        /// How the ID is written (default: decimal if it reads as one, else by its length).
        #[arg(long, value_enum, default_value_t = TextForm::Auto)]
        from: TextForm,
        /// The form to write (`auto` and `all`: every form, one per line).
        #[arg(long, value_enum)]
        to: TextForm,
    },
    /// Print the SQL that makes PostgreSQL or MariaDB issue IDs of a layout
    /// and node (a function for the key column's default), reserving the
    /// node in the lease table so that no application process leases it;
    /// `sql adopt`: switch existing tables from auto-increment keys to flake
    /// keys; `sql decode-functions`: SQL functions that read IDs.
    #[command(
        args_conflicts_with_subcommands = true,
        subcommand_negates_reqs = true,
        after_help = "Examples:\n  \
        flakeid sql --dialect postgres --space orders --node 1023 --table orders --column id | psql \"$DATABASE_URL\"\n  \
        flakeid sql --dialect mariadb --space orders --node 1023 --table orders --column id | mariadb shop\n  \
        flakeid sql --dialect postgres --space orders --node 1023 --table orders --column id --uninstall\n  \
        flakeid sql adopt \"$DATABASE_URL\" --table users --table posts > adopt.sql\n  \
        flakeid sql decode-functions --dialect postgres --layout twitter | psql \"$DATABASE_URL\""
    )]
    Sql {
        #[command(subcommand)]
        what: Option<SqlCommand>,
        #[command(flatten)]
        function: FunctionArgs,
    },
    /// List the node lease table of a database: holder, fence, lease expiry
    /// and high-water mark of every node.
    #[command(after_help = "Examples:\n  \
        flakeid nodes postgres://app:secret@db.example:5432/shop\n  \
        flakeid nodes mysql://root:secret@127.0.0.1:3306/shop --space orders --json\n  \
        flakeid nodes sqlite://./app.db")]
    Nodes {
        /// The database: postgres://…, mysql://… (or mariadb://…), sqlite://PATH.
        url: String,
        /// Only this space (default: every space in the table).
        #[arg(long)]
        space: Option<String>,
        /// The lease table.
        #[arg(long, default_value = flakeid_lease::LeaseOptions::DEFAULT_TABLE)]
        table: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

fn run(command: Command, out: &mut dyn Write) -> Result<(), CliError> {
    match command {
        Command::Decode {
            id,
            from,
            prefix,
            layout,
            cut_over,
            json,
        } => decode(&id, from, prefix.as_deref(), &layout, cut_over, json, out),
        Command::Generate {
            node,
            count,
            format,
            layout,
        } => generate(node, count, format, &layout, out),
        Command::Convert { id, from, to } => convert(&id, from, to, out),
        Command::Sql { what, function } => match what {
            Some(SqlCommand::Adopt(args)) => adopt::run(&args, out),
            Some(SqlCommand::DecodeFunctions(args)) => decode_functions(&args, out),
            None => id_function(&function, out),
        },
        Command::Nodes {
            url,
            space,
            table,
            json,
        } => nodes::run(&url, space.as_deref(), &table, json),
    }
}

/// `flakeid sql`: the database ID function's SQL.
fn id_function(args: &FunctionArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let (Some(dialect), Some(space), Some(node)) = (args.dialect, &args.space, args.node) else {
        return Err(CliError::usage(
            "flakeid sql",
            "give --dialect, --space and --node (or a subcommand: adopt, decode-functions)",
        ));
    };
    if matches!(dialect, DialectArg::Sqlite) {
        return Err(CliError::usage(
            "--dialect",
            "'sqlite' has no stored functions: the ID function is for postgres and mariadb",
        ));
    }
    let mut f = IdFunction::new(dialect.dialect(), space.clone(), args.layout.build()?, node)
        .function_name(&args.function)
        .lease_table(&args.lease_table)
        .max_wait(std::time::Duration::from_millis(args.max_wait_ms));
    if let Some(state) = &args.state {
        f = f.state_name(state);
    }
    let sql = |e| CliError::usage("the function's settings", e);
    let target = args.table.as_deref().zip(args.column.as_deref());
    let mut install = f.install().map_err(sql)?;
    let mut uninstall = Vec::new();
    if let Some((t, c)) = target {
        install.extend(f.column_default(t, c).map_err(sql)?);
        uninstall.extend(f.drop_column_default(t, c).map_err(sql)?);
    }
    uninstall.extend(f.uninstall().map_err(sql)?);
    script::output(
        dialect.dialect(),
        &[],
        &install,
        &uninstall,
        args.uninstall,
        args.out.as_deref(),
        out,
    )
}

/// `flakeid sql decode-functions`: functions (PostgreSQL, MariaDB) or
/// expressions (SQLite) that read IDs.
fn decode_functions(args: &DecodeFunctionsArgs, out: &mut dyn Write) -> Result<(), CliError> {
    let dialect = args.dialect.dialect();
    let layout = args.layout.build()?;
    let mut f = DecodeFunctions::new(dialect, layout.clone()).prefix(&args.prefix);
    if let Some(cut_over) = args.cut_over {
        f = f.cut_over(cut_over);
    }
    let sql = |e| CliError::usage("the functions' settings", e);
    if dialect == Dialect::Sqlite {
        let Some(table) = &args.table else {
            return Err(CliError::usage(
                "--table",
                "SQLite has no stored functions: name the table (and --column) whose IDs the \
                 printed SELECT reads",
            ));
        };
        let id = dialect.quote(&args.column);
        let mut columns = vec![id.clone()];
        let mut parts = vec![
            ("unix_ms", IdPart::UnixMillis),
            ("time", IdPart::Time),
            ("tick", IdPart::Tick),
        ];
        for field in layout.node_fields() {
            if field.name() != "node" {
                parts.push((field.name(), IdPart::Field(field.name().to_owned())));
            }
        }
        parts.push(("node", IdPart::Node));
        parts.push(("sequence", IdPart::Sequence));
        for (name, part) in parts {
            let e = f.expression(&part, &id).map_err(sql)?;
            columns.push(format!("{e} AS {}", dialect.quote(name)));
        }
        return writeln!(
            out,
            "-- SQLite has no stored functions: the IDs of {}.{} read with expressions\nSELECT {} FROM {};",
            table,
            args.column,
            columns.join(",\n  "),
            dialect.quote(table)
        )
        .map_err(CliError::output);
    }
    let install = f.install().map_err(sql)?;
    let uninstall = f.uninstall().map_err(sql)?;
    script::output(
        dialect,
        &[],
        &install,
        &uninstall,
        args.uninstall,
        args.out.as_deref(),
        out,
    )
}

fn decode(
    text: &str,
    from: TextForm,
    expected_prefix: Option<&str>,
    layout: &LayoutArgs,
    cut_over: Option<u64>,
    json: bool,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let (prefix, number) = args::split_prefix(text, expected_prefix)?;
    let IdText { value: id, form } = args::read_id(number, from)?;
    let layout = layout.build()?;
    let described = presets::describe(&layout);
    if id == 0 || id > layout.max_id() {
        return Err(CliError::usage(
            "<ID>",
            format!(
                "{id} is outside {described}: its IDs are 1..={}",
                layout.max_id()
            ),
        ));
    }
    let mut fields = vec![
        Field::text("id", "id", id.to_string()),
        Field::text("read_as", "read as", form.name().to_owned()),
    ];
    if let Some(prefix) = prefix {
        fields.push(Field::text("prefix", "prefix", prefix.to_owned()));
    }
    fields.push(Field::text("layout", "layout", described));
    if let Some(cut_over) = cut_over.filter(|&k| id < k) {
        fields.push(Field {
            key: "before_cut_over",
            label: Some("issued"),
            text: format!("before flake keys (below the cut-over {cut_over})"),
            json: cut_over.to_string().into(),
        });
    } else {
        let parts = layout.decompose(id);
        let node_fields = layout
            .split_node(parts.node)
            .map_err(|e| CliError::usage("<ID>", e))?;
        fields.extend([
            Field::text("time", "time", format_rfc3339(layout.timestamp(id))),
            Field::number("unix_ms", "unix ms", layout.timestamp_millis(id)),
            Field::number("tick", "tick", parts.tick),
            Field::number("node", "node", parts.node),
            Field::node_fields(&node_fields),
            Field::number("sequence", "sequence", parts.sequence),
        ]);
    }
    fields.extend([
        Field::text("base62", "base62", Encoding::Base62.encode(id)),
        Field::text("crockford", "crockford", Encoding::Crockford.encode(id)),
    ]);
    let mut text = String::new();
    if json {
        let object: serde_json::Map<String, serde_json::Value> = fields
            .into_iter()
            .map(|f| (f.key.to_owned(), f.json))
            .collect();
        text = format!("{}\n", serde_json::Value::Object(object));
    } else {
        for f in fields {
            match f.label {
                Some(label) => text.push_str(&format!("{label:<10} {}\n", f.text)),
                None => text.push_str(&f.text),
            }
        }
    }
    out.write_all(text.as_bytes()).map_err(CliError::output)
}

/// A field of `decode`'s output, in the text and in the JSON.
struct Field {
    /// Its key in the JSON.
    key: &'static str,
    /// Its label in the text; `None` for lines that stand as they are.
    label: Option<&'static str>,
    /// What the text shows.
    text: String,
    /// What the JSON holds.
    json: serde_json::Value,
}

impl Field {
    /// A field whose value is `text` in both.
    fn text(key: &'static str, label: &'static str, text: String) -> Self {
        Field {
            key,
            label: Some(label),
            json: text.clone().into(),
            text,
        }
    }

    /// A field whose value is a number (a JSON number).
    fn number(key: &'static str, label: &'static str, value: u64) -> Self {
        Field {
            key,
            label: Some(label),
            text: value.to_string(),
            json: value.into(),
        }
    }

    /// The fields the node splits into: lines indented under the node's
    /// line (which already shows a field named `node`), and a JSON object
    /// of them all.
    fn node_fields(fields: &[(&str, u64)]) -> Self {
        let width = fields
            .iter()
            .map(|(name, _)| name.len())
            .max()
            .unwrap_or(0)
            .max(8);
        let text = fields
            .iter()
            .filter(|(name, _)| *name != "node")
            .map(|(name, value)| format!("  {name:<width$} {value}\n"))
            .collect();
        let json = fields
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).into()))
            .collect::<serde_json::Map<_, _>>();
        Field {
            key: "node_fields",
            label: None,
            text,
            json: json.into(),
        }
    }
}

fn generate(
    node: u64,
    count: u64,
    format: TextForm,
    layout: &LayoutArgs,
    out: &mut dyn Write,
) -> Result<(), CliError> {
    let layout = layout.build()?;
    let generator = Generator::builder(layout, node)
        .build()
        .map_err(|e| CliError::usage("--node", e))?;
    let mut text = String::new();
    for _ in 0..count {
        let id = generator.next_id().map_err(CliError::failed)?;
        text.push_str(&format.write(id));
        text.push('\n');
    }
    out.write_all(text.as_bytes()).map_err(CliError::output)
}

fn convert(text: &str, from: TextForm, to: TextForm, out: &mut dyn Write) -> Result<(), CliError> {
    let IdText { value, .. } = args::read_id(text, from)?;
    let text = match to {
        TextForm::Auto | TextForm::All => format!(
            "decimal    {value}\nbase62     {}\ncrockford  {}\n",
            Encoding::Base62.encode(value),
            Encoding::Crockford.encode(value)
        ),
        form => format!("{}\n", form.write(value)),
    };
    out.write_all(text.as_bytes()).map_err(CliError::output)
}
