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
//! on: a line that is not UTF-8, or longer than
//! [`MAX_LINE_BYTES`](solvedb_lookup::MAX_LINE_BYTES) (skipped without
//! being kept in memory), gets an error of kind `request`.

use std::io::{self, BufRead, Write};

use serde_json::{Map, Value as Json};
use solvedb_lookup::{
    Error, ErrorKind, GameId, InputLine, Oracle, Want, bounds_json, error_json, read_line,
};

use crate::client_json::{ObjectError, client_object};

/// Lines answered, and how many of them were errors.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServeStats {
    /// Requests answered.
    pub requests: u64,
    /// Of them, answered with an error object.
    pub errors: u64,
}

/// A request that could not be answered, with the kind it reports.
struct Refusal {
    kind: ErrorKind,
    message: String,
    /// What a search proved before it stopped (`bounds_json`).
    bounds: Option<Json>,
}

impl From<Error> for Refusal {
    fn from(e: Error) -> Refusal {
        Refusal {
            kind: e.kind(),
            message: e.to_string(),
            bounds: e.bounds().map(bounds_json),
        }
    }
}

fn bad_request(message: impl Into<String>) -> Refusal {
    Refusal {
        kind: ErrorKind::Request,
        message: message.into(),
        bounds: None,
    }
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
        None => Want::Moves,
        Some(Some(word)) => Want::parse(word).ok_or_else(|| bad_request(Want::EXPECTED))?,
        Some(None) => return Err(bad_request(Want::EXPECTED)),
    };
    Ok(oracle.answer(game, position, want)?.to_json_for(want))
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
    while let Some(line) = read_line(&mut input, &mut buffer)? {
        let request: Result<Map<String, Json>, Refusal> = match line {
            InputLine::Text(text) if text.trim().is_empty() => continue,
            InputLine::Text(text) => client_object(text.as_bytes()).map_err(|e| match e {
                ObjectError::NotObject => bad_request("not a JSON object"),
                e => bad_request(e.to_string()),
            }),
            InputLine::Refused(why) => Err(bad_request(why)),
        };
        stats.requests += 1;
        let id = request.as_ref().ok().and_then(|r| r.get("id").cloned());
        let mut reply = match request.and_then(|r| answer(oracle, &r)) {
            Ok(json) => json,
            Err(refusal) => {
                stats.errors += 1;
                let mut error = error_json(Some(refusal.kind), &refusal.message);
                if let Some(bounds) = refusal.bounds {
                    error["bounds"] = bounds;
                }
                error
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
