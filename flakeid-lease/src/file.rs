//! A local high-water file (see [`HighWaterFile`]).

use core::time::Duration;
use std::fs::{self, File, OpenOptions, TryLockError};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

use thiserror::Error;

use flakeid_core::__private::Ceiling;
use flakeid_core::__private::sealable;
use flakeid_core::CeilingWait;
use flakeid_core::layout::{BitLayout, Layout};
use flakeid_core::node::LeasedGenerator;
use flakeid_core::{Clock, MonotonicClock};
use flakeid_core::{ConfigError, FenceReason};
use flakeid_core::{Generator, GeneratorBuilder};

/// How to open a [`HighWaterFile`] (see there for what it guarantees).
#[derive(Debug, Clone)]
pub struct HighWaterFileOptions<C = MonotonicClock> {
    path: PathBuf,
    clock: C,
    lead: Duration,
    every: Duration,
    at_ceiling: CeilingWait,
}

impl HighWaterFileOptions<MonotonicClock> {
    /// Options for the file at `path` (created if missing), with
    /// [`HighWaterFileOptions::DEFAULT_LEAD`], [`HighWaterFileOptions::DEFAULT_EVERY`] and [`CeilingWait::default`].
    pub fn new(path: impl Into<PathBuf>) -> Self {
        HighWaterFileOptions {
            path: path.into(),
            clock: MonotonicClock::new(),
            lead: HighWaterFileOptions::DEFAULT_LEAD,
            every: HighWaterFileOptions::DEFAULT_EVERY,
            at_ceiling: CeilingWait::default(),
        }
    }
}

impl<C: Clock + Clone> HighWaterFileOptions<C> {
    /// The generator's clock.
    pub fn clock<C2: Clock + Clone>(self, clock: C2) -> HighWaterFileOptions<C2> {
        HighWaterFileOptions {
            path: self.path,
            clock,
            lead: self.lead,
            every: self.every,
            at_ceiling: self.at_ceiling,
        }
    }

    flakeid_core::__private::setters! {
        /// How far ahead of the clock each write sets the ceiling.
        lead(lead: Duration) => lead = lead;

        /// How often the file is rewritten; shorter than the lead.
        every(every: Duration) => every = every;

        /// What the generator does at its ceiling.
        at_ceiling(policy: CeilingWait) => at_ceiling = policy;
    }

    /// Locks the file, reads its mark, persists the first ceiling and
    /// starts the thread that raises it, for `node` of `layout`.
    ///
    /// ```
    /// use flakeid_core::layout::Layout;
    /// use flakeid_core::layout::presets;
    /// use flakeid_lease::HighWaterFileOptions;
    ///
    /// let dir = std::env::temp_dir().join(format!("flakeid-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// let path = dir.join("node-7.hw");
    /// let file = HighWaterFileOptions::new(&path).open(presets::twitter(), 7)?;
    /// let generator = file.generator_builder().build()?;
    /// let id = generator.next_id()?;
    /// let mark = file.release(&generator)?;
    /// // The next run starts after everything this one issued.
    /// let again = HighWaterFileOptions::new(&path).open(presets::twitter(), 7)?;
    /// assert_eq!(again.resume_after_millis(), mark);
    /// let generator = again.generator_builder().build()?;
    /// assert!(generator.next_id()? > id);
    /// again.release(&generator)?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`HighWaterFileError::Locked`] when another process uses the file
    /// (including, until it runs another program or exits, a child process
    /// started while this process held the file: it shares the lock's
    /// descriptor),
    /// [`HighWaterFileError::Parse`] when it holds something else,
    /// [`HighWaterFileError::Io`] when it cannot be read or written,
    /// [`HighWaterFileError::InvalidOption`] for a lead or interval that
    /// cannot work, [`HighWaterFileError::Config`] for a node out of range.
    pub fn open<L: Layout + Clone>(
        self,
        layout: L,
        node: u64,
    ) -> Result<HighWaterFile<L, C>, HighWaterFileError> {
        if node > layout.max_node() {
            return Err(ConfigError::NodeOutOfRange {
                node,
                max: layout.max_node(),
            }
            .into());
        }
        if self.every.is_zero() || self.every >= self.lead {
            return Err(HighWaterFileError::InvalidOption {
                option: "every",
                value: format!("{:?}", self.every),
                reason: format!(
                    "between 0 and the lead ({:?}), or the generator reaches its ceiling between writes",
                    self.lead
                ),
            });
        }
        let shown = self.path.display().to_string();
        let io = |action: &'static str| {
            let shown = shown.clone();
            move |e: std::io::Error| HighWaterFileError::Io {
                path: shown,
                action,
                message: e.to_string(),
            }
        };
        // One file under two names (a symlink, `dir/../file`) is one file:
        // the lock and the writes go to the file itself.
        let path = resolve(&self.path).map_err(io("resolve the path of"))?;
        let lock_path = with_suffix(&path, ".lock");
        let lock = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io("open the lock file"))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                return Err(HighWaterFileError::Locked {
                    path: shown,
                    lock_path: lock_path.display().to_string(),
                });
            }
            Err(TryLockError::Error(e)) => return Err(io("lock")(e)),
        }
        let resume_after = match fs::read_to_string(&path) {
            Ok(text) => parse_mark(&text).ok_or_else(|| HighWaterFileError::Parse {
                path: shown.clone(),
                content: text.chars().take(64).collect(),
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
            Err(e) => return Err(io("read")(e)),
        };
        let lead_millis = u64::try_from(self.lead.as_millis()).unwrap_or(u64::MAX);
        let first = self
            .clock
            .now_millis()
            .max(resume_after)
            .saturating_add(lead_millis);
        write_mark(&path, first).map_err(io("write"))?;
        let ceiling = Arc::new(Ceiling::new(self.at_ceiling));
        ceiling.raise(first, self.clock.now_millis());
        let shared = Arc::new(Shared {
            path,
            clock: self.clock,
            ceiling,
            lead_millis,
            every: self.every,
            stop: Mutex::new(false),
            stopped: Condvar::new(),
        });
        let thread_shared = shared.clone();
        let thread = std::thread::Builder::new()
            .name(format!("flakeid-hw-{node}"))
            .spawn(move || thread_shared.run())
            .map_err(io("start the writer thread"))?;
        Ok(HighWaterFile {
            shared,
            layout,
            node,
            resume_after,
            thread: Some(thread),
            _lock: lock,
        })
    }
}

