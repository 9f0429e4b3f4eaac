//! The flake128 generator; see [`Flake128Generator`](crate::Flake128Generator).

use std::fmt;
use std::fs::{self, File, TryLockError};
use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::Flake128Error;
use crate::{Flake128, Flake128Layout, node};
use flakeid_core::{
    Clock, ClockRegression, GenerateError, Generator, GeneratorBuilder, MonotonicClock,
    SequenceExhaustion,
};

/// [`Flake128Generator`]: issues [`Flake128`]s for a worker that is, by
/// default, this machine's MAC address, held by one generator per host.
///
/// # Why a lock
///
/// Boundary's flake names the machine, not the process, in its worker
/// field: it assumes one flake service per host, which every other process
/// asks for IDs. A MAC address is the same for every process on the host,
/// so two processes each generating with it would issue the same flakes
/// whenever they generate in the same millisecond (both start each
/// millisecond at sequence 0).
///
/// So a generator whose worker comes from a MAC address takes a host-wide
/// exclusive lock for that worker when it is built: a lock on the directory
/// `<lock dir>/flakeid-flake128-<worker as 12 hex digits>.lock`, created if
/// missing; the lock directory is [`std::env::temp_dir`] unless
/// [`lock_dir`](Flake128GeneratorBuilder::lock_dir) says otherwise. The
/// generator holds the lock until it is dropped; the operating system
/// releases it when the process ends in any way (including `SIGKILL`). A
/// second generator for the worker, in another process or in the same one,
/// fails to build with [`Flake128Error::WorkerInUse`], naming the worker
/// and the lock. The lock directory is left in place: removing it while
/// another process is about to lock it would let two processes hold
/// different locks for one worker.
///
/// A child process started while the generator holds the lock (`fork`, or
/// [`std::process::Command::spawn`] on another thread) shares the lock's
/// open descriptor, and with it the lock, until the child runs another
/// program (the descriptor is closed on `exec`) or exits. Building a
/// generator right after dropping one can therefore fail with `WorkerInUse`
/// while such a child is starting; a child forked without `exec` keeps the
/// worker until it exits, while its copy of the generator refuses to issue
/// ([`GenerateError::Forked`]). Either way no
/// two generators issue with one worker.
///
/// The lock is a directory, not a file, because `systemd-tmpfiles` (which
/// cleans `/tmp` by age on many distributions) skips directories that hold
/// a BSD lock but deletes old files whether locked or not; a deleted lock
/// file would let a second generator lock a new one.
///
/// # Guarantees
///
/// * **Worker from a MAC address** (the default): at most one generator
///   per worker at a time among the processes that share the lock directory
///   — the same host, the same `TMPDIR` and the same view of the file
///   system. Processes that see different lock directories (containers
///   with their own `/tmp` but the host's network, systemd services with
///   `PrivateTmp=`, different `TMPDIR`s) are not coordinated: give them one
///   [`lock_dir`](Flake128GeneratorBuilder::lock_dir) they share, or
///   explicit workers. A tmp cleaner that removes locked directories
///   (unlike `systemd-tmpfiles`) breaks the lock too. Across hosts,
///   uniqueness rests on MAC addresses being unique, which no lock can
///   check: cloned VMs and generated container addresses can repeat.
/// * **Explicit worker** ([`worker`](Flake128GeneratorBuilder::worker)): no
///   lock is taken and nothing is checked; the caller guarantees that no two
///   generators running at the same time, on any host, share the worker.
///
/// Either way a generator issues strictly increasing flakes and never
/// repeats one itself; a process that takes over a worker after another
/// ended continues from the clock, so it relies on the clock not having
/// been set back past the flakes the previous process issued.
///
/// ```
/// use flakeid_flake128::Flake128Generator;
///
/// // An explicit worker: unique by the caller's arrangement, no lock.
/// let generator = Flake128Generator::builder().worker(0x0000_0000_0007).build()?;
/// let a = generator.generate()?;
/// let b = generator.generate()?;
/// assert!(b > a);
/// assert_eq!(a.worker(), 7);
/// assert_eq!(generator.lock_path(), None);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A generator of [`Flake128`]s that holds its MAC-derived worker
/// exclusively on this host (see the [`Flake128Generator`] documentation).
///
/// Build one with [`Flake128Generator::new`] (MAC address, default lock
/// directory) or [`Flake128Generator::builder`].
pub struct Flake128Generator<C = MonotonicClock> {
    generator: Generator<Flake128Layout, C>,
    /// Held for the generator's lifetime; `None` for an explicit worker.
    lock: Option<WorkerLock>,
}

