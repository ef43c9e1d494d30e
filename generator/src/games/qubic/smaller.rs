//! The strategy made smaller: among X's winning moves, the ones after
//! which the rules settle every defence.
//!
//! A proof's strategy takes, at each position the rules do not settle,
//! the move its prover proved first, whatever that move leaves behind.
//! This pass walks a proved strategy from its root again and, at every
//! *strategic* position (X to move, no line to complete, no three of O's
//! to block, no threat line: Patashnik's sense, see [`dictionary`]),
//! prefers a move after which every O reply is
//!
//! - settled by the rules: X completes a line, or X
//!   has a threat line, or O has one three and X blocks it, each followed
//!   through every O reply until every position on the way is settled so;
//!   a threat line is walked too, the probe's way ([`threat_move`]), so a
//!   step where the probe's search would not find the rest of the line is
//!   no settled position; or
//! - a position the new strategy already reaches (its move is chosen where
//!   it is walked).
//!
//! Where no such move exists the proof's move stays. Such a move wins by
//! construction: every reply is won by the rules or is a position of the
//! strategy, and every position of the strategy is won (an induction on
//! the empty cells: a position reached is either the proof's, with the
//! proof's subtree, or settled by the rules). No proof runs here.
//!
//! Candidates are tried in a fixed order, the proof's move first, then the
//! empty cells by number; the walk is depth first in a fixed order, so the
//! result depends only on the proof's moves. A move that makes no three is
//! first checked with O passing: unless X then has a threat line, no O
//! reply leaves X one (a threat line with an extra O stone is a line
//! without it), so the move is passed over without trying the replies; the
//! replies inside that line's zone, where a reply can break it, are tried
//! first.
//!
//! [`dictionary`]: super::dictionary

use std::collections::{HashMap, HashSet};

use anyhow::{Result, anyhow, bail};
use solvedb_lookup::games::qubic::strategy::{probe_threats, threat_move};
use solvedb_lookup::games::qubic::threats::ThreatSearch;
use solvedb_lookup::games::qubic::{canonical_with_symmetry, has_line, threats};
use solvedb_lookup::{Game, Qubic, QubicBoard, QubicCell};

use super::replies::{Reply, each_reply, replies};
use solvedb_lookup::games::qubic::strategy::key;

/// What the pass did, by stones on the board of the strategic positions
/// it walked.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SmallerReport {
    /// Strategic positions walked.
    pub strategic: u64,
    /// Of them, those whose proof's move already settled every reply.
    pub kept_settled: u64,
    /// Those given another move that settles every reply.
    pub changed: u64,
    /// Those where no move settles every reply: the proof's move stays.
    pub kept_proved: u64,
}

/// The counts of two passes together (the roots' strategies made smaller
/// one by one, reported as one).
impl std::ops::AddAssign for SmallerReport {
    fn add_assign(&mut self, other: SmallerReport) {
        self.strategic += other.strategic;
        self.kept_settled += other.kept_settled;
        self.changed += other.changed;
        self.kept_proved += other.kept_proved;
    }
}

/// The smaller strategy of a proved one: `moves` (canonical key → move on
/// the canonical board, X's moves where the rules do not settle the
/// position) walked from `root` as the [module documentation](self)
/// says. Returns the moves of the new strategy at every position it
/// reaches that the rules do not settle by a line or a threat line (the
/// strategic positions and O's threes X blocks).
///
/// # Errors
///
/// If a position the walk reaches has no move (the proof's strategy does
/// not answer it: a bug), or an O reply completes a line or fills the
/// board.
pub fn smaller_strategy(
    root: QubicBoard,
    moves: &HashMap<u128, u8>,
) -> Result<(HashMap<u128, u8>, SmallerReport)> {
    let mut settler = Settler {
        threats: probe_threats(),
        pass: ThreatSearch::new(solvedb_lookup::games::qubic::threats::THREAT_BUDGET),
        settled: HashMap::new(),
    };
    let mut report = SmallerReport::default();
    let mut chosen: HashMap<u128, u8> = HashMap::new();
    let (root, _) = canonical_with_symmetry(root);
    if threats(root.x(), root.empty()) != 0 {
        return Ok((chosen, report));
    }
    let mut reached: HashSet<u128> = HashSet::from([key(root)]);
    let mut stack = vec![root];
    while let Some(board) = stack.pop() {
        let k = key(board);
        let mv = if let Some(line) = threat_move(&mut settler.threats, board) {
            line.cell.index()
        } else if let Some(block) = single_block(board) {
            chosen.insert(k, block);
            block
        } else {
            let proved = *moves
                .get(&k)
                .ok_or_else(|| anyhow!("{} is not answered", Qubic.notation(board)))?;
            report.strategic += 1;
            let mv = settler.choose(board, proved, &reached)?;
            match mv {
                Some(mv) if mv == proved => report.kept_settled += 1,
                Some(_) => report.changed += 1,
                None => report.kept_proved += 1,
            }
            let mv = mv.unwrap_or(proved);
            chosen.insert(k, mv);
            mv
        };
        let after = board.with_move(cell(mv));
        if has_line(after.x()) {
            continue;
        }
        for reply in replies(after)? {
            if reached.insert(key(reply)) {
                stack.push(reply);
            }
        }
    }
    Ok((chosen, report))
}

