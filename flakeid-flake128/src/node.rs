//! Worker IDs for 128-bit flakes from the machine's MAC address.
//!
//! Boundary's flake uses a network interface's 48-bit MAC address as the
//! worker ID, so machines need no configuration. [`mac_address`] reads the
//! first suitable interface from Linux's `/sys/class/net`;
//! [`mac_address_in`] reads another directory of the same shape (for tests
//! or containers that mount it elsewhere). Interfaces are tried in name
//! order, those backed by a device (a `device` entry: physical NICs) before
//! virtual ones; loopback and all-zero addresses are skipped.
//!
//! A MAC address names a machine, not a process: every process on the host
//! reads the same one. These functions only read it; a generator built
//! from their result with `Generator::builder(Flake128Layout, worker)`
//! takes no lock, so two processes doing so issue the same flakes. Use
//! [`Flake128Generator`](crate::Flake128Generator), which locks the
//! MAC-derived worker host-wide.
//!
//! A MAC address is only as unique as the machines are: cloned VMs,
//! containers on bridges with generated addresses and misconfigured
//! hardware can share one. When that can happen, give the worker ID
//! explicitly (any unique 48-bit value) instead:
//! `Flake128Generator::builder().worker(worker)`.
//!
//! ```
//! use flakeid_flake128::Flake128Generator;
//!
//! let dir = std::env::temp_dir().join(format!("flakeid-doc-node-{}", std::process::id()));
//! std::fs::create_dir_all(dir.join("eth0"))?;
//! std::fs::write(dir.join("eth0").join("address"), "02:42:ac:11:00:07\n")?;
//! // The worker from the MAC address, locked on this host while `generator` lives.
//! let generator = Flake128Generator::builder().mac_address_in(&dir).lock_dir(&dir).build()?;
//! assert_eq!(generator.worker(), 0x0242_ac11_0007);
//! assert!(Flake128Generator::builder().mac_address_in(&dir).lock_dir(&dir).build().is_err());
//! drop(generator);
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fs;
use std::path::Path;

use crate::Flake128Error;

/// Where Linux lists network interfaces.
pub(crate) const SYS_CLASS_NET: &str = "/sys/class/net";

/// The worker ID from the first usable interface's MAC address in `dir`
/// (Linux: `/sys/class/net`):
/// one subdirectory per interface holding an `address` file
/// (`aa:bb:cc:dd:ee:ff`), optionally a `flags` file (hex) and a `device` entry.
///
/// # Errors
/// [`Flake128Error::InterfacesUnreadable`] when the directory cannot be read (not
/// Linux, or `/sys` not mounted), [`Flake128Error::NoMacAddress`] when no
/// interface has a usable address.
pub(crate) fn mac_address_in(dir: &Path) -> Result<u64, Flake128Error> {
    let unreadable = |e: std::io::Error| Flake128Error::InterfacesUnreadable {
        path: dir.display().to_string(),
        message: e.to_string(),
    };
    let mut candidates: Vec<(bool, String, u64)> = Vec::new();
    for entry in fs::read_dir(dir).map_err(unreadable)? {
        let entry = entry.map_err(unreadable)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if name == "lo" || is_loopback(&path) {
            continue;
        }
        // Interfaces without an address file (or unreadable ones) are skipped:
        // they cannot give a worker ID, and another interface may.
        let Ok(text) = fs::read_to_string(path.join("address")) else {
            continue;
        };
        let Ok(mac) = parse_mac(text.trim()) else {
            continue;
        };
        if mac == 0 {
            continue;
        }
        let virtual_ = !path.join("device").exists();
        candidates.push((virtual_, name, mac));
    }
    candidates.sort();
    candidates
        .first()
        .map(|&(_, _, mac)| mac)
        .ok_or_else(|| Flake128Error::NoMacAddress {
            path: dir.display().to_string(),
        })
}

/// Parses a MAC address written as six colon-separated hex bytes
/// (`02:42:ac:11:00:02`, either case) into a 48-bit worker ID.
///
/// # Errors
/// [`Flake128Error::InvalidMac`] naming the text.
pub(crate) fn parse_mac(text: &str) -> Result<u64, Flake128Error> {
    let invalid = || Flake128Error::InvalidMac {
        value: flakeid_core::__private::excerpt(text),
    };
    let mut value = 0u64;
    let mut count = 0;
    for part in text.split(':') {
        if part.len() != 2 || !part.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(invalid());
        }
        let byte = u8::from_str_radix(part, 16).map_err(|_| invalid())?;
        value = (value << 8) | u64::from(byte);
        count += 1;
    }
    if count != 6 {
        return Err(invalid());
    }
    Ok(value)
}

/// Writes a 48-bit worker ID as a MAC address, six colon-separated
/// lowercase hex bytes: the inverse of [`parse_mac`].
pub(crate) fn format_mac(worker: u64) -> String {
    let b = worker.to_be_bytes();
    format!(
        "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
        b[2], b[3], b[4], b[5], b[6], b[7]
    )
}

/// `IFF_LOOPBACK` in an interface's `flags` file.
const IFF_LOOPBACK: u64 = 0x8;

fn is_loopback(interface: &Path) -> bool {
    fs::read_to_string(interface.join("flags"))
        .ok()
        .and_then(|f| u64::from_str_radix(f.trim().trim_start_matches("0x"), 16).ok())
        .is_some_and(|flags| flags & IFF_LOOPBACK != 0)
}

#[cfg(test)]
#[path = "../tests/unit/node.rs"]
mod tests;
