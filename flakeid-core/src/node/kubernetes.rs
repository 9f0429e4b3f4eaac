//! A node ID from a Kubernetes StatefulSet pod's ordinal.
//!
//! A StatefulSet names its pods `<set>-0`, `<set>-1`, … and (Kubernetes
//! 1.28+) labels each with `apps.kubernetes.io/pod-index`. The ordinal is
//! unique among the set's pods **while the controller works as designed**:
//! it is a hint, not a fence. Two pods of one set can briefly share an
//! ordinal (a node that lost contact with the control plane keeps running
//! a pod its replacement already runs), two sets writing the same tables
//! share every ordinal, and nothing stops a restarted pod from re-entering
//! time its predecessor used. Pair it with a [high-water
//! file](super::HighWaterFileOptions) on a persistent volume against clock
//! steps, or use a [lease](super) when uniqueness must be enforced.
//!
//! [`Ordinal::detect`] looks, in order, at the variable `FLAKEID_POD_INDEX`
//! (set it from the label through the downward API), the downward-API
//! labels file `/etc/podinfo/labels`, and the hostname's `-<n>` suffix:
//!
//! ```yaml
//! env:
//!   - name: FLAKEID_POD_INDEX
//!     valueFrom:
//!       fieldRef:
//!         fieldPath: metadata.labels['apps.kubernetes.io/pod-index']
//! ```

use std::path::Path;

use thiserror::Error;

/// The label a StatefulSet controller sets on each pod (Kubernetes 1.28+).
pub(crate) const POD_INDEX_LABEL: &str = "apps.kubernetes.io/pod-index";

/// The variable [`Ordinal::detect`] reads first.
pub(crate) const POD_INDEX_VAR: &str = "FLAKEID_POD_INDEX";

/// Where a downward-API volume conventionally puts the pod's labels.
pub(crate) const LABELS_FILE: &str = "/etc/podinfo/labels";

/// An ordinal and where it was found.
///
/// ```
/// use std::path::Path;
/// use flakeid_core::layout::presets;
/// use flakeid_core::node::{Ordinal, OrdinalError};
///
/// // What `Ordinal::detect` finds in pod `orders-api-2` without the variable or the labels file.
/// let hostname = || Ok("orders-api-2".to_owned());
/// let ordinal = Ordinal::from_sources(None, Path::new("/nonexistent/podinfo/labels"), hostname)?;
/// assert_eq!(ordinal, Ordinal { value: 2, source: "hostname orders-api-2".into() });
/// assert_eq!(ordinal.check(presets::twitter().max_node())?, 2); // the node ID
/// # Ok::<(), OrdinalError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ordinal {
    /// The pod's ordinal.
    pub value: u64,
    /// Where it came from (`FLAKEID_POD_INDEX`, the labels file, `hostname`).
    pub source: String,
}

/// The ordinal at the end of a StatefulSet pod's hostname (`web-3` → 3).
///
/// # Errors
/// [`OrdinalError::NotAStatefulSetPod`] without a `-<digits>` suffix.
pub(crate) fn ordinal_from_hostname(hostname: &str) -> Result<u64, OrdinalError> {
    let hostname = hostname.trim();
    let not_pod = || OrdinalError::NotAStatefulSetPod {
        hostname: hostname.to_owned(),
    };
    let (name, digits) = hostname.rsplit_once('-').ok_or_else(not_pod)?;
    if name.is_empty() || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(not_pod());
    }
    parse_index("hostname", digits)
}

/// The pod index in a downward-API labels file's content
/// (`key="value"` lines); `None` if the label is absent.
///
/// # Errors
/// [`OrdinalError::Invalid`] when the label's value is not a number.
pub(crate) fn ordinal_from_labels(content: &str) -> Result<Option<u64>, OrdinalError> {
    for line in content.lines() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if key.trim() == POD_INDEX_LABEL {
            let value = value.trim().trim_matches('"');
            return parse_index(&format!("label {POD_INDEX_LABEL}"), value).map(Some);
        }
    }
    Ok(None)
}

impl Ordinal {
    /// This pod's ordinal: from the variable `FLAKEID_POD_INDEX`, else the
    /// downward-API labels file `/etc/podinfo/labels` (label
    /// `apps.kubernetes.io/pod-index`), else the hostname's `-<n>` suffix.
    /// Check it against the layout with [`check`](Self::check).
    ///
    /// # Errors
    /// The first source found that does not hold an ordinal, or
    /// [`OrdinalError::NotAStatefulSetPod`] / [`OrdinalError::NoHostname`]
    /// when nothing does.
    pub fn detect() -> Result<Ordinal, OrdinalError> {
        Self::from_sources(
            std::env::var(POD_INDEX_VAR).ok(),
            Path::new(LABELS_FILE),
            hostname,
        )
    }

