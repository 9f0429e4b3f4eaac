//! Arguments shared by the subcommands: the layout, an ID's text forms,
//! and errors that name the argument they are about.

use std::fmt::Display;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use flakeid_core::encoding::{Prefix, TextForm as Encoding};
use flakeid_core::layout::{BitLayout, Domain, FieldOrder, presets};
use flakeid_sql::Dialect;

/// A failure: a bad argument (exit code 2, as clap's own) or a failed
/// operation (exit code 1).
#[doc(hidden)]
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The value of `argument` is wrong.
    #[error("invalid value for {argument}: {message}")]
    Usage { argument: String, message: String },
    /// The operation failed (a database unreachable, a clock behind).
    #[error("{0}")]
    Failed(String),
}

impl CliError {
    pub(crate) fn usage(argument: impl Into<String>, message: impl Display) -> Self {
        CliError::Usage {
            argument: argument.into(),
            message: message.to_string(),
        }
    }

    pub(crate) fn failed(message: impl Display) -> Self {
        CliError::Failed(message.to_string())
    }

    /// The output could not be written (a closed pipe, a full disk).
    pub(crate) fn output(e: std::io::Error) -> Self {
        CliError::Failed(format!("cannot write the output: {e}"))
    }

    /// Prints the error and returns the exit code.
    pub fn report(self) -> ExitCode {
        eprintln!("error: {self}");
        match self {
            CliError::Usage { .. } => ExitCode::from(2),
            CliError::Failed(_) => ExitCode::from(1),
        }
    }
}

/// The layout: a preset, optionally with other fields.
#[derive(Debug, Clone, Args)]
pub(crate) struct LayoutArgs {
    /// A preset layout: twitter, discord, instagram, sonyflake, tsid, lsid,
    /// js_safe, js_safe_seconds, nonsequential.
    #[arg(long, default_value = "twitter")]
    layout: String,
    /// The epoch in Unix milliseconds (default: the preset's).
    #[arg(long, value_name = "MS")]
    epoch: Option<u64>,
    /// Bits of the time field (default: the preset's).
    #[arg(long)]
    time_bits: Option<u8>,
    /// Bits of the node field, as one field named `node` (default: the preset's fields).
    #[arg(long)]
    node_bits: Option<u8>,
    /// Bits of the sequence field (default: the preset's).
    #[arg(long)]
    sequence_bits: Option<u8>,
    /// Length of a tick in milliseconds (default: the preset's).
    #[arg(long, value_name = "MS")]
    tick_ms: Option<u64>,
    /// Order of the fields below the time (default: the preset's).
    #[arg(long, value_enum)]
    order: Option<OrderArg>,
    /// IDs within 1..=2^53-1 (JavaScript-safe numbers).
    #[arg(long)]
    js_safe: bool,
}

impl LayoutArgs {
    /// The layout these arguments describe.
    pub(crate) fn build(&self) -> Result<BitLayout, CliError> {
        let Some((_, preset)) = presets::ALL.iter().find(|(name, _)| *name == self.layout) else {
            let names: Vec<&str> = presets::ALL.iter().map(|(name, _)| *name).collect();
            return Err(CliError::usage(
                "--layout",
                format!(
                    "unknown layout {:?}; the presets are {}",
                    self.layout,
                    names.join(", ")
                ),
            ));
        };
        let base = preset();
        let custom = self.time_bits.is_some()
            || self.node_bits.is_some()
            || self.sequence_bits.is_some()
            || self.tick_ms.is_some()
            || self.order.is_some()
            || self.js_safe;
        if !custom {
            return match self.epoch {
                None => Ok(base),
                Some(epoch) => base
                    .with_epoch_millis(epoch)
                    .map_err(|e| CliError::usage("--epoch", e)),
            };
        }
        let mut builder = BitLayout::builder()
            .time_bits(self.time_bits.unwrap_or(base.time_bits() as u8))
            .tick_millis(self.tick_ms.unwrap_or(base.tick().as_millis() as u64))
            .epoch_millis(
                self.epoch
                    .unwrap_or(flakeid_core::layout::Layout::epoch_millis(&base)),
            )
            .sequence_bits(self.sequence_bits.unwrap_or(base.sequence_bits() as u8))
            .order(match self.order {
                Some(OrderArg::NodeSequence) => FieldOrder::NodeThenSequence,
                Some(OrderArg::SequenceNode) => FieldOrder::SequenceThenNode,
                None => base.order(),
            })
            .domain(if self.js_safe {
                Domain::JsSafe
            } else {
                base.domain()
            });
        builder = match self.node_bits {
            Some(bits) => builder.node_bits(bits),
            None => builder.node_fields(base.node_fields().iter().cloned()),
        };
        builder.build().map_err(|e| {
            CliError::usage(
                "the layout options (--time-bits, --node-bits, --sequence-bits, --tick-ms, --epoch)",
                e,
            )
        })
    }
}

