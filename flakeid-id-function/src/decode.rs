//! SQL that reads IDs: functions on PostgreSQL and MariaDB, expressions on
//! every dialect, giving an ID's time, node, node fields and sequence as a
//! [`BitLayout`] decodes them.

use flakeid_core::layout::{BitLayout, FieldOrder, Layout};
use flakeid_sql::Dialect;

use super::IdFunctionError;
use super::postgres::dollar_quote;

/// A part of an ID that [`DecodeFunctions`] reads.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IdPart {
    /// The start of the ID's tick in Unix milliseconds (`BIGINT`).
    UnixMillis,
    /// The start of the ID's tick as a time: PostgreSQL `timestamptz`,
    /// MariaDB `DATETIME(3)` in UTC, SQLite text in RFC 3339 (UTC, with
    /// milliseconds).
    Time,
    /// The tick: time units since the layout's epoch.
    Tick,
    /// The whole node field.
    Node,
    /// The sequence within the tick.
    Sequence,
    /// A named field: `tick`, a node field of the layout
    /// ([`NodeField`](flakeid_core::layout::NodeField)), `node` or `sequence`.
    Field(String),
}

/// SQL functions that read IDs of one [`BitLayout`], for analysts, reports
/// and operators who read keys in SQL: the ID's time, tick, node, node
/// fields and sequence, exactly as [`Decoded`](flakeid_core::Decoded) gives them
/// in Rust. Installed like the [ID function](crate::IdFunction): statements
/// to run in a migration, `flakeid sql decode-functions`.
///
/// | function (default prefix `flakeid_id`) | returns |
/// |---|---|
/// | `flakeid_id_unix_ms(id)` | the start of the ID's tick, Unix milliseconds (`bigint`) |
/// | `flakeid_id_time(id)` | the same as a time: `timestamptz` (PostgreSQL), `DATETIME(3)` in UTC (MariaDB) |
/// | `flakeid_id_tick(id)` | the tick |
/// | `flakeid_id_node(id)` | the node |
/// | `flakeid_id_sequence(id)` | the sequence |
/// | `flakeid_id_field(id, name)` | the field `name` (`tick`, a node field such as `worker`, `node`, `sequence`); `NULL` for another name |
///
/// Every function is pure (`IMMUTABLE` / `DETERMINISTIC NO SQL`) and
/// returns `NULL` for `NULL`. With a [`cut_over`](Self::cut_over), keys
/// below it (from before the table switched to flake keys, see the
/// `flakeid-adopt` crate) read as `NULL` in every function: they record
/// no time and no fields. Values are not checked against the layout: give
/// the functions keys of the layout.
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_id_function::{DecodeFunctions, IdPart};
/// use flakeid_sql::Dialect;
///
/// let f = DecodeFunctions::new(Dialect::Postgres, presets::twitter());
/// let install = f.install()?;
/// assert_eq!(install.len(), 6);
/// assert!(install[0].starts_with(
///     "CREATE OR REPLACE FUNCTION \"flakeid_id_unix_ms\"(id bigint) RETURNS bigint"
/// ));
/// // SELECT flakeid_id_time(id), flakeid_id_field(id, 'worker') FROM orders
/// assert_eq!(f.function(&IdPart::Time)?, "\"flakeid_id_time\"");
///
/// // SQLite has no stored functions: the same reading as an expression.
/// let sqlite = DecodeFunctions::new(Dialect::Sqlite, presets::twitter());
/// assert_eq!(
///     sqlite.expression(&IdPart::UnixMillis, "\"id\"")?,
///     "(1288834974657 + ((\"id\") >> 22) * 1)"
/// );
/// # Ok::<(), flakeid_id_function::IdFunctionError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeFunctions {
    dialect: Dialect,
    layout: BitLayout,
    prefix: String,
    cut_over: Option<u64>,
}

impl DecodeFunctions {
    /// The functions' prefix unless [`prefix`](Self::prefix) says otherwise.
    pub const DEFAULT_PREFIX: &'static str = "flakeid_id";

    /// The functions reading IDs of `layout`, named with
    /// [`DEFAULT_PREFIX`](Self::DEFAULT_PREFIX).
    pub fn new(dialect: Dialect, layout: BitLayout) -> Self {
        DecodeFunctions {
            dialect,
            layout,
            prefix: Self::DEFAULT_PREFIX.to_owned(),
            cut_over: None,
        }
    }

    /// The functions' names start with `prefix` and `_` (for several
    /// layouts in one database, one prefix each).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Keys below `cut_over` read as `NULL`: they were issued before the
    /// table switched to flake keys (the ID type's
    /// [`CUT_OVER`](flakeid_core::FlakeId::CUT_OVER)).
    pub fn cut_over(mut self, cut_over: u64) -> Self {
        self.cut_over = Some(cut_over);
        self
    }

