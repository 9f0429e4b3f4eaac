//! The `flakeid-service` binary: logging, a tokio runtime, and
//! [`flakeid_service::run`].

use std::io::IsTerminal as _;
use std::process::ExitCode;

use tracing_subscriber::EnvFilter;

fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .with_ansi(std::io::stdout().is_terminal())
        .init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            tracing::error!(error = %e, "cannot start the tokio runtime");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(flakeid_service::run()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "flakeid-service stopped");
            ExitCode::FAILURE
        }
    }
}
