//! Rounds of measurements over every subject, the description of the
//! machine, and the one table the `compare` binary prints.

use std::fmt::Write as _;
use std::time::Duration;

use flakeid_core::SequenceExhaustion;

use crate::BenchError;
use crate::measure::{FastPath, Run, SharedRun, median};
use crate::subjects::{
    Burst, FastPathVisit, SaturatedVisit, SharedVisit, Subject, TWITTER_CAP_PER_SEC, Visit,
};

/// What to measure and for how long.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// (a) Timed duration of the fast-path measurement per subject.
    pub fast_path: Duration,
    /// (a) IDs per millisecond in the fast-path measurement.
    pub per_tick: u32,
    /// (b) Duration of the saturated single-thread run per subject.
    pub saturate: Duration,
    /// (c) Duration of the shared-generator run per subject.
    pub shared: Duration,
    /// (c) Threads sharing one generator.
    pub threads: usize,
    /// (c) IDs each thread records for the cross-thread duplicate check.
    pub record_cap: usize,
    /// (d) IDs in the burst.
    pub burst: u64,
    /// (d) `max_lead` of flakeid's run-ahead rows.
    pub lead: Duration,
    /// Untimed warm-up before (a)–(c).
    pub warm_up: Duration,
    /// Rounds; the table shows the median and range over them.
    pub rounds: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            fast_path: Duration::from_secs(1),
            per_tick: 1_000,
            saturate: Duration::from_secs(2),
            shared: Duration::from_secs(2),
            threads: 2,
            record_cap: 4 << 20,
            burst: 1_000_000,
            lead: Duration::from_millis(250),
            warm_up: Duration::from_millis(50),
            rounds: 1,
        }
    }
}

impl Config {
    /// Tiny durations for tests: every code path, no meaningful numbers.
    pub fn tiny() -> Self {
        Config {
            fast_path: Duration::from_millis(5),
            per_tick: 100,
            saturate: Duration::from_millis(5),
            shared: Duration::from_millis(5),
            threads: 2,
            record_cap: 1 << 16,
            burst: 10_000,
            lead: Duration::from_millis(5),
            warm_up: Duration::from_millis(1),
            rounds: 1,
        }
    }

    /// The run-ahead policy of flakeid's burst rows.
    pub fn run_ahead(&self) -> SequenceExhaustion {
        SequenceExhaustion::RunAhead {
            max_lead: self.lead,
        }
    }
}

/// One subject's results in one round; `None` where a column does not apply.
#[derive(Debug, Clone, PartialEq)]
pub struct Cells {
    /// The subject.
    pub subject: Subject,
    /// (a) fast path.
    pub fast_path: Option<FastPath>,
    /// (b) saturated, one thread.
    pub saturated: Option<Run>,
    /// (c) shared by `threads` threads.
    pub shared: Option<SharedRun>,
    /// (d) burst.
    pub burst: Burst,
}

/// Measures (a) for `subject`; `None` for the burst-only rows.
pub fn measure_fast_path(subject: Subject, cfg: &Config) -> Result<Option<FastPath>, BenchError> {
    let v = FastPathVisit {
        duration: cfg.fast_path,
        warm_up: cfg.warm_up,
        per_tick: cfg.per_tick,
    };
    per_id_column(subject, v)
}

/// Measures (b) for `subject`; `None` for the burst-only rows.
pub fn measure_saturated(subject: Subject, cfg: &Config) -> Result<Option<Run>, BenchError> {
    let v = SaturatedVisit {
        duration: cfg.saturate,
        warm_up: cfg.warm_up,
    };
    per_id_column(subject, v)
}

/// Measures (c) for `subject`; `None` where one instance cannot be shared.
pub fn measure_shared(subject: Subject, cfg: &Config) -> Result<Option<SharedRun>, BenchError> {
    let v = SharedVisit {
        threads: cfg.threads,
        duration: cfg.shared,
        warm_up: cfg.warm_up,
        record_cap: cfg.record_cap,
    };
    subject.shared(v)
}

/// Measures (d) for `subject`: flakeid's default row waits like its
/// peers; the run-ahead rows use [`Config::run_ahead`].
pub fn measure_burst(subject: Subject, cfg: &Config) -> Result<Burst, BenchError> {
    let policy = match subject {
        Subject::FlakeidRunAhead | Subject::FlakeidBatch => cfg.run_ahead(),
        _ => SequenceExhaustion::Wait,
    };
    subject.burst(cfg.burst, policy)
}

