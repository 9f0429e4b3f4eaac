//! Configuration from the environment, each variable checked with an error
//! that names it and the value it held.

use std::net::IpAddr;
use std::ops::RangeInclusive;

use flakeid_lease::LeaseOptions;

/// The database when `DATABASE_URL` is unset: a SQLite file in the working
/// directory, created on first start.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://flakeid-service.db?mode=rwc";
/// The port when `PORT` is unset.
pub const DEFAULT_PORT: u16 = 3000;
/// The lease space when `FLAKEID_SPACE` is unset.
pub const DEFAULT_SPACE: &str = "service";
/// The address when `HOST` is unset: every interface, as a service in a
/// container must listen.
pub const DEFAULT_HOST: &str = "0.0.0.0";

/// The largest node ID of the Twitter layout (10 node bits).
pub const MAX_NODE: u64 = 1023;

/// What the service reads from the environment.
#[derive(Debug, Clone)]
pub struct Config {
    /// `DATABASE_URL`: `postgres://…`, `mysql://…` or `sqlite://…`.
    pub database_url: String,
    /// `HOST`: the address to listen on.
    pub host: IpAddr,
    /// `PORT`: 0 picks a free port (it is logged).
    pub port: u16,
    /// `FLAKEID_SPACE`: the lease space, shared by every replica.
    pub space: String,
    /// `FLAKEID_NODES` (`first-last`, e.g. `0-15`): the node IDs to lease
    /// from (default: all 1,024 of the layout).
    pub nodes: Option<RangeInclusive<u64>>,
}

/// A variable that holds something the service cannot use.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A variable whose value does not parse.
    #[error("{var}={value:?} is not {expected}")]
    Invalid {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: String,
        /// What it should be.
        expected: String,
    },
    /// A variable that is not valid UTF-8.
    #[error("{var} is not valid UTF-8")]
    NotUnicode {
        /// The variable.
        var: &'static str,
    },
}

impl Config {
    /// Reads the configuration from the process's environment.
    ///
    /// # Errors
    /// [`ConfigError`] naming the variable and its value.
    pub fn from_env() -> Result<Config, ConfigError> {
        Config::from_lookup(std::env::var)
    }

    /// Reads the configuration from variables looked up with `lookup` (as
    /// `std::env::var` does), as [`from_env`](Config::from_env) reads the
    /// process's environment.
    ///
    /// # Errors
    /// [`ConfigError`] naming the variable and its value.
    pub fn from_lookup(
        lookup: impl Fn(&'static str) -> Result<String, std::env::VarError>,
    ) -> Result<Config, ConfigError> {
        let get = |var: &'static str| match lookup(var) {
            Ok(v) if v.trim().is_empty() => Ok(None),
            Ok(v) => Ok(Some(v)),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(_)) => Err(ConfigError::NotUnicode { var }),
        };
        let database_url = get("DATABASE_URL")?.unwrap_or_else(|| DEFAULT_DATABASE_URL.into());
        let scheme = database_url.split(':').next().unwrap_or_default();
        if !matches!(
            scheme,
            "postgres" | "postgresql" | "mysql" | "mariadb" | "sqlite"
        ) {
            return Err(ConfigError::Invalid {
                var: "DATABASE_URL",
                value: database_url,
                expected: "a postgres://, mysql:// or sqlite:// URL".into(),
            });
        }
        let host = match get("HOST")? {
            None => DEFAULT_HOST.parse().map_err(|_| ConfigError::Invalid {
                var: "HOST",
                value: DEFAULT_HOST.into(),
                expected: "an IP address".into(),
            })?,
            Some(v) => v.trim().parse().map_err(|_| ConfigError::Invalid {
                var: "HOST",
                value: v.clone(),
                expected: "an IP address such as 0.0.0.0 or 127.0.0.1".into(),
            })?,
        };
        let port = match get("PORT")? {
            None => DEFAULT_PORT,
            Some(v) => v.trim().parse().map_err(|_| ConfigError::Invalid {
                var: "PORT",
                value: v.clone(),
                expected: "a port number 0..=65535".into(),
            })?,
        };
        let space = get("FLAKEID_SPACE")?.unwrap_or_else(|| DEFAULT_SPACE.into());
        if space.chars().count() > LeaseOptions::MAX_SPACE_LEN {
            return Err(ConfigError::Invalid {
                var: "FLAKEID_SPACE",
                value: space,
                expected: format!("at most {} characters", LeaseOptions::MAX_SPACE_LEN),
            });
        }
        let nodes = match get("FLAKEID_NODES")? {
            None => None,
            Some(v) => {
                let range = v
                    .trim()
                    .split_once('-')
                    .and_then(|(a, b)| Some((node_number(a)?, node_number(b)?)))
                    .filter(|(a, b): &(u64, u64)| a <= b && *b <= MAX_NODE);
                let (first, last) = range.ok_or_else(|| ConfigError::Invalid {
                    var: "FLAKEID_NODES",
                    value: v.clone(),
                    expected: format!("a node range first-last within 0-{MAX_NODE}"),
                })?;
                Some(first..=last)
            }
        };
        Ok(Config {
            database_url,
            host,
            port,
            space,
            nodes,
        })
    }
}

