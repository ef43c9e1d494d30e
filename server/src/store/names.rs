//! The names the leaderboard shows: people's (and which they may not
//! take), the computer's, and which per-browser identities are valid.

/// Whether a name of version 1 stood for one person: not `anonymous`
/// (anyone without a name) and not one of the computer's names.
pub(super) fn counts_as_a_name(name: &str) -> bool {
    let name = name.trim();
    !name.is_empty() && name != ANONYMOUS && !is_reserved_name(name)
}

/// The name shown for a person who gave none.
pub const ANONYMOUS: &str = "anonymous";

/// Whether people may not take `name`: it reads as the computer's
/// (`computer`, `computer (perfect)`, `Computer: classic`, `сomputer` with
/// a Cyrillic `с`, …) or as this program's. Names are compared folded:
/// lower case, then the UTS #39 confusable skeleton (look-alike characters
/// mapped to one prototype), letters and digits only.
pub fn is_reserved_name(name: &str) -> bool {
    let plain = folded(name);
    ["computer", "solvedb"]
        .iter()
        .any(|reserved| plain.starts_with(&folded(reserved)))
}

/// `text` in lower case, its UTS #39 skeleton, letters and digits only.
fn folded(text: &str) -> String {
    let lower = text.to_lowercase();
    unicode_security::confusable_detection::skeleton(&lower)
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether `text` may be a per-browser identity: 16 to 64 letters, digits,
/// `-` or `_` (the page makes 32 hex digits from the browser's CSPRNG).
pub fn is_valid_identity(text: &str) -> bool {
    (16..=64).contains(&text.len())
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The computer's name at `level`, as the leaderboard shows it.
pub fn computer_name(level: &str) -> String {
    format!("computer ({level})")
}