    /// [`detect`](Self::detect) with its sources given (for tests).
    ///
    /// # Errors
    /// As [`detect`](Self::detect).
    pub fn from_sources(
        var: Option<String>,
        labels_file: &Path,
        hostname: impl FnOnce() -> Result<String, OrdinalError>,
    ) -> Result<Ordinal, OrdinalError> {
        if let Some(v) = var.filter(|v| !v.trim().is_empty()) {
            return Ok(Ordinal {
                value: parse_index(POD_INDEX_VAR, v.trim())?,
                source: POD_INDEX_VAR.to_owned(),
            });
        }
        if let Ok(content) = std::fs::read_to_string(labels_file)
            && let Some(value) = ordinal_from_labels(&content)?
        {
            return Ok(Ordinal {
                value,
                source: format!("{} in {}", POD_INDEX_LABEL, labels_file.display()),
            });
        }
        let host = hostname()?;
        Ok(Ordinal {
            value: ordinal_from_hostname(&host)?,
            source: format!("hostname {host}"),
        })
    }

    /// The ordinal, checked against a layout whose largest node ID is
    /// `max_node`.
    ///
    /// # Errors
    /// [`OrdinalError::OutOfRange`].
    pub fn check(&self, max_node: u64) -> Result<u64, OrdinalError> {
        if self.value > max_node {
            return Err(OrdinalError::OutOfRange {
                ordinal: self.value,
                source_name: self.source.clone(),
                max: max_node,
            });
        }
        Ok(self.value)
    }
}

/// No StatefulSet ordinal could be found.
///
/// ```
/// use std::path::Path;
/// use flakeid_core::layout::presets;
/// use flakeid_core::node::{Ordinal, OrdinalError};
///
/// // A Deployment's pod has no ordinal.
/// let hostname = || Ok("orders-api-7c9f8d6b5-x2x4z".to_owned());
/// let e = Ordinal::from_sources(None, Path::new("/nonexistent/podinfo/labels"), hostname).unwrap_err();
/// assert!(matches!(e, OrdinalError::NotAStatefulSetPod { .. }));
/// // The JavaScript-safe layout has node IDs 0..=15.
/// let ordinal = Ordinal { value: 40, source: "FLAKEID_POD_INDEX".into() };
/// let e = ordinal.check(presets::js_safe().max_node()).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "pod ordinal 40 (from FLAKEID_POD_INDEX) is beyond the layout's largest node ID 15"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum OrdinalError {
    /// The hostname does not end in `-<digits>` as StatefulSet pods' names do.
    #[error(
        "hostname {hostname:?} does not end in `-<ordinal>`; is this pod part of a StatefulSet? \
         (or pass the `apps.kubernetes.io/pod-index` label through the downward API)"
    )]
    NotAStatefulSetPod {
        /// The hostname.
        hostname: String,
    },
    /// A pod index (variable, label or hostname suffix) is not a number.
    #[error("{source_name} = {value:?} is not a pod index (digits only)")]
    Invalid {
        /// Where it came from (a variable, a file and label, `hostname`).
        source_name: String,
        /// The value found.
        value: String,
    },
    /// The ordinal does not fit the layout's node field.
    #[error(
        "pod ordinal {ordinal} (from {source_name}) is beyond the layout's largest node ID {max}"
    )]
    OutOfRange {
        /// The ordinal.
        ordinal: u64,
        /// Where it came from.
        source_name: String,
        /// The largest node ID.
        max: u64,
    },
    /// The hostname could not be read.
    #[error("cannot read the hostname: {message}")]
    NoHostname {
        /// Why.
        message: String,
    },
}

fn parse_index(source: &str, value: &str) -> Result<u64, OrdinalError> {
    let invalid = || OrdinalError::Invalid {
        source_name: source.to_owned(),
        value: value.to_owned(),
    };
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    value.parse().map_err(|_| invalid())
}

fn hostname() -> Result<String, OrdinalError> {
    if let Ok(h) = std::env::var("HOSTNAME")
        && !h.trim().is_empty()
    {
        return Ok(h.trim().to_owned());
    }
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_owned())
        .map_err(|e| OrdinalError::NoHostname {
            message: format!("$HOSTNAME is unset and /proc/sys/kernel/hostname: {e}"),
        })
}

#[cfg(test)]
#[path = "../../tests/unit/node_kubernetes.rs"]
mod tests;
