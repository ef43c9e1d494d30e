//! The computer's levels: `perfect` (the oracle's best move; the server
//! asks it), `classic` (a fixed shallow depth-limited alpha-beta with a
//! heuristic, the kind of computer player that errs now and then) and
//! `random` (a uniformly random legal move). The server makes the
//! computer's moves itself, in sessions and for the explorer, so that a
//! game against the computer is one the server refereed.
//!
//! The classic heuristic for the tic-tac-toe family is the line count that
//! `solvedb bench cube` measures as its baseline (+100 for an own line of
//! n−1 stones with the last cell empty, +10 per own stone in a line the
//! opponent has not touched, −500 for an opponent's line of n−1 with the
//! last cell empty), generalised from 3 to n cells; for dots-and-boxes it is
//! the boxes taken, plus the boxes with three sides the mover may take at
//! the search's horizon. Everything else — moves, turns, boxes, the end —
//! comes from the game's own rules ([`with_game!`]).

use solvedb_lookup::{BoardShape, Error, Game, GameId, Rng, Score, Stop, with_game};

/// A level of the computer.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Level {
    /// The oracle's best move (where the oracle cannot say within its
    /// budget, the classic player's).
    Perfect,
    /// Depth-limited alpha-beta over a heuristic ([`classic_depth`]).
    Classic,
    /// A uniformly random legal move.
    Random,
}

impl Level {
    /// Every level, strongest first.
    pub const ALL: [Level; 3] = [Level::Perfect, Level::Classic, Level::Random];

    /// `perfect`, `classic` or `random`: the name requests and the
    /// leaderboard use.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Perfect => "perfect",
            Level::Classic => "classic",
            Level::Random => "random",
        }
    }

    /// The level named `text`, if any.
    pub fn parse(text: &str) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.as_str() == text)
    }
}

/// Plies the classic player looks ahead on a board: the cube's 4 as the
/// bench's baseline; fewer where boards are bigger, so that a move takes
/// milliseconds.
pub fn classic_depth(board: BoardShape) -> u32 {
    match board {
        BoardShape::Grid { size } if size >= 4 => 3,
        BoardShape::Grid { .. } => 2,
        BoardShape::Layers { size } if size >= 4 => 2,
        BoardShape::Layers { .. } => 4,
        BoardShape::Dots { .. } => 3,
    }
}

/// A random legal move at `position`.
///
/// # Errors
///
/// A malformed or illegal position, an unsupported game, or a finished
/// game (kind `position`).
pub fn random_move(game: GameId, position: &str, rng: &mut Rng) -> Result<String, Error> {
    with_game!(game, g => {
        let p = g.parse(position).map_err(Error::from)?;
        let moves = g.moves(p);
        if moves.is_empty() {
            return Err(over(position));
        }
        Ok(rng.pick(&moves).to_string())
    })
}

fn over(position: &str) -> Error {
    Error::Position(solvedb_lookup::PositionError::IllegalMove {
        mv: position.to_owned(),
        reason: "the game is over: no move to make",
    })
}

/// The win the line heuristic scores, beyond any count of lines.
const MATE: i64 = 1_000_000;

/// The classic player's move at `position`: the best by the shallow
/// search, ties broken by `rng`.
///
/// # Errors
///
/// As [`random_move`].
pub fn classic_move(game: GameId, position: &str, rng: &mut Rng) -> Result<String, Error> {
    classic_move_until(game, position, rng, &Stop::default())
}

/// [`classic_move`], given up once `stop` is cancelled (its request
/// ended): it is looked at before each of the moves searched at the root.
/// Its deadline does not stop it: the shallow search is bounded by its
/// depth, and it is what plays when the deadline stopped the oracle.
///
/// # Errors
///
/// As [`random_move`], and [`Error::Cancelled`].
pub fn classic_move_until(
    game: GameId,
    position: &str,
    rng: &mut Rng,
    stop: &Stop,
) -> Result<String, Error> {
    let board = game.info().board;
    let depth = classic_depth(board);
    let evaluate = Heuristic::of(board);
    with_game!(game, g => {
        let p = g.parse(position).map_err(Error::from)?;
        let moves = g.moves(p);
        if moves.is_empty() {
            return Err(over(position));
        }
        let mut best = i64::MIN;
        let mut choices = Vec::new();
        for mv in moves {
            if stop.is_cancelled() {
                return Err(Error::Cancelled);
            }
            let (next, t) = g.play(p, mv);
            let gain = i64::from(t.gain);
            let v = if t.same_mover {
                gain + negamax(g, &evaluate, next, depth - 1, -MATE * 4, MATE * 4)
            } else {
                gain - negamax(g, &evaluate, next, depth - 1, -MATE * 4, MATE * 4)
            };
            if v > best {
                best = v;
                choices.clear();
            }
            if v == best {
                choices.push(mv);
            }
        }
        Ok(rng.pick(&choices).to_string())
    })
}

