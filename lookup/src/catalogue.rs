//! The catalogue: what every face needs to know about each game, written
//! once. Each game has one line in [`GameId::info`] — the name people read,
//! the board the page draws, whether its table ships, what the fuzzer and
//! the benchmarks cover — and every list of games is derived from
//! [`catalogue`]: the command line's help and `build all`, the fuzzer, the
//! benchmarks, `/api/v1/games` and the page's menu, rooms, the Python
//! package.
//!
//! The rules themselves (notation, moves, symmetry) belong to each game's
//! module in [`games`](crate::games); [`with_game!`](crate::with_game) turns
//! a [`GameId`] into its game.
//!
//! ```
//! use solvedb_lookup::{BoardKind, GameId, TablePlan, catalogue};
//!
//! let cube = GameId::Cube.info();
//! assert_eq!(cube.title, "cube 3×3×3");
//! assert_eq!(cube.board.kind(), BoardKind::Layers);
//! assert_eq!(cube.table, TablePlan::Default);
//! // `solvedb build all` builds exactly the games whose table ships.
//! let default_set: Vec<GameId> = catalogue()
//!     .iter()
//!     .filter(|g| g.table == TablePlan::Default)
//!     .map(|g| g.id)
//!     .collect();
//! assert!(default_set.contains(&GameId::Dots { rows: 3, cols: 3 }));
//! ```

use std::sync::OnceLock;

use crate::format::GameId;
use crate::games::dots::Dots;

/// The kinds of board the page draws, one module each.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BoardKind {
    /// A square of cells (tic-tac-toe).
    Grid,
    /// Square layers of cells stacked into a cube (the cube, Qubic).
    Layers,
    /// Dots joined by edges around boxes (dots-and-boxes).
    Dots,
}

impl BoardKind {
    /// `grid`, `layers` or `dots`: the name the page's board modules go by.
    pub fn as_str(self) -> &'static str {
        match self {
            BoardKind::Grid => "grid",
            BoardKind::Layers => "layers",
            BoardKind::Dots => "dots",
        }
    }
}

/// A board's kind and size: everything the page needs to draw it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BoardShape {
    /// `size` × `size` cells, row by row.
    Grid {
        /// Cells along a side.
        size: u8,
    },
    /// `size` layers of `size` × `size` cells: cell `x + size·y + size²·z`.
    Layers {
        /// Cells along a side.
        size: u8,
    },
    /// `rows` × `cols` boxes.
    Dots {
        /// Rows of boxes.
        rows: u8,
        /// Columns of boxes.
        cols: u8,
    },
}

impl BoardShape {
    /// The board's kind.
    pub fn kind(self) -> BoardKind {
        match self {
            BoardShape::Grid { .. } => BoardKind::Grid,
            BoardShape::Layers { .. } => BoardKind::Layers,
            BoardShape::Dots { .. } => BoardKind::Dots,
        }
    }

    /// The moves of an empty board: cells, or edges on dots.
    pub fn moves(self) -> u32 {
        match self {
            BoardShape::Grid { size } => u32::from(size).pow(2),
            BoardShape::Layers { size } => u32::from(size).pow(3),
            BoardShape::Dots { rows, cols } => {
                let (rows, cols) = (u32::from(rows), u32::from(cols));
                (rows + 1) * cols + rows * (cols + 1)
            }
        }
    }

    /// The names of the two sides: `X` and `O`, or `A` and `B` on dots,
    /// where turns do not alternate and values do not depend on who moves.
    pub fn sides(self) -> [char; 2] {
        match self {
            BoardShape::Dots { .. } => ['A', 'B'],
            _ => ['X', 'O'],
        }
    }

    /// How positions and moves of this board are written, for help texts.
    pub fn notation_help(self) -> String {
        let last = self.moves() - 1;
        match self {
            BoardShape::Grid { size } => format!(
                "{} cells `X`, `O` or `.` row by row, `/` between rows allowed \
                 (e.g. `{}`), or the moves from the start: cells 0-{last} row by row, \
                 e.g. `0 {}`",
                self.moves(),
                example_rows(size, 1),
                self.moves() / 2,
            ),
            BoardShape::Layers { size } => format!(
                "{} cells `X`, `O` or `.` layer by layer (z), row by row (y), \
                 x = 0..{}; `/` between rows, one or two between layers (e.g. `{}`); \
                 or the moves from the start: cells 0-{last} = x + {size}y + {}z",
                self.moves(),
                size - 1,
                example_rows(size, size),
                u32::from(size).pow(2),
            ),
            BoardShape::Dots { rows, cols } => format!(
                "`{rows}x{cols}:` and one `0`/`1` per edge ({} edges: horizontal \
                 ones row by row from the top, then vertical ones), or `{rows}x{cols}:` \
                 and moves like `h0,0 v0,1` (h r,c joins dots (r,c) and (r,c+1); \
                 v r,c joins (r,c) and (r+1,c))",
                self.moves()
            ),
        }
    }
}

