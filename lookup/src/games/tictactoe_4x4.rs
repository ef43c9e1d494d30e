//! 4×4 tic-tac-toe: four in a row on a 4×4 board (`tictactoe:4x4`).
//!
//! Cells are numbered `0`–`15` row by row from the top left. A position is
//! written as sixteen characters `X`, `O` or `.` in the same order,
//! optionally with `/` between rows (`X.../.O../..../....`). X moves first,
//! so the side to move follows from the counts: X when both have as many
//! stones, O otherwise. There are 10 lines (4 rows, 4 columns, the 2 long
//! diagonals); the first to own a whole line wins, and a full board without
//! a line is a draw. Values are as in 3×3 [`TicTacToe`](crate::TicTacToe):
//! win, draw or loss and the plies to the end under perfect play.
//!
//! # Symmetry
//!
//! The board has more symmetries than the square's 8: every permutation of
//! the cells that maps lines onto lines keeps the game. Besides the
//! rotations and reflections, swapping the two middle rows and the two
//! middle columns together keeps rows, columns and both diagonals, and so
//! does turning the board "inside out" (rows and columns `0 1 2 3` →
//! `1 0 3 2`). The group has 32 elements ([`SYMMETRY_COUNT`]); a unit test
//! finds it by an exhaustive search over all permutations of the 16 cells
//! that map every line onto a line. Symmetries `0`–`7` are the square's own
//! ([`SQUARE_SYMMETRIES`]).
//!
//! # Figures
//!
//! Counted per ply by `tests/tests/tictactoe_4x4.rs` against an
//! independent enumeration: 9,722,011 reachable positions, terminal ones
//! included; 1,217,977 up to the square's 8 symmetries; 307,639 up to all
//! 32, and those are what the table stores. The empty board is a draw (in
//! 16 plies: a draw fills the board), and so is every first move; the
//! generic [`Search`](crate::Search) proves it from the empty board in
//! 270,147 positions (tens of milliseconds).
//!
//! ```
//! use solvedb_lookup::{Game, TicTacToe4x4};
//!
//! let p = TicTacToe4x4.parse("XXX./OOO./..../....")?;
//! assert_eq!(TicTacToe4x4.to_move(p), 'X');
//! assert_eq!(TicTacToe4x4.notation(p), "XXX./OOO./..../....");
//! assert_eq!(TicTacToe4x4.parse("XXX.OOO.........")?, p);
//! // Rows and columns 0 1 2 3 -> 1 0 3 2 ("inside out") keep every line.
//! let q = TicTacToe4x4.parse("OO.O/XX.X/..../....")?;
//! assert_eq!(TicTacToe4x4.canonical(p), TicTacToe4x4.canonical(q));
//! # Ok::<(), solvedb_lookup::PositionError>(())
//! ```

use crate::error::PositionError;
use crate::format::{
    GameId, IndexScheme, TableError, ValueEncoding, decode_outcome, encode_outcome,
};
use crate::game::{Game, Tabled};
use crate::games::stones::{FlatBoard, FlatCell, Layout, least_image, renumbering};
use crate::value::{Outcome, Score, Transition};

/// How the board is written.
const LAYOUT: Layout = Layout {
    game: "4x4 tic-tac-toe",
    cells: CELLS,
    row: SIDE,
    layer: CELLS,
    expected: "'X', 'O', '.' (and '/' between rows)",
    moves: "4x4 tic-tac-toe moves are cells 0-15, row by row",
};

/// Cells on the board.
pub const CELLS: usize = 16;
const SIDE: usize = 4;

/// Number of winning lines.
pub const LINE_COUNT: usize = 10;

/// The 10 winning lines as cell masks: 4 rows, 4 columns, the diagonal
/// `0 5 10 15` and the anti-diagonal `3 6 9 12`.
pub const LINES: [u16; LINE_COUNT] = [
    0x000f, 0x00f0, 0x0f00, 0xf000, // rows
    0x1111, 0x2222, 0x4444, 0x8888, // columns
    0x8421, // 0 5 10 15
    0x1248, // 3 6 9 12
];

