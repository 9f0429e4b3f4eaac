//! [`HighWaterFileOptions`]: how to open a [`HighWaterFile`], and opening
//! it (the lock, the mark read, the first ceiling, the writer thread).

use core::time::Duration;
use std::fs::{self, OpenOptions, TryLockError};
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex};

use flakeid_core::__private::Ceiling;
use flakeid_core::CeilingWait;
use flakeid_core::ConfigError;
use flakeid_core::layout::Layout;
use flakeid_core::{Clock, MonotonicClock};

use super::{
    HighWaterFile, HighWaterFileError, Shared, parse_mark, resolve, with_suffix, write_mark,
};

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
