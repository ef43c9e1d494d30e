//! A dictionary of strategic moves in Patashnik's form, walked against
//! every defence: for comparing a published proof with the project's own
//! rules and forced-win search. Nothing here feeds a table or a prover.
//!
//! Patashnik ("Qubic: 4×4×4 tic-tac-toe", Mathematics Magazine 53(4),
//! 1980) proved the first player's win with 2,929 *strategic* moves chosen
//! by hand; every other position of the proof is settled by rules: X (1)
//! completes a line if it can, else (2) blocks O's three, else (3) plays
//! the dictionary's move for the position up to the 192 symmetries, else
//! (4) has a forced win (a sequence of threats ending in a fork). The
//! dictionary's own header gives its notation: a position is a string of
//! `x`, `o` and numbers of empty cells from cell 0, then a space and X's
//! cell. Whether the dictionary is exhaustive (every position X reaches
//! against every defence settled by the four rules) is an open question
//! (O'Dwyer, 2025); [`walk`] answers it for the project's forced-win
//! search: the threat-space search of `lookup`
//! ([`ThreatSearch`], Allis, van den Herik and Huntjens 1993) within a
//! node budget.
//!
//! The same rules count a strategy's *strategic moves* the way Patashnik
//! counted his ([`strategic`]): an X-to-move position where X cannot
//! complete a line, O has no three to block, and no threat line wins.

use std::collections::{HashMap, HashSet};

use anyhow::{Context, Result, bail};
use solvedb_lookup::games::qubic::threats::ThreatSearch;
use solvedb_lookup::games::qubic::{INVERSES, SYMMETRIES, canonical_with_symmetry, threats};
use solvedb_lookup::{Game, Qubic, QubicBoard, QubicCell};

/// A dictionary: X's move for each of its positions, by canonical board
/// (the move on the canonical board).
#[derive(Clone, Debug, Default)]
pub struct Dictionary {
    moves: HashMap<QubicBoard, u8>,
    /// Lines read (positions as written, before symmetry merges them).
    pub lines: usize,
}

impl Dictionary {
    /// Reads a dictionary: the lines after its header (which ends with a
    /// line of dashes), each a position and X's cell.
    ///
    /// # Errors
    ///
    /// A line that is not a position and a cell, a position that is not
    /// X to move, a move on a stone, or two lines for one position up to
    /// symmetry that disagree.
    pub fn parse(text: &str) -> Result<Dictionary> {
        let body = text
            .split_once("\n---")
            .map_or(text, |(_, rest)| rest.split_once('\n').map_or("", |r| r.1));
        let mut dictionary = Dictionary::default();
        for (n, line) in body.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let (board, cell) =
                parse_line(line).with_context(|| format!("line {}: {line:?}", n + 1))?;
            let (canonical, s) = canonical_with_symmetry(board);
            let mv = SYMMETRIES[s][usize::from(cell)];
            if let Some(&old) = dictionary.moves.get(&canonical)
                && old != mv
                && !same_up_to_stabilizer(canonical, old, mv)
            {
                bail!("line {}: a second move for one position", n + 1);
            }
            dictionary.moves.insert(canonical, mv);
            dictionary.lines += 1;
        }
        Ok(dictionary)
    }

    /// X's move in `board` (any image) if the dictionary has the position.
    pub fn move_in(&self, board: QubicBoard) -> Option<u8> {
        let (canonical, s) = canonical_with_symmetry(board);
        self.moves
            .get(&canonical)
            .map(|&mv| INVERSES[s][usize::from(mv)])
    }

    /// Positions up to symmetry.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// Whether it has no position.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

/// Whether two cells of a canonical board are images of each other under
/// a symmetry that keeps the board.
fn same_up_to_stabilizer(board: QubicBoard, a: u8, b: u8) -> bool {
    SYMMETRIES.iter().any(|s| {
        s[usize::from(a)] == b && {
            let (x, o) = (board.x(), board.o());
            map_mask(s, x) == x && map_mask(s, o) == o
        }
    })
}

/// The image of a mask under a permutation of the cells.
fn map_mask(s: &[u8; 64], mask: u64) -> u64 {
    (0..64)
        .filter(|&c| mask >> c & 1 != 0)
        .fold(0, |m, c| m | 1 << s[c])
}