/// Number of symmetries: every permutation of the cells that maps lines
/// onto lines (see the [module documentation](self)).
pub const SYMMETRY_COUNT: usize = 32;

/// Symmetries `0..SQUARE_SYMMETRIES` are the rotations and reflections of
/// the square.
pub const SQUARE_SYMMETRIES: usize = 8;

/// The permutation of row (and column) numbers that symmetry `s` applies
/// first: [`renumbering`] `s / 8`, which keeps the diagonals.
const fn inner(s: usize, i: usize) -> usize {
    renumbering(s / 8, i)
}

/// Cell maps of the 32 symmetries: `SYMMETRIES[s][c]` is where cell `c`
/// goes. Symmetry `s` applies the permutation `inner(s)` to the row and the
/// column numbers alike, then the square symmetry `s % 8`: it transposes if
/// bit 2 is set, then mirrors the rows if bit 0 and the columns if bit 1
/// (the numbering of 3×3 [`TicTacToe`](crate::TicTacToe)). Index 0 is the
/// identity.
pub const SYMMETRIES: [[u8; CELLS]; SYMMETRY_COUNT] = {
    let mut table = [[0u8; CELLS]; SYMMETRY_COUNT];
    let mut s = 0;
    while s < SYMMETRY_COUNT {
        let mut cell = 0;
        while cell < CELLS {
            let (mut r, mut c) = (inner(s, cell / SIDE), inner(s, cell % SIDE));
            if s & 4 != 0 {
                (r, c) = (c, r);
            }
            if s & 1 != 0 {
                r = SIDE - 1 - r;
            }
            if s & 2 != 0 {
                c = SIDE - 1 - c;
            }
            table[s][cell] = (SIDE * r + c) as u8;
            cell += 1;
        }
        s += 1;
    }
    table
};

/// `MASK_IMAGES[s][k][v]`: the image under symmetry `s` of the cells in
/// byte `k` of a mask whose byte `k` is `v`. A mask's image is two table
/// reads and an OR, a board's four reads (32 KiB in all).
static MASK_IMAGES: [[[u16; 256]; 2]; SYMMETRY_COUNT] = {
    let mut table = [[[0u16; 256]; 2]; SYMMETRY_COUNT];
    let mut s = 0;
    while s < SYMMETRY_COUNT {
        let mut k = 0;
        while k < 2 {
            let mut v = 0;
            while v < 256 {
                let mut bit = 0;
                while bit < 8 {
                    if v >> bit & 1 != 0 {
                        table[s][k][v] |= 1 << SYMMETRIES[s][8 * k + bit];
                    }
                    bit += 1;
                }
                v += 1;
            }
            k += 1;
        }
        s += 1;
    }
    table
};

/// The image of cell mask `mask` under symmetry `s`.
#[inline]
fn image(s: usize, mask: u16) -> u16 {
    let bytes = &MASK_IMAGES[s];
    bytes[0][usize::from(mask as u8)] | bytes[1][usize::from(mask >> 8)]
}

fn has_line(stones: u16) -> bool {
    LINES.iter().any(|&line| line & !stones == 0)
}

/// 4×4 tic-tac-toe, four in a row. See the [module documentation](self).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TicTacToe4x4;

/// A 4×4 board: one bit per cell for each player. Ordered by X's mask, then
/// O's, which is the order of [`key`](Board4x4::key)s.
pub type Board4x4 = FlatBoard<CELLS>;

/// A cell, `0`–`15` row by row from the top left.
pub type Cell4x4 = FlatCell<CELLS>;

impl Board4x4 {
    /// The table key: `x << 16 | o`.
    pub fn key(self) -> u64 {
        u64::from(self.x()) << CELLS | u64::from(self.o())
    }

    /// The board a key stands for, if it names a well-formed one (the key
    /// need not be a reachable position).
    pub fn from_key(key: u64) -> Option<Board4x4> {
        let (x, o) = ((key >> CELLS) as u16, key as u16);
        (key >> (2 * CELLS) == 0 && x & o == 0).then_some(Board4x4::from_masks(x, o))
    }
}

