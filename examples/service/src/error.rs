//! Errors as HTTP responses: `{"error": …, "field": …, "value": …}`.
//!
//! Anything a client sends that the service cannot use is a 4xx naming the
//! field and the value; a 5xx means the service or its database failed,
//! and its details go to the log, not to the client.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use flakeid_core::IdGenerateError;
use sea_orm::DbErr;
use serde::Serialize;
use utoipa::ToSchema;

/// The body of every error response.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct ErrorBody {
    /// What was wrong, in words.
    pub error: String,
    /// The field, path segment, query parameter or header at fault
    /// (`team_id`, `players[2].name`, `id`, `limit`), or null.
    pub field: Option<String>,
    /// The value that was refused, as the client sent it (a string for path
    /// segments and query parameters, the JSON value for bodies), or null.
    pub value: Option<serde_json::Value>,
}

/// An error response.
#[derive(Debug, thiserror::Error)]
#[error("{status}: {}", body.error)]
pub struct ApiError {
    /// The status.
    pub status: StatusCode,
    /// The body.
    pub body: ErrorBody,
}

impl ApiError {
    /// An error about `field`, which held `value`.
    pub fn field(
        status: StatusCode,
        error: impl Into<String>,
        field: impl Into<String>,
        value: impl Into<serde_json::Value>,
    ) -> ApiError {
        ApiError {
            status,
            body: ErrorBody {
                error: error.into(),
                field: Some(field.into()),
                value: Some(value.into()),
            },
        }
    }

    /// An error about the request as a whole.
    pub fn whole(status: StatusCode, error: impl Into<String>) -> ApiError {
        ApiError {
            status,
            body: ErrorBody {
                error: error.into(),
                field: None,
                value: None,
            },
        }
    }

    /// 404 for an ID that names no row.
    pub fn unknown(what: &str, field: &str, id: impl std::fmt::Display) -> ApiError {
        ApiError::field(
            StatusCode::NOT_FOUND,
            format!("no {what} has ID {id}"),
            field,
            id.to_string(),
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.body)).into_response()
    }
}

/// A database failure: logged in full, answered with 500 and no details
/// (they can hold SQL and server names).
impl From<DbErr> for ApiError {
    fn from(e: DbErr) -> ApiError {
        tracing::error!(error = %e, "database error");
        ApiError::whole(StatusCode::INTERNAL_SERVER_ERROR, "database error")
    }
}

/// No ID can be issued now (the node lease is fenced or moving to another
/// node): the client may retry, as the health check says.
impl From<IdGenerateError> for ApiError {
    fn from(e: IdGenerateError) -> ApiError {
        tracing::warn!(error = %e, "no ID issued");
        ApiError::whole(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("cannot issue IDs now: {e}"),
        )
    }
}