/// A board of `layers` layers of `size` × `size` cells, written as the
/// notation writes it, with X in cell 0 and O in the middle cell: an
/// example for help texts.
fn example_rows(size: u8, layers: u8) -> String {
    let (size, layers) = (usize::from(size), usize::from(layers));
    let middle = size / 2;
    let o = middle + size * middle + if layers > 1 { size * size * middle } else { 0 };
    let mut out = String::new();
    for cell in 0..size * size * layers {
        if cell > 0 && cell % (size * size) == 0 {
            out.push_str("//");
        } else if cell > 0 && cell % size == 0 {
            out.push('/');
        }
        out.push(match cell {
            0 => 'X',
            c if c == o => 'O',
            _ => '.',
        });
    }
    out
}

/// Whether a game's table ships, is built on request, or does not exist.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TablePlan {
    /// Built by `solvedb build all` and committed in `tables/`.
    Default,
    /// Built by `solvedb build GAME` on request (too big to ship, or too
    /// long for `build all`: Qubic's proof takes about ten minutes, and its
    /// table is committed all the same); answered by live search where the
    /// tables directory lacks it.
    OnRequest,
    /// No table format exists: every answer is a live search.
    Unavailable,
}

/// What every face needs to know about one game: the catalogue's line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameInfo {
    /// The game; `id.to_string()` is the name requests take.
    pub id: GameId,
    /// The name people read: `tic-tac-toe 3×3`, `dots-and-boxes 2×3`.
    pub title: String,
    /// The board the page draws.
    pub board: BoardShape,
    /// Whether its table ships.
    pub table: TablePlan,
    /// Offered in the explorer's menu and for rooms.
    pub explorer: bool,
    /// Fuzzed by `solvedb fuzz`: its parsers, and its table where it has one.
    pub fuzz: bool,
    /// Measured by `solvedb bench all`.
    pub bench: bool,
}

impl GameInfo {
    fn new(id: GameId, title: impl Into<String>, board: BoardShape, table: TablePlan) -> GameInfo {
        GameInfo {
            id,
            title: title.into(),
            board,
            table,
            explorer: true,
            fuzz: false,
            bench: false,
        }
    }

    fn fuzzed(self) -> GameInfo {
        GameInfo { fuzz: true, ..self }
    }

    fn benched(self) -> GameInfo {
        GameInfo {
            bench: true,
            ..self
        }
    }

    /// The name requests take: `tictactoe`, `dots:2x3`.
    pub fn name(&self) -> String {
        self.id.to_string()
    }
}

/// `solvedb build all` ships the dots boards with at most this many edges
/// (3×3, 2^24 positions, and everything smaller, rectangles both ways).
pub const DEFAULT_DOTS_MAX_EDGES: u32 = 24;

/// The explorer offers dots boards up to this many boxes a side (5×5, the
/// board engines play).
pub const EXPLORER_DOTS_MAX_SIDE: u8 = 5;

/// The games that are not a family of boards, in the order faces list them.
const SINGLE_BOARDS: [GameId; 4] = [
    GameId::TicTacToe,
    GameId::TicTacToe4x4,
    GameId::Cube,
    GameId::Qubic,
];

impl GameId {
    /// Whether this game's table, where there is one, answers every
    /// position: a strategy table (Qubic's) answers only the positions its
    /// strategy reaches, and the rest are live searches, which faces must
    /// bound as they bound any search (the server's in-place answers are
    /// for complete tables only).
    pub fn table_covers_every_position(self) -> bool {
        !matches!(self, GameId::Qubic)
    }

