//! The JSON the server answers with: one type per shape, serialised in the
//! order of its fields (the page and the tests read these names). The
//! probe's and the main line's answers, and the error object, are the
//! library's own shapes ([`Report::to_json_for`], [`error_json`]) and are
//! sent as the library makes them.
//!
//! A room's state ([`RoomState`]) and a session's ([`SessionState`]) share
//! the game as the referee follows it ([`MatchView`]), its points, its
//! verdicts after the end ([`Finished`]) and the seats' names
//! ([`seat_name`]).
//!
//! [`Report::to_json_for`]: solvedb_lookup::Report::to_json_for
//! [`error_json`]: solvedb_lookup::error_json

use serde::Serialize;
use serde_json::Value as Json;
use solvedb_lookup::BoardShape;

use super::referee::{Match, SEATS, Verdict};
use crate::store::{Entry, Recorded};

/// A seat's name in JSON: `first` or `second`.
pub fn seat_name(seat: u8) -> &'static str {
    SEATS[usize::from(seat)]
}

/// A board as `/api/v1/games` sends it: its kind, and its size or its rows
/// and columns of boxes.
#[derive(Debug, Serialize)]
pub struct BoardView {
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    size: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cols: Option<u8>,
}

impl BoardView {
    /// The view of `board`.
    pub fn of(board: BoardShape) -> BoardView {
        let kind = board.kind().as_str();
        match board {
            BoardShape::Grid { size } | BoardShape::Layers { size } => BoardView {
                kind,
                size: Some(size),
                rows: None,
                cols: None,
            },
            BoardShape::Dots { rows, cols } => BoardView {
                kind,
                size: None,
                rows: Some(rows),
                cols: Some(cols),
            },
        }
    }
}

/// One game of `GET /api/v1/games`.
#[derive(Debug, Serialize)]
pub struct GameEntry {
    /// The game's name in requests.
    pub game: String,
    /// The name people read.
    pub title: String,
    /// The board's kind.
    pub kind: &'static str,
    /// The board.
    pub board: BoardView,
    /// The names of the two sides.
    pub sides: Vec<String>,
    /// The start position.
    pub start: String,
    /// Whether the game's table file is there.
    pub table: bool,
    /// Whether that table answers every position (false for a strategy
    /// table, Qubic's: positions outside the strategy are searched live,
    /// within the search limit).
    pub table_covers_every_position: bool,
}

/// `GET /api/v1/games`.
#[derive(Debug, Serialize)]
pub struct GameList {
    /// The explorer's games, in the menu's order.
    pub games: Vec<GameEntry>,
    /// The time one request's searches may take together.
    pub search_seconds: f64,
}

/// `GET /api/v1/check`: the position normalised and, when moves were
/// given, the moves normalised and the position they reach.
#[derive(Debug, Serialize)]
pub struct Checked {
    /// The game.
    pub game: String,
    /// The position, normalised.
    pub position: String,
    /// The moves, normalised (only when `moves` was given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moves: Option<Vec<String>>,
    /// The position the moves reach (only when `moves` was given).
    #[serde(rename = "final", skip_serializing_if = "Option::is_none")]
    pub last: Option<String>,
}

/// A refused check: the error object and, for a move that cannot be
/// played, its index and the rules' reason alone.
#[derive(Debug, Serialize)]
pub struct CheckRefused {
    /// The error object ([`error_json`](solvedb_lookup::error_json)).
    #[serde(flatten)]
    pub error: Json,
    /// The index of the move that cannot be played, from 0.
    #[serde(rename = "move", skip_serializing_if = "Option::is_none")]
    pub at: Option<usize>,
    /// The rules' reason ("it is already taken").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A player's line of the leaderboard.
#[derive(Debug, Serialize)]
pub struct LeaderboardEntry<'a> {
    rank: Option<u64>,
    player: i64,
    name: &'a str,
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    moves: u64,
    accuracy: Option<f64>,
}

impl LeaderboardEntry<'_> {
    /// The line of `entry`.
    pub fn of(entry: &Entry) -> LeaderboardEntry<'_> {
        LeaderboardEntry {
            rank: entry.rank,
            player: entry.player,
            name: &entry.name,
            games: entry.games,
            wins: entry.wins,
            draws: entry.draws,
            losses: entry.losses,
            moves: entry.rated_moves,
            accuracy: entry.accuracy(),
        }
    }
}

/// `GET /api/v1/leaderboard`: a page of people and the computer's levels.
#[derive(Debug, Serialize)]
pub struct LeaderboardPage<'a> {
    /// The game asked for (`null`: every game together).
    pub game: Option<String>,
    /// People on this page.
    pub entries: Vec<LeaderboardEntry<'a>>,
    /// The computer's levels.
    pub computer: Vec<LeaderboardEntry<'a>>,
    /// Games a person plays before being ranked.
    pub min_games: u64,
    /// This page's number, from 1.
    pub page: u64,
    /// Pages in all.
    pub pages: u64,
    /// Entries per page.
    pub per_page: u64,
    /// The cursor of the next page (`after=`), `null` on the last.
    pub next: Option<String>,
    /// New players (identities) one address brings in an hour (a ranking
    /// rule the page states).
    pub new_identities_per_hour: u32,
}

