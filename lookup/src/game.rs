//! The abstraction every game implements: rules, symmetry, notation and the
//! layout of its table.

use std::fmt;
use std::hash::Hash;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::{PositionError, TableError};
use crate::format::Table;
use crate::search::{ExactSolver, Limits};
use crate::value::{Score, Transition};

/// Which game and board a table or an answer is about. Stored in table
/// headers, so its variants and their order are part of the file format.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameId {
    /// 3×3 tic-tac-toe.
    TicTacToe,
    /// 3×3×3 tic-tac-toe.
    Cube,
    /// Dots-and-boxes on a board of `rows` × `cols` boxes.
    Dots {
        /// Rows of boxes.
        rows: u8,
        /// Columns of boxes.
        cols: u8,
    },
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameId::TicTacToe => f.write_str("tictactoe"),
            GameId::Cube => f.write_str("cube"),
            GameId::Dots { rows, cols } => write!(f, "dots:{rows}x{cols}"),
        }
    }
}

impl GameId {
    /// The file name of this game's table: `tictactoe.sdb`, `cube.sdb`,
    /// `dots-3x4.sdb`.
    pub fn table_file_name(&self) -> String {
        match self {
            GameId::Dots { rows, cols } => format!("dots-{rows}x{cols}.sdb"),
            _ => format!("{self}.sdb"),
        }
    }
}

/// The longest notation of a position or move list any parser reads; longer
/// input is refused at once with [`PositionError::TooLong`].
pub const MAX_NOTATION_LEN: usize = 4096;

/// Refuses text longer than [`MAX_NOTATION_LEN`], for every game's parser.
///
/// # Errors
///
/// [`PositionError::TooLong`].
pub fn check_notation_length(text: &str) -> Result<(), PositionError> {
    if text.len() > MAX_NOTATION_LEN {
        return Err(PositionError::TooLong {
            found: text.len(),
            max: MAX_NOTATION_LEN,
        });
    }
    Ok(())
}

/// The reason a game name was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown game {0:?}: expected tictactoe, cube or dots:MxN")]
pub struct UnknownGame(pub String);

impl FromStr for GameId {
    type Err = UnknownGame;

    /// Parses `tictactoe`, `cube` or `dots:MxN` (the [`Display`](fmt::Display) form).
    fn from_str(s: &str) -> Result<GameId, UnknownGame> {
        let unknown = || UnknownGame(s.to_owned());
        match s {
            "tictactoe" => Ok(GameId::TicTacToe),
            "cube" => Ok(GameId::Cube),
            _ => {
                let board = s.strip_prefix("dots:").ok_or_else(unknown)?;
                let (rows, cols) = board.split_once('x').ok_or_else(unknown)?;
                let rows = rows.parse().map_err(|_| unknown())?;
                let cols = cols.parse().map_err(|_| unknown())?;
                Ok(GameId::Dots { rows, cols })
            }
        }
    }
}

/// A two-player game of perfect information with no chance, solved by
/// negamax over [`Score`]s.
///
/// Positions are small `Copy` values. Every position a game hands out (from
/// [`start`](Game::start), [`parse`](Game::parse) or [`play`](Game::play)) is
/// legal and reachable; the side to move follows from the position itself.
pub trait Game: fmt::Debug + Send + Sync {
    /// A position, including whose turn it is.
    type Position: Copy + Eq + Ord + Hash + fmt::Debug + Send + Sync;
    /// A move.
    type Move: Copy + Eq + fmt::Debug + fmt::Display + Send + Sync;
    /// The value of a position for the side to move; greater is better.
    type Value: Copy + Eq + Ord + fmt::Debug + fmt::Display;

    /// Which game and board this is.
    fn id(&self) -> GameId;

    /// The position before the first move.
    fn start(&self) -> Self::Position;

    /// Reads a position from its notation, refusing malformed text and
    /// positions that no game can reach.
    ///
    /// # Errors
    ///
    /// A [`PositionError`] naming the problem.
    fn parse(&self, text: &str) -> Result<Self::Position, PositionError>;

    /// The notation of a position; [`parse`](Game::parse) reads it back.
    fn notation(&self, position: Self::Position) -> String;

    /// Reads a move from its notation (it may still be illegal in a position).
    ///
    /// # Errors
    ///
    /// [`PositionError::BadMove`] when the text names no move of this board.
    fn parse_move(&self, text: &str) -> Result<Self::Move, PositionError>;

    /// The legal moves; empty exactly when the game is over.
    fn moves(&self, position: Self::Position) -> Vec<Self::Move>;

    /// Plays a legal move. The result of playing an illegal one is
    /// unspecified (but memory-safe).
    fn play(&self, position: Self::Position, mv: Self::Move) -> (Self::Position, Transition);

    /// The score of a finished game, `None` while moves remain.
    fn terminal_score(&self, position: Self::Position) -> Option<Score>;

    /// Converts a score of the side to move at `position` to a value.
    fn value(&self, position: Self::Position, score: Score) -> Self::Value;