/// One end of `FLAKEID_NODES`: plain decimal digits (spaces around them
/// allowed), as `FLAKEID_NODE_ID` takes a node ID; `u64::from_str` alone
/// would also take a leading `+`.
fn node_number(s: &str) -> Option<u64> {
    let s = s.trim();
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(vars: &[(&'static str, &str)]) -> Result<Config, ConfigError> {
        let vars: Vec<(&'static str, String)> =
            vars.iter().map(|(k, v)| (*k, (*v).to_owned())).collect();
        Config::from_lookup(move |var| {
            vars.iter()
                .find(|(k, _)| *k == var)
                .map(|(_, v)| v.clone())
                .ok_or(std::env::VarError::NotPresent)
        })
    }

    #[test]
    fn defaults() {
        let c = config(&[]).unwrap();
        assert_eq!(c.database_url, DEFAULT_DATABASE_URL);
        assert_eq!(c.port, DEFAULT_PORT);
        assert_eq!(c.space, DEFAULT_SPACE);
        assert_eq!(c.host.to_string(), DEFAULT_HOST);
    }

    #[test]
    fn node_ranges_take_node_ids_as_flakeid_node_id_does() {
        // Plain decimal digits, as FLAKEID_NODE_ID takes them: no sign.
        for bad in ["3-+7", "+3-7", " 3 - +7 ", "+0-+5"] {
            let e = config(&[("FLAKEID_NODES", bad)]).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("FLAKEID_NODES={bad:?} is not a node range first-last within 0-1023")
            );
        }
        assert_eq!(
            config(&[("FLAKEID_NODES", " 3 - 7 ")]).unwrap().nodes,
            Some(3..=7)
        );
    }

    #[test]
    fn bad_values_name_the_variable_and_value() {
        let e = config(&[("PORT", "eighty")]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "PORT=\"eighty\" is not a port number 0..=65535"
        );
        let e = config(&[("PORT", "70000")]).unwrap_err();
        assert!(e.to_string().starts_with("PORT=\"70000\""), "{e}");
        let e = config(&[("DATABASE_URL", "redis://x")]).unwrap_err();
        assert!(
            e.to_string().starts_with("DATABASE_URL=\"redis://x\""),
            "{e}"
        );
        let e = config(&[("FLAKEID_NODES", "5-2")]).unwrap_err();
        assert!(e.to_string().starts_with("FLAKEID_NODES=\"5-2\""), "{e}");
        let e = config(&[("FLAKEID_NODES", "0-1024")]).unwrap_err();
        assert!(e.to_string().starts_with("FLAKEID_NODES=\"0-1024\""), "{e}");
        assert_eq!(
            config(&[("FLAKEID_NODES", "0-4")]).unwrap().nodes,
            Some(0..=4)
        );
        let e = config(&[("HOST", "localhost")]).unwrap_err();
        assert!(e.to_string().starts_with("HOST=\"localhost\""), "{e}");
        let long = "s".repeat(LeaseOptions::MAX_SPACE_LEN + 1);
        let e = config(&[("FLAKEID_SPACE", &long)]).unwrap_err();
        assert!(e.to_string().starts_with("FLAKEID_SPACE="), "{e}");
    }
}