/// The text forms of an ID.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TextForm {
    /// Decimal if the text reads as one, else base62 (11 characters) or
    /// Crockford (13 characters, hyphens allowed).
    Auto,
    /// Decimal digits, no leading zero.
    Decimal,
    /// 11 characters of 0-9A-Za-z.
    Base62,
    /// 13 characters of Crockford's base32.
    Crockford,
    /// Every form (for --to).
    All,
}

impl TextForm {
    pub(crate) fn name(self) -> &'static str {
        match self {
            TextForm::Auto => "auto",
            TextForm::Decimal => "decimal",
            TextForm::Base62 => "base62",
            TextForm::Crockford => "crockford",
            TextForm::All => "all",
        }
    }

    /// `id` in this form (decimal for `auto` and `all`).
    pub(crate) fn write(self, id: u64) -> String {
        match self {
            TextForm::Base62 => Encoding::Base62.encode(id),
            TextForm::Crockford => Encoding::Crockford.encode(id),
            TextForm::Auto | TextForm::Decimal | TextForm::All => id.to_string(),
        }
    }
}

/// An ID read from text, and the form it was read in.
pub(crate) struct IdText {
    pub(crate) value: u64,
    pub(crate) form: TextForm,
}

/// `--prefix`: a type prefix of TypeID's rule.
pub(crate) fn type_prefix(text: &str) -> Result<String, String> {
    if Prefix::is_valid(text) {
        Ok(text.to_owned())
    } else {
        Err(format!("{text:?} is not a type prefix: {}", Prefix::RULE))
    }
}

/// An ID's text split into its type prefix, if it has one, and its number:
/// the prefix is what comes before the last `_` (no text form has one).
/// With `expected`, a text without that prefix is refused, naming both.
pub(crate) fn split_prefix<'t>(
    text: &'t str,
    expected: Option<&str>,
) -> Result<(Option<&'t str>, &'t str), CliError> {
    let bad = |message: String| CliError::usage("<ID>", message);
    let (prefix, number) = match text.rsplit_once('_') {
        Some((prefix, number)) => (Some(prefix), number),
        None => (None, text),
    };
    match (prefix, expected) {
        (Some(prefix), _) if !Prefix::is_valid(prefix) => Err(bad(format!(
            "{text:?} has no valid type prefix before its last `_`: {}",
            Prefix::RULE
        ))),
        (found, Some(expected)) if found != Some(expected) => Err(bad(format!(
            "{text:?} does not have the prefix given with --prefix: expected prefix {expected}_"
        ))),
        _ => Ok((prefix, number)),
    }
}

