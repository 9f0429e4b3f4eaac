//! `flakeid`: decode, generate and convert flakeid IDs, print the database
//! ID function, and list the node lease table. Run `flakeid --help`.

mod args;
mod nodes;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use flakeid_core::Generator;
use flakeid_core::encoding::TextForm as Encoding;
use flakeid_core::encoding::format_rfc3339;
use flakeid_core::id_function::IdFunction;
use flakeid_core::layout::presets;

use args::{CliError, DialectArg, IdText, LayoutArgs, TextForm};

/// Decode, generate and convert time-ordered flakeid IDs, print the SQL of
/// the database ID function, and list node leases.
#[derive(Debug, Parser)]
#[command(name = "flakeid", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Split an ID into its time, node fields and sequence.
    #[command(after_help = "Examples:\n  \
        flakeid decode 175928847299117063 --layout discord\n  \
        flakeid decode 0Czks0tP37X --layout discord --json\n  \
        flakeid decode 1288834974657 --layout twitter --epoch 1704067200000")]
    Decode {
        /// The ID: decimal, base62 (11 characters) or Crockford base32 (13 characters).
        id: String,
        /// How the ID is written (default: decimal if it reads as one, else by its length).
        #[arg(long, value_enum, default_value_t = TextForm::Auto)]
        from: TextForm,
        #[command(flatten)]
        layout: LayoutArgs,
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
    /// node in the lease table so that no application process leases it.
    #[command(after_help = "Examples:\n  \
        flakeid sql --dialect postgres --space orders --node 1023 --table orders --column id | psql \"$DATABASE_URL\"\n  \
        flakeid sql --dialect mariadb --space orders --node 1023 --table orders --column id | mariadb shop\n  \
        flakeid sql --dialect postgres --space orders --node 1023 --table orders --column id --uninstall")]
    Sql {
        /// The database.
        #[arg(long, value_enum)]
        dialect: DialectArg,
        /// The lease space whose node the function uses (as the application's `LeaseOptions::new(space, …)`).
        #[arg(long)]
        space: String,
        /// The node the function issues IDs for; no application process may use it.
        #[arg(long)]
        node: u64,
        #[command(flatten)]
        layout: LayoutArgs,
        /// The function's name.
        #[arg(long, default_value = flakeid_core::id_function::IdFunction::DEFAULT_FUNCTION)]
        function: String,
        /// The name of the function's state (default: the function's name followed by `_state`).
        #[arg(long)]
        state: Option<String>,
        /// The lease table.
        #[arg(long, default_value = flakeid_core::node::LeaseOptions::DEFAULT_TABLE)]
        lease_table: String,
        /// A table whose key column the function fills (with --column).
        #[arg(long, requires = "column")]
        table: Option<String>,
        /// The key column of --table.
        #[arg(long, requires = "table")]
        column: Option<String>,
        /// How long a call waits for the next tick when a tick's IDs are used up, in ms.
        #[arg(long, default_value_t = 1000)]
        max_wait_ms: u64,
        /// Print the SQL that removes the function (and the column's default) instead.
        #[arg(long)]
        uninstall: bool,
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
        #[arg(long, default_value = flakeid_core::node::LeaseOptions::DEFAULT_TABLE)]
        table: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => e.report(),
    }
}

fn run(command: Command) -> Result<(), CliError> {
    match command {
        Command::Decode {
            id,
            from,
            layout,
            json,
        } => decode(&id, from, &layout, json),
        Command::Generate {
            node,
            count,
            format,
            layout,
        } => generate(node, count, format, &layout),
        Command::Convert { id, from, to } => convert(&id, from, to),
        Command::Sql {
            dialect,
            space,
            node,
            layout,
            function,
            state,
            lease_table,
            table,
            column,
            max_wait_ms,
            uninstall,
        } => {
            let mut f = IdFunction::new(dialect.dialect(), space, layout.build()?, node)
                .function_name(function)
                .lease_table(lease_table)
                .max_wait(std::time::Duration::from_millis(max_wait_ms));
            if let Some(state) = state {
                f = f.state_name(state);
            }
            let sql = |e| CliError::usage("the function's settings", e);
            let mut statements = Vec::new();
            match (uninstall, table.zip(column)) {
                (false, target) => {
                    statements.extend(f.install().map_err(sql)?);
                    if let Some((t, c)) = target {
                        statements.extend(f.column_default(&t, &c).map_err(sql)?);
                    }
                }
                (true, target) => {
                    if let Some((t, c)) = target {
                        statements.extend(f.drop_column_default(&t, &c).map_err(sql)?);
                    }
                    statements.extend(f.uninstall().map_err(sql)?);
                }
            }
            print!("{}", f.script(&statements));
            Ok(())
        }
        Command::Nodes {
            url,
            space,
            table,
            json,
        } => nodes::run(&url, space.as_deref(), &table, json),
    }
}

fn decode(text: &str, from: TextForm, layout: &LayoutArgs, json: bool) -> Result<(), CliError> {
    let IdText { value: id, form } = args::read_id(text, from)?;
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
    let parts = layout.decompose(id);
    let fields = layout
        .split_node(parts.node)
        .map_err(|e| CliError::usage("<ID>", e))?;
    let time = format_rfc3339(layout.timestamp(id));
    let millis = layout.timestamp_millis(id);
    if json {
        let node_fields: serde_json::Map<String, serde_json::Value> = fields
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).into()))
            .collect();
        let out = serde_json::json!({
            "id": id.to_string(),
            "read_as": form.name(),
            "layout": described,
            "time": time,
            "unix_ms": millis,
            "tick": parts.tick,
            "node": parts.node,
            "node_fields": node_fields,
            "sequence": parts.sequence,
            "base62": Encoding::Base62.encode(id),
            "crockford": Encoding::Crockford.encode(id),
        });
        println!("{out}");
        return Ok(());
    }
    println!("id         {id}");
    println!("read as    {}", form.name());
    println!("layout     {described}");
    println!("time       {time}");
    println!("unix ms    {millis}");
    println!("tick       {}", parts.tick);
    println!("node       {}", parts.node);
    let width = fields
        .iter()
        .map(|(name, _)| name.len())
        .max()
        .unwrap_or(0)
        .max(8);
    for (name, value) in fields {
        if name != "node" {
            println!("  {name:<width$} {value}");
        }
    }
    println!("sequence   {}", parts.sequence);
    println!("base62     {}", Encoding::Base62.encode(id));
    println!("crockford  {}", Encoding::Crockford.encode(id));
    Ok(())
}

fn generate(node: u64, count: u64, format: TextForm, layout: &LayoutArgs) -> Result<(), CliError> {
    let layout = layout.build()?;
    let generator = Generator::builder(layout, node)
        .build()
        .map_err(|e| CliError::usage("--node", e))?;
    let mut out = String::new();
    for _ in 0..count {
        let id = generator.next_id().map_err(CliError::failed)?;
        out.push_str(&format.write(id));
        out.push('\n');
    }
    print!("{out}");
    Ok(())
}

fn convert(text: &str, from: TextForm, to: TextForm) -> Result<(), CliError> {
    let IdText { value, .. } = args::read_id(text, from)?;
    match to {
        TextForm::Auto | TextForm::All => {
            println!("decimal    {value}");
            println!("base62     {}", Encoding::Base62.encode(value));
            println!("crockford  {}", Encoding::Crockford.encode(value));
        }
        form => println!("{}", form.write(value)),
    }
    Ok(())
}
