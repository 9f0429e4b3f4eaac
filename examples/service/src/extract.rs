//! Extractors whose rejections are [`ApiError`]s naming the field and the
//! value, instead of axum's plain-text rejections.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use flakeid_core::FlakeId;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::error::ApiError;

/// The largest request body: a larger one is a 413 naming this limit.
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;

/// An ID from the path's `{id}` segment, parsed by the ID type's `FromStr`:
/// non-decimal text, 0, negatives, values above 2^63 − 1 and values the
/// type's layout refuses are a 400 whose `error` is the type's own
/// [`IdError`](flakeid_core::IdError) message.
#[derive(Debug, Clone, Copy)]
pub struct IdPath<I>(pub I);

impl<I: FlakeId, S: Send + Sync> FromRequestParts<S> for IdPath<I> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(text) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|e| ApiError::whole(e.status(), e.body_text()))?;
        text.parse::<I>()
            .map(IdPath)
            .map_err(|e| ApiError::field(StatusCode::BAD_REQUEST, e.to_string(), "id", text))
    }
}

/// A JSON body read into `T`. Its rejections:
/// - 415 without `Content-Type: application/json`;
/// - 413 for a body over [`MAX_BODY_BYTES`],
///   naming the limit and the `content-length` sent;
/// - 400 for text that is not JSON (`error` says where);
/// - 422 for JSON that is not an object;
/// - 422 for JSON that does not fit `T`: `field` is the path of the value
///   (`players[2].name`) and `value` the value as sent.
#[derive(Debug, Clone)]
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let content_type = req
            .headers()
            .get(header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let is_json = content_type.as_deref().is_some_and(|ct| {
            ct.split(';')
                .next()
                .is_some_and(|mime| mime.trim().eq_ignore_ascii_case("application/json"))
        });
        if !is_json {
            return Err(ApiError::field(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "the body must be JSON, sent with Content-Type: application/json",
                "content-type",
                content_type.map_or(Value::Null, Value::String),
            ));
        }
        let length = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .map(|v| Value::String(String::from_utf8_lossy(v.as_bytes()).into_owned()))
            .unwrap_or(Value::Null);
        let bytes = Bytes::from_request(req, state).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::field(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    format!("the body is larger than {} bytes", MAX_BODY_BYTES),
                    "content-length",
                    length,
                )
            } else {
                ApiError::whole(e.status(), e.body_text())
            }
        })?;
        let json: Value = serde_json::from_slice(&bytes).map_err(|e| {
            ApiError::whole(
                StatusCode::BAD_REQUEST,
                format!("the body is not valid JSON: {e}"),
            )
        })?;
        // serde would read a struct from an array too; every body here is
        // an object.
        if !json.is_object() {
            return Err(ApiError {
                status: StatusCode::UNPROCESSABLE_ENTITY,
                body: crate::error::ErrorBody {
                    error: "the body must be a JSON object".into(),
                    field: None,
                    value: Some(json),
                },
            });
        }
        from_json(&json).map(JsonBody)
    }
}

/// `T` from a JSON value, or a 422 naming the field that did not fit.
fn from_json<T: DeserializeOwned>(json: &Value) -> Result<T, ApiError> {
    let err = match serde_path_to_error::deserialize::<_, T>(json) {
        Ok(t) => return Ok(t),
        Err(err) => err,
    };
    let mut path: Vec<Segment> = Vec::new();
    for s in err.path().iter() {
        match s {
            serde_path_to_error::Segment::Seq { index } => path.push(Segment::Index(*index)),
            serde_path_to_error::Segment::Map { key } => path.push(Segment::Key(key.clone())),
            _ => {}
        }
    }
    let message = err.inner().to_string();
    // serde reports a missing field at the object that lacks it, naming it
    // only in its message: add it to the path.
    if let Some(name) = quoted_field(&message, "missing field `") {
        path.push(Segment::Key(name));
    }
    let value = value_at(json, &path).cloned().unwrap_or(Value::Null);
    let field = path_text(&path);
    Err(ApiError {
        status: StatusCode::UNPROCESSABLE_ENTITY,
        body: crate::error::ErrorBody {
            error: message,
            field: if field.is_empty() { None } else { Some(field) },
            value: Some(value),
        },
    })
}

enum Segment {
    Index(usize),
    Key(String),
}

fn quoted_field(message: &str, prefix: &str) -> Option<String> {
    let rest = message.strip_prefix(prefix)?;
    rest.split_once('`').map(|(name, _)| name.to_owned())
}

fn value_at<'v>(json: &'v Value, path: &[Segment]) -> Option<&'v Value> {
    path.iter().try_fold(json, |v, s| match s {
        Segment::Index(i) => v.get(*i),
        Segment::Key(k) => v.get(k),
    })
}

fn path_text(path: &[Segment]) -> String {
    let mut out = String::new();
    for s in path {
        match s {
            Segment::Index(i) => out.push_str(&format!("[{i}]")),
            Segment::Key(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;
    use crate::schema::TeamId;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Body {
        team_id: TeamId,
        names: Vec<Named>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Named {
        name: String,
    }

    fn refused(json: Value) -> (Option<String>, Value, String) {
        let e = from_json::<Body>(&json).unwrap_err();
        assert_eq!(e.status, StatusCode::UNPROCESSABLE_ENTITY);
        (e.body.field, e.body.value.unwrap(), e.body.error)
    }

    #[test]
    fn names_the_field_and_value() {
        let (field, value, error) = refused(json!({"team_id": "0", "names": []}));
        assert_eq!(field.as_deref(), Some("team_id"));
        assert_eq!(value, json!("0"));
        assert!(error.contains("0 is not a valid TeamId"), "{error}");

        let (field, value, _) =
            refused(json!({"team_id": "7", "names": [{"name": "a"}, {"name": 5}]}));
        assert_eq!(field.as_deref(), Some("names[1].name"));
        assert_eq!(value, json!(5));

        let (field, value, error) = refused(json!({"team_id": "7", "names": [{}]}));
        assert_eq!(field.as_deref(), Some("names[0].name"), "{error}");
        assert_eq!(value, Value::Null);

        let (field, value, _) = refused(json!({"team_id": "7", "names": [], "extra": [1]}));
        assert_eq!(field.as_deref(), Some("extra"));
        assert_eq!(value, json!([1]));

        let (field, _, error) = refused(json!({"names": []}));
        assert_eq!(field.as_deref(), Some("team_id"), "{error}");

        let (field, value, _) = refused(json!("a team"));
        assert_eq!(field, None);
        assert_eq!(value, json!("a team"));
    }
}
