//! Qubic (4×4×4 tic-tac-toe) the obvious way: a board is 64 characters,
//! lines are found from their two ends, symmetries are the closure of a
//! few generators under composition, and the search is plain negamax over
//! win/draw/loss and plies, memoised, with no pruning. Slow and simple on
//! purpose, so that it can be trusted to check the library; it shares no
//! code with it, only the notation (cell `16z + 4y + x`).

use std::collections::{HashMap, HashSet};

/// Cells `X`, `O` or `.`, cell `16z + 4y + x`.
pub type Board = [u8; 64];

/// The empty board.
pub const EMPTY: Board = [b'.'; 64];

fn cell(x: i32, y: i32, z: i32) -> usize {
    (x + 4 * y + 16 * z) as usize
}

fn coords(c: usize) -> [i32; 3] {
    [(c % 4) as i32, (c / 4 % 4) as i32, (c / 16) as i32]
}

/// The 76 lines, each as its four cells: every pair of cells `a < b`
/// whose coordinates differ by 0 or 3 on each axis (not on all) are the
/// two ends of a line, whose cells step a third of the way at a time.
pub fn lines() -> Vec<[usize; 4]> {
    let mut lines = Vec::new();
    for a in 0..64 {
        for b in a + 1..64 {
            let (pa, pb) = (coords(a), coords(b));
            let delta: Vec<i32> = (0..3).map(|i| pb[i] - pa[i]).collect();
            if delta.iter().all(|d| [0, 3, -3].contains(d)) {
                let step: Vec<i32> = delta.iter().map(|d| d / 3).collect();
                lines.push(std::array::from_fn(|k| {
                    let k = k as i32;
                    cell(
                        pa[0] + k * step[0],
                        pa[1] + k * step[1],
                        pa[2] + k * step[2],
                    )
                }));
            }
        }
    }
    assert_eq!(lines.len(), 76, "Qubic has 76 lines");
    lines
}

/// Whether `player` owns a whole line.
pub fn wins(lines: &[[usize; 4]], board: &Board, player: u8) -> bool {
    lines
        .iter()
        .any(|line| line.iter().all(|&c| board[c] == player))
}

/// The player to move: X when the counts are equal.
pub fn to_move(board: &Board) -> u8 {
    let xs = board.iter().filter(|&&c| c == b'X').count();
    let os = board.iter().filter(|&&c| c == b'O').count();
    if xs == os { b'X' } else { b'O' }
}

/// Stones on the board.
pub fn stones(board: &Board) -> usize {
    board.iter().filter(|&&c| c != b'.').count()
}

/// Reads the library's notation: 64 cells, the slashes dropped.
pub fn parse(text: &str) -> Board {
    let cells: Vec<u8> = text.bytes().filter(|&b| b != b'/').collect();
    cells.try_into().expect("64 cells")
}

/// The notation: rows of four split by `/`, layers by `//`.
pub fn notation(board: &Board) -> String {
    let layers: Vec<String> = board
        .chunks(16)
        .map(|layer| {
            let rows: Vec<&str> = layer
                .chunks(4)
                .map(|r| std::str::from_utf8(r).expect("ascii"))
                .collect();
            rows.join("/")
        })
        .collect();
    layers.join("//")
}

/// Win, draw or loss for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Wdl {
    /// The side to move wins.
    Win,
    /// Nobody can force a win.
    Draw,
    /// The side to move loses.
    Loss,
}

/// A result and the plies to the end of the game under perfect play.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Value {
    /// Win, draw or loss.
    pub result: Wdl,
    /// Plies to the end.
    pub plies: u32,
}

impl Value {
    /// How good the value is for the side to move: any win beats any draw
    /// beats any loss; a faster win and a slower loss are better.
    fn rank(self) -> i64 {
        match self.result {
            Wdl::Win => 1000 - i64::from(self.plies),
            Wdl::Draw => 0,
            Wdl::Loss => -1000 + i64::from(self.plies),
        }
    }

    /// The value of a move for the player who makes it, from the value of
    /// the position it leads to (for the opponent).
    pub fn before(self) -> Value {
        let result = match self.result {
            Wdl::Win => Wdl::Loss,
            Wdl::Draw => Wdl::Draw,
            Wdl::Loss => Wdl::Win,
        };
        Value {
            result,
            plies: self.plies + 1,
        }
    }
}

/// Plain negamax over win/draw/loss and plies, memoised by board.
#[derive(Debug)]
pub struct Solver {
    lines: Vec<[usize; 4]>,
    memo: HashMap<Board, Value>,
}

