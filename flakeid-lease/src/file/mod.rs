//! A local high-water file (see [`HighWaterFile`]).

mod error;
mod options;

use core::time::Duration;
use std::fs::{self, File};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

use flakeid_core::__private::Ceiling;
use flakeid_core::__private::sealable;
use flakeid_core::FenceReason;
use flakeid_core::layout::{BitLayout, Layout};
use flakeid_core::node::LeasedGenerator;
use flakeid_core::{Clock, MonotonicClock};
use flakeid_core::{Generator, GeneratorBuilder};

pub use error::HighWaterFileError;
pub use options::HighWaterFileOptions;

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
#[path = "../../tests/unit/file.rs"]
mod tests;
