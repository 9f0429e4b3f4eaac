//! Configuration from the environment: flakeid's `FLAKEID_*` variables
//! (node ID, layout name, epoch, development mode;
//! [`GeneratorBuilder::from_vars`]) and the example service's variables
//! (database URL, host, port, lease space, node range;
//! [`Config::from_lookup`]).
//!
//! The input is lines of `NAME=VALUE` (the first line naming a variable
//! sets it; other lines are ignored). Property: the configuration is what
//! the documented rules (written out here apart from the code) make of the
//! variables, or an error naming the first variable the rules refuse, with
//! its value as given.

use std::collections::HashMap;

use flakeid_core::layout::{BitLayout, presets};
use flakeid_core::{ConfigError, GeneratorBuilder};
use flakeid_service::config::{
    Config, ConfigError as ServiceConfigError, DEFAULT_DATABASE_URL, MAX_NODE,
};

use crate::input::text;
use crate::rfc3339_epoch::{epoch_millis, now_millis};

pub fn check(data: &[u8]) {
    let text = text(data);
    let mut vars: HashMap<&str, &str> = HashMap::new();
    for line in text.split('\n') {
        if let Some((name, value)) = line.split_once('=') {
            vars.entry(name).or_insert(value);
        }
    }
    // A value that is only whitespace counts as unset.
    let get = |name: &str| vars.get(name).copied().filter(|v| !v.trim().is_empty());
    flakeid_vars(&get, &vars);
    service_vars(&get, &vars);
}

/// What the oracle makes of the `FLAKEID_*` variables.
#[derive(Debug, PartialEq)]
enum Want {
    Layout(BitLayout, Option<u64>),
    Invalid(&'static str),
    MissingNodeId,
    LayoutExpired,
    /// The epoch lies so near the clock's reading that either answer is right.
    Either,
}

fn flakeid_want<'v>(get: &dyn Fn(&str) -> Option<&'v str>, now: u64) -> Want {
    let dev = match get("FLAKEID_DEV_MODE").map(|v| v.trim().to_ascii_lowercase()) {
        None => false,
        Some(v) if ["1", "true", "yes", "on"].contains(&v.as_str()) => true,
        Some(v) if ["0", "false", "no", "off"].contains(&v.as_str()) => false,
        Some(_) => return Want::Invalid("FLAKEID_DEV_MODE"),
    };
    let layout_var = get("FLAKEID_LAYOUT");
    let mut layout = match layout_var {
        None => presets::twitter(),
        Some(v) => {
            let key = v.trim().to_ascii_lowercase().replace('-', "_");
            match presets::ALL.iter().find(|(name, _)| *name == key) {
                Some((_, make)) => make(),
                None => return Want::Invalid("FLAKEID_LAYOUT"),
            }
        }
    };
    let epoch_var = get("FLAKEID_EPOCH");
    if let Some(v) = epoch_var {
        let Some(epoch) = epoch_millis(v) else {
            return Want::Invalid("FLAKEID_EPOCH");
        };
        if epoch.abs_diff(now) < 5_000 {
            return Want::Either;
        }
        if epoch > now {
            return Want::Invalid("FLAKEID_EPOCH");
        }
        layout = match layout.with_epoch_millis(epoch) {
            Ok(layout) => layout,
            Err(_) => return Want::Invalid("FLAKEID_EPOCH"),
        };
    }
    if layout.end_millis().abs_diff(now) < 5_000 {
        return Want::Either;
    }
    if now >= layout.end_millis() {
        return match (epoch_var, layout_var) {
            (Some(_), _) => Want::Invalid("FLAKEID_EPOCH"),
            (None, Some(_)) => Want::Invalid("FLAKEID_LAYOUT"),
            (None, None) => Want::LayoutExpired,
        };
    }
    let node = match get("FLAKEID_NODE_ID").map(str::trim) {
        Some(v) => {
            let digits = !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
            match v.parse::<u64>() {
                Ok(n) if digits && n <= layout.max_node() => Some(n),
                _ => return Want::Invalid("FLAKEID_NODE_ID"),
            }
        }
        // Development mode picks a random node.
        None if dev => None,
        None => return Want::MissingNodeId,
    };
    Want::Layout(layout, node)
}