/// Depth-limited negamax with alpha-beta, from the side to move at `p`.
fn negamax<G: Game>(
    g: &G,
    evaluate: &Heuristic,
    p: G::Position,
    depth: u32,
    mut alpha: i64,
    beta: i64,
) -> i64 {
    if let Some(score) = g.terminal_score(p) {
        return terminal(score, depth);
    }
    if depth == 0 {
        return evaluate.score(&g.notation(p));
    }
    let mut best = i64::MIN;
    for mv in g.moves(p) {
        let (next, t) = g.play(p, mv);
        let gain = i64::from(t.gain);
        let v = if t.same_mover {
            gain + negamax(g, evaluate, next, depth - 1, alpha - gain, beta - gain)
        } else {
            gain - negamax(g, evaluate, next, depth - 1, gain - beta, gain - alpha)
        };
        best = best.max(v);
        alpha = alpha.max(v);
        if alpha >= beta {
            break;
        }
    }
    best
}

/// A finished game's score for the side to move: a loss (the opponent's
/// line) is worse the sooner it comes; a draw, or a full dots board (its
/// boxes already counted on the way), is 0.
fn terminal(score: Score, depth: u32) -> i64 {
    match score.signum() {
        -1 => -(MATE + i64::from(depth)),
        1 => MATE + i64::from(depth),
        _ => 0,
    }
}

/// The evaluation at the search's horizon, read from a position's notation.
enum Heuristic {
    /// Lines of cells (indices into the cells of the notation).
    Lines { lines: Vec<Vec<usize>>, n: usize },
    /// The edges of each box, as indices into the notation's edge bits.
    Boxes { boxes: Vec<[usize; 4]> },
}

impl Heuristic {
    fn of(board: BoardShape) -> Heuristic {
        match board {
            BoardShape::Grid { size } => Heuristic::Lines {
                lines: lines(usize::from(size), 2),
                n: usize::from(size),
            },
            BoardShape::Layers { size } => Heuristic::Lines {
                lines: lines(usize::from(size), 3),
                n: usize::from(size),
            },
            BoardShape::Dots { rows, cols } => {
                let (rows, cols) = (usize::from(rows), usize::from(cols));
                let horizontals = (rows + 1) * cols;
                let boxes = (0..rows)
                    .flat_map(|r| (0..cols).map(move |c| (r, c)))
                    .map(|(r, c)| {
                        [
                            r * cols + c,
                            (r + 1) * cols + c,
                            horizontals + r * (cols + 1) + c,
                            horizontals + r * (cols + 1) + c + 1,
                        ]
                    })
                    .collect();
                Heuristic::Boxes { boxes }
            }
        }
    }

    /// The score for the side to move at the position written `notation`.
    fn score(&self, notation: &str) -> i64 {
        match self {
            Heuristic::Lines { lines, n } => {
                let cells: Vec<u8> = notation.bytes().filter(|&b| b != b'/').collect();
                let x = cells.iter().filter(|&&c| c == b'X').count();
                let o = cells.iter().filter(|&&c| c == b'O').count();
                let (me, them) = if x > o { (b'O', b'X') } else { (b'X', b'O') };
                let mut score = 0;
                for line in lines {
                    let mine = line.iter().filter(|&&i| cells.get(i) == Some(&me)).count();
                    let theirs = line
                        .iter()
                        .filter(|&&i| cells.get(i) == Some(&them))
                        .count();
                    if theirs == 0 && mine == n - 1 {
                        score += 100;
                    } else if theirs == 0 {
                        score += 10 * mine as i64;
                    }
                    if mine == 0 && theirs == n - 1 {
                        score -= 500;
                    }
                }
                score
            }
            Heuristic::Boxes { boxes } => {
                let bits = notation.split_once(':').map_or("", |(_, b)| b).as_bytes();
                let drawn = |e: usize| bits.get(e) == Some(&b'1');
                // Boxes with three sides are the mover's for the taking.
                boxes
                    .iter()
                    .filter(|edges| edges.iter().filter(|&&e| drawn(e)).count() == 3)
                    .count() as i64
            }
        }
    }
}

