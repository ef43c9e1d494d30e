//! Perfect play for small games, from precomputed tables or exact search.
//!
//! `solvedb-lookup` holds each game's rules, symmetries and notation, the
//! table file format (reading and writing), probing, and the live search that
//! answers where no table does. The `solvedb` command (package
//! `solvedb-generator`) builds the tables.
//!
//! ```
//! use solvedb_lookup::{Game, GameOracle, TicTacToe, Wdl};
//!
//! let oracle = GameOracle::<_, Vec<u8>>::search_only(TicTacToe);
//! let value = oracle.probe(TicTacToe.parse("XX./OO./...")?)?;
//! assert_eq!((value.wdl, value.plies), (Wdl::Win, 1));
//! # Ok::<(), solvedb_lookup::Error>(())
//! ```
//!
//! # Games
//!
//! [`TicTacToe`] (dense table of every canonical position),
//! [`TicTacToe4x4`] (four in a row; sorted keys of every position up to its
//! 32 symmetries), [`Dots`] (dots-and-boxes on any board up to 63 edges;
//! dense tables, a chain-and-loop solver beyond them) and [`Cube`],
//! 3×3×3 tic-tac-toe, whose table holds only the 80,183 canonical *quiet*
//! positions (nobody threatens to complete a line); every other position
//! resolves by forced play before one lookup ([`Cube::resolve`]). [`Qubic`],
//! 4×4×4 tic-tac-toe: its table is the first player's winning strategy
//! (proved by the generator's `build qubic`), which answers every position
//! the strategy reaches with a win or loss "in at most N plies"; its live
//! solver ([`QubicSolver`]) answers the rest.
//!
//! # Numbers for learning programs
//!
//! [`encoding`] gives each position a code of two `u64`s and each move an
//! index; [`dataset`] answers many positions at once in [`Columns`] (the
//! value and every move's, by index) and lists the positions a table holds:
//! what `solvedb export`, the Python package's arrays and its datasets are
//! made of. [`Oracle::from_static_tables`] answers from tables compiled
//! into a program.
//!
//! # Conventions
//!
//! Values are always from the side to move. The tic-tac-toe family reports
//! win, draw or loss and the plies to the end of the game under perfect play
//! (the winner wins as fast as it can, the loser loses as slowly as it can).
//! Dots-and-boxes reports the [`Margin`]: the net number of the still
//! unclaimed boxes the side to move wins.
//!
//! # Memory usage
//!
//! A table opened by [`open_table`] (or an [`Oracle`]) reads its head at
//! open (24 bytes a block for the block index) and one block per probe that
//! misses its cache; decoded blocks are kept in a
//! [`BlockCache`] that bounds them in bytes (64 MiB by
//! default, one per oracle, shared by its tables). Nothing reads a whole
//! table unless asked to: [`read_table`] does (`verify` and the corruption
//! sweep want every byte), and [`Table::verify`] and [`Table::check_file`]
//! read the file in 256 KiB pieces.
//!
//! # Quirks
//!
//! Mapping a file is `unsafe` (see [`map_table`]: a file truncated while
//! mapped raises `SIGBUS`); [`open_table`] reads the same blocks by position,
//! safely, and is what every face of solvedb uses.

#![deny(missing_docs)]
// Every `unsafe` block is in `mapping.rs`, behind one documented contract.
#![deny(unsafe_code)]

mod bounds;
mod catalogue;
pub mod dataset;
pub mod encoding;
mod error;
pub mod format;
mod game;
mod game_oracle;
pub mod games;
mod input;
mod kept_solvers;
#[allow(unsafe_code)]
mod mapping;
mod oracle;
mod report;
mod rng;
mod search;
mod stop;
pub mod testkit;
mod value;

pub use bounds::{BoundedMove, Bounds, ValueBounds};
pub use catalogue::{
    BoardKind, BoardShape, DEFAULT_DOTS_MAX_EDGES, EXPLORER_DOTS_MAX_SIDE, GameInfo, TablePlan,
    catalogue, game_names,
};
pub use dataset::Columns;
pub use encoding::Encoded;
pub use error::{Error, ErrorKind, PositionError};
pub use format::{
    BlockCache, CacheStats, FileCheck, GameId, Header, IndexScheme, Table, TableData, TableError,
    UnknownGame, ValueEncoding,
};
pub use game::{
    ExactSolver, Game, MAX_NOTATION_LEN, MoveScores, SearchLimits, Tabled, check_notation_length,
};
pub use game_oracle::{Answer, GameOracle, MoveValue, Source};
pub use games::cube::{Cube, CubeBoard, CubeCell, ForcedPlaySolver, Resolved};
pub use games::dots::{BoxSides, CaptureMasks, Dots, Edge, EdgeSymmetries, Edges};
pub use games::qubic::{Qubic, QubicBoard, QubicCell, QubicSolver};
pub use games::stones::{FlatBoard, FlatCell, Mask, StoneBoard};
pub use games::tictactoe::{Board, Cell, TicTacToe};
pub use games::tictactoe_4x4::{Board4x4, Cell4x4, TicTacToe4x4};
pub use input::{InputLine, MAX_LINE_BYTES, read_line};
pub use kept_solvers::KeptSolvers;
pub use mapping::{
    HUGE_PAGES_FROM, TableBytes, TableFile, advise_huge_pages, map_table, open_table, read_table,
};
pub use oracle::{Oracle, Positions};
pub use report::{
    Mainline, MoveReport, Report, Want, bounds_json, error_json, error_json_of, mainline, report,
};
pub use rng::Rng;
pub use search::Search;
pub use stop::Stop;
pub use value::{AnyValue, Margin, Outcome, Score, Transition, WIN_SCORE, Wdl};

/// The README's example, run as a doctest so that it stays true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;
