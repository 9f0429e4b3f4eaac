//! What the worker processes of the tests (`src/bin`) share: their output
//! lines, the wall clock they meet at, and their database URLs.

use std::io::Write as _;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use flakeid_segment::{SegmentError, SegmentIds, SegmentOptions};

/// Prints `line` on standard output at once (the test reads it line by
/// line while the worker runs).
pub fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// The wall clock, in Unix milliseconds.
pub fn wall_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// Sleeps (on tokio's timer) until the wall clock reads `at_ms`, so that
/// workers started one by one act at the same moment.
pub async fn start_at(at_ms: u64) {
    let now = u64::try_from(wall_ms()).unwrap_or(0);
    tokio::time::sleep(Duration::from_millis(at_ms.saturating_sub(now))).await;
}

/// The file of a `sqlite://PATH?…` URL, as Diesel opens it.
///
/// ```
/// assert_eq!(flakeid_tests::worker::sqlite_path("sqlite:///tmp/a.db?mode=rwc"), "/tmp/a.db");
/// ```
pub fn sqlite_path(url: &str) -> String {
    let path = url.strip_prefix("sqlite://").unwrap_or(url);
    path.split('?').next().unwrap_or(path).to_owned()
}

/// Starts a Diesel segment source as `options` say on the PostgreSQL or
/// MySQL-family database at `url`. It blocks until the first segment is
/// fetched: call it on a blocking thread.
///
/// # Errors
/// As `flakeid_diesel::segment::start`.
pub fn start_diesel_segment(
    url: String,
    options: SegmentOptions,
) -> Result<SegmentIds, SegmentError> {
    if url.starts_with("postgres") {
        flakeid_diesel::segment::start(
            move || <diesel::PgConnection as diesel::Connection>::establish(&url),
            options,
        )
    } else {
        flakeid_diesel::segment::start(
            move || <diesel::MysqlConnection as diesel::Connection>::establish(&url),
            options,
        )
    }
}