impl Default for Solver {
    fn default() -> Self {
        Solver::new()
    }
}

impl Solver {
    /// A solver with an empty memo.
    pub fn new() -> Solver {
        Solver {
            lines: lines(),
            memo: HashMap::new(),
        }
    }

    /// Whether the game is over: the player who moved last owns a line, or
    /// the board is full.
    pub fn is_over(&self, board: &Board) -> bool {
        let last = if to_move(board) == b'X' { b'O' } else { b'X' };
        wins(&self.lines, board, last) || !board.contains(&b'.')
    }

    /// The boards one move away, with the cell played.
    pub fn children(&self, board: &Board) -> Vec<(usize, Board)> {
        if self.is_over(board) {
            return Vec::new();
        }
        let mover = to_move(board);
        (0..64)
            .filter(|&c| board[c] == b'.')
            .map(|c| {
                let mut next = *board;
                next[c] = mover;
                (c, next)
            })
            .collect()
    }

    /// The value of a board for the side to move.
    pub fn value(&mut self, board: &Board) -> Value {
        let last = if to_move(board) == b'X' { b'O' } else { b'X' };
        if wins(&self.lines, board, last) {
            return Value {
                result: Wdl::Loss,
                plies: 0,
            };
        }
        if !board.contains(&b'.') {
            return Value {
                result: Wdl::Draw,
                plies: 0,
            };
        }
        if let Some(&v) = self.memo.get(board) {
            return v;
        }
        let mut best: Option<Value> = None;
        for (_, child) in self.children(board) {
            let v = self.value(&child).before();
            if best.is_none_or(|b| v.rank() > b.rank()) {
                best = Some(v);
            }
        }
        let best = best.expect("a game that is not over has a move");
        self.memo.insert(*board, best);
        best
    }

    /// Forgets the memo (it grows with every position solved).
    pub fn clear(&mut self) {
        self.memo.clear();
    }
}

/// A map of the cells, "cell `c` goes to `map[c]`".
pub type Map = [usize; 64];

/// The symmetries of the lines, built from their description: the closure
/// under composition of a quarter turn about the z axis, a cycle of the
/// three axes, a mirror of x, and two maps that renumber all three
/// coordinates at once: `0 1 2 3 → 0 2 1 3` (the middle swapped) and
/// `→ 1 0 3 2` (inside out). Each generator is checked to map lines onto
/// lines, so the whole closure does.
pub fn symmetries() -> Vec<Map> {
    let by_coords = |f: &dyn Fn([i32; 3]) -> [i32; 3]| -> Map {
        std::array::from_fn(|c| {
            let [x, y, z] = f(coords(c));
            cell(x, y, z)
        })
    };
    let middle = |i: i32| [0, 2, 1, 3][i as usize];
    let inside_out = |i: i32| [1, 0, 3, 2][i as usize];
    let generators = [
        by_coords(&|[x, y, z]| [3 - y, x, z]),
        by_coords(&|[x, y, z]| [y, z, x]),
        by_coords(&|[x, y, z]| [3 - x, y, z]),
        by_coords(&|[x, y, z]| [middle(x), middle(y), middle(z)]),
        by_coords(&|[x, y, z]| [inside_out(x), inside_out(y), inside_out(z)]),
    ];
    let lines: HashSet<Vec<usize>> = lines()
        .into_iter()
        .map(|l| {
            let mut l = l.to_vec();
            l.sort_unstable();
            l
        })
        .collect();
    for g in &generators {
        for line in &lines {
            let mut image: Vec<usize> = line.iter().map(|&c| g[c]).collect();
            image.sort_unstable();
            assert!(lines.contains(&image), "a generator that breaks a line");
        }
    }
    let identity: Map = std::array::from_fn(|c| c);
    let mut group = vec![identity];
    let mut seen: HashSet<Map> = group.iter().copied().collect();
    let mut next = 0;
    while next < group.len() {
        let element = group[next];
        next += 1;
        for g in &generators {
            let composed: Map = std::array::from_fn(|c| g[element[c]]);
            if seen.insert(composed) {
                group.push(composed);
            }
        }
    }
    group
}

/// The image of a board under a cell map.
pub fn image(map: &Map, board: &Board) -> Board {
    let mut out = EMPTY;
    for (c, &to) in map.iter().enumerate() {
        out[to] = board[c];
    }
    out
}