fn flakeid_vars<'v>(get: &dyn Fn(&str) -> Option<&'v str>, vars: &HashMap<&str, &str>) {
    let now = now_millis();
    let lookup = |name: &str| vars.get(name).map(|v| (*v).to_owned());
    let got = GeneratorBuilder::from_vars(lookup);
    match (got, flakeid_want(get, now)) {
        (_, Want::Either) => {}
        (Ok(builder), Want::Layout(layout, node)) => {
            assert_eq!(builder.layout(), &layout, "{vars:?}");
            if let Some(node) = node {
                let generator = builder
                    .build()
                    .expect("a configuration checked against the clock builds");
                assert_eq!(generator.node(), node, "{vars:?}");
            }
        }
        (Err(ConfigError::InvalidEnv { var, value, .. }), Want::Invalid(want)) => {
            assert_eq!(var, want, "{vars:?}");
            assert_eq!(Some(value.as_str()), vars.get(var).copied(), "{vars:?}");
        }
        (Err(ConfigError::MissingNodeId), Want::MissingNodeId) => {}
        (Err(ConfigError::LayoutExpired { .. }), Want::LayoutExpired) => {}
        (got, want) => panic!(
            "{vars:?}: got {:?}, want {want:?}",
            got.map(|b| b.layout().clone())
        ),
    }
}

fn service_vars<'v>(get: &dyn Fn(&str) -> Option<&'v str>, vars: &HashMap<&str, &str>) {
    let got = Config::from_lookup(|name| {
        vars.get(name)
            .map(|v| (*v).to_owned())
            .ok_or(std::env::VarError::NotPresent)
    });
    let want = service_want(get);
    match (got, want) {
        (Ok(config), Ok(want)) => {
            let fields = (
                config.database_url,
                config.host,
                config.port,
                config.space,
                config.nodes.map(|r| r.into_inner()),
            );
            assert_eq!(fields, want, "{vars:?}");
        }
        (Err(ServiceConfigError::Invalid { var, value, .. }), Err(want)) => {
            assert_eq!(var, want, "{vars:?}");
            assert_eq!(Some(value.as_str()), vars.get(var).copied(), "{vars:?}");
        }
        (got, want) => panic!("{vars:?}: got {got:?}, want {want:?}"),
    }
}

type ServiceWant = (String, std::net::IpAddr, u16, String, Option<(u64, u64)>);

fn service_want<'v>(get: &dyn Fn(&str) -> Option<&'v str>) -> Result<ServiceWant, &'static str> {
    let url = get("DATABASE_URL").unwrap_or(DEFAULT_DATABASE_URL);
    let scheme = url.split(':').next().unwrap_or_default();
    if !["postgres", "postgresql", "mysql", "mariadb", "sqlite"].contains(&scheme) {
        return Err("DATABASE_URL");
    }
    let host = get("HOST").map_or(Ok("0.0.0.0".parse().expect("an address")), |v| {
        v.trim().parse()
    });
    let host = host.map_err(|_| "HOST")?;
    let port = get("PORT")
        .map_or(Ok(3000), |v| v.trim().parse())
        .map_err(|_| "PORT")?;
    let space = get("FLAKEID_SPACE").unwrap_or("service");
    if space.chars().count() > flakeid_lease::LeaseOptions::MAX_SPACE_LEN {
        return Err("FLAKEID_SPACE");
    }
    // Node IDs as FLAKEID_NODE_ID takes them: plain decimal digits.
    let node = |s: &str| {
        let s = s.trim();
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u64>().ok())
            .flatten()
    };
    let nodes = match get("FLAKEID_NODES") {
        None => None,
        Some(v) => {
            let range = v
                .trim()
                .split_once('-')
                .and_then(|(a, b)| Some((node(a)?, node(b)?)));
            match range {
                Some((a, b)) if a <= b && b <= MAX_NODE => Some((a, b)),
                _ => return Err("FLAKEID_NODES"),
            }
        }
    };
    Ok((url.to_owned(), host, port, space.to_owned(), nodes))
}