impl TicTacToe4x4 {
    /// `'X'` or `'O'`: whose turn it is (X moves first).
    pub fn to_move(self, board: Board4x4) -> char {
        board.to_move()
    }

    /// The board with these stones, if it could arise in play.
    ///
    /// # Errors
    ///
    /// [`PositionError::BadMove`] if stones overlap, otherwise as
    /// [`Game::parse`] for an unreachable board.
    pub fn board(self, x: u16, o: u16) -> Result<Board4x4, PositionError> {
        Board4x4::checked(x, o, has_line)
    }
}

impl Game for TicTacToe4x4 {
    type Position = Board4x4;
    type Move = Cell4x4;
    type Value = Outcome;

    fn id(&self) -> GameId {
        GameId::TicTacToe4x4
    }

    fn start(&self) -> Board4x4 {
        Board4x4::default()
    }

    /// The sixteen cells, or the moves from the start (`5 0`).
    fn parse(&self, text: &str) -> Result<Board4x4, PositionError> {
        Board4x4::parse(self, &LAYOUT, text, has_line)
    }

    fn notation(&self, board: Board4x4) -> String {
        board.notation(&LAYOUT)
    }

    /// The grid, each empty cell showing its move number:
    ///
    /// ```text
    ///   X |  1 |  2 |  3
    /// ----+----+----+----
    ///   4 |  O |  6 |  7
    /// ----+----+----+----
    ///   8 |  9 | 10 | 11
    /// ----+----+----+----
    ///  12 | 13 | 14 | 15
    /// ```
    fn picture(&self, board: Board4x4) -> String {
        board.picture(&LAYOUT)
    }

    fn parse_move(&self, text: &str) -> Result<Cell4x4, PositionError> {
        Cell4x4::parse(&LAYOUT, text)
    }

    fn moves(&self, board: Board4x4) -> Vec<Cell4x4> {
        board.moves(has_line)
    }

    fn play(&self, board: Board4x4, cell: Cell4x4) -> (Board4x4, Transition) {
        (board.with_move(cell), Transition::PASS)
    }

    fn terminal_score(&self, board: Board4x4) -> Option<Score> {
        board.terminal_score(has_line)
    }

    /// # Panics
    ///
    /// If `score` is not a score this game produces at `board` (a bug in
    /// the caller: entries are validated when decoded).
    fn value(&self, board: Board4x4, score: Score) -> Outcome {
        board.value(score)
    }

    fn side_to_move(&self, board: Board4x4) -> Option<char> {
        Some(self.to_move(board))
    }

    fn symmetry_count(&self) -> usize {
        SYMMETRY_COUNT
    }

    fn image(&self, board: Board4x4, index: usize) -> Board4x4 {
        board.map(|mask| image(index, mask))
    }

    /// The least image, comparing X's masks first: O's mask is only mapped
    /// where X's image does not already lose.
    fn canonical(&self, board: Board4x4) -> Board4x4 {
        let (x, o) = least_image(board.x(), board.o(), SYMMETRY_COUNT, image);
        Board4x4::from_masks(x, o)
    }
}

impl Tabled for TicTacToe4x4 {
    const INDEX: IndexScheme = IndexScheme::SortedKeys;
    const VALUES: ValueEncoding = ValueEncoding::OutcomePlies;

    /// The key space: `2^32` keys `x << 16 | o` ([`Board4x4::key`]), of
    /// which the table stores every canonical reachable position, terminal
    /// ones included.
    fn slots(&self) -> u64 {
        1 << (2 * CELLS)
    }

    fn slot(&self, board: Board4x4) -> u64 {
        board.key()
    }

    fn position_at(&self, slot: u64) -> Option<Board4x4> {
        Board4x4::from_key(slot)
    }

    fn encode(&self, board: Board4x4, score: Score) -> u8 {
        encode_outcome(self.value(board, score))
    }

    fn decode(&self, board: Board4x4, slot: u64, entry: u8) -> Result<Score, TableError> {
        let outcome = decode_outcome(entry, CELLS as u32 - board.stones(), slot)?;
        Ok(outcome.score(board.stones()))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeSet, HashSet};