/// Every line of `n` cells on an `n`^`dims` board (rows, columns,
/// diagonals), cells numbered `x + n·y (+ n²·z)`.
fn lines(n: usize, dims: u32) -> Vec<Vec<usize>> {
    let total = n.pow(dims);
    let dims = dims as usize;
    // One direction of each opposite pair: the first non-zero step is +1.
    let mut directions = Vec::new();
    for code in 0..3usize.pow(dims as u32) {
        let d: Vec<i64> = (0..dims)
            .map(|i| (code / 3usize.pow(i as u32) % 3) as i64 - 1)
            .collect();
        if d.iter().find(|&&s| s != 0) == Some(&1) {
            directions.push(d);
        }
    }
    let coords = |cell: usize| -> Vec<i64> {
        (0..dims)
            .map(|i| (cell / n.pow(i as u32) % n) as i64)
            .collect()
    };
    let inside = |p: &[i64]| p.iter().all(|&v| (0..n as i64).contains(&v));
    let index = |p: &[i64]| {
        p.iter()
            .enumerate()
            .map(|(i, &v)| v as usize * n.pow(i as u32))
            .sum()
    };
    let mut out = Vec::new();
    for cell in 0..total {
        let start = coords(cell);
        for d in &directions {
            let before: Vec<i64> = start.iter().zip(d).map(|(s, k)| s - k).collect();
            if inside(&before) {
                continue; // the line starts earlier
            }
            let line: Vec<Vec<i64>> = (0..n as i64)
                .map(|k| start.iter().zip(d).map(|(s, step)| s + step * k).collect())
                .collect();
            if line.iter().all(|p| inside(p)) {
                out.push(line.iter().map(|p| index(p)).collect());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lines_of_each_board() {
        assert_eq!(lines(3, 2).len(), 8);
        assert_eq!(lines(4, 2).len(), 10);
        assert_eq!(lines(3, 3).len(), 49);
        assert_eq!(lines(4, 3).len(), 76);
    }

    #[test]
    fn the_classic_player_wins_blocks_and_takes_boxes() {
        let mut rng = Rng::new(3);
        for _ in 0..10 {
            // X to move wins at 2; O to move must block at 2.
            assert_eq!(
                classic_move(GameId::TicTacToe, "XX./OO./...", &mut rng).unwrap(),
                "2"
            );
            assert_eq!(
                classic_move(GameId::TicTacToe, "XX./O../...", &mut rng).unwrap(),
                "2"
            );
            // The cube's depth 4 answers.
            let cube = "X".to_owned() + &".".repeat(26);
            assert!(classic_move(GameId::Cube, &cube, &mut rng).is_ok());
        }
        // Dots 1x1 with three sides drawn: the fourth takes the box.
        let dots: GameId = "dots:1x1".parse().unwrap();
        let only = classic_move(dots, "1x1:1110", &mut rng).unwrap();
        assert_eq!(only, "v0,1");
        // Qubic answers at once.
        let empty = ".".repeat(64);
        assert!(classic_move(GameId::Qubic, &empty, &mut rng).is_ok());
    }

    #[test]
    fn random_moves_are_legal_and_a_finished_game_has_none() {
        let mut rng = Rng::new(4);
        for _ in 0..20 {
            let mv = random_move(GameId::TicTacToe, "XO./.../...", &mut rng).unwrap();
            assert!(!["0", "1"].contains(&mv.as_str()), "{mv}");
        }
        let e = random_move(GameId::TicTacToe, "XXX/OO./...", &mut rng).unwrap_err();
        assert_eq!(e.kind(), solvedb_lookup::ErrorKind::Position);
        assert!(classic_move(GameId::TicTacToe, "hello", &mut rng).is_err());
        assert_eq!(Level::parse("classic"), Some(Level::Classic));
        assert_eq!(Level::parse("god"), None);
    }
}
