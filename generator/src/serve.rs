//! `solvedb serve --stdio`: the JSON-lines protocol. One request per line
//! in, one answer per line out, in the shape of `solvedb probe --json`; a bad
//! request gets an error object on its line and the server keeps going.
//!
//! Request: `{"game":"cube","position":"...","want":"moves"}` with `want`
//! one of `value` (no `moves` in the answer), `moves` (the default) or
//! `best` (adds `best_move`, `null` when the game is over). An `id` of any
//! JSON type is echoed back. Error: `{"error":"...","kind":"request"}` with
//! `kind` one of `request`, `position`, `table`, `io`, `budget`,
//! `unsupported`.

use std::io::{self, BufRead, Write};

use serde_json::{Map, Value as Json, json};
use solvedb_lookup::{Error, GameId, Oracle, Want};

/// Lines answered, and how many of them were errors.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServeStats {
    /// Requests answered.
    pub requests: u64,
    /// Of them, answered with an error object.
    pub errors: u64,
}

/// A request that could not be answered, with the `kind` it reports.
struct Refusal {
    kind: &'static str,
    message: String,
}

impl From<Error> for Refusal {
    fn from(e: Error) -> Refusal {
        let kind = match &e {
            Error::Position(_) => "position",
            Error::Table(_) => "table",
            Error::Io { .. } | Error::NotADirectory { .. } => "io",
            Error::BudgetExhausted { .. } | Error::TimeExhausted { .. } => "budget",
            Error::Unsupported { .. } => "unsupported",
            _ => "other",
        };
        Refusal {
            kind,
            message: e.to_string(),
        }
    }
}

fn bad_request(message: impl Into<String>) -> Refusal {
    Refusal {
        kind: "request",
        message: message.into(),
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
    let game: GameId = field("game")?
        .parse()
        .map_err(|e: solvedb_lookup::UnknownGame| bad_request(e.to_string()))?;
    let position = field("position")?;
    let want = match request.get("want").map(|w| w.as_str()) {
        None | Some(Some("moves")) => "moves",
        Some(Some("value")) => "value",
        Some(Some("best")) => "best",
        _ => {
            return Err(bad_request(
                "\"want\" must be \"value\", \"moves\" or \"best\"",
            ));
        }
    };
    let report = oracle.answer(
        game,
        position,
        if want == "value" {
            Want::Value
        } else {
            Want::Moves
        },
    )?;
    let mut json = report.to_json();
    let object = json.as_object_mut().expect("a report is an object");
    match want {
        "value" => {
            object.remove("moves");
        }
        "best" => {
            let best = object["moves"].as_array().and_then(|m| m.first()).cloned();
            object.insert("best_move".into(), best.unwrap_or(Json::Null));
        }
        _ => {}
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
    input: impl BufRead,
    output: &mut dyn Write,
) -> io::Result<ServeStats> {
    let mut stats = ServeStats::default();
    for line in input.lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        stats.requests += 1;
        let request: Result<Map<String, Json>, Refusal> =
            serde_json::from_str(&line).map_err(|e| bad_request(format!("not a JSON object: {e}")));
        let id = request.as_ref().ok().and_then(|r| r.get("id").cloned());
        let mut reply = match request.and_then(|r| answer(oracle, &r)) {
            Ok(json) => json,
            Err(refusal) => {
                stats.errors += 1;
                json!({"error": refusal.message, "kind": refusal.kind})
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