/// A local high-water file: the ceiling of one machine's fixed node ID,
/// kept on disk.
///
/// The node ID comes from elsewhere (the environment, a StatefulSet
/// ordinal): the file does not coordinate processes, it remembers time.
/// Before the generator may stamp IDs up to a ceiling, the ceiling is
/// written to the file (write to a temporary file, `fsync`, rename over
/// the file, `fsync` the directory), and a thread raises it every
/// [`every`](HighWaterFileOptions::every) to [`lead`](HighWaterFileOptions::lead)
/// ahead of the clock. On start the generator resumes after the mark in the
/// file. So a process restarted on the same machine with the same file
/// issues no ID its predecessor issued, even when the wall clock was
/// stepped back between the runs, the restart fell in the same tick, or
/// the predecessor ran ahead of the clock; and a process whose disk stops
/// taking writes stops issuing at its ceiling.
///
/// A lock file (`<path>.lock`, locked while the [`HighWaterFile`] lives)
/// refuses a second process using the same file at once on this machine,
/// whatever name each gives it: the path is resolved first (symlinks
/// followed, the directory made canonical), and the lock and the marks go
/// to the file itself.
/// What the file cannot do: tell two machines (or two files) that they
/// were given the same node ID. Use a [lease](crate::LeaseOptions) for that.
///
/// After a crash the file holds the last ceiling, up to the lead ahead of
/// the crash: the restarted process waits until its clock passes it (the
/// default lead, 500 ms, is within the default
/// [`ClockRegression`](flakeid_core::ClockRegression) wait of 1 s). A
/// [`release`](HighWaterFile::release) records the exact last tick
/// instead, so a clean restart does not wait.
///
/// ```
/// use flakeid_core::layout::presets;
/// use flakeid_lease::HighWaterFileOptions;
///
/// let dir = std::env::temp_dir().join(format!("flakeid-doc-hw-file-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let file = HighWaterFileOptions::new(dir.join("node-3.hw")).open(presets::twitter(), 3)?;
/// assert_eq!((file.node(), file.resume_after_millis()), (3, 0)); // a new file
/// let generator = file.generator_builder().build()?;
/// let id = generator.next_id()?;
/// // The file already holds a ceiling later than every ID issued.
/// assert!(file.ceiling_millis() >= presets::twitter().timestamp_millis(id));
/// let mark = file.release(&generator)?;
/// assert_eq!(std::fs::read_to_string(dir.join("node-3.hw"))?.trim(), mark.to_string());
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct HighWaterFile<L = BitLayout, C = MonotonicClock> {
    shared: Arc<Shared<C>>,
    layout: L,
    node: u64,
    resume_after: u64,
    thread: Option<JoinHandle<()>>,
    /// Held (locked) for as long as the file is in use.
    _lock: File,
}

impl<L, C> core::fmt::Debug for HighWaterFile<L, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HighWaterFile")
            .field("path", &self.shared.path)
            .field("node", &self.node)
            .field("resume_after", &self.resume_after)
            .field("ceiling_millis", &self.shared.ceiling.millis())
            .finish_non_exhaustive()
    }
}

