//! SeaORM's `save` against `insert` of rows whose keys `assign_id` gave,
//! on SQLite, PostgreSQL and MariaDB/MySQL, side by side in one run: rows/s
//! and statements per row of each way to write a row, and what the
//! primary-key lookup that `save` of a `Set` key runs first costs alone.
//!
//! ```text
//! cargo run --release -p flakeid-benches --bin seaorm_save -- [options]
//!   --rows N          rows per run (2000)
//!   --rounds N        rounds; cells are medians (3)
//!   --servers S,...   sqlite-memory, sqlite, pg, mysql (all)
//!   --quick           200 rows, one round
//! ```
//!
//! Each case writes (or reads) `--rows` rows one at a time on one
//! connection (the latency of each statement is what `save` adds to), into
//! a table made afresh each round and warmed up by a few rows of each
//! write. The cases take turns of 50 rows, the writes first, each turn
//! starting at another case, so that a change of load on a shared machine
//! falls on all of them alike:
//!
//! * `insert`, key from `assign_id`: one `INSERT` (and a `SELECT` of the
//!   row where there is no `RETURNING`: MariaDB);
//! * `save`, key from `assign_id`: the hook's lookup finds no row and the
//!   key is one this process assigned, so it inserts the row, and SeaORM's
//!   update that follows finds nothing to change and reads the row back;
//! * `save`, key `NotSet`: SeaORM's insert, the hook assigns the key;
//! * `save` of a loaded row with a changed column (key `Unchanged`):
//!   SeaORM's `UPDATE`, no lookup;
//! * `save` of a key `Set` by hand that a row has: the lookup, then the
//!   `UPDATE`;
//! * the lookup alone (`Entity::find().filter(key).exists(db)`).
//!
//! Statements are counted by SeaORM's metric callback. One `RESULT` line
//! per database and case (rows, median rows/s, statements a row), then the
//! table (Markdown); below it:
//! the cost of `assign_id` (which remembers the key) against taking an ID
//! alone, and the memory the remembered keys take when full.
//!
//! PostgreSQL and MariaDB are containers of `FLAKEID_TEST_POSTGRES_IMAGE`
//! and `FLAKEID_TEST_MYSQL_IMAGE` with their default settings; `sqlite` is
//! a file in the temporary directory (WAL, `synchronous = NORMAL`),
//! `sqlite-memory` an in-memory database (no I/O: the statements' own
//! cost).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use flakeid_benches::args::parse;
use flakeid_benches::report::{Machine, Stat, load_average};
use flakeid_core::layout::presets;
use flakeid_core::{Generator, global};
use flakeid_seaorm::{FlakeActiveModel, REMEMBERED_KEYS, flake_id};
use flakeid_tests::db::{DedicatedServer, ServerKind};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectOptions, ConnectionTrait, Database, DatabaseConnection,
    DbErr, EntityTrait, IntoActiveModel, PaginatorTrait, QueryFilter, Schema, SelectExt, Set,
};

/// The key of the benchmark's rows.
#[flake_id]
pub struct NoteId(i64);

// `DeriveEntityModel` needs the model `pub`; nothing outside uses it.
#[allow(unreachable_pub)]
mod note {
    use sea_orm::entity::prelude::*;

    /// A row.
    #[flakeid_seaorm::flake_id]
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "save_notes")]
    pub struct Model {
        /// The key.
        #[sea_orm(primary_key)]
        pub id: super::NoteId,
        /// Text.
        pub body: String,
    }

    /// No relations.
    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}
}

/// Where the rows go.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    SqliteMemory,
    SqliteFile,
    Postgres,
    MySql,
}

impl Target {
    const ALL: [Target; 4] = [
        Target::SqliteMemory,
        Target::SqliteFile,
        Target::Postgres,
        Target::MySql,
    ];

    fn name(self) -> &'static str {
        match self {
            Target::SqliteMemory => "sqlite-memory",
            Target::SqliteFile => "sqlite",
            Target::Postgres => "pg",
            Target::MySql => "mysql",
        }
    }
}

/// One way of writing (or looking up) a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Case {
    InsertAssigned,
    SaveAssigned,
    SaveNotSet,
    SaveLoaded,
    SaveSetKey,
    Lookup,
}

impl Case {
    const ALL: [Case; 6] = [
        Case::InsertAssigned,
        Case::SaveAssigned,
        Case::SaveNotSet,
        Case::SaveLoaded,
        Case::SaveSetKey,
        Case::Lookup,
    ];

