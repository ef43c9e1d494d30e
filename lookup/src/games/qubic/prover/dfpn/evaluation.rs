//! What the rules and the threat search say about a node before its
//! children are searched ([`Evaluation`]).

use crate::error::Error;
use crate::games::qubic::board::QubicBoard;
use crate::games::qubic::lines::line_cells;
use crate::games::qubic::pairing::has_pairing;
use crate::games::qubic::threats::ThreatLine;

use super::super::Verdict;
use super::super::proof_numbers::{ProofNumber, solved};
use super::Prover;

/// What the evaluation of a node found without searching its children.
pub(super) enum Evaluation {
    Solved(Verdict, Option<u8>),
    /// Not solved; the moves to search (cell masks of the board as given).
    Open(u64),
}

/// The numbers of an evaluation: a solved node's, or `(1, 1)`.
pub(super) fn numbers(evaluation: &Evaluation) -> (ProofNumber, ProofNumber, Option<u8>) {
    match *evaluation {
        Evaluation::Solved(verdict, mv) => {
            let (pn, dn) = solved(verdict);
            (pn, dn, mv)
        }
        Evaluation::Open(_) => (1, 1, None),
    }
}

impl Prover<'_> {
    fn threat_line(&mut self, attacker: u64, defender: u64, hint: &[u8]) -> Option<ThreatLine> {
        self.stats.threat_searches += 1;
        let line = self.threats.find_with_hint(attacker, defender, hint);
        if line.is_some() {
            self.stats.threat_wins += 1;
        }
        line
    }

    /// What the rules and the threat search say about a canonical board
    /// before its children are searched. `hint`: a line to try first at an
    /// OR node.
    pub(super) fn evaluate(&mut self, board: QubicBoard, hint: &[u8]) -> Evaluation {
        let (attacker, defender) = self.sides(board);
        let empty = !(attacker | defender);
        if empty == 0 {
            return Evaluation::Solved(Verdict::Disproved, None);
        }
        let mine = line_cells(attacker, defender);
        let theirs = line_cells(defender, attacker);
        if self.attacker_to_move(board) {
            if mine.threats != 0 {
                let mv = mine.threats.trailing_zeros() as u8;
                return Evaluation::Solved(Verdict::Proved, Some(mv));
            }
            match theirs.threats.count_ones() {
                0 => {}
                1 => {
                    // The block is the only move; it may still start a line.
                    if theirs.threats & mine.forks != 0 {
                        let mv = theirs.threats.trailing_zeros() as u8;
                        return Evaluation::Solved(Verdict::Proved, Some(mv));
                    }
                    if theirs.threats & mine.pairs != 0 {
                        if let Some(line) = self.threat_line(attacker, defender, hint) {
                            return Evaluation::Solved(Verdict::Proved, Some(line.first()));
                        }
                    }
                    return Evaluation::Open(theirs.threats);
                }
                _ => return Evaluation::Solved(Verdict::Disproved, None),
            }
            if mine.forks != 0 {
                let mv = mine.forks.trailing_zeros() as u8;
                return Evaluation::Solved(Verdict::Proved, Some(mv));
            }
            if mine.live == 0 || has_pairing(attacker, defender) {
                return Evaluation::Solved(Verdict::Disproved, None);
            }
            if let Some(line) = self.threat_line(attacker, defender, hint) {
                return Evaluation::Solved(Verdict::Proved, Some(line.first()));
            }
            if board.stones() >= self.limits.max_stones {
                return Evaluation::Solved(Verdict::Disproved, None);
            }
            // Dead cells (on no line anyone can complete) are passes, never
            // better than a live cell (see `QubicSolver`).
            Evaluation::Open(mine.live | theirs.live)
        } else {
            if theirs.threats != 0 {
                return Evaluation::Solved(Verdict::Disproved, None);
            }
            match mine.threats.count_ones() {
                0 => {}
                1 => return Evaluation::Open(mine.threats),
                _ => return Evaluation::Solved(Verdict::Proved, None),
            }
            if mine.live == 0 || has_pairing(attacker, defender) {
                return Evaluation::Solved(Verdict::Disproved, None);
            }
            // Every move of the defender, dead cells too: the strategy must
            // answer each.
            Evaluation::Open(empty)
        }
    }

    /// [`evaluate`](Prover::evaluate) of an OR node without its threat
    /// search (known to fail).
    pub(super) fn evaluate_without_threats(&mut self, board: QubicBoard) -> Evaluation {
        let (attacker, defender) = self.sides(board);
        let mine = line_cells(attacker, defender);
        let theirs = line_cells(defender, attacker);
        if mine.threats != 0 {
            return Evaluation::Solved(Verdict::Proved, Some(mine.threats.trailing_zeros() as u8));
        }
        match theirs.threats.count_ones() {
            0 => {}
            1 => return Evaluation::Open(theirs.threats),
            _ => return Evaluation::Solved(Verdict::Disproved, None),
        }
        if mine.forks != 0 {
            return Evaluation::Solved(Verdict::Proved, Some(mine.forks.trailing_zeros() as u8));
        }
        if mine.live == 0 || board.stones() >= self.limits.max_stones {
            return Evaluation::Solved(Verdict::Disproved, None);
        }
        Evaluation::Open(mine.live | theirs.live)
    }

    /// [`evaluate`](Prover::evaluate), skipping the threat search of an OR
    /// node that the table has seen (its search failed when it was stored).
    pub(super) fn evaluate_cached(
        &mut self,
        board: QubicBoard,
        key: QubicBoard,
    ) -> Result<Evaluation, Error> {
        if self.attacker_to_move(board) && self.table.get(key).is_some() {
            Ok(self.evaluate_without_threats(board))
        } else {
            Ok(self.evaluate(board, &[]))
        }
    }

    /// The initial proof number of an open AND node: how many defender
    /// moves look as if they need an answer. One if the attacker threatens
    /// (the block is forced); else, if the attacker has a threat line
    /// after a pass, the cells of its zone (the defences outside it lose to
    /// the line); else every empty cell.
    pub(super) fn estimate_defences(&mut self, board: QubicBoard) -> ProofNumber {
        let (attacker, defender) = self.sides(board);
        if line_cells(attacker, defender).threats != 0 {
            return 1;
        }
        match self.pass_line(attacker, defender) {
            Some(line) => line.zone(attacker, defender).count_ones().max(1),
            None => board.empty().count_ones(),
        }
    }
}
