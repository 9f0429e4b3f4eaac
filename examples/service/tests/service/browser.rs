//! The page at `/` in headless Chromium, driven as a user would: loading it
//! writes nothing, and its form creates a team through the JSON API and
//! shows its ID, which must be the database's exactly (an ID above 2^53,
//! which a JavaScript number would round).
//!
//! Chromium is driven over the DevTools protocol on a pipe
//! (`--remote-debugging-pipe`: commands on its file descriptor 3, answers
//! on 4, each a JSON text ended by a NUL byte).

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::{JS_SAFE_LIMIT, Service, Sql};

/// The browser: `FLAKEID_CHROMIUM` if set, else the first of these on PATH.
const CANDIDATES: [&str; 3] = ["chromium", "chromium-browser", "google-chrome"];

/// The longest a DevTools command or a wait for the page may take (a bound
/// on a hang, not a timing assertion).
const PATIENCE: Duration = Duration::from_secs(60);

#[test]
fn page_creates_a_team_through_its_form_and_shows_its_id_exactly() {
    let db = crate::sqlite();
    let service = Service::start("browser", &db.url, &[]);
    let sql = Sql::connect(&db.url);
    let mut browser = Browser::start();

    // Loading the page, with whatever query, only reads.
    browser.open(&format!("{}/?create=from-a-link", service.base));
    browser.wait_for("document.body?.dataset.ready ?? ''", "true");
    assert_eq!(
        sql.int("SELECT COUNT(*) FROM teams"),
        0,
        "loading the page created a team"
    );

    // The form: a POST through the API.
    browser.eval(
        "document.getElementById('team-name').value = 'from-the-page';
         document.getElementById('team-players').value = 'Ann\\nBo';
         document.getElementById('new-team').requestSubmit();
         true",
    );
    let shown = browser.wait_for_text("document.getElementById('created-id')?.textContent ?? ''");
    let stored = sql.int("SELECT id FROM teams WHERE name = 'from-the-page'");
    assert_eq!(shown, stored.to_string(), "the page shows the stored ID");
    assert!(
        stored.unsigned_abs() > JS_SAFE_LIMIT,
        "{stored} is above 2^53"
    );
    let listed = browser.wait_for_text(&format!(
        "document.querySelector('tr[data-id=\"{stored}\"] td')?.textContent ?? ''"
    ));
    assert_eq!(listed, stored.to_string(), "the team list shows it too");
    assert_eq!(
        sql.int(&format!(
            "SELECT COUNT(*) FROM players WHERE team_id = {stored}"
        )),
        2
    );
    assert_eq!(
        browser.eval("document.getElementById('error').textContent"),
        json!("")
    );

    // A screenshot of the page, kept as an artefact of the run.
    let png = artefact("page.png");
    let bytes = browser.screenshot();
    std::fs::write(&png, &bytes).unwrap_or_else(|e| panic!("{}: {e}", png.display()));
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    assert!(
        bytes.len() > 5_000,
        "a page, not a blank: {} bytes",
        bytes.len()
    );
    println!("screenshot: {}", png.display());

    // Nothing but the form's POST wrote: one team.
    assert_eq!(sql.int("SELECT COUNT(*) FROM teams"), 1);
    browser.close();
}

/// Headless Chromium with one page, driven over the DevTools protocol.
struct Browser {
    child: Child,
    commands: ChildStdin,
    answers: Receiver<Value>,
    next_id: u64,
    session: Option<String>,
    _profile: tempfile::TempDir,
}

impl Browser {
    fn start() -> Browser {
        let profile = tempfile::tempdir().expect("a profile dir");
        // The shell gives Chromium our pipes as its descriptors 3 and 4.
        let mut child = Command::new("sh")
            .arg("-c")
            .arg("exec \"$0\" \"$@\" 3<&0 4>&1 </dev/null >/dev/null")
            .arg(chromium())
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
                "--remote-debugging-pipe",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromium");
        let commands = child.stdin.take().expect("piped");
        let stdout = child.stdout.take().expect("piped");
        let (tx, answers) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut message = Vec::new();
            while reader.read_until(0, &mut message).is_ok_and(|n| n > 0) {
                message.pop_if(|b| *b == 0);
                if let Ok(value) = serde_json::from_slice::<Value>(&message)
                    && tx.send(value).is_err()
                {
                    break;
                }
                message.clear();
            }
        });
        Browser {
            child,
            commands,
            answers,
            next_id: 0,
            session: None,
            _profile: profile,
        }
    }

    /// Sends one command and waits for its answer's `result`.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = &self.session {
            message["sessionId"] = json!(session);
        }
        let mut bytes = serde_json::to_vec(&message).expect("JSON");
        bytes.push(0);
        self.commands
            .write_all(&bytes)
            .and_then(|()| self.commands.flush())
            .unwrap_or_else(|e| panic!("send {method} to chromium: {e}"));
        let deadline = Instant::now() + PATIENCE;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let answer = self
                .answers
                .recv_timeout(left)
                .unwrap_or_else(|e| panic!("no answer from chromium to {method}: {e}"));
            if answer["id"] == json!(id) {
                assert!(
                    answer.get("error").is_none(),
                    "chromium refused {method}: {answer}"
                );
                return answer["result"].clone();
            }
        }
    }

    /// Opens `url` in a new page and attaches to it.
    fn open(&mut self, url: &str) {
        let target = self.call("Target.createTarget", json!({"url": url}));
        let target = target["targetId"].as_str().expect("a target").to_owned();
        let attached = self.call(
            "Target.attachToTarget",
            json!({"targetId": target, "flatten": true}),
        );
        self.session = Some(
            attached["sessionId"]
                .as_str()
                .expect("a session")
                .to_owned(),
        );
    }

    /// The value of a JavaScript expression in the page.
    fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(
            result.get("exceptionDetails").is_none(),
            "{expression}: {result}"
        );
        result["result"]["value"].clone()
    }

    /// Waits until `expression` is `want`.
    fn wait_for(&mut self, expression: &str, want: &str) {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let value = self.eval(expression);
            if value == json!(want) {
                return;
            }
            assert!(
                Instant::now() < deadline && value != json!("error"),
                "{expression} is {value}, not {want:?}; the page says {}",
                self.eval("document.getElementById('error')?.textContent ?? ''")
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until `expression` is a non-empty string, and returns it.
    fn wait_for_text(&mut self, expression: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(text) = self.eval(expression).as_str().filter(|t| !t.is_empty()) {
                return text.to_owned();
            }
            assert!(
                Instant::now() < deadline,
                "{expression} stayed empty; the page says {}",
                self.eval("document.getElementById('error')?.textContent ?? ''")
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A PNG of the page.
    fn screenshot(&mut self) -> Vec<u8> {
        let shot = self.call("Page.captureScreenshot", json!({"format": "png"}));
        base64_decode(shot["data"].as_str().expect("base64 data"))
    }

    fn close(mut self) {
        self.session = None;
        self.call("Browser.close", json!({}));
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

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

/// Standard base64 (with padding), as DevTools sends binary data.
fn base64_decode(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut bits) = (0_u32, 0);
    for c in text.bytes().filter(|c| *c != b'=') {
        let v = ALPHABET
            .iter()
            .position(|a| *a == c)
            .unwrap_or_else(|| panic!("not base64: {c:?}"));
        acc = (acc << 6) | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    out
}

/// Where the screenshot is kept: under the target directory.
fn artefact(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("flakeid-service");
    std::fs::create_dir_all(&dir).expect("the artefact dir");
    dir.join(name)
}