impl<L: Layout + Clone, C: Clock + Clone> HighWaterFile<L, C> {
    /// The node ID.
    pub fn node(&self) -> u64 {
        self.node
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.shared.path
    }

    /// The mark the file held when it was opened (Unix ms; 0 for a new
    /// file): the generator stamps its IDs after it.
    pub fn resume_after_millis(&self) -> u64 {
        self.resume_after
    }

    /// The generator's ceiling (Unix ms), raised by each write: the
    /// generator stamps no ID later than this.
    pub fn ceiling_millis(&self) -> u64 {
        self.shared.ceiling.millis()
    }

    /// A builder for the node's generator: the node, the clock,
    /// [`resume_after`](GeneratorBuilder::resume_after) the file's mark and
    /// the file's ceiling. Its node and resume point are the file's:
    /// changing them makes [`build`](GeneratorBuilder::build) fail with
    /// [`ConfigError::FixedBySource`](flakeid_core::ConfigError::FixedBySource).
    pub fn generator_builder(&self) -> GeneratorBuilder<L, C> {
        Generator::builder(self.layout.clone(), self.node)
            .clock(self.shared.clock.clone())
            .resume_after(self.resume_after)
            .ceiling(self.shared.ceiling.clone())
            .owned_by(
                format!("the high-water file {}", self.shared.path.display()),
                None,
            )
    }

    /// Stops the writer and `generator` (it issues nothing more) and
    /// records the exact mark, the last millisecond of the last tick the
    /// generator issued IDs in, so that the next run need not wait.
    /// Returns the mark.
    ///
    /// # Errors
    /// [`HighWaterFileError::NotThisNode`] for a generator built from
    /// another node source; [`HighWaterFileError::Io`] when the mark
    /// cannot be written (the file then keeps the last ceiling).
    pub fn release<G: LeasedGenerator + ?Sized>(
        mut self,
        generator: &G,
    ) -> Result<u64, HighWaterFileError> {
        let generator = sealable(generator);
        let path = self.shared.path.display().to_string();
        if !generator.uses(&self.shared.ceiling) {
            return Err(HighWaterFileError::NotThisNode { path });
        }
        self.stop(FenceReason::Released {
            released_millis: self.shared.clock.now_millis(),
        });
        let last = generator.seal();
        let mark = last.unwrap_or(0).max(self.resume_after);
        write_mark(&self.shared.path, mark).map_err(|e| HighWaterFileError::Io {
            path,
            action: "write",
            message: e.to_string(),
        })?;
        Ok(mark)
    }

    fn stop(&mut self, reason: FenceReason) {
        self.shared.stop();
        self.shared.ceiling.close(reason);
        if let Some(t) = self.thread.take() {
            // A panicked writer raised nothing more; the ceiling is closed.
            let _ = t.join();
        }
    }
}

impl<L, C> Drop for HighWaterFile<L, C> {
    fn drop(&mut self) {
        if let Some(t) = self.thread.take() {
            *self
                .shared
                .stop
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = true;
            self.shared.stopped.notify_all();
            self.shared.ceiling.close(FenceReason::Dropped);
            let _ = t.join();
        }
    }
}

/// A local high-water file could not be read, written or locked.
///
/// ```
/// use std::time::Duration;
/// use flakeid_core::layout::presets;
/// use flakeid_lease::{HighWaterFileError, HighWaterFileOptions};
///
/// let dir = std::env::temp_dir().join(format!("flakeid-doc-hw-error-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let path = dir.join("node-3.hw");
/// let first = HighWaterFileOptions::new(&path).open(presets::twitter(), 3)?;
/// // A second user of the file, in this process or another, is refused.
/// let e = HighWaterFileOptions::new(&path).open(presets::twitter(), 3).unwrap_err();
/// assert!(matches!(e, HighWaterFileError::Locked { .. }));
/// // Written less often than its lead, the ceiling would be reached between writes.
/// let slow = HighWaterFileOptions::new(&path).every(Duration::from_secs(1));
/// let e = slow.open(presets::twitter(), 3).unwrap_err();
/// assert!(matches!(e, HighWaterFileError::InvalidOption { option: "every", .. }));
/// drop(first);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum HighWaterFileError {
    /// The file or its lock could not be opened, read or written.
    #[error("high-water file {path}: cannot {action}: {message}")]
    Io {
        /// The path.
        path: String,
        /// What was being done (`"read"`, `"write"`, `"lock"` …).
        action: &'static str,
        /// The operating system's message.
        message: String,
    },
    /// The file does not hold a high-water mark.
    #[error(
        "high-water file {path} holds {content:?}, not a high-water mark (Unix milliseconds, digits only)"
    )]
    Parse {
        /// The path.
        path: String,
        /// The content (shortened to its first 64 characters).
        content: String,
    },
    /// Another process holds the file's lock: two processes with one file
    /// (one node ID) would issue the same IDs.
    #[error(
        "high-water file {path} is in use by another process (it holds {lock_path}); give each \
         process its own node ID and file"
    )]
    Locked {
        /// The path.
        path: String,
        /// The lock file.
        lock_path: String,
    },
    /// An option has a value that cannot work.
    #[error("high-water file option `{option}` = {value} is invalid: {reason}")]
    InvalidOption {
        /// The option (the method's name).
        option: &'static str,
        /// The value given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// `release` was given a generator built from another file node.
    #[error(
        "the high-water file {path} cannot be released with a generator built from another node source"
    )]
    NotThisNode {
        /// The path.
        path: String,
    },
    /// The generator could not be configured.
    #[error(transparent)]
    Config(#[from] ConfigError),
}