/// Reads an ID written in `form` (`auto`: see [`TextForm::Auto`]).
pub(crate) fn read_id(text: &str, form: TextForm) -> Result<IdText, CliError> {
    let bad = |e: flakeid_core::encoding::DecodeError| CliError::usage("<ID>", e);
    let read = |form: TextForm| -> Result<IdText, CliError> {
        let value = match form {
            TextForm::Base62 => Encoding::Base62.decode(text).map_err(bad)?,
            TextForm::Crockford => Encoding::Crockford.decode_lenient(text).map_err(bad)?,
            _ => Encoding::Decimal.decode(text).map_err(bad)?,
        };
        Ok(IdText { value, form })
    };
    match form {
        TextForm::Auto | TextForm::All => {
            if let Ok(id) = read(TextForm::Decimal) {
                return Ok(id);
            }
            let len = text.chars().filter(|&c| c != '-').count();
            if Encoding::Base62.width() == Some(text.chars().count()) {
                read(TextForm::Base62)
            } else if Encoding::Crockford.width() == Some(len) {
                read(TextForm::Crockford)
            } else {
                Err(CliError::usage(
                    "<ID>",
                    format!(
                        "{text:?} is not an ID: not a decimal number, and neither {} characters \
                         (base62) nor {} (Crockford base32); name the form with --from",
                        Encoding::Base62.width().unwrap_or_default(),
                        Encoding::Crockford.width().unwrap_or_default()
                    ),
                ))
            }
        }
        form => read(form),
    }
}

/// `--dialect`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub(crate) enum DialectArg {
    /// PostgreSQL 15 and later.
    Postgres,
    /// MariaDB 10.3 and later (MySQL 8: see the docs of flakeid_id_function).
    #[value(alias = "mysql")]
    Mariadb,
    /// SQLite (no stored functions: `decode-functions` prints expressions).
    Sqlite,
}

impl DialectArg {
    pub(crate) fn dialect(self) -> Dialect {
        match self {
            DialectArg::Postgres => Dialect::Postgres,
            DialectArg::Mariadb => Dialect::MySql,
            DialectArg::Sqlite => Dialect::Sqlite,
        }
    }
}

/// `flakeid sql`'s options for the database ID function.
#[derive(Debug, Clone, Args)]
pub(crate) struct FunctionArgs {
    /// The database.
    #[arg(long, value_enum, required = true)]
    pub(crate) dialect: Option<DialectArg>,
    /// The lease space whose node the function uses (as the application's `LeaseOptions::new(space, …)`).
    #[arg(long, required = true)]
    pub(crate) space: Option<String>,
    /// The node the function issues IDs for; no application process may use it.
    #[arg(long, required = true)]
    pub(crate) node: Option<u64>,
    #[command(flatten)]
    pub(crate) layout: LayoutArgs,
    /// The function's name.
    #[arg(long, default_value = flakeid_id_function::IdFunction::DEFAULT_FUNCTION)]
    pub(crate) function: String,
    /// The name of the function's state (default: the function's name followed by `_state`).
    #[arg(long)]
    pub(crate) state: Option<String>,
    /// The lease table.
    #[arg(long, default_value = flakeid_lease::LeaseOptions::DEFAULT_TABLE)]
    pub(crate) lease_table: String,
    /// A table whose key column the function fills (with --column).
    #[arg(long, requires = "column")]
    pub(crate) table: Option<String>,
    /// The key column of --table.
    #[arg(long, requires = "table")]
    pub(crate) column: Option<String>,
    /// How long a call waits for the next tick when a tick's IDs are used up, in ms.
    #[arg(long, default_value_t = 1000)]
    pub(crate) max_wait_ms: u64,
    /// Print the SQL that removes the function (and the column's default) instead.
    #[arg(long)]
    pub(crate) uninstall: bool,
    /// Write a migration directory (up.sql, down.sql) instead of printing.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
}

