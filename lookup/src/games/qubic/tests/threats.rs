//! Threat lines: they win, and the shortest are no longer.

use super::super::samples::late_positions;
use super::super::threats::{THREAT_BUDGET, ThreatLine, ThreatSearch};
use super::*;

/// Plays a threat line of `attacker` (to move) against `defender` out against
/// the only replies that do not lose at once: each move but the last makes
/// exactly one threat of the attacker (none of the defender's stands), the
/// defender blocks it, and the last completes a line.
fn plays_out(attacker: u64, defender: u64, line: &ThreatLine) -> bool {
    let (mut a, mut d) = (attacker, defender);
    let moves = line.moves();
    for (i, &cell) in moves.iter().enumerate() {
        if (a | d) >> cell & 1 != 0 {
            return false;
        }
        // Where the defender threatens, the attacker's move must block.
        let theirs = threats(d, !(a | d));
        if theirs != 0 && theirs != 1 << cell && threats(a, !(a | d)) >> cell & 1 == 0 {
            return false;
        }
        a |= 1 << cell;
        if has_line(a) {
            return i + 1 == moves.len();
        }
        let mine = threats(a, !(a | d));
        match mine.count_ones() {
            1 => d |= mine,
            // A fork: the defender blocks one, the next move completes the
            // other (unless the defender wins first: it had no threat).
            2.. if threats(d, !(a | d)) == 0 => {
                let next = moves.get(i + 1).copied();
                return next.is_some_and(|c| mine >> c & 1 != 0) && i + 2 == moves.len();
            }
            _ => return false,
        }
        if has_line(d) {
            return false;
        }
    }
    false
}

#[test]
fn threat_lines_are_wins_the_solver_confirms_and_shortest_ones_are_no_longer() {
    let mut search = ThreatSearch::new(THREAT_BUDGET);
    let mut solver = QubicSolver::new(SearchLimits::default());
    let mut found = 0;
    for empties in [16, 24, 30] {
        for board in late_positions(40, empties, 500 + u64::from(empties)) {
            let (me, you) = board.mover_and_other();
            let Some(line) = search.find(me, you) else {
                continue;
            };
            found += 1;
            assert!(plays_out(me, you, &line), "{}", Q.notation(board));
            let score = solver.score(board).unwrap();
            assert!(score > 0, "{}", Q.notation(board));
            let shortest = search.find_shortest(me, you).expect("a line exists");
            assert!(plays_out(me, you, &shortest));
            assert!(shortest.moves().len() <= line.moves().len());
            // The fastest win is no slower than the shortest line.
            let plies = WIN_SCORE - score - board.stones() as Score;
            assert!(
                plies <= Score::from(shortest.plies()),
                "{}",
                Q.notation(board)
            );
            // A defender stone outside the zone leaves the line winning.
            let zone = line.zone(me, you);
            let empty = board.empty();
            if let Some(outside) = (0..64).find(|&c| empty >> c & 1 != 0 && zone >> c & 1 == 0) {
                assert!(
                    plays_out(me, you | 1 << outside, &line),
                    "{} + {outside}",
                    Q.notation(board)
                );
            }
        }
    }
    assert!(found >= 20, "only {found} positions had a line");
}