impl Flake128Generator {
    /// A generator whose worker is the MAC address from
    /// from `/sys/class/net`, locked in [`std::env::temp_dir`].
    ///
    /// # Errors
    /// As [`Flake128GeneratorBuilder::build`].
    pub fn new() -> Result<Self, Flake128Error> {
        Self::builder().build()
    }

    /// A builder: by default the worker comes from the MAC address and
    /// is locked; see [`Flake128GeneratorBuilder`].
    pub fn builder() -> Flake128GeneratorBuilder {
        Flake128GeneratorBuilder {
            worker: WorkerSource::Mac {
                interfaces: PathBuf::from(node::SYS_CLASS_NET),
            },
            lock_dir: None,
            builder: Generator::builder(Flake128Layout, 0),
        }
    }
}

impl<C: Clock> Flake128Generator<C> {
    /// Issues a fresh flake, waiting as the generator's policies allow.
    ///
    /// # Errors
    /// As [`Flake128::generate`].
    pub fn generate(&self) -> Result<Flake128, GenerateError> {
        Flake128::generate(&self.generator)
    }

    /// Issues a fresh flake if that is possible without waiting.
    ///
    /// # Errors
    /// As [`Flake128::try_generate`].
    pub fn try_generate(&self) -> Result<Flake128, GenerateError> {
        Flake128::try_generate(&self.generator)
    }

    /// The worker ID every flake of this generator carries.
    pub fn worker(&self) -> u64 {
        self.generator.node()
    }

    /// The lock this generator holds for its worker, or `None` for an
    /// explicit worker (which takes no lock).
    pub fn lock_path(&self) -> Option<&Path> {
        self.lock.as_ref().map(|l| l.path.as_path())
    }

    /// The underlying generator (for [`Generator::next_batch`] and the like).
    /// The lock lasts as long as `self`, not as this reference.
    pub fn generator(&self) -> &Generator<Flake128Layout, C> {
        &self.generator
    }
}

impl<C: Clock> fmt::Debug for Flake128Generator<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Flake128Generator")
            .field("worker", &format_args!("{:#014x}", self.generator.node()))
            .field("lock_path", &self.lock.as_ref().map(|l| &l.path))
            .finish_non_exhaustive()
    }
}

/// Configures a [`Flake128Generator`]: where the worker comes from, where
/// its lock lives, and the generator's clock and policies.
///
/// ```
/// use std::sync::Arc;
/// use flakeid_core::{ManualClock, SequenceExhaustion};
/// use flakeid_flake128::{Flake128Error, Flake128Generator};
///
/// let clock = Arc::new(ManualClock::new(1_700_000_000_000));
/// let generator = Flake128Generator::builder()
///     .worker(0x0242_ac11_0002) // explicit: no MAC address read, no lock taken
///     .clock(clock)
///     .sequence_exhaustion(SequenceExhaustion::Fail)
///     .build()?;
/// let flake = generator.generate()?; // the manual clock moves past the build millisecond
/// assert_eq!((flake.worker(), flake.timestamp_millis()), (0x0242_ac11_0002, 1_700_000_000_001));
/// // Workers have 48 bits.
/// let e = Flake128Generator::builder().worker(1 << 48).build().unwrap_err();
/// assert!(matches!(e, Flake128Error::PartOutOfRange { part: "worker", .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Flake128GeneratorBuilder<C = MonotonicClock> {
    worker: WorkerSource,
    /// `None`: [`std::env::temp_dir`], read when building.
    lock_dir: Option<PathBuf>,
    /// The node is set when building.
    builder: GeneratorBuilder<Flake128Layout, C>,
}

#[derive(Debug, Clone)]
enum WorkerSource {
    /// The MAC address read from an interface directory; locked.
    Mac { interfaces: PathBuf },
    /// Given by the caller; not locked.
    Explicit(u64),
}

impl<C: Clock> Flake128GeneratorBuilder<C> {
    flakeid_core::__private::setters! {
        /// Uses `worker` (at most `2^48 − 1`) instead of a MAC address. No lock
        /// is taken: the caller guarantees that no other generator running at
        /// the same time uses it.
        worker(worker: u64) => worker = WorkerSource::Explicit(worker);
    }