/// One line of a dictionary: the position and X's cell.
fn parse_line(line: &str) -> Result<(QubicBoard, u8)> {
    let (position, cell) = line
        .trim_end()
        .rsplit_once(' ')
        .context("no space before the move")?;
    let cell: u8 = cell.parse().context("the move is not a number")?;
    if cell >= 64 {
        bail!("cell {cell} is off the board");
    }
    let mut text = String::with_capacity(64);
    let mut digits = String::new();
    for ch in position.chars().chain(['$']) {
        if ch.is_ascii_digit() {
            digits.push(ch);
            continue;
        }
        if !digits.is_empty() {
            let n: usize = digits.parse()?;
            text.extend(std::iter::repeat_n('.', n));
            digits.clear();
        }
        match ch {
            'x' => text.push('X'),
            'o' => text.push('O'),
            '$' => {}
            other => bail!("{other:?} in a position"),
        }
    }
    if text.len() > 64 {
        bail!("more than 64 cells");
    }
    while text.len() < 64 {
        text.push('.');
    }
    let board = Qubic.parse(&text).map_err(|e| anyhow::anyhow!("{e}"))?;
    if !board.x_to_move() {
        bail!("not a position with X to move");
    }
    if board.empty() >> cell & 1 == 0 {
        bail!("the move {cell} is on a stone");
    }
    Ok((board, cell))
}

/// How X's move was found at an X-to-move position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Rule {
    /// X completes a line.
    Win,
    /// X blocks O's only three.
    Block,
    /// The dictionary's move.
    Dictionary,
    /// A threat line: a forced win.
    Forced,
}

/// What a walk of a dictionary found.
#[derive(Clone, Debug, Default)]
pub struct DictionaryWalk {
    /// X-to-move positions reached, up to symmetry.
    pub positions: u64,
    /// Of them, settled by each rule: win, block, dictionary, forced win.
    pub by_rule: [u64; 4],
    /// Dictionary positions (up to symmetry) the walk used.
    pub used: usize,
    /// Positions no rule settles (O has two threes, or no rule gives a
    /// move), up to symmetry, in the order found.
    pub holes: Vec<QubicBoard>,
}

/// Walks a dictionary from the empty board against every O reply with
/// Patashnik's four rules, the forced win found by a threat search of
/// `threat_budget` nodes a position. A position X wins by a threat line is
/// not walked further (the line is the proof); after a block or a
/// dictionary move every O reply is played, up to positions of
/// `max_stones` stones (not expanded further). `progress` hears the count
/// of positions now and then.
pub fn walk(
    dictionary: &Dictionary,
    threat_budget: u64,
    max_stones: u32,
    progress: &dyn Fn(u64),
) -> DictionaryWalk {
    let mut report = DictionaryWalk::default();
    let mut threat_search = ThreatSearch::new(threat_budget);
    let mut seen: HashSet<QubicBoard> = HashSet::new();
    let mut used: HashSet<QubicBoard> = HashSet::new();
    let mut stack = vec![Qubic.start()];
    while let Some(board) = stack.pop() {
        let (canonical, _) = canonical_with_symmetry(board);
        if !seen.insert(canonical) {
            continue;
        }
        report.positions += 1;
        if report.positions % 100_000 == 0 {
            progress(report.positions);
        }
        let Some((rule, mv)) = x_move(dictionary, &mut threat_search, canonical) else {
            report.holes.push(canonical);
            continue;
        };
        report.by_rule[rule as usize] += 1;
        if rule == Rule::Dictionary {
            used.insert(canonical);
        }
        if matches!(rule, Rule::Win | Rule::Forced) || canonical.stones() + 2 > max_stones {
            continue;
        }
        let after = canonical.with_move(QubicCell::new(mv).expect("a cell"));
        for reply in 0..64u8 {
            if after.empty() >> reply & 1 == 0 {
                continue;
            }
            let child = after.with_move(QubicCell::new(reply).expect("a cell"));
            if solvedb_lookup::games::qubic::has_line(child.o()) || child.empty() == 0 {
                // O completes a line or fills the board: a hole.
                report.holes.push(child);
                continue;
            }
            stack.push(child);
        }
    }
    report.used = used.len();
    report
}

/// X's move by the four rules, or `None` where none gives one.
fn x_move(
    dictionary: &Dictionary,
    search: &mut ThreatSearch,
    board: QubicBoard,
) -> Option<(Rule, u8)> {
    let empty = board.empty();
    let wins = threats(board.x(), empty);
    if wins != 0 {
        return Some((Rule::Win, wins.trailing_zeros() as u8));
    }
    let blocks = threats(board.o(), empty);
    if blocks.count_ones() > 1 {
        return None;
    }
    if blocks != 0 {
        return Some((Rule::Block, blocks.trailing_zeros() as u8));
    }
    if let Some(mv) = dictionary.move_in(board) {
        return Some((Rule::Dictionary, mv));
    }
    search
        .find(board.x(), board.o())
        .map(|line| (Rule::Forced, line.first()))
}

/// Whether an X-to-move position is *strategic* in Patashnik's sense: X
/// cannot complete a line, O has no three to block, and the threat search
/// (within its budget) finds no forced win.
pub fn strategic(search: &mut ThreatSearch, board: QubicBoard) -> bool {
    let empty = board.empty();
    threats(board.x(), empty) == 0
        && threats(board.o(), empty) == 0
        && search.find(board.x(), board.o()).is_none()
}
