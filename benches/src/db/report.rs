//! Medians over rounds, ratios to the baseline, and the Markdown tables.
//!
//! A ratio is taken within each round (the run against the baseline of the
//! same round, so a change in the machine's load hits both) and the median
//! of those per-round ratios is shown.

use std::fmt::Write as _;

use crate::measure;

use super::config::{Config, Key, Path, RunSpec, Server, Table};
use super::run::Outcome;

/// A measured quantity of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Rows per second over the whole run.
    RowsPerSec,
    /// Rows per second over the last 10 % of the rows.
    Last10,
    /// Bytes of the primary key.
    PkBytes,
}

impl Metric {
    fn of(self, o: &Outcome) -> f64 {
        match self {
            Metric::RowsPerSec => o.rows_per_sec,
            Metric::Last10 => o.last10_rows_per_sec,
            Metric::PkBytes => o.pk_bytes as f64,
        }
    }
}

/// The median of the finite values (the mean of the middle two for an even
/// count).
pub fn median(mut values: Vec<f64>) -> Option<f64> {
    values.retain(|v| v.is_finite());
    measure::median(&mut values)
}

/// Results of all rounds.
pub struct Results<'a> {
    outcomes: &'a [Outcome],
}

impl<'a> Results<'a> {
    /// Wraps the outcomes of every run of every round.
    pub fn new(outcomes: &'a [Outcome]) -> Self {
        Results { outcomes }
    }

    fn runs(&self, spec: RunSpec) -> impl Iterator<Item = &'a Outcome> + '_ {
        self.outcomes.iter().filter(move |o| o.spec == spec)
    }

    /// Median of `metric` over the rounds of `spec`.
    pub fn value(&self, spec: RunSpec, metric: Metric) -> Option<f64> {
        median(self.runs(spec).map(|o| metric.of(o)).collect())
    }

    /// Median over rounds of `metric(a) / metric(b)`, each round's `a`
    /// against the same round's `b`.
    pub fn ratio(&self, a: RunSpec, b: RunSpec, metric: Metric) -> Option<f64> {
        median(
            self.runs(a)
                .filter_map(|oa| {
                    self.runs(b)
                        .find(|ob| ob.round == oa.round)
                        .map(|ob| metric.of(oa) / metric.of(ob))
                })
                .collect(),
        )
    }

    /// Median leaf density (PostgreSQL) of `spec`'s primary key.
    pub fn density(&self, spec: RunSpec) -> Option<f64> {
        median(self.runs(spec).filter_map(|o| o.pk_leaf_density).collect())
    }
}

/// The keys table of `server`: one row per key, columns per writer count.
pub fn keys_table(cfg: &Config, results: &Results<'_>, server: Server, label: &str) -> String {
    let mut out = String::new();
    let rows = if server == Server::MySql {
        cfg.mysql_rows
    } else {
        cfg.pg_rows
    };
    let _ = writeln!(
        out,
        "#### {label}: {} rows per run through {}, median of {} round(s), (×) = ratio to the baseline\n",
        group(rows),
        cfg.key_path.label(),
        cfg.rounds
    );
    let mut header = "| key |".to_owned();
    let mut rule = "|---|".to_owned();
    for w in &cfg.writers {
        let s = if *w == 1 { "" } else { "s" };
        let _ = write!(
            header,
            " {w} writer{s}: rows/s | last 10 % rows/s | primary key |"
        );
        rule.push_str("---:|---:|---:|");
    }
    let _ = writeln!(out, "{header}\n{rule}");
    for &key in cfg.keys.iter().filter(|k| k.applies_to(server)) {
        let mut line = format!("| {} |", key.label(server));
        for &writers in &cfg.writers {
            let spec = RunSpec {
                table: Table::Keys,
                server,
                key,
                path: cfg.key_path,
                writers,
                rows,
            };
            let base = spec.baseline();
            let density = results
                .density(spec)
                .map_or(String::new(), |d| format!(", {d:.0} % full"));
            let _ = write!(
                line,
                " {} ({}) | {} ({}) | {} ({}{density}) |",
                rate(results.value(spec, Metric::RowsPerSec)),
                times(results.ratio(spec, base, Metric::RowsPerSec)),
                rate(results.value(spec, Metric::Last10)),
                times(results.ratio(spec, base, Metric::Last10)),
                mib(results.value(spec, Metric::PkBytes)),
                times(results.ratio(spec, base, Metric::PkBytes)),
            );
        }
        let _ = writeln!(out, "{line}");
    }
    out
}

