//! Answers in a form that does not depend on the game ([`Report`]), and
//! the JSON shapes every face shares: answers ([`Report::to_json_for`],
//! [`Mainline::to_json`]) and errors ([`error_json`]), for `solvedb probe
//! --json`, `solvedb serve` (JSON lines and HTTP), rooms and the rest.

use serde_json::{Map, Value as Json, json};

use crate::bounds::Bounds;
use crate::error::{Error, ErrorKind};
use crate::format::{GameId, TableData};
use crate::game::Tabled;
use crate::game_oracle::{GameOracle, Source};
use crate::stop::Stop;
use crate::value::AnyValue;

/// One move and its value for the player who makes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveReport {
    /// The move in the game's notation.
    pub mv: String,
    /// Its value for the player who makes it, counted from before the move.
    pub value: AnyValue,
}

/// An answer about one position, for any game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The game and board.
    pub game: GameId,
    /// The position in the game's notation (normalised).
    pub position: String,
    /// The side to move, where it has a name.
    pub to_move: Option<char>,
    /// The value for the side to move.
    pub value: AnyValue,
    /// Where the answer came from.
    pub source: Source,
    /// Every legal move, best first (empty when only the value was asked),
    /// but those in [`unknown`](Report::unknown).
    pub moves: Vec<MoveReport>,
    /// Legal moves whose values are not known: where a table of part of
    /// the game (Qubic's strategy) covers the position but not the move,
    /// and a live search within the request's deadline did not settle it.
    pub unknown: Vec<String>,
    /// Moves of [`moves`](Report::moves) that such a table left open and
    /// a live search valued within the request's deadline, in the game's
    /// order (the rest of `moves` are the table's).
    pub searched: Vec<String>,
}

/// The JSON fields of a value: `result` and `plies` (and `plies_bound`:
/// `at_most` where the plies are a strategy's upper bound), or `value`.
fn value_fields(value: AnyValue, into: &mut Map<String, Json>) {
    match value {
        AnyValue::Outcome(o) => {
            into.insert("result".into(), json!(o.wdl.as_str()));
            into.insert("plies".into(), json!(o.plies));
        }
        AnyValue::AtMost(o) => {
            into.insert("result".into(), json!(o.wdl.as_str()));
            into.insert("plies".into(), json!(o.plies));
            into.insert("plies_bound".into(), json!("at_most"));
        }
        AnyValue::Margin(m) => {
            into.insert("value".into(), json!(m));
        }
    }
}

impl Report {
    /// The answer as one line of JSON, the shape of `solvedb probe --json`:
    /// `{"game":"tictactoe","position":"...","to_move":"X","result":"win",
    /// "plies":3,"source":"table","moves":[{"move":"4","result":"win",
    /// "plies":3}, ...]}`; dots-and-boxes has `value` instead of
    /// `result`/`plies`, and no `to_move`. Where a table answers the
    /// position but not every move (Qubic off the strategy's line),
    /// `unknown_moves` lists the moves without a value and `searched_moves`
    /// those of `moves` a live search valued; each is left out when empty.
    ///
    /// `game` is the name requests take (`tictactoe`, `cube`, `dots:2x2`),
    /// so an answer's `game` and `position` can be sent back as a request.
    pub fn to_json(&self) -> Json {
        let mut object = Map::new();
        object.insert("game".into(), json!(self.game.to_string()));
        object.insert("position".into(), json!(self.position));
        if let Some(side) = self.to_move {
            object.insert("to_move".into(), json!(side.to_string()));
        }
        value_fields(self.value, &mut object);
        object.insert("source".into(), json!(self.source.as_str()));
        let moves = self
            .moves
            .iter()
            .map(|m| {
                let mut entry = Map::new();
                entry.insert("move".into(), json!(m.mv));
                value_fields(m.value, &mut entry);
                Json::Object(entry)
            })
            .collect();
        object.insert("moves".into(), Json::Array(moves));
        if !self.unknown.is_empty() {
            object.insert("unknown_moves".into(), json!(self.unknown));
        }
        if !self.searched.is_empty() {
            object.insert("searched_moves".into(), json!(self.searched));
        }
        Json::Object(object)
    }