    /// Its name in the `RESULT` lines.
    fn slug(self) -> &'static str {
        match self {
            Case::InsertAssigned => "insert-assigned",
            Case::SaveAssigned => "save-assigned",
            Case::SaveNotSet => "save-not-set",
            Case::SaveLoaded => "save-loaded",
            Case::SaveSetKey => "save-set-key",
            Case::Lookup => "lookup",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Case::InsertAssigned => "`insert`, key from `assign_id`",
            Case::SaveAssigned => "`save`, key from `assign_id`",
            Case::SaveNotSet => "`save`, key `NotSet`",
            Case::SaveLoaded => "`save` of a loaded row (update)",
            Case::SaveSetKey => "`save` of a `Set` key a row has (update)",
            Case::Lookup => "the lookup alone (`exists`)",
        }
    }
}

/// One run's numbers.
#[derive(Debug, Clone, Copy)]
struct Run {
    secs: f64,
    rows: u64,
    statements: u64,
}

struct Config {
    rows: u64,
    rounds: usize,
    targets: Vec<Target>,
}

fn main() -> ExitCode {
    match Config::from_args(std::env::args().skip(1)) {
        Ok(cfg) => flakeid_benches::exit_status_on_tokio(Some(1), run(cfg)),
        Err(e) => flakeid_benches::exit_status(Err(e)),
    }
}

impl Config {
    fn from_args(mut args: impl Iterator<Item = String>) -> Result<Config, String> {
        let mut cfg = Config {
            rows: 2000,
            rounds: 3,
            targets: Target::ALL.to_vec(),
        };
        while let Some(arg) = args.next() {
            match arg.as_str() {
                "--quick" => {
                    cfg.rows = 200;
                    cfg.rounds = 1;
                }
                "--rows" => cfg.rows = parse("--rows", args.next()).map_err(|e| e.to_string())?,
                "--rounds" => {
                    cfg.rounds = parse("--rounds", args.next()).map_err(|e| e.to_string())?;
                }
                "--servers" => {
                    let list = args.next().ok_or("--servers needs a value")?;
                    cfg.targets = list
                        .split(',')
                        .map(|s| {
                            Target::ALL
                                .into_iter()
                                .find(|t| t.name() == s)
                                .ok_or_else(|| format!("--servers: unknown server {s:?}"))
                        })
                        .collect::<Result<_, _>>()?;
                }
                other => return Err(format!("unknown argument {other:?}")),
            }
        }
        if cfg.rows == 0 || cfg.rounds == 0 {
            return Err("--rows and --rounds must be at least 1".to_owned());
        }
        Ok(cfg)
    }
}

/// A connection and the number of statements sent through it.
struct Connected {
    db: DatabaseConnection,
    statements: Arc<AtomicU64>,
    version: String,
}

async fn connect(url: &str, version: String) -> Result<Connected, DbErr> {
    let mut options = ConnectOptions::new(url);
    options
        .max_connections(1)
        .min_connections(1)
        .sqlx_logging(false);
    let mut db = Database::connect(options).await?;
    let statements = Arc::new(AtomicU64::new(0));
    let counter = statements.clone();
    db.set_metric_callback(move |_| {
        counter.fetch_add(1, Ordering::Relaxed);
    });
    Ok(Connected {
        db,
        statements,
        version,
    })
}