    /// A solver of this game's own, used by [`Search`](crate::Search)
    /// instead of the generic alpha-beta; `None` (the default) keeps the
    /// generic one.
    fn exact_solver(&self, limits: Limits) -> Option<Box<dyn ExactSolver<Self::Position>>> {
        let _ = limits;
        None
    }

    /// Number of symmetries of the board, the identity included.
    fn symmetry_count(&self) -> usize;

    /// The image of a position under symmetry `index` (`0` is the identity).
    ///
    /// # Panics
    ///
    /// If `index >= symmetry_count()`.
    fn symmetric(&self, position: Self::Position, index: usize) -> Self::Position;

    /// The least of all symmetric images: equal for positions that are
    /// symmetric to each other, and the same game value.
    fn canonical(&self, position: Self::Position) -> Self::Position {
        (1..self.symmetry_count())
            .map(|s| self.symmetric(position, s))
            .fold(position, Ord::min)
    }

    /// Plays a move given in notation, checking that it is legal.
    ///
    /// # Errors
    ///
    /// [`PositionError::BadMove`] or [`PositionError::IllegalMove`].
    fn play_notation(
        &self,
        position: Self::Position,
        text: &str,
    ) -> Result<Self::Position, PositionError> {
        let mv = self.parse_move(text)?;
        if !self.moves(position).contains(&mv) {
            return Err(PositionError::IllegalMove {
                mv: mv.to_string(),
                reason: if self.terminal_score(position).is_some() {
                    "the game is over"
                } else {
                    "it is already taken"
                },
            });
        }
        Ok(self.play(position, mv).0)
    }
}

/// How positions map to table slots. Stored in table headers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum IndexScheme {
    /// One slot per board of a base-3 number (cell `i` is digit `i`: 0 empty,
    /// 1 X, 2 O); only canonical reachable positions are filled.
    Base3Canonical,
    /// Sparse: `stored` records of a 56-bit key and an entry byte, sorted by
    /// key, after a fence of each block's first key (byte layout in
    /// [`crate::format`]). The game defines the keys (the cube: canonical
    /// quiet positions, `x << 27 | o`).
    SortedKeys,
    /// One slot per set of drawn edges of a dots-and-boxes board: the slot is
    /// the edge mask itself (bit `i` for edge `i`, numbered as in
    /// [`crate::games::dots`]), `2^edges` slots; only canonical masks (the
    /// least of their symmetric images) are filled.
    EdgeMaskCanonical,
}

impl IndexScheme {
    /// Whether the table has one entry byte per slot (else: sorted records).
    pub fn is_dense(self) -> bool {
        matches!(
            self,
            IndexScheme::Base3Canonical | IndexScheme::EdgeMaskCanonical
        )
    }
}

/// How one entry byte encodes a value. Stored in table headers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValueEncoding {
    /// `0` = no position stored; otherwise `wdl << 5 | plies`, with `wdl`
    /// 1 = loss, 2 = draw, 3 = win for the side to move and `plies < 32`.
    OutcomePlies,
    /// `0` = no position stored; otherwise `128 + margin`, the net number of
    /// unclaimed boxes the side to move wins (`-127 ..= 127`, so never 0).
    Margin,
}

/// A game whose solved positions fit a table of one byte per slot.
pub trait Tabled: Game {
    /// The index scheme this game's tables use.
    const INDEX: IndexScheme;
    /// The value encoding this game's tables use.
    const VALUES: ValueEncoding;

    /// Number of slots in the table; for [`IndexScheme::SortedKeys`] the
    /// size of the key space (the file holds only the stored keys).
    fn slots(&self) -> u64;

    /// The slot (for sorted keys: the key) of a canonical position.
    fn slot(&self, canonical: Self::Position) -> u64;

    /// The position a slot stands for, if the slot names a well-formed board
    /// (it need not be reachable or canonical).
    fn position_at(&self, slot: u64) -> Option<Self::Position>;

    /// The entry byte (never 0) for a position with the given score.
    fn encode(&self, position: Self::Position, score: Score) -> u8;

    /// The score an entry byte gives a position.
    ///
    /// # Errors
    ///
    /// [`TableError::Entry`] if the byte is empty or cannot hold a value of
    /// this position.
    fn decode(&self, position: Self::Position, slot: u64, entry: u8) -> Result<Score, TableError>;

    /// Whether the rules settle `position`'s value by forced play, so that
    /// a table of this game does not hold it and is not consulted (the cube:
    /// wins in one, losses in two). The default: never, the table holds
    /// every position.
    fn settled_by_rules(&self, position: Self::Position) -> bool {
        let _ = position;
        false
    }

    /// The score a table of this game gives any legal position. The default
    /// (dense tables) is one canonicalisation, one slot, one entry; games with
    /// sparse tables override it (the cube resolves forced play first).
    ///
    /// # Errors
    ///
    /// A [`TableError`] if the entry is missing or corrupt.
    fn table_score<D: AsRef<[u8]>>(
        &self,
        table: &Table<D>,
        position: Self::Position,
    ) -> Result<Score, TableError> {
        let canonical = self.canonical(position);
        let slot = self.slot(canonical);
        self.decode(canonical, slot, table.entry(slot)?)
    }
}