/// The cell of O's only three in an X-to-move position where X has none
/// (the block), or `None` where O has no three; O's two threes are an
/// error the caller's walk reports (the position is lost).
fn single_block(board: QubicBoard) -> Option<u8> {
    let blocks = threats(board.o(), board.empty());
    (blocks.count_ones() == 1).then(|| blocks.trailing_zeros() as u8)
}

fn cell(index: u8) -> QubicCell {
    QubicCell::new(index).expect("a cell")
}

/// Whether `open` holds at every O reply in `after` on `cells` that leaves
/// an X-to-move position X does not win at once (canonical); false at a
/// reply that completes O's line or fills the board.
fn every_reply(
    after: QubicBoard,
    cells: u64,
    mut open: impl FnMut(QubicBoard) -> Result<bool>,
) -> Result<bool> {
    for reply in each_reply(after, cells) {
        match reply {
            Reply::NotWon(_) => return Ok(false),
            Reply::WonAtOnce => {}
            Reply::Open(canonical) => {
                if !open(canonical)? {
                    return Ok(false);
                }
            }
        }
    }
    Ok(true)
}

/// The rules' verdicts, remembered by canonical key.
struct Settler {
    /// The probe's threat search: what settles a position at probe time.
    threats: ThreatSearch,
    /// The search for the check with O passing.
    pass: ThreatSearch,
    settled: HashMap<u128, bool>,
}

impl Settler {
    /// The first move of `board` (strategic, canonical) in the pass's
    /// order after which every O reply is settled or `reached`; `None`
    /// where there is none.
    fn choose(
        &mut self,
        board: QubicBoard,
        proved: u8,
        reached: &HashSet<u128>,
    ) -> Result<Option<u8>> {
        let others = (0..64u8).filter(|&c| c != proved && board.empty() >> c & 1 != 0);
        for mv in std::iter::once(proved).chain(others) {
            if self.every_reply_settled(board, mv, reached)? {
                return Ok(Some(mv));
            }
        }
        Ok(None)
    }

    /// Whether every O reply to X's `mv` in `board` is settled or reached.
    fn every_reply_settled(
        &mut self,
        board: QubicBoard,
        mv: u8,
        reached: &HashSet<u128>,
    ) -> Result<bool> {
        let after = board.with_move(cell(mv));
        let empty = after.empty();
        let forcing = threats(after.x(), empty);
        // O's replies in the order tried: where X makes a three, the
        // block first (any other reply lets X complete); else the cells of
        // X's threat line with O passing that could break it first.
        let first = if forcing != 0 {
            forcing
        } else {
            match self.pass.find(after.x(), after.o()) {
                Some(line) => line.zone(after.x(), after.o()),
                None => return Ok(false),
            }
        };
        for mask in [first & empty, !first & empty] {
            let settled =
                |canonical| Ok(reached.contains(&key(canonical)) || self.settled(canonical)?);
            if !every_reply(after, mask, settled)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether the rules alone win `board` (canonical, X to move, no line
    /// X completes at once): a threat line as the probe finds it, or the
    /// block of O's only three, each followed through every O reply until
    /// X completes a line.
    fn settled(&mut self, board: QubicBoard) -> Result<bool> {
        let k = key(board);
        if let Some(&known) = self.settled.get(&k) {
            return Ok(known);
        }
        let mv = match threat_move(&mut self.threats, board) {
            Some(line) => Some(line.cell.index()),
            None => single_block(board),
        };
        let won = match mv {
            Some(mv) => self.settled_after(board.with_move(cell(mv)))?,
            None => false,
        };
        self.settled.insert(k, won);
        Ok(won)
    }

    /// Whether every O reply in `after` (O to move) is settled.
    fn settled_after(&mut self, after: QubicBoard) -> Result<bool> {
        if has_line(after.x()) {
            return Ok(true);
        }
        if after.empty() == 0 {
            bail!("{}: the board is full", Qubic.notation(after));
        }
        every_reply(after, after.empty(), |canonical| self.settled(canonical))
    }
}