/// The paths table of `server`: what each insert path costs.
pub fn paths_table(cfg: &Config, results: &Results<'_>, server: Server, label: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "#### {label}: insert paths, {} rows per run, {} writers, median of {} round(s)\n",
        group(cfg.path_rows),
        cfg.path_writers,
        cfg.rounds
    );
    let _ = writeln!(
        out,
        "| path | key | rows/s | vs sqlx, same key | vs baseline key, same path | primary key |\n\
         |---|---|---:|---:|---:|---:|"
    );
    for &path in &cfg.paths {
        for key in [Key::Db, Key::FlakeBatch] {
            if !path.applies_to(key) || !cfg.keys.contains(&key) {
                continue;
            }
            let spec = RunSpec {
                table: Table::Paths,
                server,
                key,
                path,
                writers: cfg.path_writers,
                rows: cfg.path_rows,
            };
            let sqlx = RunSpec {
                path: Path::Sqlx,
                ..spec
            };
            let sqlx_ratio = if cfg.paths.contains(&Path::Sqlx) {
                times(results.ratio(spec, sqlx, Metric::RowsPerSec))
            } else {
                "—".to_owned()
            };
            let base = spec.baseline();
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {} ({}) |",
                path.label(),
                key.label(server),
                rate(results.value(spec, Metric::RowsPerSec)),
                sqlx_ratio,
                times(results.ratio(spec, base, Metric::RowsPerSec)),
                mib(results.value(spec, Metric::PkBytes)),
                times(results.ratio(spec, base, Metric::PkBytes)),
            );
        }
    }
    out
}

/// One target and what was measured against it.
#[derive(Debug, Clone, PartialEq)]
pub struct TargetCheck {
    /// The target, in words.
    pub target: String,
    /// Each measured ratio, labelled.
    pub measured: Vec<(String, f64)>,
    /// The bound.
    pub bound: f64,
    /// Whether the ratio must be at least (true) or at most (false) the bound.
    pub at_least: bool,
}

impl TargetCheck {
    /// Whether every measured ratio meets the bound (`None` if nothing was measured).
    pub fn met(&self) -> Option<bool> {
        if self.measured.is_empty() {
            return None;
        }
        Some(self.measured.iter().all(|(_, r)| {
            if self.at_least {
                *r >= self.bound
            } else {
                *r <= self.bound
            }
        }))
    }
}

/// The adoption targets, checked against the keys table.
pub fn targets(
    cfg: &Config,
    results: &Results<'_>,
    labels: &[(Server, String)],
) -> Vec<TargetCheck> {
    let label = |s: Server| {
        labels
            .iter()
            .find(|(l, _)| *l == s)
            .map_or_else(|| s.name().to_owned(), |(_, l)| l.clone())
    };
    let spec = |server: Server, key: Key, writers: usize| RunSpec {
        table: Table::Keys,
        server,
        key,
        path: cfg.key_path,
        writers,
        rows: if server == Server::MySql {
            cfg.mysql_rows
        } else {
            cfg.pg_rows
        },
    };
    let most = cfg.writers.iter().copied().max().unwrap_or(1);
    let flake = [Key::FlakeBatch, Key::FlakeRow, Key::FlakeRowSeqNode];
    let mut checks = Vec::new();
    let mut push =
        |target: String, bound: f64, at_least: bool, cells: Vec<(String, Option<f64>)>| {
            checks.push(TargetCheck {
                target,
                measured: cells
                    .into_iter()
                    .filter_map(|(l, r)| r.map(|r| (l, r)))
                    .collect(),
                bound,
                at_least,
            });
        };
    for &server in &cfg.servers {
        let (bound, name) = if server == Server::MySql {
            (0.9, "InnoDB")
        } else {
            (1.0, "PostgreSQL")
        };
        let mut cells = Vec::new();
        let mut vs_uuid = Vec::new();
        for key in flake {
            for &w in &cfg.writers {
                let s = spec(server, key, w);
                cells.push((
                    format!("{key} {w}w"),
                    results.ratio(s, s.baseline(), Metric::RowsPerSec),
                ));
                vs_uuid.push((
                    format!("{key} {w}w"),
                    results.ratio(s, spec(server, Key::UuidV4, w), Metric::Last10),
                ));
            }
        }
        push(
            format!(
                "{}: flakeid rows/s ≥ {bound}× baseline ({name})",
                label(server)
            ),
            bound,
            true,
            cells,
        );
        let s = spec(server, Key::FlakeBatch, most);
        push(
            format!(
                "{}: primary key ≤ 1.05× baseline, {most} writers, reserved per batch",
                label(server)
            ),
            1.05,
            false,
            vec![(
                format!("flake-batch {most}w"),
                results.ratio(s, s.baseline(), Metric::PkBytes),
            )],
        );
        let uuid_bound = if server == Server::MySql { 10.0 } else { 2.0 };
        push(
            format!(
                "{}: flakeid rows/s ≥ {uuid_bound}× UUIDv4 once the table outgrows the buffer pool (last 10 %)",
                label(server)
            ),
            uuid_bound,
            true,
            vs_uuid,
        );
        if server == Server::Postgres18 && cfg.keys.contains(&Key::PgUuidV7) {
            let mut speed = Vec::new();
            let mut size = Vec::new();
            for key in flake {
                for &w in &cfg.writers {
                    let s = spec(server, key, w);
                    let v7 = spec(server, Key::PgUuidV7, w);
                    speed.push((
                        format!("{key} {w}w"),
                        results.ratio(s, v7, Metric::RowsPerSec),
                    ));
                    size.push((format!("{key} {w}w"), results.ratio(s, v7, Metric::PkBytes)));
                }
            }
            push(
                format!("{}: flakeid rows/s ≥ 1.2× `uuidv7()`", label(server)),
                1.2,
                true,
                speed,
            );
            push(
                format!("{}: flakeid primary key ≤ 0.6× `uuidv7()`", label(server)),
                0.6,
                false,
                size,
            );
        }
    }
    checks
}

