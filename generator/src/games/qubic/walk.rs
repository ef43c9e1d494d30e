//! The strategy of a Qubic table walked against every defence, for `solvedb
//! verify` and `solvedb export`, with rules of its own: the lines are found
//! again here, and a game is judged by them alone. The table gives X's moves
//! (through [`Strategy`], which is what the table means: records and the
//! threat lines a probe plays); nothing of the prover's search is used.
//!
//! From the empty board, every X-to-move position reached gets the
//! strategy's move, which must be an empty cell; after it, X has completed
//! a line, or every O reply is played: none may complete a line of O or
//! fill the board, and each leads to the next X-to-move position. The
//! plies to X's win against the longest defence are counted on the way and
//! must not exceed the bound the strategy claims for any position.
//!
//! Positions are walked once up to symmetry: the strategy plays each
//! position on its canonical board and maps the move back, so from a
//! symmetric image it plays the image of the same game; the walk of one
//! image checks them all. The symmetries themselves are proved to be the
//! board's in `lookup` (every permutation of the cells that keeps lines).

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use anyhow::{Result, bail};
use solvedb_lookup::games::qubic::strategy::{Settled, Strategy, key};
use solvedb_lookup::{Game, Qubic, QubicBoard, QubicCell, Table};

/// The 76 lines of the board, found from scratch: every cell and direction
/// `(dx, dy, dz)` in `{-1, 0, 1}³` whose four steps stay on the board, each
/// line once (from its lower end).
fn lines() -> Vec<u64> {
    let mut lines = Vec::new();
    for start in 0..64i32 {
        let (x, y, z) = (start % 4, start / 4 % 4, start / 16);
        for d in 0..27 {
            let (dx, dy, dz) = (d % 3 - 1, d / 3 % 3 - 1, d / 9 - 1);
            if (dx, dy, dz) == (0, 0, 0) {
                continue;
            }
            let cells: Vec<(i32, i32, i32)> = (0..4)
                .map(|k| (x + k * dx, y + k * dy, z + k * dz))
                .collect();
            if cells
                .iter()
                .all(|&(a, b, c)| (0..4).contains(&a) && (0..4).contains(&b) && (0..4).contains(&c))
            {
                let mask = cells
                    .iter()
                    .fold(0u64, |m, &(a, b, c)| m | 1 << (a + 4 * b + 16 * c));
                if !lines.contains(&mask) {
                    lines.push(mask);
                }
            }
        }
    }
    lines
}

/// What a walk found.
#[derive(Clone, Debug, Default)]
pub struct WalkReport {
    /// X-to-move positions, up to symmetry, where X does not complete a
    /// line at once (the export's lines).
    pub positions: u64,
    /// Of them, settled by a record of the table.
    pub from_records: u64,
    /// Of them, settled by a threat line.
    pub from_threat_lines: u64,
    /// O-to-move positions, up to symmetry, whose every reply was played.
    pub defences: u64,
    /// Plies to X's win against the longest defence, from the start.
    pub depth: u8,
    /// The bound the strategy claims at the start.
    pub claimed: u8,
    /// The table's records the walk read, and how many it holds.
    pub records_read: u64,
}

impl fmt::Display for WalkReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "X wins against every defence, in at most {} plies (the table claims {}); {} \
             positions with X to move up to symmetry ({} from records, {} by threat lines), \
             {} defended positions",
            self.depth,
            self.claimed,
            self.positions,
            self.from_records,
            self.from_threat_lines,
            self.defences,
        )
    }
}

/// The walk's state.
struct Walker<'t> {
    strategy: Strategy<'t, Vec<u8>>,
    lines: Vec<u64>,
    /// Plies to the win from each canonical X-to-move position walked.
    depths: HashMap<u128, u8>,
    report: WalkReport,
    /// With export: each position's move on its canonical board.
    export: Option<BTreeMap<u128, u8>>,
}

