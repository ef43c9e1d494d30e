//! `solvedb serve --stdio`: the JSON-lines protocol. One request per line
//! in, one answer per line out, in the shape of `solvedb probe --json`; a bad
//! request gets an error object on its line and the server keeps going.
//!
//! Request: `{"game":"cube","position":"...","want":"moves"}` with `want`
//! one of `value` (no `moves` in the answer), `moves` (the default) or
//! `best` (adds `best_move`, `null` when the game is over). An `id` of any
//! JSON type is echoed back. Error: `{"error":"...","kind":"request"}` with
//! `kind` one of `request`, `position`, `unsupported`, `table`, `io`,
//! `budget` ([`ErrorKind`]).
//!
//! Whatever arrives, every line gets exactly one answer and the server goes
//! on: a line that is not UTF-8, or longer than [`MAX_LINE_BYTES`] (skipped
//! without being kept in memory), gets an error of kind `request`.

use std::io::{self, BufRead, ErrorKind as IoErrorKind, Write};

use serde_json::{Map, Value as Json, json};
use solvedb_lookup::{Error, ErrorKind, GameId, Oracle, Want};

/// The longest request line read; a longer one is answered with an error
/// and its bytes are skipped, not kept. Requests are a game name and one
/// position of at most [`solvedb_lookup::MAX_NOTATION_LEN`] bytes, so a
/// valid one is far shorter.
pub const MAX_LINE_BYTES: usize = 64 * 1024;

/// Lines answered, and how many of them were errors.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServeStats {
    /// Requests answered.
    pub requests: u64,
    /// Of them, answered with an error object.
    pub errors: u64,
}

/// A request that could not be answered, with the kind it reports.
pub(crate) struct Refusal {
    pub(crate) kind: ErrorKind,
    pub(crate) message: String,
}

impl From<Error> for Refusal {
    fn from(e: Error) -> Refusal {
        Refusal {
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}

fn bad_request(message: impl Into<String>) -> Refusal {
    Refusal {
        kind: ErrorKind::Request,
        message: message.into(),
    }
}

/// The JSON error object every face prints: `{"error":"...","kind":"..."}`,
/// `kind` from [`ErrorKind::as_str`], or `other` for a failure of no kind.
pub fn error_json(kind: Option<ErrorKind>, message: &str) -> Json {
    json!({"error": message, "kind": kind.map_or("other", ErrorKind::as_str)})
}

/// One line of input, read within [`MAX_LINE_BYTES`].
pub(crate) enum Line {
    /// A line of text, without its line ending.
    Text(String),
    /// A line that is not a request: too long, or not UTF-8.
    Refused(Refusal),
}

/// Reads the next line (ended by `\n` or the end of input) into `buffer`,
/// keeping at most [`MAX_LINE_BYTES`] of it; `None` at the end of input.
pub(crate) fn next_line(
    input: &mut impl BufRead,
    buffer: &mut Vec<u8>,
) -> io::Result<Option<Line>> {
    buffer.clear();
    let mut length = 0usize;
    let mut seen_any = false;
    loop {
        let available = match input.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == IoErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            if !seen_any {
                return Ok(None);
            }
            break;
        }
        seen_any = true;
        let (chunk, ended) = match available.iter().position(|&b| b == b'\n') {
            Some(end) => (&available[..end], true),
            None => (available, false),
        };
        let room = MAX_LINE_BYTES.saturating_sub(buffer.len());
        buffer.extend_from_slice(&chunk[..chunk.len().min(room)]);
        length += chunk.len();
        let consumed = chunk.len() + usize::from(ended);
        input.consume(consumed);
        if ended {
            break;
        }
    }
    if length > MAX_LINE_BYTES {
        return Ok(Some(Line::Refused(bad_request(format!(
            "request line of {length} bytes is longer than the limit of {MAX_LINE_BYTES}"
        )))));
    }
    if buffer.last() == Some(&b'\r') {
        buffer.pop();
    }
    Ok(Some(match std::str::from_utf8(buffer) {
        Ok(text) => Line::Text(text.to_owned()),
        Err(e) => Line::Refused(bad_request(format!(
            "request line is not UTF-8 (invalid byte at offset {})",
            e.valid_up_to()
        ))),
    }))
}

/// The answer to one request line.
fn answer(oracle: &Oracle, request: &Map<String, Json>) -> Result<Json, Refusal> {
    let field = |name: &str| -> Result<&str, Refusal> {
        request
            .get(name)
            .and_then(Json::as_str)
            .ok_or_else(|| bad_request(format!("missing string field {name:?}")))
    };
    let game: GameId = field("game")?.parse().map_err(Error::from)?;
    let position = field("position")?;
    let want = match request.get("want").map(|w| w.as_str()) {
        None => Wanted::Moves,
        Some(Some(word)) => Wanted::parse(word).ok_or_else(|| bad_request(Wanted::EXPECTED))?,
        Some(None) => return Err(bad_request(Wanted::EXPECTED)),
    };
    Ok(wanted_json(oracle, game, position, want)?)
}

/// What a request asks for: `want` of the protocol (and of the HTTP API).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Wanted {
    /// The value only (no `moves` in the answer).
    Value,
    /// The value and every move's value, best first (the default).
    Moves,
    /// As `Moves`, plus `best_move` (`null` when the game is over).
    Best,
}