/// Runs every measurement for every subject once. Subjects alternate within
/// each column so that a change in the machine's load hits them alike.
pub fn run_round(cfg: &Config, subjects: &[Subject]) -> Result<Vec<Cells>, BenchError> {
    let mut fast = Vec::new();
    for &s in subjects {
        fast.push(measure_fast_path(s, cfg)?);
    }
    let mut sat = Vec::new();
    for &s in subjects {
        sat.push(measure_saturated(s, cfg)?);
    }
    let mut shared = Vec::new();
    for &s in subjects {
        shared.push(measure_shared(s, cfg)?);
    }
    let mut cells = Vec::new();
    for (i, &s) in subjects.iter().enumerate() {
        cells.push(Cells {
            subject: s,
            fast_path: fast[i].clone(),
            saturated: sat[i],
            shared: shared[i].clone(),
            burst: measure_burst(s, cfg)?,
        });
    }
    Ok(cells)
}

/// Median and range of one cell over the rounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stat {
    /// Median.
    pub median: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
    /// Values.
    pub n: usize,
}

impl Stat {
    /// The statistic of `values`; `None` when empty.
    pub fn of(mut values: Vec<f64>) -> Option<Stat> {
        let median = median(&mut values)?;
        Some(Stat {
            median,
            min: values[0],
            max: values[values.len() - 1],
            n: values.len(),
        })
    }
}

/// The machine and software the numbers come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Machine {
    /// CPU model from `/proc/cpuinfo`.
    pub cpu: String,
    /// Logical CPUs listed in `/proc/cpuinfo`.
    pub cpus: usize,
    /// CPUs this process may use.
    pub available: usize,
    /// `rustc --version` of the compiler that built the bench.
    pub rustc: String,
    /// Versions of the compared crates (from Cargo.lock).
    pub versions: String,
    /// Whether debug assertions are on (numbers are then meaningless).
    pub debug: bool,
}

impl Machine {
    /// Describes this machine and build.
    pub fn detect() -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu = cpuinfo
            .lines()
            .find_map(|l| l.strip_prefix("model name"))
            .and_then(|l| l.split_once(':'))
            .map_or_else(|| "unknown".to_owned(), |(_, v)| v.trim().to_owned());
        let cpus = cpuinfo
            .lines()
            .filter(|l| l.starts_with("processor"))
            .count();
        Machine {
            cpu,
            cpus,
            available: std::thread::available_parallelism().map_or(0, usize::from),
            rustc: env!("FLAKEID_BENCH_RUSTC").to_owned(),
            versions: env!("FLAKEID_BENCH_VERSIONS").to_owned(),
            debug: cfg!(debug_assertions),
        }
    }
}

/// The 1, 5 and 15 minute load averages from `/proc/loadavg`.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|| "unknown".to_owned())
}

/// Renders the table (Markdown) with the medians over `rounds`, the range
/// in brackets when there are several rounds, and ratios to ferroid's
/// atomic generator in parentheses.
pub fn table(rounds: &[Vec<Cells>], cfg: &Config) -> String {
    let Some(first) = rounds.first() else {
        return String::new();
    };
    let base_row = first.iter().position(|c| c.subject == Subject::BASELINE);
    let a = |c: &Cells| c.fast_path.as_ref().map(|f| f.median_ns);
    let b = |c: &Cells| c.saturated.map(|r| r.ids_per_sec());
    let b_pct = |c: &Cells| {
        c.saturated
            .filter(|_| c.subject.capped())
            .map(|r| 100.0 * r.ids_per_sec() / TWITTER_CAP_PER_SEC)
    };
    let c_rate = |c: &Cells| c.shared.as_ref().map(|r| r.run.ids_per_sec());
    let c_vs_b =
        |c: &Cells| Some(c.shared.as_ref()?.run.ids_per_sec() / c.saturated?.ids_per_sec());
    let d = |c: &Cells| Some(c.burst.run.ids_per_sec());
    let base = |f: &dyn Fn(&Cells) -> Option<f64>| base_row.and_then(|r| stat_of(rounds, r, f));
    let (ba, bb, bc, bd) = (base(&a), base(&b), base(&c_rate), base(&d));

    let mut out = String::new();
    let _ = writeln!(
        out,
        "| generator | (a) ns/ID, not exhausted | (b) 1 thread, saturated, IDs/s | (b) % of 4.096M cap | (c) {t} threads shared, IDs/s | (c) vs (b) | (d) burst {n} IDs, IDs/s |",
        t = cfg.threads,
        n = cfg.burst,
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|");
    for (row, cells) in first.iter().enumerate() {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} |",
            cells.subject.label(),
            cell(stat_of(rounds, row, a), Unit::Ns, ba),
            cell(stat_of(rounds, row, b), Unit::PerSec, bb),
            cell(stat_of(rounds, row, b_pct), Unit::Percent, None),
            cell(stat_of(rounds, row, c_rate), Unit::PerSec, bc),
            cell(stat_of(rounds, row, c_vs_b), Unit::Ratio, None),
            cell(stat_of(rounds, row, d), Unit::PerSec, bd),
        );
    }
    out
}