/// The game of a room or a session as both send it: the game, the position
/// it started from, the position now and the moves played.
#[derive(Clone, Debug, Serialize)]
pub struct MatchView {
    game: String,
    start: String,
    position: String,
    history: Vec<String>,
}

impl MatchView {
    /// The view of `game`.
    pub fn of(game: &Match) -> MatchView {
        MatchView {
            game: game.game.to_string(),
            start: game.start.clone(),
            position: game.position.clone(),
            history: game.history.clone(),
        }
    }
}

/// The seat to move, `None` once the game is over.
pub fn to_move(game: &Match) -> Option<&'static str> {
    game.result.is_none().then(|| seat_name(game.to_move))
}

/// What each seat's moves earned by the rules.
#[derive(Clone, Debug, Serialize)]
pub struct Points {
    first: i32,
    second: i32,
}

impl Points {
    /// The points of `game`.
    pub fn of(game: &Match) -> Points {
        Points {
            first: game.points[0],
            second: game.points[1],
        }
    }
}

/// A move against perfect play, as sent after the game.
#[derive(Clone, Debug, Serialize)]
pub struct VerdictView {
    /// The move.
    #[serde(rename = "move")]
    pub mv: String,
    /// The seat that made it.
    pub seat: &'static str,
    /// Whether it kept the value of the position (`None`: unknown).
    pub kept: Option<bool>,
    /// What it gave away (`None`: unknown).
    pub cost: Option<i64>,
    /// The values it was judged by (games against the computer).
    #[serde(flatten)]
    pub values: Option<VerdictValues>,
}

/// The value of the position a move was played in, of the move and of the
/// best move, in the probe's shapes.
#[derive(Clone, Debug, Serialize)]
pub struct VerdictValues {
    /// The position's value.
    pub before: Option<Json>,
    /// The move's value.
    pub played: Option<Json>,
    /// The best move and its value.
    pub best: Option<Json>,
}

/// What is sent once the game is over: each move's verdict, and whether
/// the game went into the leaderboard.
#[derive(Clone, Debug, Serialize)]
pub struct Finished {
    /// Each move's verdict, in order.
    pub verdicts: Vec<VerdictView>,
    /// Whether the game was recorded.
    pub recorded: bool,
    /// Why the recorded game does not rank (`null`: it ranks, or is not
    /// recorded yet).
    pub unranked: Option<UnrankedView>,
}

/// Why a recorded game does not rank.
#[derive(Clone, Debug, Serialize)]
pub struct UnrankedView {
    /// The reason's name (as stored): `unjudged`, `random`, `short`,
    /// `oneself`.
    pub reason: &'static str,
    /// The reason in a sentence.
    pub explained: &'static str,
}

impl Finished {
    /// For a game that is over, each move's verdict with the values it was
    /// judged by, whether the game was recorded and why it does not rank;
    /// `None` while it goes on.
    pub fn of(game: &Match, verdicts: &[Verdict], recorded: Option<&Recorded>) -> Option<Finished> {
        game.result?;
        let verdicts = verdicts
            .iter()
            .zip(&game.history)
            .zip(&game.movers)
            .map(|((verdict, mv), &seat)| VerdictView {
                mv: mv.clone(),
                seat: seat_name(seat),
                kept: verdict.kept,
                cost: verdict.cost,
                values: Some(VerdictValues {
                    before: verdict.before.clone(),
                    played: verdict.played.clone(),
                    best: verdict.best.clone(),
                }),
            })
            .collect();
        Some(Finished {
            verdicts,
            recorded: recorded.is_some(),
            unranked: recorded.and_then(|r| r.unranked).map(|why| UnrankedView {
                reason: why.as_str(),
                explained: why.explained(),
            }),
        })
    }
}

/// How a room's game ended.
#[derive(Clone, Debug, Serialize)]
pub struct RoomResult {
    /// The winning seat, `None` for a draw.
    pub winner: Option<&'static str>,
    /// The seat that let its clock run out, if the game ended so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forfeit: Option<&'static str>,
}

/// The move clock: the seat to move and the milliseconds it has left.
#[derive(Clone, Debug, Serialize)]
pub struct Clock {
    /// The seat to move.
    pub seat: &'static str,
    /// Milliseconds left.
    pub ms: u64,
}

/// A seat's player as a room shows it.
#[derive(Clone, Debug, Serialize)]
pub struct Player {
    /// The name given (`anonymous` for none).
    pub name: String,
    /// Whether a connection holds the seat now.
    pub online: bool,
}

/// The two seats' players.
#[derive(Clone, Debug, Serialize)]
pub struct Players {
    /// The first seat's.
    pub first: Player,
    /// The second seat's.
    pub second: Player,
}