    use super::*;
    use crate::format::{Table, sorted_entries, test_table};
    use crate::search::Search;
    use crate::testkit::{Rng, random_game};
    use crate::value::Wdl;

    const T: TicTacToe4x4 = TicTacToe4x4;

    /// Every position of `games` random games, terminal ones included.
    fn random_positions(games: usize, seed: u64) -> Vec<Board4x4> {
        let mut rng = Rng::new(seed);
        (0..games).flat_map(|_| random_game(&T, &mut rng)).collect()
    }

    /// `BASE3[m]`: the base-3 number with digit 1 at every bit of byte `m`.
    fn base3_bytes() -> [u32; 256] {
        std::array::from_fn(|m| {
            (0..8)
                .filter(|&b| m >> b & 1 != 0)
                .map(|b| 3u32.pow(b))
                .sum()
        })
    }

    /// The base-3 number of a board (digit `c` for cell `c`: 0 empty, 1 X,
    /// 2 O), below `3^16`.
    fn base3(digits: &[u32; 256], x: u16, o: u16) -> usize {
        let mask = |m: u16| digits[usize::from(m as u8)] + digits[usize::from(m >> 8)] * 6561;
        (mask(x) + 2 * mask(o)) as usize
    }

    /// Every board play reaches from the start, as a bit set over base-3
    /// numbers, and how many there are.
    fn reachable() -> (Vec<u64>, u64) {
        let digits = base3_bytes();
        let mut seen = vec![0u64; 3usize.pow(16).div_ceil(64)];
        let mut count = 0;
        let mut stack = vec![T.start()];
        while let Some(board) = stack.pop() {
            let at = base3(&digits, board.x(), board.o());
            if seen[at / 64] >> (at % 64) & 1 != 0 {
                continue;
            }
            seen[at / 64] |= 1 << (at % 64);
            count += 1;
            for mv in T.moves(board) {
                stack.push(T.play(board, mv).0);
            }
        }
        (seen, count)
    }

    #[test]
    fn parse_accepts_exactly_the_boards_play_reaches() {
        let digits = base3_bytes();
        let (seen, count) = reachable();
        assert_eq!(count, 9_722_011);
        // Every pair of disjoint masks, i.e. all 3^16 boards: `board` (the
        // check `parse` ends with) accepts exactly the reachable ones.
        let mut accepted = 0u64;
        for x in 0..=u16::MAX {
            let free = !x;
            let mut o = free;
            loop {
                let at = base3(&digits, x, o);
                let reached = seen[at / 64] >> (at % 64) & 1 != 0;
                assert_eq!(T.board(x, o).is_ok(), reached, "x={x:#06x} o={o:#06x}");
                accepted += u64::from(reached);
                if o == 0 {
                    break;
                }
                o = (o - 1) & free;
            }
        }
        assert_eq!(accepted, count);
        // The notation of every reachable board parses back to it, with and
        // without slashes; a sample of the others is refused.
        let mut rng = Rng::new(0x4a4a);
        let mut refused = 0;
        for x in 0..=u16::MAX {
            let free = !x;
            let mut o = free;
            loop {
                let at = base3(&digits, x, o);
                let board = Board4x4::from_masks(x, o);
                let text = T.notation(board);
                if seen[at / 64] >> (at % 64) & 1 != 0 {
                    assert_eq!(T.parse(&text), Ok(board), "{text}");
                    if at % 7 == 0 {
                        assert_eq!(T.parse(&text.replace('/', "")), Ok(board), "{text}");
                    }
                } else if rng.below(1000) == 0 {
                    assert!(T.parse(&text).is_err(), "{text}");
                    refused += 1;
                }
                if o == 0 {
                    break;
                }
                o = (o - 1) & free;
            }
        }
        assert!(refused > 30_000, "{refused}");
    }

