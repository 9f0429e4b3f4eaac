//! `/metrics`: flakeid's metrics (IDs issued, waits, lease renewals,
//! fences, node moves; see `flakeid_core::telemetry`) in Prometheus's text
//! format, from a recorder installed for the whole process before the
//! lease is claimed and the generator built.

use std::sync::OnceLock;

use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use metrics_exporter_prometheus::{BuildError, PrometheusBuilder, PrometheusHandle};

/// Installs the process's Prometheus recorder. Call it once, before the
/// lease is claimed: flakeid registers its metrics when a lease or a
/// generator is built.
///
/// # Errors
/// When a recorder was already installed in this process.
pub fn install() -> Result<(), BuildError> {
    let handle = PrometheusBuilder::new().install_recorder()?;
    // `install_recorder` fails on a second call, so this is the first.
    let _ = HANDLE.set(handle);
    Ok(())
}

/// `GET /metrics`: the text format Prometheus scrapes (503 before
/// [`install`]).
pub async fn render() -> impl IntoResponse {
    match HANDLE.get() {
        Some(handle) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
            handle.render(),
        ),
        None => (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "no metrics recorder installed\n".to_owned(),
        ),
    }
}

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
