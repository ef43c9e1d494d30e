//! 4×4 tic-tac-toe (four in a row) the obvious way: a board is sixteen
//! characters, lines are written out by hand, symmetries are built from
//! their description, and minimax is plain (memoised, no pruning). Slow and
//! simple on purpose, so that it can be trusted to check the library; it
//! shares no code with it.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Cells `X`, `O` or `.` row by row.
pub type Board = [u8; 16];

/// The empty board.
pub const EMPTY: Board = [b'.'; 16];

/// The 4 rows, 4 columns and 2 diagonals.
pub const LINES: [[usize; 4]; 10] = [
    [0, 1, 2, 3],
    [4, 5, 6, 7],
    [8, 9, 10, 11],
    [12, 13, 14, 15],
    [0, 4, 8, 12],
    [1, 5, 9, 13],
    [2, 6, 10, 14],
    [3, 7, 11, 15],
    [0, 5, 10, 15],
    [3, 6, 9, 12],
];

/// Whether `player` owns a whole line.
pub fn wins(board: &Board, player: u8) -> bool {
    LINES
        .iter()
        .any(|line| line.iter().all(|&c| board[c] == player))
}

/// Stones on the board.
pub fn stones(board: &Board) -> usize {
    board.iter().filter(|&&c| c != b'.').count()
}

/// The player to move: X when the counts are equal.
pub fn to_move(board: &Board) -> u8 {
    let xs = board.iter().filter(|&&c| c == b'X').count();
    let os = board.iter().filter(|&&c| c == b'O').count();
    if xs == os { b'X' } else { b'O' }
}

/// The game is over: a line is complete or the board is full.
pub fn is_over(board: &Board) -> bool {
    wins(board, b'X') || wins(board, b'O') || !board.contains(&b'.')
}

/// The boards one move away, with the cell played.
pub fn children(board: &Board) -> Vec<(usize, Board)> {
    if is_over(board) {
        return Vec::new();
    }
    let mover = to_move(board);
    (0..16)
        .filter(|&c| board[c] == b'.')
        .map(|c| {
            let mut next = *board;
            next[c] = mover;
            (c, next)
        })
        .collect()
}

/// The notation of a board, rows separated by `/`.
pub fn notation(board: &Board) -> String {
    let rows: Vec<String> = board
        .chunks(4)
        .map(|r| String::from_utf8(r.to_vec()).expect("ascii"))
        .collect();
    rows.join("/")
}

/// The 8 images of a board under rotations and reflections of the square,
/// by turning and mirroring.
pub fn square_images(board: &Board) -> [Board; 8] {
    let rotate = |b: &Board| -> Board { std::array::from_fn(|i| b[(3 - i % 4) * 4 + i / 4]) };
    let mirror = |b: &Board| -> Board { std::array::from_fn(|i| b[(i / 4) * 4 + 3 - i % 4]) };
    let mut out = [*board; 8];
    let mut b = *board;
    for turn in 0..4 {
        out[2 * turn] = b;
        out[2 * turn + 1] = mirror(&b);
        b = rotate(&b);
    }
    out
}

/// The symmetries of the lines as maps "cell of the image ← cell of the
/// board", from their description: renumber the rows by a permutation `p`
/// of `0..4` that commutes with reversal (`p(3 - i) = 3 - p(i)`, so the
/// diagonals stay diagonals), the columns by `p` or by `p` followed by
/// reversal, and transpose or not. Duplicates are kept out.
pub fn line_symmetries() -> Vec<[usize; 16]> {
    let mut perms = Vec::new();
    for a in 0..4 {
        for b in 0..4 {
            for c in 0..4 {
                for d in 0..4 {
                    let p = [a, b, c, d];
                    let distinct = (0..4).all(|i| (0..i).all(|j| p[i] != p[j]));
                    if distinct && (0..4).all(|i| p[3 - i] == 3 - p[i]) {
                        perms.push(p);
                    }
                }
            }
        }
    }
    let mut maps = Vec::new();
    for rows in &perms {
        for reverse_columns in [false, true] {
            for transpose in [false, true] {
                let columns: [usize; 4] = std::array::from_fn(|i| {
                    if reverse_columns {
                        3 - rows[i]
                    } else {
                        rows[i]
                    }
                });
                // Cell (r, c) goes to (rows[r], columns[c]), then maybe
                // transposed; record, for every target, where it came from.
                let mut map = [0usize; 16];
                for (r, &to_row) in rows.iter().enumerate() {
                    for (c, &to_column) in columns.iter().enumerate() {
                        let (mut tr, mut tc) = (to_row, to_column);
                        if transpose {
                            (tr, tc) = (tc, tr);
                        }
                        map[tr * 4 + tc] = r * 4 + c;
                    }
                }
                if !maps.contains(&map) {
                    maps.push(map);
                }
            }
        }
    }
    maps
}