/// A room's state as every receiver is sent it, less what depends on the
/// receiver ([`RoomMessage`]).
#[derive(Clone, Debug, Serialize)]
pub struct RoomState {
    /// Always `state`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The room's id.
    pub room: String,
    /// The game.
    #[serde(flatten)]
    pub game: MatchView,
    /// The seat to move, `None` once over.
    pub to_move: Option<&'static str>,
    /// `None` until the end.
    pub result: Option<RoomResult>,
    /// The move clock, while it runs.
    pub clock: Option<Clock>,
    /// Each seat's points.
    pub points: Points,
    /// Each seat's player.
    pub players: Players,
    /// Spectators connected.
    pub spectators: usize,
    /// Whether the players are sent the oracle's values.
    pub hints: bool,
    /// After the game.
    #[serde(flatten)]
    pub finished: Option<Finished>,
}

/// A room's state for one receiver: its seat (or `spectator`) and, where
/// allowed, the oracle's values of the position (`null` where unknown).
#[derive(Debug, Serialize)]
pub struct RoomMessage<'a> {
    /// The state everyone is sent.
    #[serde(flatten)]
    pub state: &'a RoomState,
    /// The receiver's seat, or `spectator`.
    pub you: &'static str,
    /// The oracle's values, when the receiver may see them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Option<&'a Json>>,
}

/// A message refused on a room's WebSocket, sent to its sender only.
#[derive(Debug, Serialize)]
pub struct SocketError<'a> {
    /// Always `error`.
    #[serde(rename = "type")]
    pub tag: &'static str,
    /// The error's kind.
    pub kind: &'static str,
    /// What went wrong, for people.
    pub error: &'a str,
}

/// The two seats' links of a new room.
#[derive(Debug, Serialize)]
pub struct SeatLinks {
    /// The creator's.
    pub first: String,
    /// The friend's invite.
    pub second: String,
}

/// The creator's seat token, by seat.
#[derive(Debug, Serialize)]
pub struct SeatTokens {
    /// The first seat's token.
    pub first: String,
}

/// `POST /api/v1/rooms`: the new room and the creator's seat.
#[derive(Debug, Serialize)]
pub struct RoomCreated {
    /// The room's id.
    pub room: String,
    /// The creator's seat, `first`.
    pub seat: &'static str,
    /// The creator's seat token.
    pub token: String,
    /// The seat tokens held by the receiver.
    pub seats: SeatTokens,
    /// The friend's one-time invite link.
    pub invite: String,
    /// The room's page, for spectators.
    pub url: String,
    /// Each seat's link.
    pub links: SeatLinks,
}

/// `POST /api/v1/rooms/ID/claim`: the friend's seat.
#[derive(Debug, Serialize)]
pub struct RoomClaimed {
    /// The room's id.
    pub room: String,
    /// The friend's seat, `second`.
    pub seat: &'static str,
    /// The seat's token.
    pub token: String,
    /// The seat's link.
    pub link: String,
}

/// How a session's game ended.
#[derive(Clone, Debug, Serialize)]
pub struct SessionResult {
    /// The winning seat, `None` for a draw.
    pub winner: Option<&'static str>,
    /// Whether the person resigned (or left the game idle).
    pub resigned: bool,
}

/// Each seat's player in a session: `person` or a level.
#[derive(Clone, Debug, Serialize)]
pub struct Levels {
    /// The first seat's.
    pub first: &'static str,
    /// The second seat's.
    pub second: &'static str,
}

/// A game against the computer as the session's routes answer it.
#[derive(Clone, Debug, Serialize)]
pub struct SessionState {
    /// The session's id.
    pub session: String,
    /// The game.
    #[serde(flatten)]
    pub game: MatchView,
    /// The seat of each move.
    pub movers: Vec<&'static str>,
    /// Per move, the level that chose it (`None`: the person).
    pub by: Vec<Option<&'static str>>,
    /// Each seat's player.
    pub levels: Levels,
    /// The person's seat.
    pub you: &'static str,
    /// The seat to move, `None` once over.
    pub to_move: Option<&'static str>,
    /// Each seat's points.
    pub points: Points,
    /// `None` until the end.
    pub result: Option<SessionResult>,
    /// After the game.
    #[serde(flatten)]
    pub finished: Option<Finished>,
}

/// `GET /api/v1/computer`: the computer's move, the level asked for and the
/// level that chose it.
#[derive(Debug, Serialize)]
pub struct ComputerMove {
    /// The move.
    #[serde(rename = "move")]
    pub mv: String,
    /// The level asked for.
    pub level: &'static str,
    /// The level that chose it (`classic` where `perfect` was unknown
    /// within the budget).
    pub by: &'static str,
}

/// `GET /api/v1/analysis`: the last event, `answer`: the probe's status and
/// body, and the server's count of live searches.
#[derive(Debug, Serialize)]
pub struct StreamAnswer {
    /// The probe's HTTP status: 200, or the error's (503 for `budget`).
    pub status: u16,
    /// The probe's body.
    pub body: Json,
    /// Live searches the server has run.
    pub searches: u64,
}