    #[test]
    fn the_symmetries_are_exactly_the_permutations_that_keep_lines() {
        // Exhaustive backtracking over all permutations of the 16 cells:
        // assign images to cells 0, 1, 2, ... in turn and give up on a
        // partial map as soon as a line whose cells all have images is not
        // mapped onto a line.
        fn extend(map: &mut Vec<u8>, used: u16, found: &mut BTreeSet<Vec<u8>>) {
            let cell = map.len();
            if cell == CELLS {
                found.insert(map.clone());
                return;
            }
            for target in 0..CELLS as u8 {
                if used >> target & 1 != 0 {
                    continue;
                }
                map.push(target);
                let keeps_lines = LINES
                    .iter()
                    .filter(|&&line| 15 - line.leading_zeros() as usize == cell)
                    .all(|&line| {
                        let image = (0..CELLS)
                            .filter(|&c| line >> c & 1 != 0)
                            .fold(0u16, |a, c| a | 1 << map[c]);
                        LINES.contains(&image)
                    });
                if keeps_lines {
                    extend(map, used | 1 << target, found);
                }
                map.pop();
            }
        }
        let mut found = BTreeSet::new();
        extend(&mut Vec::new(), 0, &mut found);
        let ours: BTreeSet<Vec<u8>> = SYMMETRIES.iter().map(|m| m.to_vec()).collect();
        // Every symmetry is a distinct permutation ...
        assert_eq!(ours.len(), SYMMETRY_COUNT);
        for map in &SYMMETRIES {
            let mut cells = map.to_vec();
            cells.sort_unstable();
            assert_eq!(cells, (0..CELLS as u8).collect::<Vec<_>>());
        }
        // ... and they are every line-keeping permutation, no more, no less.
        assert_eq!(found, ours);
        assert_eq!(found.len(), 32);
        assert_eq!(SYMMETRIES[0].to_vec(), (0..CELLS as u8).collect::<Vec<_>>());
    }

    #[test]
    fn the_first_eight_are_the_squares_rotations_and_reflections() {
        let rotate = |c: usize| (c % 4) * 4 + 3 - c / 4;
        let mirror = |c: usize| (c / 4) * 4 + 3 - c % 4;
        let mut square = BTreeSet::new();
        let mut map: Vec<usize> = (0..CELLS).collect();
        for _ in 0..4 {
            square.insert(map.clone());
            square.insert(map.iter().map(|&c| mirror(c)).collect::<Vec<_>>());
            map = map.iter().map(|&c| rotate(c)).collect();
        }
        let ours: BTreeSet<Vec<usize>> = SYMMETRIES[..SQUARE_SYMMETRIES]
            .iter()
            .map(|m| m.iter().map(|&c| usize::from(c)).collect())
            .collect();
        assert_eq!(ours, square);
    }

    #[test]
    fn mask_images_follow_the_cell_maps() {
        let mut rng = Rng::new(7);
        for (s, map) in SYMMETRIES.iter().enumerate() {
            for (c, &to) in map.iter().enumerate() {
                assert_eq!(image(s, 1 << c), 1 << to);
            }
            for _ in 0..1000 {
                let mask = rng.next_u64() as u16;
                let slow = (0..CELLS)
                    .filter(|&c| mask >> c & 1 != 0)
                    .fold(0u16, |a, c| a | 1 << map[c]);
                assert_eq!(image(s, mask), slow);
            }
        }
    }

    #[test]
    fn canonical_is_the_least_image_and_the_same_for_every_image() {
        for board in random_positions(2000, 11) {
            let images: Vec<Board4x4> = (0..SYMMETRY_COUNT).map(|s| T.image(board, s)).collect();
            let least = *images.iter().min().unwrap();
            assert_eq!(T.canonical(board), least);
            for &image in &images {
                assert_eq!(T.canonical(image), least);
                assert_eq!(T.terminal_score(image), T.terminal_score(board));
                assert!(T.board(image.x(), image.o()).is_ok());
            }
        }
    }