    /// This game's line of the catalogue.
    pub fn info(self) -> GameInfo {
        use TablePlan::{Default, OnRequest};
        match self {
            GameId::TicTacToe => GameInfo::new(
                self,
                "tic-tac-toe 3×3",
                BoardShape::Grid { size: 3 },
                Default,
            )
            .fuzzed()
            .benched(),
            GameId::TicTacToe4x4 => GameInfo::new(
                self,
                "tic-tac-toe 4×4",
                BoardShape::Grid { size: 4 },
                Default,
            )
            .fuzzed(),
            GameId::Cube => {
                GameInfo::new(self, "cube 3×3×3", BoardShape::Layers { size: 3 }, Default)
                    .fuzzed()
                    .benched()
            }
            GameId::Qubic => GameInfo::new(
                self,
                "Qubic 4×4×4",
                BoardShape::Layers { size: 4 },
                OnRequest,
            )
            .fuzzed(),
            GameId::Dots { rows, cols } => {
                let board = BoardShape::Dots { rows, cols };
                let shipped = board.moves() <= DEFAULT_DOTS_MAX_EDGES;
                let info = GameInfo {
                    // A board's transpose is the same game: the menu offers
                    // one of the two.
                    explorer: rows <= cols && (shipped || cols <= EXPLORER_DOTS_MAX_SIDE),
                    ..GameInfo::new(
                        self,
                        format!("dots-and-boxes {rows}×{cols}"),
                        board,
                        if shipped { Default } else { OnRequest },
                    )
                };
                match (rows, cols) {
                    (2, 3) => info.fuzzed(),
                    (3, 3) => info.benched(),
                    _ => info,
                }
            }
        }
    }
}

/// Every game a face lists, in the order they list them: the single boards,
/// then the dots boards with a shipped table or in the explorer, smallest
/// first.
pub fn catalogue() -> &'static [GameInfo] {
    static CATALOGUE: OnceLock<Vec<GameInfo>> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let mut games: Vec<GameInfo> = SINGLE_BOARDS.iter().map(|id| id.info()).collect();
        let mut dots: Vec<GameInfo> = (1..=u8::MAX)
            .flat_map(|rows| (1..=u8::MAX).map(move |cols| (rows, cols)))
            .filter(|&(rows, cols)| Dots::new(rows, cols).is_ok())
            .map(|(rows, cols)| GameId::Dots { rows, cols }.info())
            .filter(|info| info.table == TablePlan::Default || info.explorer)
            .collect();
        dots.sort_by_key(|info| (info.board.moves(), info.id.to_string()));
        games.extend(dots);
        games
    })
}

/// The names of the games, as help texts list them: every single board,
/// then the dots family (`dots:MxN`).
pub fn game_names() -> String {
    let mut names: Vec<String> = SINGLE_BOARDS.iter().map(|id| format!("`{id}`")).collect();
    names.push("`dots:MxN` (M rows by N columns of boxes)".to_owned());
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::game::Game;

    #[test]
    fn every_listed_game_is_a_game_with_that_board() {
        for info in catalogue() {
            let (moves, start, id) = crate::with_game!(info.id, g => Ok::<_, Error>((
                g.moves(g.start()).len() as u32,
                g.notation(g.start()),
                g.id(),
            )))
            .unwrap();
            assert_eq!(id, info.id);
            assert_eq!(moves, info.board.moves(), "{}", info.title);
            assert_eq!(info.name().parse::<GameId>(), Ok(info.id));
            assert!(!start.is_empty());
        }
    }

    #[test]
    fn the_list_holds_every_single_board_once_and_the_dots_boards_people_use() {
        let names: Vec<String> = catalogue().iter().map(GameInfo::name).collect();
        for id in SINGLE_BOARDS {
            assert_eq!(names.iter().filter(|n| **n == id.to_string()).count(), 1);
        }
        for name in [
            "dots:1x6", "dots:1x7", "dots:7x1", "dots:3x3", "dots:5x5", "dots:4x5",
        ] {
            assert!(names.contains(&name.to_owned()), "{name}");
        }
        // Transposes of explorer boards beyond the shipped ones are left out.
        assert!(!names.contains(&"dots:5x4".to_owned()));
        let shipped = catalogue()
            .iter()
            .filter(|g| g.table == TablePlan::Default)
            .count();
        // 3 single boards and the 19 dots boards of at most 24 edges.
        assert_eq!(shipped, 22);
    }

    #[test]
    fn help_texts_name_the_cells_of_each_board() {
        assert!(
            BoardShape::Grid { size: 3 }
                .notation_help()
                .contains("cells 0-8")
        );
        assert!(
            BoardShape::Layers { size: 4 }
                .notation_help()
                .contains("x + 4y + 16z")
        );
        assert!(
            BoardShape::Layers { size: 3 }
                .notation_help()
                .contains("X../.../...//.../.O./...//.../.../...")
        );
        assert!(
            BoardShape::Dots { rows: 2, cols: 3 }
                .notation_help()
                .contains("17 edges")
        );
        assert!(game_names().contains("`qubic`"));
    }
}