    /// The answer to a request that wants `want`: [`to_json`](Report::to_json)
    /// without `moves` for [`Want::Value`], with `best_move` (the first
    /// move, `null` when the game is over) for [`Want::Best`].
    pub fn to_json_for(&self, want: Want) -> Json {
        let mut json = self.to_json();
        let object = json.as_object_mut().expect("a report is an object");
        match want {
            Want::Value => {
                object.remove("moves");
            }
            Want::Best => {
                let best = object["moves"].as_array().and_then(|m| m.first()).cloned();
                object.insert("best_move".into(), best.unwrap_or(Json::Null));
            }
            Want::Moves => {}
        }
        json
    }
}

/// The best line from a position to the end of the game: the principal
/// variation under perfect play.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mainline {
    /// The game and board.
    pub game: GameId,
    /// The starting position in the game's notation (normalised).
    pub position: String,
    /// The value of the starting position for the side to move.
    pub value: AnyValue,
    /// Where the values came from.
    pub source: Source,
    /// The moves of the line, in order; each is the best move (the first of
    /// the moves, ties in move order) of the position it is played in.
    pub moves: Vec<String>,
    /// The position at the end of the line: the game is over there.
    pub last: String,
}

impl Mainline {
    /// The line as JSON: `{"game", "position", "result"/"plies" or "value",
    /// "source", "moves": [...], "final": position at the end}`.
    pub fn to_json(&self) -> Json {
        let mut object = Map::new();
        object.insert("game".into(), json!(self.game.to_string()));
        object.insert("position".into(), json!(self.position));
        value_fields(self.value, &mut object);
        object.insert("source".into(), json!(self.source.as_str()));
        object.insert("moves".into(), json!(self.moves));
        object.insert("final".into(), json!(self.last));
        Json::Object(object)
    }
}

/// The best line from the position `text` to the end of the game.
///
/// # Errors
///
/// As [`report`].
pub fn mainline<G: Tabled, D: TableData>(
    oracle: &GameOracle<G, D>,
    text: &str,
    stop: &Stop,
) -> Result<Mainline, Error> {
    let game = oracle.game();
    let start = game.parse(text)?;
    let mut position = start;
    let mut moves = Vec::new();
    let mut value = None;
    loop {
        // The tables' own moves: a line that keeps to the positions they
        // answer (a move found by a search of the moves they leave open
        // could lead off them).
        let answer = oracle.answer_covered_within(position, stop)?;
        value.get_or_insert_with(|| {
            let value: AnyValue = answer.value.into();
            if answer.at_most {
                value.at_most()
            } else {
                value
            }
        });
        let Some(best) = answer.moves.first() else {
            break;
        };
        moves.push(best.mv.to_string());
        position = game.play(position, best.mv).0;
    }
    Ok(Mainline {
        game: game.id(),
        position: game.notation(start),
        value: value.expect("the loop answers the start"),
        source: oracle.source_of(start),
        moves,
        last: game.notation(position),
    })
}

/// What a request asks for about a position: `want` of the JSON-lines
/// protocol and of the HTTP API.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Want {
    /// The value only (no `moves` in the answer).
    Value,
    /// The value and every move's value, best first (the default).
    Moves,
    /// As `Moves`, plus `best_move` (`null` when the game is over).
    Best,
}

impl Want {
    /// What a request that names another `want` is told.
    pub const EXPECTED: &str = "\"want\" must be \"value\", \"moves\" or \"best\"";