/// `flakeid sql`'s subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum SqlCommand {
    /// Switch existing tables from auto-increment keys to flake keys: read
    /// the database's catalog (keys, sequences, every foreign key that
    /// references them) and print the migration, proven before it changes
    /// anything: every existing key must be below the cut-over, the first
    /// key the layout issues now.
    #[command(after_help = "Examples:\n  \
        flakeid sql adopt \"$DATABASE_URL\" --table users --table posts > adopt.sql\n  \
        flakeid sql adopt \"$DATABASE_URL\" --table users --space app --node 1023 --down > adopt-down.sql\n  \
        flakeid sql adopt sqlite://app.db --table users --out migrations/2026-01-01-000000_adopt_users\n\
        Then declare the printed cut-over on the ID types: #[flake_id(cut_over = N)].")]
    Adopt(AdoptArgs),
    /// Print the SQL functions that read IDs of a layout (time, tick, node,
    /// node fields, sequence) for PostgreSQL or MariaDB, or the same
    /// reading as expressions for SQLite.
    #[command(after_help = "Examples:\n  \
        flakeid sql decode-functions --dialect postgres --layout twitter | psql \"$DATABASE_URL\"\n  \
        flakeid sql decode-functions --dialect mariadb --prefix order_id --cut-over 2124913425938116608\n  \
        flakeid sql decode-functions --dialect sqlite --table orders --column id")]
    DecodeFunctions(DecodeFunctionsArgs),
}

/// `flakeid sql adopt`.
#[derive(Debug, Clone, Args)]
pub(crate) struct AdoptArgs {
    /// The database: postgres://…, mysql://… (or mariadb://…), sqlite://PATH.
    pub(crate) url: String,
    /// A table to switch, as TABLE or TABLE.COLUMN (its primary key; default column `id`); repeat for several.
    #[arg(long = "table", value_name = "TABLE[.COLUMN]", required = true)]
    pub(crate) tables: Vec<String>,
    /// A column holding keys of a table without a foreign key saying so, as KEY_TABLE:TABLE.COLUMN.
    #[arg(long = "reference", value_name = "KEY_TABLE:TABLE.COLUMN")]
    pub(crate) references: Vec<String>,
    #[command(flatten)]
    pub(crate) layout: LayoutArgs,
    /// The cut-over the ID types already declare (default: the first key of the layout a clock skew ago).
    #[arg(long, value_name = "KEY")]
    pub(crate) cut_over: Option<u64>,
    /// How far behind this machine's clock an application host's may be, in ms.
    #[arg(long, default_value_t = 60_000)]
    pub(crate) clock_skew_ms: u64,
    /// With --node: install the database ID function of this lease space as the keys' default (PostgreSQL, MariaDB).
    #[arg(long, requires = "node")]
    pub(crate) space: Option<String>,
    /// With --space: the ID function's node; no application process may use it.
    #[arg(long, requires = "space")]
    pub(crate) node: Option<u64>,
    /// The ID function's name.
    #[arg(long, default_value = flakeid_id_function::IdFunction::DEFAULT_FUNCTION)]
    pub(crate) function: String,
    /// Print the down script (back to auto-increment) instead.
    #[arg(long)]
    pub(crate) down: bool,
    /// Write a migration directory (up.sql, down.sql) instead of printing.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
}

/// `flakeid sql decode-functions`.
#[derive(Debug, Clone, Args)]
pub(crate) struct DecodeFunctionsArgs {
    /// The database.
    #[arg(long, value_enum)]
    pub(crate) dialect: DialectArg,
    #[command(flatten)]
    pub(crate) layout: LayoutArgs,
    /// The functions' names start with this and `_`.
    #[arg(long, default_value = flakeid_id_function::DecodeFunctions::DEFAULT_PREFIX)]
    pub(crate) prefix: String,
    /// Keys below this value read as NULL: issued before the table switched to flake keys.
    #[arg(long, value_name = "KEY")]
    pub(crate) cut_over: Option<u64>,
    /// SQLite: the table whose IDs the printed SELECT reads.
    #[arg(long)]
    pub(crate) table: Option<String>,
    /// SQLite: the ID column of --table.
    #[arg(long, default_value = "id")]
    pub(crate) column: String,
    /// Print the SQL that drops the functions instead.
    #[arg(long)]
    pub(crate) uninstall: bool,
    /// Write a migration directory (up.sql, down.sql) instead of printing.
    #[arg(long, value_name = "DIR")]
    pub(crate) out: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum OrderArg {
    /// time | node | sequence (Twitter).
    NodeSequence,
    /// time | sequence | node (Sonyflake).
    SequenceNode,
}