    /// Takes the worker from the MAC address found in `dir` (see
    /// the default) instead of `/sys/class/net`; locked as usual.
    pub fn mac_address_in(mut self, dir: impl Into<PathBuf>) -> Self {
        self.worker = WorkerSource::Mac {
            interfaces: dir.into(),
        };
        self
    }

    flakeid_core::__private::setters! {
        /// Keeps the locks of MAC-derived workers in `dir` instead of
        /// [`std::env::temp_dir`]. Every process that may use the worker must
        /// use the same directory; it must exist.
        lock_dir(dir: impl Into<PathBuf>) => lock_dir = Some(dir.into());
    }

    /// Uses `clock` instead of the current one.
    pub fn clock<C2: Clock>(self, clock: C2) -> Flake128GeneratorBuilder<C2> {
        Flake128GeneratorBuilder {
            worker: self.worker,
            lock_dir: self.lock_dir,
            builder: self.builder.clock(clock),
        }
    }

    /// See [`GeneratorBuilder::sequence_exhaustion`].
    pub fn sequence_exhaustion(mut self, policy: SequenceExhaustion) -> Self {
        self.builder = self.builder.sequence_exhaustion(policy);
        self
    }

    /// See [`GeneratorBuilder::clock_regression`].
    pub fn clock_regression(mut self, policy: ClockRegression) -> Self {
        self.builder = self.builder.clock_regression(policy);
        self
    }

    /// See [`GeneratorBuilder::catch_up_window`].
    pub fn catch_up_window(mut self, window: Duration) -> Self {
        self.builder = self.builder.catch_up_window(window);
        self
    }

    /// Finds the worker, locks it if it comes from a MAC address, and
    /// builds the generator.
    ///
    /// # Errors
    /// [`Flake128Error::NoMacAddress`] (or `InterfacesUnreadable`, `InvalidMac`) when no MAC address is found;
    /// [`Flake128Error::WorkerInUse`] when another generator on this host
    /// holds the MAC-derived worker; [`Flake128Error::WorkerLock`] when its
    /// lock cannot be created or taken (e.g. the lock directory does not
    /// exist); [`Flake128Error::PartOutOfRange`] for an explicit worker
    /// above `2^48 − 1`; [`Flake128Error::Config`] for an error of
    /// [`GeneratorBuilder::build`].
    pub fn build(self) -> Result<Flake128Generator<C>, Flake128Error> {
        let (worker, lock) = match &self.worker {
            WorkerSource::Explicit(worker) => {
                if *worker > Flake128Layout::MAX_WORKER {
                    return Err(Flake128Error::PartOutOfRange {
                        part: "worker",
                        value: *worker,
                        max: Flake128Layout::MAX_WORKER,
                    });
                }
                (*worker, None)
            }
            WorkerSource::Mac { interfaces } => {
                let worker = node::mac_address_in(interfaces)?;
                let dir = self.lock_dir.clone().unwrap_or_else(std::env::temp_dir);
                (worker, Some(WorkerLock::take(&dir, worker)?))
            }
        };
        let generator = self.builder.node(worker).build()?;
        Ok(Flake128Generator { generator, lock })
    }
}

/// A held lock on a worker: the open lock directory, locked exclusively.
/// Dropping it closes the directory, which releases the lock.
struct WorkerLock {
    path: PathBuf,
    _dir: File,
}

impl WorkerLock {
    fn take(dir: &Path, worker: u64) -> Result<Self, Flake128Error> {
        let path = dir.join(format!("flakeid-flake128-{worker:012x}.lock"));
        let failed = |e: io::Error| Flake128Error::WorkerLock {
            worker,
            lock_path: path.display().to_string(),
            message: e.to_string(),
        };
        match fs::create_dir(&path) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(failed(e)),
            _ => {}
        }
        // Read-only: another user's lock directory can be locked too.
        let file = File::open(&path).map_err(failed)?;
        match file.try_lock() {
            Ok(()) => Ok(WorkerLock { path, _dir: file }),
            Err(TryLockError::WouldBlock) => Err(Flake128Error::WorkerInUse {
                worker,
                lock_path: path.display().to_string(),
            }),
            Err(TryLockError::Error(e)) => Err(failed(e)),
        }
    }
}
