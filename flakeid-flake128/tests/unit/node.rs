//! Unit tests of `src/node.rs`: reading MAC addresses from a fake
//! `/sys/class/net` (private helpers, so these run as the module's `tests`).

use std::fs;
use std::path::PathBuf;

use super::*;

#[test]
fn mac_address_in_example() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("flakeid-doc-net-{}", std::process::id()));
    for (name, mac) in [("lo", "00:00:00:00:00:00"), ("eth0", "02:42:ac:11:00:02")] {
        std::fs::create_dir_all(dir.join(name))?;
        std::fs::write(dir.join(name).join("address"), format!("{mac}\n"))?;
    }
    assert_eq!(mac_address_in(&dir)?, 0x0242_ac11_0002);
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

#[test]
fn parse_mac_example() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(parse_mac("02:42:AC:11:00:02")?, 0x0242_ac11_0002);
    assert!(parse_mac("02:42:ac:11:00").is_err());
    Ok(())
}

#[test]
fn format_mac_example() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(format_mac(0x0242_ac11_0002), "02:42:ac:11:00:02");
    assert_eq!(parse_mac(&format_mac(0x0242_ac11_0002))?, 0x0242_ac11_0002);
    Ok(())
}

/// A fake `/sys/class/net` in a fresh temporary directory, removed on drop.
struct FakeNet(PathBuf);

impl FakeNet {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("flakeid-net-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        FakeNet(dir)
    }
    fn interface(
        &self,
        name: &str,
        address: Option<&str>,
        flags: Option<&str>,
        device: bool,
    ) -> &Self {
        let d = self.0.join(name);
        fs::create_dir_all(&d).unwrap();
        if let Some(a) = address {
            fs::write(d.join("address"), format!("{a}\n")).unwrap();
        }
        if let Some(f) = flags {
            fs::write(d.join("flags"), format!("{f}\n")).unwrap();
        }
        if device {
            fs::create_dir_all(d.join("device")).unwrap();
        }
        self
    }
}

impl Drop for FakeNet {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[test]
fn mac_source_skips_loopback_zero_and_garbage_and_prefers_devices() {
    let net = FakeNet::new("prefer");
    net.interface("lo", Some("00:00:00:00:00:00"), Some("0x9"), false)
        .interface("a-loop", Some("aa:aa:aa:aa:aa:aa"), Some("0x49"), false)
        .interface("br0", Some("02:00:00:00:00:01"), Some("0x1003"), false)
        .interface("dummy", Some("not a mac"), None, false)
        .interface("tun0", None, Some("0x1091"), false)
        .interface("eth1", Some("52:54:00:12:34:56"), Some("0x1003"), true);
    assert_eq!(mac_address_in(&net.0), Ok(0x5254_0012_3456));
    // Without a device-backed interface, the first virtual one in name order.
    let net = FakeNet::new("virtual");
    net.interface("veth9", Some("02:00:00:00:00:09"), None, false)
        .interface("br0", Some("02:00:00:00:00:01"), None, false);
    assert_eq!(mac_address_in(&net.0), Ok(0x0200_0000_0001));
}

#[test]
fn mac_source_reports_what_is_missing() {
    let net = FakeNet::new("none");
    net.interface("lo", Some("00:00:00:00:00:00"), Some("0x9"), false)
        .interface("eth0", Some("00:00:00:00:00:00"), None, true);
    assert_eq!(
        mac_address_in(&net.0),
        Err(Flake128Error::NoMacAddress {
            path: net.0.display().to_string()
        })
    );
    let missing = net.0.join("does-not-exist");
    assert!(matches!(
        mac_address_in(&missing),
        Err(Flake128Error::InterfacesUnreadable { .. })
    ));
    for bad in [
        "",
        "02:42:ac:11:00",
        "02:42:ac:11:00:02:03",
        "0242ac110002",
        "02:42:ac:11:00:0g",
        "+2:42:ac:11:00:02",
    ] {
        assert!(
            matches!(parse_mac(bad), Err(Flake128Error::InvalidMac { .. })),
            "{bad}"
        );
    }
}

#[test]
fn a_mac_derived_worker_configures_a_generator() {
    let net = FakeNet::new("generator");
    net.interface("eth0", Some("02:42:ac:11:00:02"), Some("0x1003"), true);
    let worker = mac_address_in(&net.0).unwrap();
    let g = flakeid_core::Generator::builder(crate::Flake128Layout, worker)
        .clock(flakeid_core::ManualClock::new(1_767_225_600_000))
        .build()
        .unwrap();
    assert_eq!(
        crate::Flake128::generate(&g).unwrap().worker(),
        0x0242_ac11_0002
    );
}