impl HighWaterFileOptions {
    /// How far ahead of the clock the file's ceiling is set unless
    /// [`HighWaterFileOptions::lead`] says otherwise: 500 ms, so that a restart
    /// after a crash waits at most half a second (within the default clock
    /// regression wait) while a stalled disk stops the generator within it.
    pub const DEFAULT_LEAD: Duration = Duration::from_millis(500);

    /// How often the file is rewritten unless [`HighWaterFileOptions::every`]
    /// says otherwise: every 200 ms (five writes and `fsync`s a second; two
    /// may be slow before the generator reaches its ceiling).
    pub const DEFAULT_EVERY: Duration = Duration::from_millis(200);
}

struct Shared<C> {
    path: PathBuf,
    clock: C,
    ceiling: Arc<Ceiling>,
    lead_millis: u64,
    every: Duration,
    stop: Mutex<bool>,
    stopped: Condvar,
}

impl<C: Clock> Shared<C> {
    fn run(&self) {
        loop {
            let guard = self.stop.lock().unwrap_or_else(PoisonError::into_inner);
            let (guard, _) = self
                .stopped
                .wait_timeout_while(guard, self.every, |stop| !*stop)
                .unwrap_or_else(PoisonError::into_inner);
            if *guard {
                return;
            }
            drop(guard);
            let ceiling = self
                .clock
                .now_millis()
                .saturating_add(self.lead_millis)
                .max(self.ceiling.millis());
            match write_mark(&self.path, ceiling) {
                Ok(()) => {
                    if !self.ceiling.raise(ceiling, self.clock.now_millis()) {
                        return;
                    }
                }
                Err(e) => self
                    .ceiling
                    .record_failure(format!("cannot write {}: {e}", self.path.display())),
            }
        }
    }

    fn stop(&self) {
        *self.stop.lock().unwrap_or_else(PoisonError::into_inner) = true;
        self.stopped.notify_all();
    }
}

/// The file `path` names: symlinks followed (a link to a file not yet
/// created included) and its directory made canonical. Renaming a new mark
/// over a symlink would replace the link rather than write the file, and
/// a lock next to the link would not be the file's lock.
fn resolve(path: &Path) -> std::io::Result<PathBuf> {
    let mut path = path.to_path_buf();
    // Linux's own limit on symlinks followed in one lookup.
    for _ in 0..40 {
        match fs::symlink_metadata(&path) {
            Ok(m) if m.file_type().is_symlink() => {
                let target = fs::read_link(&path)?;
                path = match path.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                };
            }
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => break,
        }
    }
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} does not name a file", path.display()),
        )
    })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Ok(fs::canonicalize(dir)?.join(name))
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

fn parse_mark(text: &str) -> Option<u64> {
    let t = text.trim();
    if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

/// Replaces the file's content with `mark`, durably: a crash leaves the
/// old mark or the new one, never a torn file.
fn write_mark(path: &Path, mark: u64) -> std::io::Result<()> {
    let tmp = with_suffix(path, ".tmp");
    let mut f = File::create(&tmp)?;
    f.write_all(format!("{mark}\n").as_bytes())?;
    f.sync_all()?;
    drop(f);
    fs::rename(&tmp, path)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // Makes the rename itself durable (directories can be fsynced on Unix).
    #[cfg(unix)]
    File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_are_plain_digits() {
        assert_eq!(parse_mark("1700000000000\n"), Some(1_700_000_000_000));
        assert_eq!(parse_mark(" 12 "), Some(12));
        for bad in [
            "",
            "\n",
            "-1",
            "+1",
            "1e3",
            "12x",
            "99999999999999999999999",
        ] {
            assert_eq!(parse_mark(bad), None, "{bad:?}");
        }
    }
}
