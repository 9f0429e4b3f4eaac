//! The page at `/` in headless Chromium: it creates a team through the JSON
//! API and shows its ID, which must be the database's exactly (an ID above
//! 2^53, which a JavaScript number would round).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{JS_SAFE_LIMIT, Service, Sql};

/// The browser: `FLAKEID_CHROMIUM` if set, else the first of these on PATH.
const CANDIDATES: [&str; 3] = ["chromium", "chromium-browser", "google-chrome"];

fn chromium() -> String {
    if let Ok(path) = std::env::var("FLAKEID_CHROMIUM") {
        return path;
    }
    for name in CANDIDATES {
        let found = Command::new(name)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if found {
            return name.to_owned();
        }
    }
    panic!(
        "no headless browser: none of {CANDIDATES:?} runs and FLAKEID_CHROMIUM is unset. \
         Install one (Debian: apt-get install -y chromium; ./scripts/test.sh installs it)"
    );
}

/// Runs Chromium headless on `url` with `mode` (`--dump-dom` or
/// `--screenshot=FILE`), in a fresh profile; its standard output.
fn run_chromium(mode: &str, url: &str) -> String {
    let profile = tempfile::tempdir().expect("a profile dir");
    let output = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            "--window-size=1024,768",
            // Virtual time does not run while requests are in flight: the
            // page's fetches complete before the DOM is dumped.
            "--virtual-time-budget=10000",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(mode)
        .arg(url)
        .output()
        .expect("run chromium");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "chromium {mode} {url} failed ({}): {}\n{stdout}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The text of the element with `id="…"` in a dumped DOM.
fn element_text<'a>(dom: &'a str, id: &str) -> Option<&'a str> {
    let start = dom.find(&format!("id=\"{id}\""))?;
    let open_end = start + dom[start..].find('>')? + 1;
    let close = open_end + dom[open_end..].find('<')?;
    Some(&dom[open_end..close])
}

/// Where the screenshot is kept: under the target directory.
fn artefact(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("flakeid-service");
    std::fs::create_dir_all(&dir).expect("the artefact dir");
    dir.join(name)
}

#[test]
fn page_creates_a_team_and_shows_its_id_exactly() {
    let db = crate::sqlite();
    let service = Service::start("browser", &db.url, &[]);
    let sql = Sql::connect(&db.url);

    let dom = run_chromium(
        "--dump-dom",
        &format!("{}/?create=from-the-page", service.base),
    );
    assert!(
        dom.contains("data-ready=\"true\""),
        "the page finished without an error: {dom}"
    );
    let shown = element_text(&dom, "created-id")
        .unwrap_or_else(|| panic!("no #created-id in the page: {dom}"));
    let stored = sql.int("SELECT id FROM teams WHERE name = 'from-the-page'");
    assert_eq!(shown, stored.to_string(), "the page shows the stored ID");
    assert!(
        stored.unsigned_abs() > JS_SAFE_LIMIT,
        "{stored} is above 2^53"
    );
    assert!(
        dom.contains(&format!("data-id=\"{stored}\"")),
        "the team list shows it too: {dom}"
    );

    // A screenshot of the page after it created another team, kept as an
    // artefact of the run.
    let png = artefact("page.png");
    let _ = std::fs::remove_file(&png);
    run_chromium(
        &format!("--screenshot={}", png.display()),
        &format!("{}/?create=screenshot", service.base),
    );
    let bytes = std::fs::read(&png).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    assert!(
        bytes.len() > 5_000,
        "a page, not a blank: {} bytes",
        bytes.len()
    );
    assert_eq!(
        sql.int("SELECT COUNT(*) FROM teams WHERE name = 'screenshot'"),
        1
    );
    println!("screenshot: {}", png.display());
}