    /// Reads `value`, `moves` or `best`.
    pub fn parse(word: &str) -> Option<Want> {
        match word {
            "value" => Some(Want::Value),
            "moves" => Some(Want::Moves),
            "best" => Some(Want::Best),
            _ => None,
        }
    }
}

/// The JSON error object every face prints: `{"error":"...","kind":"..."}`,
/// `kind` from [`ErrorKind::as_str`], or `other` for a failure of no kind.
pub fn error_json(kind: Option<ErrorKind>, message: &str) -> Json {
    json!({"error": message, "kind": kind.map_or("other", ErrorKind::as_str)})
}

/// A bound's JSON: a margin as a number (`-1`), an outcome as
/// `{"result", "plies"}`.
fn bound_json(value: AnyValue) -> Json {
    match value {
        AnyValue::Margin(m) => json!(m),
        AnyValue::Outcome(_) | AnyValue::AtMost(_) => {
            let mut object = Map::new();
            value_fields(value, &mut object);
            Json::Object(object)
        }
    }
}

/// What a search proved before it stopped ([`Error::Bounded`]) as JSON:
/// `{"lower": -1, "upper": 3, "moves": [{"move": "h0.0", "lower": -3,
/// "upper": 3}, ...]}`, the value's bounds for the side to move and each
/// legal move's for the player who makes it, in the game's move order.
pub fn bounds_json(bounds: &Bounds) -> Json {
    let moves = bounds
        .moves
        .iter()
        .map(|m| {
            json!({
                "move": m.mv,
                "lower": bound_json(m.bounds.lower),
                "upper": bound_json(m.bounds.upper),
            })
        })
        .collect();
    json!({
        "lower": bound_json(bounds.value.lower),
        "upper": bound_json(bounds.value.upper),
        "moves": Json::Array(moves),
    })
}

/// [`error_json`] of `error`, and `"bounds"` ([`bounds_json`]) where the
/// search proved some before it stopped.
pub fn error_json_of(error: &Error) -> Json {
    let mut json = error_json(Some(error.kind()), &error.to_string());
    if let Some(bounds) = error.bounds() {
        json["bounds"] = bounds_json(bounds);
    }
    json
}

/// The answer for the position `text` from one game's oracle.
///
/// # Errors
///
/// As [`GameOracle::answer`], and a [`PositionError`](crate::PositionError)
/// for bad notation.
pub fn report<G: Tabled, D: TableData>(
    oracle: &GameOracle<G, D>,
    text: &str,
    want: Want,
    stop: &Stop,
) -> Result<Report, Error> {
    let game = oracle.game();
    let position = game.parse(text)?;
    let bounded = |value: G::Value, at_most: bool| {
        let value: AnyValue = value.into();
        if at_most { value.at_most() } else { value }
    };
    let (value, source, moves, unknown, searched) = match want {
        Want::Value => {
            let probe = oracle.probe_value_within(position, stop)?;
            (
                bounded(probe.value, probe.at_most),
                probe.source,
                Vec::new(),
                Vec::new(),
                Vec::new(),
            )
        }
        Want::Moves | Want::Best => {
            // The best move needs no search of the moves a table leaves
            // open: its best covered move reaches the table's value.
            let answer = match want {
                Want::Best => oracle.answer_covered_within(position, stop)?,
                _ => oracle.answer_within(position, stop)?,
            };
            let moves = answer
                .moves
                .iter()
                .map(|m| MoveReport {
                    mv: m.mv.to_string(),
                    value: bounded(m.value, m.at_most),
                })
                .collect();
            let unknown = answer.unknown.iter().map(ToString::to_string).collect();
            let searched = answer.searched.iter().map(ToString::to_string).collect();
            (
                bounded(answer.value, answer.at_most),
                answer.source,
                moves,
                unknown,
                searched,
            )
        }
    };
    Ok(Report {
        game: game.id(),
        position: game.notation(position),
        to_move: game.side_to_move(position),
        value,
        source,
        moves,
        unknown,
        searched,
    })
}