    /// The statements that create (or replace) the functions, one per
    /// function, each without a trailing `;`.
    ///
    /// # Errors
    /// [`IdFunctionError::UnsupportedDialect`] on SQLite (use
    /// [`expression`](Self::expression)); [`IdFunctionError::Name`] for a
    /// prefix that makes a name the database would not keep.
    pub fn install(&self) -> Result<Vec<String>, IdFunctionError> {
        self.supported()?;
        let mut parts = vec![
            IdPart::UnixMillis,
            IdPart::Time,
            IdPart::Tick,
            IdPart::Node,
            IdPart::Sequence,
        ];
        let mut out = Vec::new();
        for part in parts.drain(..) {
            out.push(self.create(&part)?);
        }
        out.push(self.create_field()?);
        Ok(out)
    }

    /// The statements that drop the functions (those that exist).
    ///
    /// # Errors
    /// As [`install`](Self::install).
    pub fn uninstall(&self) -> Result<Vec<String>, IdFunctionError> {
        self.supported()?;
        let (int, text) = match self.dialect {
            Dialect::Postgres => ("(bigint)", "(bigint, text)"),
            _ => ("", ""),
        };
        let mut out = Vec::new();
        for part in [
            IdPart::UnixMillis,
            IdPart::Time,
            IdPart::Tick,
            IdPart::Node,
            IdPart::Sequence,
        ] {
            out.push(format!(
                "DROP FUNCTION IF EXISTS {}{int}",
                self.function(&part)?
            ));
        }
        out.push(format!(
            "DROP FUNCTION IF EXISTS {}{text}",
            self.function(&IdPart::Field(String::new()))?
        ));
        Ok(out)
    }

    /// The quoted name of the function reading `part` (every
    /// [`IdPart::Field`] is read by `<prefix>_field(id, name)`).
    ///
    /// # Errors
    /// [`IdFunctionError::Name`] for a name the database would not keep.
    pub fn function(&self, part: &IdPart) -> Result<String, IdFunctionError> {
        let suffix = match part {
            IdPart::UnixMillis => "unix_ms",
            IdPart::Time => "time",
            IdPart::Tick => "tick",
            IdPart::Node => "node",
            IdPart::Sequence => "sequence",
            IdPart::Field(_) => "field",
        };
        Ok(self
            .dialect
            .identifier("function", &format!("{}_{suffix}", self.prefix))?)
    }

    /// An SQL expression reading `part` of the ID the SQL expression `id`
    /// holds (a quoted column name, say), in any dialect: what the
    /// functions compute, for SQLite (which has no stored functions) or a
    /// view. `id` is used several times: give a column, not a call.
    ///
    /// ```
    /// use flakeid_core::layout::presets;
    /// use flakeid_id_function::{DecodeFunctions, IdPart};
    /// use flakeid_sql::Dialect;
    /// let f = DecodeFunctions::new(Dialect::Sqlite, presets::twitter());
    /// assert_eq!(
    ///     f.expression(&IdPart::Field("worker".into()), "id")?,
    ///     "(((((id) >> 12) & 1023) >> 0) & 31)"
    /// );
    /// assert!(f.expression(&IdPart::Field("shard".into()), "id").is_err());
    /// # Ok::<(), flakeid_id_function::IdFunctionError>(())
    /// ```
    ///
    /// # Errors
    /// [`IdFunctionError::UnknownField`] for a field the layout does not
    /// have.
    pub fn expression(&self, part: &IdPart, id: &str) -> Result<String, IdFunctionError> {
        let value = self.raw(part, id)?;
        Ok(match self.cut_over {
            Some(k) if k > 1 => format!("(CASE WHEN ({id}) < {k} THEN NULL ELSE {value} END)"),
            _ => value,
        })
    }

    /// `statements` as a script for the database's command-line client
    /// (see [`Dialect::script`]).
    pub fn script(&self, statements: &[String]) -> String {
        self.dialect.script(statements)
    }

    fn supported(&self) -> Result<(), IdFunctionError> {
        match self.dialect {
            Dialect::Sqlite => Err(IdFunctionError::UnsupportedDialect {
                dialect: self.dialect,
            }),
            _ => Ok(()),
        }
    }