    #[test]
    fn notation_round_trips() {
        for board in random_positions(500, 3) {
            let text = T.notation(board);
            assert_eq!(text.len(), 19);
            assert_eq!(T.parse(&text), Ok(board));
            assert_eq!(T.parse(&text.replace('/', "")), Ok(board));
            assert_eq!(T.parse(&format!("  {text}\n")), Ok(board));
            for mv in T.moves(board) {
                assert_eq!(T.parse_move(&mv.to_string()), Ok(mv));
                let after = T.play_notation(board, &mv.to_string()).unwrap();
                assert_eq!(after, T.play(board, mv).0);
            }
        }
        for c in 0..16u8 {
            assert_eq!(T.parse_move(&c.to_string()).unwrap().index(), c);
        }
        assert!(matches!(
            T.parse_move("16"),
            Err(PositionError::BadMove { .. })
        ));
        assert!(matches!(
            T.parse_move("-1"),
            Err(PositionError::BadMove { .. })
        ));
        assert_eq!(Cell4x4::new(16), None);
        assert_eq!(T.notation(T.start()), "..../..../..../....");
    }

    #[test]
    fn notation_errors_name_the_problem() {
        assert!(matches!(
            T.parse("X..."),
            Err(PositionError::Length {
                found: 4,
                expected: 16,
                ..
            })
        ));
        assert!(matches!(
            T.parse("X..../..../..../...."),
            Err(PositionError::Character {
                found: '/',
                at: 5,
                ..
            })
        ));
        assert!(matches!(
            T.parse("X.../..../..../.....").unwrap_err(),
            PositionError::Length { found: 17, .. }
        ));
        assert!(matches!(
            T.parse("X.../..../..../...Z"),
            Err(PositionError::Character {
                found: 'Z',
                at: 18,
                ..
            })
        ));
        assert!(matches!(
            T.parse("X.../..../..../..../"),
            Err(PositionError::Character { found: '/', .. })
        ));
        assert!(matches!(
            T.parse("XX../..../..../...."),
            Err(PositionError::Counts { x: 2, o: 0 })
        ));
        assert!(matches!(
            T.parse("O.../..../..../...."),
            Err(PositionError::Counts { x: 0, o: 1 })
        ));
        assert!(matches!(
            T.parse("XXXX/OOOO/..../...."),
            Err(PositionError::BothWin)
        ));
        // X has a line but O moved after it.
        assert!(matches!(
            T.parse("XXXX/OOO./O.../...."),
            Err(PositionError::PlayAfterWin { winner: 'X' })
        ));
        // O has a line but X moved after it.
        assert!(matches!(
            T.parse("OOOO/XXX./X.../X..."),
            Err(PositionError::PlayAfterWin { winner: 'O' })
        ));
        // X owns both diagonals, which share no stone: no single move
        // completed both.
        assert!(matches!(
            T.parse("XOOX/OXXO/OXXO/XO.X"),
            Err(PositionError::PlayAfterWin { winner: 'X' })
        ));
        // Two lines through one stone, completed by it: a legal win.
        assert!(T.parse("XXXX/XOO./X.OO/XO.O").is_ok());
        assert!(T.parse("XXXX/OOO./..../....").is_ok());
        let huge = ".".repeat(1 << 20);
        assert!(matches!(
            T.parse(&huge),
            Err(PositionError::TooLong {
                found: 1_048_576,
                ..
            })
        ));
        assert!(matches!(
            T.parse_move(&huge),
            Err(PositionError::TooLong { .. })
        ));
        assert!(matches!(T.board(1, 1), Err(PositionError::BadMove { .. })));
    }

    #[test]
    fn the_game_id_reads_and_writes_tictactoe_4x4() {
        assert_eq!(T.id().to_string(), "tictactoe:4x4");
        assert_eq!("tictactoe:4x4".parse::<GameId>(), Ok(GameId::TicTacToe4x4));
        assert_eq!(T.id().table_file_name(), "tictactoe-4x4.sdb");
        assert_eq!("tictactoe".parse::<GameId>(), Ok(GameId::TicTacToe));
        assert!("tictactoe:3x3".parse::<GameId>().is_err());
    }