async fn run(cfg: Config) -> Result<(), String> {
    global::init(Generator::builder(presets::twitter(), 1)).map_err(|e| e.to_string())?;
    let machine = Machine::detect();
    let load_before = load_average();
    let started_at = Instant::now();
    let memory = remembered_keys_memory().await?;
    let (generate_ns, assign_ns) = assign_id_cost().await?;

    let dir = std::env::temp_dir().join(format!("seaorm_save_{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut servers = Vec::new();
    let mut targets = BTreeMap::new();
    for &target in &cfg.targets {
        let connected = match target {
            Target::SqliteMemory => connect("sqlite::memory:", sqlite_version()).await,
            Target::SqliteFile => {
                let path = dir.join("notes.db");
                let c = connect(
                    &format!("sqlite://{}?mode=rwc", path.display()),
                    sqlite_version(),
                )
                .await
                .map_err(|e| e.to_string())?;
                c.db.execute_unprepared("PRAGMA journal_mode = WAL")
                    .await
                    .map_err(|e| e.to_string())?;
                c.db.execute_unprepared("PRAGMA synchronous = NORMAL")
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(c)
            }
            Target::Postgres | Target::MySql => {
                let kind = if target == Target::Postgres {
                    ServerKind::Postgres
                } else {
                    ServerKind::MySql
                };
                eprintln!("seaorm_save bench: starting {}", target.name());
                let server = DedicatedServer::start(kind, &[]).await?;
                let url = server.create_database("seaorm_save").await?;
                let version = format!("{} (image `{}`)", server.version(), server.image());
                servers.push(server);
                connect(&url, version).await
            }
        }
        .map_err(|e| format!("{}: {e}", target.name()))?;
        targets.insert(target, connected);
    }

    let versions: Vec<String> = targets
        .iter()
        .map(|(t, c)| format!("{}: {}", t.name(), c.version))
        .collect();
    let mut results: BTreeMap<(Target, Case), Vec<Run>> = BTreeMap::new();
    let outcome = async {
        for round in 0..cfg.rounds {
            for (&target, connected) in &targets {
                eprintln!(
                    "seaorm_save bench: round {} of {}, {}",
                    round + 1,
                    cfg.rounds,
                    target.name()
                );
                for (case, measured) in run_round(connected, cfg.rows, round).await? {
                    results.entry((target, case)).or_default().push(measured);
                }
            }
        }
        Ok::<_, DbErr>(())
    }
    .await;
    drop(targets);
    for server in servers {
        if let Err(e) = server.stop().await {
            eprintln!("seaorm_save bench: {e}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    outcome.map_err(|e| e.to_string())?;

    for ((target, case), runs) in &results {
        let per_s = Stat::of(runs.iter().map(|r| r.rows as f64 / r.secs).collect());
        let rows: u64 = runs.iter().map(|r| r.rows).sum();
        let statements: u64 = runs.iter().map(|r| r.statements).sum();
        println!(
            "RESULT server={} case={} rows={rows} rows_per_s={:.0} statements_per_row={:.3}",
            target.name(),
            case.slug(),
            per_s.map_or(0.0, |s| s.median),
            statements as f64 / rows as f64
        );
    }
    println!();
    print!("{}", table(&cfg, &results));
    println!();
    println!(
        "`assign_id` (an ID, set on the model, the key remembered): {assign_ns:.0} ns a call; \
         the ID alone (`generate_async`): {generate_ns:.0} ns. The {REMEMBERED_KEYS} remembered \
         keys, when full: {:.1} MB of the process's resident memory.",
        memory as f64 / 1e6
    );
    println!();
    println!(
        "Command: `cargo run --release -p flakeid-benches --bin seaorm_save --{}`; {} rows a \
         run, {} round(s), cells are medians (rows/s, then statements a row); {:.0} s.",
        std::env::args()
            .skip(1)
            .map(|a| format!(" {a}"))
            .collect::<String>(),
        cfg.rows,
        cfg.rounds,
        started_at.elapsed().as_secs_f64()
    );
    println!("Databases: {}", versions.join("; "));
    println!(
        "Machine: {} ({} CPUs, {} available), {}{}; load average before {load_before}, after {}.",
        machine.cpu,
        machine.cpus,
        machine.available,
        machine.rustc,
        if machine.debug {
            ", DEBUG BUILD (numbers meaningless)"
        } else {
            ""
        },
        load_average()
    );
    Ok(())
}

fn sqlite_version() -> String {
    "SQLite (sqlx's bundled library)".to_owned()
}

/// Rows each case writes (or reads) before the next case has its turn.
const CHUNK: usize = 50;

/// One round on one database: a fresh table, a warm-up, then the cases in
/// turns of [`CHUNK`] rows (the machine may be shared: a change of load
/// falls on every case alike), the writes first, each turn starting at
/// another case.
async fn run_round(
    connected: &Connected,
    rows: u64,
    round: usize,
) -> Result<Vec<(Case, Run)>, DbErr> {
    let db = &connected.db;
    let backend = db.get_database_backend();
    db.execute_unprepared("DROP TABLE IF EXISTS save_notes")
        .await?;
    db.execute(&Schema::new(backend).create_table_from_entity(note::Entity))
        .await?;
    // Not measured: the first rows of a new table (a file that grows, cold
    // caches) would count against whichever case came first.
    let mut warm_up = Vec::new();
    for case in [Case::InsertAssigned, Case::SaveAssigned, Case::SaveNotSet] {
        write_rows(db, case, CHUNK, &mut warm_up).await?;
    }
    update_rows(db, Case::SaveSetKey, &warm_up).await?;

    let rows = usize::try_from(rows).map_err(|e| DbErr::Custom(e.to_string()))?;
    let mut totals: BTreeMap<Case, Run> = BTreeMap::new();
    let mut stored: Vec<NoteId> = Vec::new();
    let writes = [Case::InsertAssigned, Case::SaveAssigned, Case::SaveNotSet];
    let reads = [Case::SaveLoaded, Case::SaveSetKey, Case::Lookup];
    for (turn, start) in (0..rows).step_by(CHUNK).enumerate() {
        let n = CHUNK.min(rows - start);
        for i in 0..writes.len() {
            let case = writes[(turn + round + i) % writes.len()];
            let measured = measure(connected, write_rows(db, case, n, &mut stored)).await?;
            add(&mut totals, case, measured);
        }
    }
    // The rows the reading cases go through, the same for each: every
    // third key written, `rows` of them.
    let keys: Vec<NoteId> = stored.iter().copied().step_by(writes.len()).collect();
    for (turn, chunk) in keys.chunks(CHUNK).enumerate() {
        for i in 0..reads.len() {
            let case = reads[(turn + round + i) % reads.len()];
            let measured = if case == Case::SaveLoaded {
                // Loaded before the clock: the update is what is measured.
                let loaded = note::Entity::find()
                    .filter(note::Column::Id.is_in(chunk.iter().copied()))
                    .all(db)
                    .await?;
                measure(connected, save_loaded(db, loaded)).await?
            } else {
                measure(connected, update_rows(db, case, chunk)).await?
            };
            add(&mut totals, case, measured);
        }
    }
    let count = PaginatorTrait::count(note::Entity::find(), db).await?;
    let written = writes.len() * (rows + CHUNK);
    if usize::try_from(count).ok() != Some(written) {
        return Err(DbErr::Custom(format!(
            "{count} rows stored, {written} written"
        )));
    }
    Ok(totals.into_iter().collect())
}

/// Runs `work` (which does some rows) on the clock and counts its statements.
async fn measure(
    connected: &Connected,
    work: impl Future<Output = Result<usize, DbErr>>,
) -> Result<Run, DbErr> {
    let before = connected.statements.load(Ordering::Relaxed);
    let start = Instant::now();
    let rows = work.await?;
    Ok(Run {
        secs: start.elapsed().as_secs_f64(),
        rows: rows as u64,
        statements: connected.statements.load(Ordering::Relaxed) - before,
    })
}

fn add(totals: &mut BTreeMap<Case, Run>, case: Case, run: Run) {
    let total = totals.entry(case).or_insert(Run {
        secs: 0.0,
        rows: 0,
        statements: 0,
    });
    total.secs += run.secs;
    total.rows += run.rows;
    total.statements += run.statements;
}

fn new_note(n: usize) -> note::ActiveModel {
    note::ActiveModel {
        body: Set(format!("note {n}")),
        ..Default::default()
    }
}

/// Writes `rows` new rows the way `case` says, adding their keys to `stored`.
async fn write_rows(
    db: &DatabaseConnection,
    case: Case,
    rows: usize,
    stored: &mut Vec<NoteId>,
) -> Result<usize, DbErr> {
    for n in 0..rows {
        let mut am = new_note(n);
        let id = match case {
            Case::InsertAssigned => {
                am.assign_id().await?;
                am.insert(db).await?.id
            }
            Case::SaveAssigned => {
                am.assign_id().await?;
                saved_key(am.save(db).await?)?
            }
            _ => saved_key(am.save(db).await?)?,
        };
        stored.push(id);
    }
    Ok(rows)
}

/// `save` of each loaded row with its text changed.
async fn save_loaded(db: &DatabaseConnection, loaded: Vec<note::Model>) -> Result<usize, DbErr> {
    let rows = loaded.len();
    for (n, model) in loaded.into_iter().enumerate() {
        let mut am = model.into_active_model();
        am.body = Set(format!("loaded {n}"));
        am.save(db).await?;
    }
    Ok(rows)
}

/// `save` of a `Set` key with new text, or the lookup alone, for each of
/// `keys` (rows that exist).
async fn update_rows(db: &DatabaseConnection, case: Case, keys: &[NoteId]) -> Result<usize, DbErr> {
    for (n, &id) in keys.iter().enumerate() {
        if case == Case::Lookup {
            let found = note::Entity::find()
                .filter(note::Column::Id.eq(id))
                .exists(db)
                .await?;
            if !found {
                return Err(DbErr::Custom(format!("no row has key {}", id.get())));
            }
        } else {
            note::ActiveModel {
                id: Set(id),
                body: Set(format!("set {n}")),
            }
            .save(db)
            .await?;
        }
    }
    Ok(keys.len())
}

fn saved_key(am: note::ActiveModel) -> Result<NoteId, DbErr> {
    am.key()?
        .ok_or_else(|| DbErr::Custom("save returned a model without a key".to_owned()))
}

/// Nanoseconds a call of `generate_async` and of `assign_id` on a new
/// model, over 200,000 calls each.
async fn assign_id_cost() -> Result<(f64, f64), String> {
    const CALLS: u32 = 200_000;
    let start = Instant::now();
    for _ in 0..CALLS {
        std::hint::black_box(NoteId::generate_async().await.map_err(|e| e.to_string())?);
    }
    let generate = start.elapsed();
    let start = Instant::now();
    for _ in 0..CALLS {
        let mut am = <note::ActiveModel as Default>::default();
        std::hint::black_box(am.assign_id().await.map_err(|e| e.to_string())?);
    }
    let assign = start.elapsed();
    let per_call = |d: Duration| d.as_secs_f64() * 1e9 / f64::from(CALLS);
    Ok((per_call(generate), per_call(assign)))
}

/// Bytes of resident memory that filling the remembered keys adds: a
/// model type of its own has `REMEMBERED_KEYS` keys assigned, so the
/// table is full (and stays so for the rest of the run, as in a process
/// that assigns keys all day).
async fn remembered_keys_memory() -> Result<u64, String> {
    let before = resident_bytes()?;
    for _ in 0..REMEMBERED_KEYS {
        let mut am = <note::ActiveModel as Default>::default();
        am.assign_id().await.map_err(|e| e.to_string())?;
    }
    Ok(resident_bytes()?.saturating_sub(before))
}

/// Resident set size from `/proc/self/statm`.
fn resident_bytes() -> Result<u64, String> {
    let statm = std::fs::read_to_string("/proc/self/statm").map_err(|e| e.to_string())?;
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .ok_or("unreadable /proc/self/statm")?;
    Ok(pages * 4096)
}

/// The Markdown table: one row per case, one column per database, each
/// cell rows/s (range over the rounds), statements a row, and the ratio to
/// `insert` of an assigned key.
fn table(cfg: &Config, results: &BTreeMap<(Target, Case), Vec<Run>>) -> String {
    let mut out = String::new();
    let _ = write!(out, "| way to write a row |");
    for t in &cfg.targets {
        let _ = write!(out, " {} |", t.name());
    }
    out.push('\n');
    out.push_str("|---|");
    for _ in &cfg.targets {
        out.push_str("---|");
    }
    out.push('\n');
    let rate = |t: Target, c: Case| -> Option<(Stat, f64)> {
        let runs = results.get(&(t, c))?;
        let stat = Stat::of(runs.iter().map(|r| r.rows as f64 / r.secs).collect())?;
        let per_row = runs
            .iter()
            .map(|r| r.statements as f64 / r.rows as f64)
            .sum::<f64>()
            / runs.len() as f64;
        Some((stat, per_row))
    };
    for case in Case::ALL {
        let _ = write!(out, "| {} |", case.label());
        for &t in &cfg.targets {
            match rate(t, case) {
                Some((stat, per_row)) => {
                    let base = rate(t, Case::InsertAssigned).map(|(s, _)| s.median);
                    let ratio =
                        base.map_or(String::new(), |b| format!(", {:.2}×", stat.median / b));
                    let range = if stat.n > 1 {
                        format!(" [{:.0}–{:.0}]", stat.min, stat.max)
                    } else {
                        String::new()
                    };
                    let _ = write!(
                        out,
                        " {:.0}{range} ({per_row:.1} st.{ratio}) |",
                        stat.median
                    );
                }
                None => out.push_str(" – |"),
            }
        }
        out.push('\n');
    }
    // What the lookup costs per row: microseconds of one `exists`.
    let _ = write!(out, "| one lookup, µs |");
    for &t in &cfg.targets {
        match rate(t, Case::Lookup) {
            Some((stat, _)) => {
                let _ = write!(out, " {:.0} |", 1e6 / stat.median);
            }
            None => out.push_str(" – |"),
        }
    }
    out.push('\n');
    out
}
