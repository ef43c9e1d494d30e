//! The referee of games between people: a [`Match`] follows one game by the
//! game's own rules (through [`with_game!`]: parse, `play_notation`,
//! `moves`, `terminal_score`), keeps whose turn it is and the points each
//! seat took, and says who won; [`judge`] scores a move against perfect
//! play from the [`Report`] of the position it was played in, and a
//! [`Verdict`] keeps that score with the values it was judged by. Rooms and
//! games against the computer ([`sessions`](super::sessions)) both use it;
//! no rules here.

use serde_json::Value as Json;
use solvedb_lookup::{AnyValue, Error, Game, GameId, PositionError, Report, Wdl, with_game};

use super::error::ApiError;
use crate::store::{GameRecord, MoveRecord, Seat};

/// The two seats' names in JSON: `first` moves first.
pub const SEATS: [&str; 2] = ["first", "second"];

/// One game in progress or finished, as the referee follows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Match {
    /// The game.
    pub game: GameId,
    /// The position it started from (normalised notation).
    pub start: String,
    /// The position now.
    pub position: String,
    /// Every move played, in the game's notation.
    pub history: Vec<String>,
    /// The position each move was played in (`positions[i]` before
    /// `history[i]`).
    pub positions: Vec<String>,
    /// The seat that made each move.
    pub movers: Vec<u8>,
    /// The seat to move (meaningless once the game is over).
    pub to_move: u8,
    /// What each seat's moves earned by the rules (boxes in dots-and-boxes).
    pub points: [i32; 2],
    /// `None` while the game goes on; `Some(None)` a draw, `Some(Some(seat))`
    /// that seat won.
    pub result: Option<Option<u8>>,
}

/// What the rules say of a position: its notation, the side to move by
/// name, whether the game is over and its final score then.
fn examine(game: GameId, position: &str) -> Result<(String, Option<char>, Option<i32>), Error> {
    with_game!(game, g => {
        let p = g.parse(position).map_err(Error::from)?;
        let over = g.moves(p).is_empty();
        let terminal = if over { Some(g.terminal_score(p).unwrap_or(0)) } else { None };
        Ok::<_, Error>((g.notation(p), g.side_to_move(p), terminal))
    })
}

impl Match {
    /// The leaderboard's record of this game: `kind` (`room` or
    /// `computer`), who sat in each seat, and each move's verdict
    /// ([`judge`]) in order.
    pub fn record(
        &self,
        kind: &'static str,
        players: [Seat; 2],
        verdicts: &[Verdict],
    ) -> GameRecord {
        GameRecord {
            game: self.game.to_string(),
            kind,
            start: self.start.clone(),
            players,
            winner: self.result.flatten(),
            moves: self
                .history
                .iter()
                .zip(&self.movers)
                .zip(verdicts)
                .map(|((mv, &seat), verdict)| MoveRecord {
                    seat,
                    mv: mv.clone(),
                    kept: verdict.kept,
                    cost: verdict.cost,
                })
                .collect(),
            addresses: [None, None],
        }
    }

    /// A new game of `game` from `start` (the game's start if `None`). The
    /// first seat moves first; from a given position of the tic-tac-toe
    /// family with O to move, the second seat (O) does.
    ///
    /// # Errors
    ///
    /// A malformed or illegal position, an unsupported game, or a position
    /// where the game is already over (kind `request`).
    pub fn new(game: GameId, start: Option<&str>) -> Result<Match, ApiError> {
        let start = match start {
            Some(text) => text.to_owned(),
            None => with_game!(game, g => Ok::<_, Error>(g.notation(g.start())))?,
        };
        let (start, side, terminal) = examine(game, &start)?;
        if terminal.is_some() {
            return Err(ApiError::request(format!(
                "the game is already over at {start}"
            )));
        }
        Ok(Match {
            game,
            position: start.clone(),
            start,
            history: Vec::new(),
            positions: Vec::new(),
            movers: Vec::new(),
            to_move: u8::from(side == Some('O')),
            points: [0, 0],
            result: None,
        })
    }

