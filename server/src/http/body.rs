//! Request bodies: a JSON object with only the fields a route knows, and
//! its fields read and checked.

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use serde_json::{Map, Value as Json};
use solvedb_lookup::{Error, ErrorKind, GameId};

use super::api::explorer_games;
use super::error::ApiError;
use super::limits::MAX_BODY_BYTES;
use crate::client_json::{ObjectError, client_object};

/// Reads a JSON object body with only the `known` fields.
pub(crate) fn json_body(
    body: Result<Bytes, BytesRejection>,
    known: &[&str],
) -> Result<Map<String, Json>, ApiError> {
    let body = body.map_err(|e| {
        ApiError::request(format!(
            "the body could not be read ({}): at most {MAX_BODY_BYTES} bytes",
            e.body_text()
        ))
    })?;
    let object = client_object(&body).map_err(|e| match e {
        ObjectError::NotObject => ApiError::request("the body must be a JSON object"),
        e => ApiError::request(format!("the body is {e}")),
    })?;
    if let Some(name) = object.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(ApiError::request(format!(
            "unknown field {name:?}: expected {}",
            known.join(", ")
        )));
    }
    Ok(object)
}

/// A string field, if present.
pub(crate) fn string_field<'a>(
    object: &'a Map<String, Json>,
    name: &str,
) -> Result<Option<&'a str>, ApiError> {
    match object.get(name) {
        None | Some(Json::Null) => Ok(None),
        Some(Json::String(s)) => Ok(Some(s)),
        Some(other) => Err(ApiError::request(format!(
            "field {name:?} must be a string, not {other}"
        ))),
    }
}

/// The game a request names: one of the explorer's games (the page can
/// draw nothing else), else an error of kind `unsupported`.
pub(crate) fn game_field(object: &Map<String, Json>) -> Result<GameId, ApiError> {
    let name =
        string_field(object, "game")?.ok_or_else(|| ApiError::request("missing field \"game\""))?;
    let game = name.parse::<GameId>().map_err(Error::from)?;
    if !explorer_games().any(|offered| offered.id == game) {
        return Err(ApiError {
            kind: ErrorKind::Unsupported,
            message: format!("{game} is not one of the games played here (GET /api/v1/games)"),
        });
    }
    Ok(game)
}