/// The targets as a Markdown table.
pub fn targets_table(checks: &[TargetCheck]) -> String {
    let mut out =
        "| target | measured (ratio, median of rounds) | met |\n|---|---|---|\n".to_owned();
    for c in checks {
        let measured: Vec<String> = c
            .measured
            .iter()
            .map(|(l, r)| format!("{l} {r:.2}×"))
            .collect();
        let met = match c.met() {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "not measured",
        };
        let _ = writeln!(out, "| {} | {} | {met} |", c.target, measured.join(", "));
    }
    out
}

/// `5000000` as `5,000,000`.
pub fn group(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn rate(v: Option<f64>) -> String {
    match v {
        Some(v) if v >= 1e6 => format!("{:.2}M", v / 1e6),
        Some(v) if v >= 1e3 => format!("{:.1}k", v / 1e3),
        Some(v) => format!("{v:.0}"),
        None => "—".to_owned(),
    }
}

fn mib(v: Option<f64>) -> String {
    v.map_or_else(
        || "—".to_owned(),
        |b| format!("{:.1} MiB", b / (1u64 << 20) as f64),
    )
}

fn times(v: Option<f64>) -> String {
    v.map_or_else(|| "—".to_owned(), |r| format!("{r:.2}×"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(key: Key, round: usize, rps: f64, pk: u64) -> Outcome {
        Outcome {
            spec: RunSpec {
                table: Table::Keys,
                server: Server::Postgres,
                key,
                path: Path::Diesel,
                writers: 4,
                rows: 100,
            },
            round,
            rows: 100,
            distinct_keys: 100,
            secs: 1.0,
            rows_per_sec: rps,
            last10_rows_per_sec: rps,
            pk_bytes: pk,
            pk_leaf_pages: None,
            pk_leaf_density: None,
            load_at_start: None,
        }
    }

    #[test]
    fn ratios_are_medians_of_per_round_ratios() {
        let outcomes = vec![
            outcome(Key::Db, 1, 100.0, 1000),
            outcome(Key::Db, 2, 50.0, 1000),
            outcome(Key::Db, 3, 100.0, 1000),
            outcome(Key::FlakeBatch, 1, 110.0, 1000),
            outcome(Key::FlakeBatch, 2, 40.0, 1100),
            outcome(Key::FlakeBatch, 3, 90.0, 1000),
        ];
        let results = Results::new(&outcomes);
        let flake = outcomes[3].spec;
        // Per round: 1.1, 0.8, 0.9 → median 0.9 (the ratio of medians would be 90/100 too,
        // but a slow round of both counts once).
        assert_eq!(
            results.ratio(flake, flake.baseline(), Metric::RowsPerSec),
            Some(0.9)
        );
        assert_eq!(results.value(flake, Metric::RowsPerSec), Some(90.0));
        assert_eq!(
            results.ratio(flake, flake.baseline(), Metric::PkBytes),
            Some(1.0)
        );
    }

    #[test]
    fn medians_and_grouping() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(vec![]), None);
        assert_eq!(group(5_000_000), "5,000,000");
        assert_eq!(group(999), "999");
    }

    #[test]
    fn targets_say_whether_they_are_met() {
        let check = TargetCheck {
            target: "t".to_owned(),
            measured: vec![("a".to_owned(), 1.01), ("b".to_owned(), 0.99)],
            bound: 1.0,
            at_least: true,
        };
        assert_eq!(check.met(), Some(false));
        assert!(targets_table(&[check]).contains("**no**"));
    }
}
