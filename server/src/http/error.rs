//! Error answers: [`ApiError`], the `serve --stdio` error object with its
//! kind's status, and [`status_of`], the server's face of the one error
//! mapping ([`Error::kind`](solvedb_lookup::Error::kind)): each
//! [`ErrorKind`] has one HTTP status.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use solvedb_lookup::ErrorKind;

/// The HTTP status of an error of each kind: the server's face of the one
/// error mapping.
pub fn status_of(kind: ErrorKind) -> StatusCode {
    match kind {
        ErrorKind::Request | ErrorKind::Position | ErrorKind::Unsupported => {
            StatusCode::BAD_REQUEST
        }
        ErrorKind::Budget => StatusCode::SERVICE_UNAVAILABLE,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// An error answer: the `serve --stdio` error object with its kind's status.
#[derive(Debug)]
pub struct ApiError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// What went wrong, for people.
    pub message: String,
}

impl ApiError {
    /// A malformed request (kind `request`).
    pub fn request(message: impl Into<String>) -> ApiError {
        ApiError {
            kind: ErrorKind::Request,
            message: message.into(),
        }
    }
}

impl ApiError {
    /// A request refused for a limit (kind `budget`): answered 503, to be
    /// tried again later.
    pub fn budget(message: impl Into<String>) -> ApiError {
        ApiError {
            kind: ErrorKind::Budget,
            message: message.into(),
        }
    }
}

impl From<solvedb_lookup::Error> for ApiError {
    fn from(e: solvedb_lookup::Error) -> ApiError {
        ApiError {
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = solvedb_lookup::error_json(Some(self.kind), &self.message);
        (status_of(self.kind), axum::Json(body)).into_response()
    }
}
