//! `flakeid sql adopt`: the migration of existing tables from auto-increment
//! keys to flake keys (`flakeid_adopt`), written from the database's
//! catalog and proven against it.

use std::time::{Duration, SystemTime};

use flakeid_adopt::{AdoptError, Adoption};
use flakeid_core::encoding::format_rfc3339;
use flakeid_id_function::IdFunction;
use flakeid_seaorm::SeaOrmExecutor;
use flakeid_sql::Dialect;

use crate::args::{AdoptArgs, CliError};
use crate::db;

pub(crate) fn run(args: &AdoptArgs, out: &mut dyn std::io::Write) -> Result<(), CliError> {
    let (dialect, url) = db::parse_url(&args.url)?;
    let layout = args.layout.build()?;
    let mut adoption = Adoption::new(dialect, layout.clone())
        .clock_skew(Duration::from_millis(args.clock_skew_ms));
    for t in &args.tables {
        let (table, column) = t.split_once('.').unwrap_or((t, "id"));
        adoption = adoption.table(table, column);
    }
    for r in &args.references {
        let Some((key_table, (table, column))) = r
            .split_once(':')
            .and_then(|(k, rest)| Some((k, rest.split_once('.')?)))
        else {
            return Err(CliError::usage(
                "--reference",
                format!("{r:?} is not KEY_TABLE:TABLE.COLUMN (e.g. users:audit_log.actor_id)"),
            ));
        };
        adoption = adoption.reference(key_table, table, column);
    }
    if let Some(cut_over) = args.cut_over {
        adoption = adoption.cut_over(cut_over);
    }
    if let (Some(space), Some(node)) = (&args.space, args.node) {
        if dialect == Dialect::Sqlite {
            return Err(CliError::usage(
                "--space/--node",
                "SQLite has no stored functions: the keys get no default there (inserts without \
                 a key fail)",
            ));
        }
        adoption = adoption.id_function(
            IdFunction::new(dialect, space.clone(), layout, node).function_name(&args.function),
        );
    }
    let catalog = db::runtime()?.block_on(async {
        let conn = db::connect(&url, dialect).await?;
        let read = adoption
            .read_catalog(&SeaOrmExecutor::new(conn.clone()))
            .await;
        let _ = conn.close().await;
        read.map_err(|e| match e {
            AdoptError::Database { .. } => CliError::failed(format!(
                "cannot read the catalog of {}: {e}",
                db::redact(&url)
            )),
            e => CliError::usage("--table", e),
        })
    })?;
    let now = SystemTime::now();
    let plan = adoption.plan(&catalog, now).map_err(|e| match e {
        AdoptError::Name(_) | AdoptError::IdFunction(_) => CliError::usage("--table", e),
        e => CliError::failed(e),
    })?;
    let mut header = vec![
        format!(
            "flakeid sql adopt, {}: from the catalog as it was then; review before running.",
            format_rfc3339(now)
        ),
        match dialect {
            Dialect::Sqlite => "Run with `sqlite3 -bail`, or a tool that stops at the first error.",
            _ => "Run on one connection, stopping at the first error.",
        }
        .to_owned(),
    ];
    header.extend(plan.summary());
    eprintln!(
        "cut-over {0}: declare #[flake_id(cut_over = {0})] on the ID types of these keys",
        plan.cut_over()
    );
    crate::script::output(
        dialect,
        &header,
        plan.up(),
        plan.down(),
        args.down,
        args.out.as_deref(),
        out,
    )
}