    /// `part` of `id`, before the cut-over's `CASE`.
    fn raw(&self, part: &IdPart, id: &str) -> Result<String, IdFunctionError> {
        let l = &self.layout;
        let (seq_bits, node_bits) = (l.sequence_bits(), l.node_bits());
        let tick = self.int(format!("(({id}) >> {})", seq_bits + node_bits));
        let node = match l.order() {
            FieldOrder::NodeThenSequence => {
                self.int(format!("((({id}) >> {seq_bits}) & {})", mask(node_bits)))
            }
            FieldOrder::SequenceThenNode => self.int(format!("(({id}) & {})", mask(node_bits))),
        };
        let sequence = match l.order() {
            FieldOrder::NodeThenSequence => self.int(format!("(({id}) & {})", mask(seq_bits))),
            FieldOrder::SequenceThenNode => {
                self.int(format!("((({id}) >> {node_bits}) & {})", mask(seq_bits)))
            }
        };
        let unix_ms = format!("({} + {tick} * {})", l.epoch_millis(), l.tick_millis());
        Ok(match part {
            IdPart::UnixMillis => unix_ms,
            IdPart::Time => self.time(&unix_ms),
            IdPart::Tick => tick,
            IdPart::Node => node,
            IdPart::Sequence => sequence,
            IdPart::Field(name) => match name.as_str() {
                "tick" => tick,
                "node" => node,
                "sequence" => sequence,
                field => {
                    let mut shift = node_bits;
                    let found = l.node_fields().iter().find_map(|f| {
                        shift -= f.bits() as u32;
                        (f.name() == field).then(|| {
                            self.int(format!("(({node} >> {shift}) & {})", mask(f.bits() as u32)))
                        })
                    });
                    found.ok_or_else(|| IdFunctionError::UnknownField {
                        field: field.to_owned(),
                        fields: self.field_names(),
                    })?
                }
            },
        })
    }

    /// The names [`IdPart::Field`] reads.
    fn field_names(&self) -> Vec<String> {
        let mut names = vec!["tick".to_owned()];
        names.extend(
            self.layout
                .node_fields()
                .iter()
                .map(|f| f.name().to_owned())
                .filter(|n| n != "node"),
        );
        names.extend(["node".to_owned(), "sequence".to_owned()]);
        names
    }

    /// An integer expression as a signed `BIGINT` (MariaDB's bit operators
    /// give unsigned values).
    fn int(&self, expr: String) -> String {
        match self.dialect {
            Dialect::MySql => format!("CAST({expr} AS SIGNED)"),
            _ => expr,
        }
    }

    fn time(&self, unix_ms: &str) -> String {
        match self.dialect {
            Dialect::Postgres => {
                format!("(to_timestamp(0) + {unix_ms} * INTERVAL '1 millisecond')")
            }
            Dialect::MySql => format!(
                "CAST(TIMESTAMPADD(MICROSECOND, {unix_ms} * 1000, TIMESTAMP'1970-01-01 00:00:00') \
                 AS DATETIME(3))"
            ),
            Dialect::Sqlite => {
                format!("strftime('%Y-%m-%dT%H:%M:%fZ', {unix_ms} / 1000.0, 'unixepoch')")
            }
        }
    }

    fn create(&self, part: &IdPart) -> Result<String, IdFunctionError> {
        let name = self.function(part)?;
        let body = self.expression(part, "id")?;
        let returns = match (part, self.dialect) {
            (IdPart::Time, Dialect::Postgres) => "timestamptz",
            (IdPart::Time, _) => "DATETIME(3)",
            (_, Dialect::Postgres) => "bigint",
            _ => "BIGINT",
        };
        Ok(match self.dialect {
            Dialect::Postgres => format!(
                "CREATE OR REPLACE FUNCTION {name}(id bigint) RETURNS {returns} LANGUAGE sql \
                 IMMUTABLE STRICT PARALLEL SAFE AS {}",
                dollar_quote(&format!("SELECT {body}"))
            ),
            _ => format!(
                "CREATE OR REPLACE FUNCTION {name}(id BIGINT) RETURNS {returns} DETERMINISTIC \
                 NO SQL RETURN {body}"
            ),
        })
    }

    /// `<prefix>_field(id, name)`: a `CASE` over the layout's field names.
    fn create_field(&self) -> Result<String, IdFunctionError> {
        let name = self.function(&IdPart::Field(String::new()))?;
        let mut cases = String::new();
        for field in self.field_names() {
            let value = self.expression(&IdPart::Field(field.clone()), "id")?;
            cases.push_str(&format!(
                " WHEN {} THEN {value}",
                self.dialect.literal(&field)
            ));
        }
        Ok(match self.dialect {
            Dialect::Postgres => format!(
                "CREATE OR REPLACE FUNCTION {name}(id bigint, name text) RETURNS bigint \
                 LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS {}",
                dollar_quote(&format!("SELECT CASE name{cases} END"))
            ),
            _ => format!(
                "CREATE OR REPLACE FUNCTION {name}(id BIGINT, name VARCHAR(64)) RETURNS BIGINT \
                 DETERMINISTIC NO SQL RETURN CASE name{cases} END"
            ),
        })
    }
}

fn mask(bits: u32) -> u64 {
    (1u64 << bits) - 1
}