    /// Plays `mv` for the seat to move, checked by the game's rules.
    ///
    /// # Errors
    ///
    /// The game is over, or the move is malformed or illegal (kind
    /// `position`).
    pub fn play(&mut self, mv: &str) -> Result<(), ApiError> {
        if self.result.is_some() {
            return Err(Error::Position(PositionError::IllegalMove {
                mv: mv.to_owned(),
                reason: "the game is over",
            })
            .into());
        }
        let (next, mv, same_mover, gain, terminal) = with_game!(self.game, g => {
            let p = g.parse(&self.position).map_err(Error::from)?;
            let next = g.play_notation(p, mv).map_err(Error::from)?;
            // Legal: play_notation checked it; play again for the transition.
            let m = g.parse_move(mv).map_err(Error::from)?;
            let (_, transition) = g.play(p, m);
            let terminal = if g.moves(next).is_empty() {
                Some(g.terminal_score(next).unwrap_or(0))
            } else {
                None
            };
            Ok::<_, Error>((g.notation(next), m.to_string(), transition.same_mover, transition.gain, terminal))
        })?;
        let seat = self.to_move;
        self.positions
            .push(std::mem::replace(&mut self.position, next));
        self.history.push(mv);
        self.movers.push(seat);
        self.points[usize::from(seat)] += gain;
        if !same_mover {
            self.to_move = 1 - seat;
        }
        if let Some(score) = terminal {
            self.result = Some(winner(score, self.to_move, self.points));
        }
        Ok(())
    }
}

/// Who won: the final score is the rules' score of the last position for
/// the seat to move there plus the points each seat earned on the way
/// (tic-tac-toe: a lost position, no points; dots-and-boxes: 0, the boxes).
fn winner(terminal: i32, to_move: u8, points: [i32; 2]) -> Option<u8> {
    let mover = usize::from(to_move);
    let net = terminal + points[mover] - points[1 - mover];
    match net.signum() {
        1 => Some(to_move),
        -1 => Some(1 - to_move),
        _ => None,
    }
}

/// A move against perfect play: [`judge`]'s measure and the values it
/// was judged by.
#[derive(Clone, Debug, Default)]
pub struct Verdict {
    /// Whether the move kept the value (`None`: unknown).
    pub kept: Option<bool>,
    /// What it gave away (`None`: unknown).
    pub cost: Option<i64>,
    /// The value of the position the move was played in (the probe's JSON
    /// shape, without its moves).
    pub before: Option<Json>,
    /// The move's entry of the probe's answer.
    pub played: Option<Json>,
    /// The best move's entry of the probe's answer.
    pub best: Option<Json>,
}

impl Verdict {
    /// The verdict on `mv`, played where `report` was the oracle's answer
    /// (`None`: no answer, so nothing is known of the move).
    pub fn of(report: Option<&Report>, mv: &str) -> Verdict {
        let (kept, cost) = judge(report, mv);
        let Some(report) = report else {
            return Verdict::default();
        };
        let json = report.to_json();
        let moves = json["moves"].as_array().cloned().unwrap_or_default();
        let mut before = json.as_object().cloned().unwrap_or_default();
        for key in ["game", "position", "to_move", "source", "moves"] {
            before.remove(key);
        }
        Verdict {
            kept,
            cost,
            before: Some(Json::Object(before)),
            played: moves.iter().find(|m| m["move"] == mv).cloned(),
            best: moves.first().cloned(),
        }
    }
}