/// The cost of the generator's metrics: the medians of the recorded row
/// over those of the row without a recorder, per column (ns/ID: higher is
/// costlier; IDs/s: lower is costlier). Empty unless both rows ran.
pub fn metrics_cost(rounds: &[Vec<Cells>]) -> String {
    let Some(first) = rounds.first() else {
        return String::new();
    };
    let row = |s: Subject| first.iter().position(|c| c.subject == s);
    let (Some(plain), Some(recorded)) = (row(Subject::Flakeid), row(Subject::FlakeidRecorded))
    else {
        return String::new();
    };
    let a = |c: &Cells| c.fast_path.as_ref().map(|f| f.median_ns);
    let b = |c: &Cells| c.saturated.map(|r| r.ids_per_sec());
    let c_rate = |c: &Cells| c.shared.as_ref().map(|r| r.run.ids_per_sec());
    let ratio = |f: &dyn Fn(&Cells) -> Option<f64>| match (
        stat_of(rounds, recorded, f),
        stat_of(rounds, plain, f),
    ) {
        (Some(r), Some(p)) if p.median > 0.0 => format!("{:.3}×", r.median / p.median),
        _ => "—".to_owned(),
    };
    format!(
        "- Metrics recorded / no recorder (medians): (a) ns/ID {}, (b) IDs/s {}, (c) IDs/s {}.\n",
        ratio(&a),
        ratio(&b),
        ratio(&c_rate)
    )
}

/// Notes under the table: how much each run checked, flakeid's lead.
pub fn notes(rounds: &[Vec<Cells>]) -> String {
    let mut out = String::new();
    for cells in rounds.iter().take(1) {
        for c in cells {
            if let Some(ahead) = c.burst.ahead_ms {
                let _ = writeln!(
                    out,
                    "- {}: after the burst its last ID is stamped {ahead} ms relative to the clock.",
                    c.subject.label()
                );
            }
        }
    }
    let mut slow = 0;
    let mut batches = 0;
    let mut checked = 0u64;
    let mut shared_ids = 0u64;
    for c in rounds.iter().flatten() {
        if let Some(f) = &c.fast_path {
            slow += f.slow_batches;
            batches += f.batches;
        }
        if let Some(s) = &c.shared {
            checked += s.checked;
            shared_ids += s.run.ids;
        }
    }
    let _ = writeln!(
        out,
        "- (a): {batches} timed batches in all, {slow} took longer than a millisecond (descheduled or waiting; the median ignores them)."
    );
    let _ = writeln!(
        out,
        "- Every ID of every run was checked to increase per thread; (c) additionally checked {checked} of its {shared_ids} IDs for cross-thread duplicates: none."
    );
    out
}

/// `v` run once on `subject`'s generator (waiting when a tick is used up);
/// `None` for the burst-only rows, which have no per-ID columns.
fn per_id_column<V: Visit>(subject: Subject, v: V) -> Result<Option<V::Out>, BenchError> {
    if !subject.per_id_columns() {
        return Ok(None);
    }
    subject.single(v, SequenceExhaustion::Wait).map(Some)
}

fn stat_of<F: Fn(&Cells) -> Option<f64>>(rounds: &[Vec<Cells>], row: usize, f: F) -> Option<Stat> {
    Stat::of(
        rounds
            .iter()
            .filter_map(|r| r.get(row).and_then(&f))
            .collect(),
    )
}

fn fmt_num(x: f64, unit: Unit) -> String {
    match unit {
        Unit::Ns => format!("{x:.1}"),
        Unit::PerSec => format!("{:.2}M", x / 1e6),
        Unit::Percent => format!("{x:.1}%"),
        Unit::Ratio => format!("{x:.2}"),
    }
}

#[derive(Clone, Copy)]
enum Unit {
    Ns,
    PerSec,
    Percent,
    Ratio,
}

fn cell(stat: Option<Stat>, unit: Unit, base: Option<Stat>) -> String {
    let Some(s) = stat else {
        return "—".to_owned();
    };
    let mut out = fmt_num(s.median, unit);
    if s.n > 1 {
        let _ = write!(out, " [{}–{}]", fmt_num(s.min, unit), fmt_num(s.max, unit));
    }
    if let Some(b) = base {
        let _ = write!(out, " ({:.2}×)", s.median / b.median);
    }
    out
}
