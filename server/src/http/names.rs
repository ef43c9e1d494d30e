//! The names people give themselves in rooms and in games against the
//! computer: trimmed, cut to [`MAX_NAME_CHARS`], and never one of the
//! computer's.

use super::error::ApiError;
use crate::store::is_reserved_name;

/// The longest name kept, in characters; longer names are cut.
pub const MAX_NAME_CHARS: usize = 40;

/// The name of a player who gave none.
pub const ANONYMOUS: &str = crate::store::ANONYMOUS;

/// A given name, trimmed and cut to [`MAX_NAME_CHARS`].
pub fn given_name(text: &str) -> String {
    text.trim().chars().take(MAX_NAME_CHARS).collect()
}

/// The name a person gave: trimmed, cut to [`MAX_NAME_CHARS`]; the
/// computer's names are refused.
///
/// # Errors
///
/// A name reserved for the computer (kind `request`).
pub fn person_name(given: Option<&str>) -> Result<String, ApiError> {
    let name = given_name(given.unwrap_or(""));
    if is_reserved_name(&name) {
        return Err(ApiError::request(format!(
            "the name {name:?} is reserved for the computer: choose another"
        )));
    }
    Ok(name)
}
