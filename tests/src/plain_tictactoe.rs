//! Tic-tac-toe the obvious way: a board is nine characters, a plain minimax
//! without pruning, symmetry or tables. Slow and simple on purpose, so that it
//! can be trusted to check the library.

use std::collections::HashMap;

/// Cells `X`, `O` or `.` row by row.
pub type Board = [u8; 9];

const LINES: [[usize; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

/// Whether `player` owns a whole line.
pub fn wins(board: &Board, player: u8) -> bool {
    LINES
        .iter()
        .any(|line| line.iter().all(|&c| board[c] == player))
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

/// The boards one move away.
pub fn children(board: &Board) -> Vec<(usize, Board)> {
    if is_over(board) {
        return Vec::new();
    }
    let mover = to_move(board);
    (0..9)
        .filter(|&c| board[c] == b'.')
        .map(|c| {
            let mut next = *board;
            next[c] = mover;
            (c, next)
        })
        .collect()
}

/// Every board reachable from the empty one.
pub fn reachable() -> Vec<Board> {
    let mut seen = HashMap::new();
    let mut stack = vec![[b'.'; 9]];
    while let Some(board) = stack.pop() {
        if seen.insert(board, ()).is_none() {
            stack.extend(children(&board).into_iter().map(|(_, b)| b));
        }
    }
    let mut boards: Vec<Board> = seen.into_keys().collect();
    boards.sort_unstable();
    boards
}

/// `("win" | "draw" | "loss", plies)` for the side to move: minimax where a
/// win prefers the fewest plies and a loss the most.
pub fn solve(board: &Board) -> (&'static str, u32) {
    let me = to_move(board);
    let other = if me == b'X' { b'O' } else { b'X' };
    if wins(board, other) {
        return ("loss", 0);
    }
    if !board.contains(&b'.') {
        return ("draw", 0);
    }
    let rank = |(result, plies): (&str, u32)| match result {
        "win" => 100 - plies as i32,
        "draw" => 0,
        _ => -100 + plies as i32,
    };
    children(board)
        .iter()
        .map(|(_, child)| {
            let (result, plies) = solve(child);
            let mine = match result {
                "win" => "loss",
                "loss" => "win",
                _ => "draw",
            };
            (mine, plies + 1)
        })
        .max_by_key(|&v| rank(v))
        .expect("a board that is not over has a move")
}

/// The notation of a board, rows separated by `/`.
pub fn notation(board: &Board) -> String {
    let rows: Vec<String> = board
        .chunks(3)
        .map(|r| String::from_utf8(r.to_vec()).expect("ascii"))
        .collect();
    rows.join("/")
}

/// The 8 images of a board under rotations and reflections, computed by
/// turning and mirroring rows and columns.
pub fn images(board: &Board) -> Vec<Board> {
    let rotate = |b: &Board| -> Board { std::array::from_fn(|i| b[(2 - i % 3) * 3 + i / 3]) };
    let mirror = |b: &Board| -> Board { std::array::from_fn(|i| b[(i / 3) * 3 + 2 - i % 3]) };
    let mut out = Vec::new();
    let mut b = *board;
    for _ in 0..4 {
        out.push(b);
        out.push(mirror(&b));
        b = rotate(&b);
    }
    out
}