    #[test]
    fn terminal_positions_and_short_wins() {
        let win = T.parse("XXXX/OOO./..../....").unwrap();
        assert!(T.moves(win).is_empty());
        assert_eq!(
            T.value(win, T.terminal_score(win).unwrap()),
            Outcome {
                wdl: Wdl::Loss,
                plies: 0
            }
        );
        let full = T.parse("XOXO/XOXO/OXOX/OXOX").unwrap();
        assert_eq!(T.terminal_score(full), Some(0));
        assert_eq!(T.value(full, 0), Outcome::draw(0));
        let mut search = Search::new(&T);
        let p = T.parse("XXX./OOO./..../....").unwrap();
        let score = search.score(p).unwrap();
        assert_eq!(T.value(p, score).to_string(), "win in 1");
        // X threatens cells 3 and 12 and O has no win in 1: O loses in 2.
        let p = T.parse("XXX./XOO./XOO./....").unwrap();
        assert_eq!(T.to_move(p), 'O');
        let score = search.score(p).unwrap();
        assert_eq!(T.value(p, score).to_string(), "loss in 2");
    }

    #[test]
    fn entries_round_trip_and_bad_bytes_are_refused() {
        let positions = random_positions(200, 5);
        let mut search = Search::new(&T);
        for &board in positions.iter().filter(|b| b.stones() >= 8) {
            let score = search.score(board).unwrap();
            let entry = T.encode(board, score);
            assert_ne!(entry, 0);
            assert_eq!(T.decode(board, 9, entry), Ok(score));
            // No other byte decodes to a different value without an error
            // unless it is a legal value of the board.
            for other in 0..=255u8 {
                if let Ok(s) = T.decode(board, 9, other) {
                    assert_eq!(T.encode(board, s), other);
                }
            }
        }
        let empty = T.start();
        let refused = |entry: u8| {
            matches!(
                T.decode(empty, 3, entry),
                Err(TableError::Entry { slot: 3, .. })
            )
        };
        assert!(refused(0));
        assert!(refused(0x80)); // wdl 4
        assert!(refused(2 << 5 | 15)); // a draw that does not fill the board
        assert!(refused(3 << 5 | 17)); // a win beyond a full board
        assert!(refused(3 << 5 | 8)); // a win after an even number of plies
        assert!(refused(1 << 5 | 7)); // a loss after an odd number of plies
        assert_eq!(T.decode(empty, 3, 2 << 5 | 16), Ok(0));
        assert_eq!(T.position_at(1 << 32), None);
        assert_eq!(T.position_at(0x0001_0001), None);
        let board = T.parse("XX../O.../..../....").unwrap();
        assert_eq!(T.slot(board), 0x0003_0010);
        assert_eq!(T.position_at(0x0003_0010), Some(board));
    }

    #[test]
    fn a_sorted_keys_table_answers_for_every_image() {
        // A table of the canonical positions of some random games with at
        // least 9 stones, solved by search.
        let mut search = Search::new(&T);
        let mut records: Vec<(u64, u8)> = Vec::new();
        let mut stored = HashSet::new();
        for board in random_positions(100, 17) {
            let canonical = T.canonical(board);
            if board.stones() >= 9 && stored.insert(canonical) {
                let score = search.score(canonical).unwrap();
                records.push((T.slot(canonical), T.encode(canonical, score)));
            }
        }
        records.sort_unstable();
        let (header, bytes) = test_table(
            GameId::TicTacToe4x4,
            IndexScheme::SortedKeys,
            ValueEncoding::OutcomePlies,
            &sorted_entries(&records, 64),
            records.len(),
            64,
        );
        let table = Table::new(bytes).unwrap();
        T.check_header(&header).unwrap();
        for &canonical in &stored {
            let score = search.score(canonical).unwrap();
            for s in 0..SYMMETRY_COUNT {
                let image = T.image(canonical, s);
                assert_eq!(T.table_score(&table, image), Ok(score));
            }
        }
        let missing = T.parse("X.../..../..../....").unwrap();
        assert!(matches!(
            T.table_score(&table, missing),
            Err(TableError::Entry {
                slot: 0x0001_0000,
                ..
            })
        ));
    }
}