/// How a move measures against perfect play: whether it kept the value of
/// the position it was played in, and what it gave away — result classes
/// for the tic-tac-toe family (a won position played into a draw: 1; the
/// plies are not counted, a slower win is still a win), boxes for
/// dots-and-boxes (the position's value minus the move's). `(None, None)`
/// when `before` has no value for the move (the answer was unknown).
pub fn judge(before: Option<&Report>, mv: &str) -> (Option<bool>, Option<i64>) {
    let Some(report) = before else {
        return (None, None);
    };
    let Some(played) = report.moves.iter().find(|m| m.mv == mv) else {
        return (None, None);
    };
    let cost = match (report.value, played.value) {
        (AnyValue::Margin(best), AnyValue::Margin(got)) => i64::from(best) - i64::from(got),
        (best, got) => match (best.outcome(), got.outcome()) {
            (Some(best), Some(got)) => i64::from(rank(best.wdl)) - i64::from(rank(got.wdl)),
            _ => return (None, None),
        },
    };
    (Some(cost == 0), Some(cost))
}

fn rank(wdl: Wdl) -> u8 {
    match wdl {
        Wdl::Loss => 0,
        Wdl::Draw => 1,
        Wdl::Win => 2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use solvedb_lookup::{MoveReport, Outcome, Source};

    #[test]
    fn tic_tac_toe_wins_and_turns() {
        let mut m = Match::new(GameId::TicTacToe, None).unwrap();
        for mv in ["0", "3", "1", "4"] {
            m.play(mv).unwrap();
        }
        assert_eq!(m.to_move, 0);
        assert!(m.play("4").is_err(), "taken");
        assert!(m.play("x").is_err(), "malformed");
        m.play("2").unwrap();
        assert_eq!(m.result, Some(Some(0)));
        assert!(m.play("5").is_err(), "over");
        let o_to_move = Match::new(GameId::TicTacToe, Some("X../.../...")).unwrap();
        assert_eq!(o_to_move.to_move, 1);
        assert!(Match::new(GameId::TicTacToe, Some("XXX/OO./...")).is_err());
    }

    #[test]
    fn dots_keep_the_turn_after_a_box_and_count_boxes() {
        let game: GameId = "dots:1x1".parse().unwrap();
        let mut m = Match::new(game, None).unwrap();
        let moves = with_game!(game, g => Ok::<_, Error>(g.moves(g.start()).iter().map(|m| m.to_string()).collect::<Vec<_>>())).unwrap();
        for mv in &moves[..3] {
            m.play(mv).unwrap();
        }
        // Three edges alternate seats: first, second, first; second closes the box.
        assert_eq!(m.movers, [0, 1, 0]);
        assert_eq!(m.to_move, 1);
        m.play(&moves[3]).unwrap();
        assert_eq!(m.points, [0, 1]);
        assert_eq!(m.result, Some(Some(1)));
    }

    #[test]
    fn judging_against_the_report() {
        let outcome = |wdl, plies| AnyValue::Outcome(Outcome { wdl, plies });
        let report = Report {
            game: GameId::TicTacToe,
            position: String::new(),
            to_move: Some('X'),
            value: outcome(Wdl::Win, 3),
            source: Source::Table,
            moves: vec![
                MoveReport {
                    mv: "1".into(),
                    value: outcome(Wdl::Win, 3),
                },
                MoveReport {
                    mv: "2".into(),
                    value: outcome(Wdl::Win, 5),
                },
                MoveReport {
                    mv: "3".into(),
                    value: outcome(Wdl::Draw, 6),
                },
                MoveReport {
                    mv: "4".into(),
                    value: outcome(Wdl::Loss, 4),
                },
            ],
            unknown: Vec::new(),
            searched: Vec::new(),
        };
        assert_eq!(judge(Some(&report), "1"), (Some(true), Some(0)));
        assert_eq!(judge(Some(&report), "2"), (Some(true), Some(0)));
        assert_eq!(judge(Some(&report), "3"), (Some(false), Some(1)));
        assert_eq!(judge(Some(&report), "4"), (Some(false), Some(2)));
        assert_eq!(judge(None, "1"), (None, None));
        let dots = Report {
            value: AnyValue::Margin(3),
            moves: vec![MoveReport {
                mv: "h0,0".into(),
                value: AnyValue::Margin(-1),
            }],
            ..report
        };
        assert_eq!(judge(Some(&dots), "h0,0"), (Some(false), Some(4)));
    }
}