impl Wanted {
    /// What a request that names another `want` is told.
    pub const EXPECTED: &str = "\"want\" must be \"value\", \"moves\" or \"best\"";

    /// Reads `value`, `moves` or `best`.
    pub fn parse(word: &str) -> Option<Wanted> {
        match word {
            "value" => Some(Wanted::Value),
            "moves" => Some(Wanted::Moves),
            "best" => Some(Wanted::Best),
            _ => None,
        }
    }
}

/// The answer to `want` about a position, in the shape of `probe --json`
/// (shared by `serve --stdio` and `serve --http`).
///
/// # Errors
///
/// As [`Oracle::answer`].
pub fn wanted_json(
    oracle: &Oracle,
    game: GameId,
    position: &str,
    want: Wanted,
) -> Result<Json, Error> {
    let report = oracle.answer(
        game,
        position,
        if want == Wanted::Value {
            Want::Value
        } else {
            Want::Moves
        },
    )?;
    let mut json = report.to_json();
    let object = json.as_object_mut().expect("a report is an object");
    match want {
        Wanted::Value => {
            object.remove("moves");
        }
        Wanted::Best => {
            let best = object["moves"].as_array().and_then(|m| m.first()).cloned();
            object.insert("best_move".into(), best.unwrap_or(Json::Null));
        }
        Wanted::Moves => {}
    }
    Ok(json)
}

/// Answers every line of `input` on `output` until the input ends.
///
/// # Errors
///
/// Only I/O errors on the streams themselves; every bad request is answered.
pub fn serve(
    oracle: &Oracle,
    mut input: impl BufRead,
    output: &mut dyn Write,
) -> io::Result<ServeStats> {
    let mut stats = ServeStats::default();
    let mut buffer = Vec::new();
    while let Some(line) = next_line(&mut input, &mut buffer)? {
        let request: Result<Map<String, Json>, Refusal> = match line {
            Line::Text(text) if text.trim().is_empty() => continue,
            Line::Text(text) => serde_json::from_str(&text)
                .map_err(|e| bad_request(format!("not a JSON object: {e}"))),
            Line::Refused(refusal) => Err(refusal),
        };
        stats.requests += 1;
        let id = request.as_ref().ok().and_then(|r| r.get("id").cloned());
        let mut reply = match request.and_then(|r| answer(oracle, &r)) {
            Ok(json) => json,
            Err(refusal) => {
                stats.errors += 1;
                error_json(Some(refusal.kind), &refusal.message)
            }
        };
        if let (Some(id), Some(object)) = (id, reply.as_object_mut()) {
            object.insert("id".into(), id);
        }
        writeln!(output, "{reply}")?;
        output.flush()?;
    }
    Ok(stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<Result<String, String>> {
        let mut reader = io::BufReader::with_capacity(7, input);
        let mut buffer = Vec::new();
        let mut out = Vec::new();
        while let Some(line) = next_line(&mut reader, &mut buffer).unwrap() {
            out.push(match line {
                Line::Text(text) => Ok(text),
                Line::Refused(refusal) => Err(refusal.message),
            });
        }
        out
    }

    #[test]
    fn lines_are_bounded_and_checked_for_utf8() {
        let limit = "a".repeat(MAX_LINE_BYTES);
        let over = "b".repeat(MAX_LINE_BYTES + 1);
        let input = format!("one\r\n\ntwo\n{limit}\n{over}\nlast");
        let got = lines(input.as_bytes());
        assert_eq!(got.len(), 6);
        assert_eq!(got[0], Ok("one".into()));
        assert_eq!(got[1], Ok(String::new()));
        assert_eq!(got[2], Ok("two".into()));
        assert_eq!(got[3], Ok(limit));
        assert!(got[4].as_ref().is_err_and(|e| e.contains("longer than")));
        assert_eq!(got[5], Ok("last".into()));
        let got = lines(b"ok\n\xff\xfe\nok");
        assert_eq!(got[0], Ok("ok".into()));
        assert!(got[1].as_ref().is_err_and(|e| e.contains("not UTF-8")));
        assert_eq!(got[2], Ok("ok".into()));
        assert!(lines(b"").is_empty());
    }
}