/// The images of a board under `symmetries` (maps from
/// [`line_symmetries`]).
pub fn images<'a>(
    board: &'a Board,
    symmetries: &'a [[usize; 16]],
) -> impl Iterator<Item = Board> + 'a {
    symmetries
        .iter()
        .map(|map| std::array::from_fn(|i| board[map[i]]))
}

/// FNV-1a: a fast hash for the solver's memo of a million boards (any hash
/// would do; the standard one is slower).
#[derive(Debug)]
pub struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        // FNV's last byte barely reaches the high bits, which the set's
        // tags come from: mix them in (murmur3's finaliser).
        let mut h = self.0;
        h = (h ^ h >> 33).wrapping_mul(0xff51_afd7_ed55_8ccd);
        h = (h ^ h >> 33).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        h ^ h >> 33
    }
}

/// Reachable boards per ply (stones on the board), counted three ways.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Every reachable board.
    pub raw: u64,
    /// Up to the 8 rotations and reflections of the square.
    pub square: u64,
    /// Up to every symmetry of the lines.
    pub lines: u64,
}

/// Counts per ply, `0..=16`, by playing every game from the empty board one
/// ply at a time.
pub fn counts_per_ply() -> Vec<Counts> {
    // Sorting and removing repeats is much faster than hashing here.
    fn distinct(mut boards: Vec<Board>) -> Vec<Board> {
        boards.sort_unstable();
        boards.dedup();
        boards
    }
    let symmetries = line_symmetries();
    let mut out = Vec::new();
    let mut layer = vec![EMPTY];
    while !layer.is_empty() {
        let square = distinct(
            layer
                .iter()
                .map(|b| square_images(b).into_iter().min().expect("8 images"))
                .collect(),
        );
        // Each board's orbit under the lines' symmetries holds its orbit
        // under the square's, so the least images of the square's least
        // images are all the least images (and 8 times fewer to compute).
        let lines = distinct(
            square
                .iter()
                .map(|b| images(b, &symmetries).min().expect("images"))
                .collect(),
        );
        out.push(Counts {
            raw: layer.len() as u64,
            square: square.len() as u64,
            lines: lines.len() as u64,
        });
        layer = distinct(
            layer
                .iter()
                .flat_map(|b| children(b).into_iter().map(|(_, child)| child))
                .collect(),
        );
    }
    out
}

/// `("win" | "draw" | "loss", plies)` for the side to move.
pub type Value = (&'static str, u32);

/// Plain minimax where a win prefers the fewest plies and a loss the most,
/// remembering each board it has solved (under the square's symmetries,
/// which plainly keep the game).
#[derive(Debug, Default)]
pub struct Solver {
    memo: HashMap<Board, Value, BuildHasherDefault<Fnv>>,
}

impl Solver {
    /// A solver that remembers nothing yet.
    pub fn new() -> Solver {
        Solver::default()
    }

    /// The value of `board` for the side to move.
    pub fn solve(&mut self, board: &Board) -> Value {
        let me = to_move(board);
        let other = if me == b'X' { b'O' } else { b'X' };
        if wins(board, other) {
            return ("loss", 0);
        }
        if !board.contains(&b'.') {
            return ("draw", 0);
        }
        let key = square_images(board).into_iter().min().expect("8 images");
        if let Some(&value) = self.memo.get(&key) {
            return value;
        }
        let rank = |(result, plies): Value| match result {
            "win" => 100 - plies as i32,
            "draw" => 0,
            _ => -100 + plies as i32,
        };
        let value = children(board)
            .iter()
            .map(|(_, child)| self.move_value(child))
            .max_by_key(|&v| rank(v))
            .expect("a board that is not over has a move");
        self.memo.insert(key, value);
        value
    }

    /// The value of the move that leads to `child`, for the player who made
    /// it, counted from before the move.
    pub fn move_value(&mut self, child: &Board) -> Value {
        let (result, plies) = self.solve(child);
        let mine = match result {
            "win" => "loss",
            "loss" => "win",
            _ => "draw",
        };
        (mine, plies + 1)
    }
}