impl Walker<'_> {
    fn has_line(&self, stones: u64) -> bool {
        self.lines.iter().any(|&line| line & !stones == 0)
    }

    /// Plies to X's win from an X-to-move position (canonical), following
    /// the strategy against every defence.
    fn x_node(&mut self, board: QubicBoard) -> Result<u8> {
        let k = key(board);
        if let Some(&depth) = self.depths.get(&k) {
            return Ok(depth);
        }
        let Some(m) = self.strategy.x_move(board)? else {
            bail!(
                "the strategy has no move in {} (X to move)",
                Qubic.notation(board)
            );
        };
        let cell = m.cell.index();
        if board.empty() >> cell & 1 == 0 {
            bail!(
                "the strategy plays {cell}, which is taken, in {}",
                Qubic.notation(board)
            );
        }
        let after = board.with_move(m.cell);
        let depth = if self.has_line(after.x()) {
            1
        } else {
            if m.settled == Settled::Immediate {
                bail!("{cell} completes no line in {}", Qubic.notation(board));
            }
            self.report.defences += 1;
            let mut longest = 0;
            for reply in 0..64u8 {
                if after.empty() >> reply & 1 == 0 {
                    continue;
                }
                let next = after.with_move(QubicCell::new(reply).expect("a cell"));
                if self.has_line(next.o()) {
                    bail!(
                        "O completes a line: {} (after X's {cell} in {})",
                        Qubic.notation(next),
                        Qubic.notation(board)
                    );
                }
                if next.empty() == 0 {
                    bail!("the board fills without a line: {}", Qubic.notation(next));
                }
                longest = longest.max(self.x_node(Qubic.canonical(next))?);
            }
            2 + longest
        };
        if depth > m.plies {
            bail!(
                "{} takes {depth} plies against the longest defence, the strategy claims at \
                 most {}",
                Qubic.notation(board),
                m.plies
            );
        }
        if m.settled != Settled::Immediate {
            self.report.positions += 1;
            match m.settled {
                Settled::Record => self.report.from_records += 1,
                _ => self.report.from_threat_lines += 1,
            }
            if let Some(export) = &mut self.export {
                export.insert(k, cell);
            }
        }
        self.depths.insert(k, depth);
        Ok(depth)
    }
}

/// Walks the strategy of a Qubic table from the empty board against every
/// defence (see the [module documentation](self)); with `export`, also
/// returns each position's move (canonical key, cell on the canonical board).
///
/// # Errors
///
/// The first position where the strategy fails, or a corrupt record.
pub fn walk(
    table: &Table<Vec<u8>>,
    export: bool,
) -> Result<(WalkReport, Option<BTreeMap<u128, u8>>)> {
    walk_from(table, Qubic.start(), export)
}

/// [`walk`] from `start` (X to move, not over) instead of the empty board:
/// for tables of a strategy from a later position (the tests' small
/// proofs).
///
/// # Errors
///
/// As [`walk`].
pub fn walk_from(
    table: &Table<Vec<u8>>,
    start: QubicBoard,
    export: bool,
) -> Result<(WalkReport, Option<BTreeMap<u128, u8>>)> {
    if !start.x_to_move() || Qubic.terminal_score(start).is_some() {
        bail!("the walk starts from a position with X to move that is not over");
    }
    let mut walker = Walker {
        strategy: Strategy::new(table),
        lines: lines(),
        depths: HashMap::new(),
        report: WalkReport::default(),
        export: export.then(BTreeMap::new),
    };
    if walker.lines.len() != 76 {
        bail!("found {} lines, not 76", walker.lines.len());
    }
    let start = Qubic.canonical(start);
    walker.report.depth = walker.x_node(start)?;
    walker.report.claimed = walker.strategy.x_move(start)?.map_or(0, |m| m.plies);
    // Every record must be a position the strategy reaches: a table with
    // records it never reads has bytes nobody checked.
    let stored = table.header().stored;
    walker.report.records_read = walker.report.from_records;
    if walker.report.from_records != stored {
        bail!(
            "the strategy reads {} of the table's {stored} records",
            walker.report.from_records
        );
    }
    Ok((walker.report, walker.export))
}

/// A position with X to move as the export writes it: 64 characters `X`,
/// `O` or `.` (cell `16z + 4y + x`), a space, the cell X plays.
pub fn export_line(position_key: u128, cell: u8) -> String {
    let board = solvedb_lookup::games::qubic::strategy::board_of_key(position_key);
    let mut text: String = (0..64)
        .map(|c| {
            if board.x() >> c & 1 != 0 {
                'X'
            } else if board.o() >> c & 1 != 0 {
                'O'
            } else {
                '.'
            }
        })
        .collect();
    text.push(' ');
    text.push_str(&cell.to_string());
    text
}
