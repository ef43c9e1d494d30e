//! Secrets: room ids, seat tokens, invites and session ids, 128 bits each
//! from the operating system's CSPRNG, and their comparison in constant
//! time.

use solvedb_lookup::ErrorKind;

use super::error::ApiError;

/// A hex string of 128 bits from the operating system's CSPRNG.
///
/// # Errors
///
/// If the operating system gives no random bytes.
pub fn secret() -> Result<String, ApiError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| ApiError {
        kind: ErrorKind::Io,
        message: format!("no random bytes from the operating system: {e}"),
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Equal strings, compared in time that depends only on their lengths, so
/// a token cannot be guessed byte by byte from the answer's timing.
pub fn same_secret(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}
