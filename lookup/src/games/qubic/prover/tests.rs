//! The prover against the library's live solver (and plain minimax where
//! it is quick), in every configuration of its limits.

use crate::game::{ExactSolver, Game, SearchLimits};
use crate::games::qubic::samples::{late_positions, minimax_score};
use crate::games::qubic::{Qubic, QubicBoard, QubicCell, QubicSolver};

use super::{Attacker, Prover, ProverLimits, Verdict};

const Q: Qubic = Qubic;

/// The prover's configurations the tests compare with the solver: the
/// default, and with the attacker's moves restricted at OR nodes (widened
/// only when all are disproved, or sooner; from 50 stones on only), the
/// pass-line cache, weak proof numbers, the proof table's replacement by
/// work and the 1 + ε trick's ε, alone and together.
fn prover_configurations() -> Vec<ProverLimits> {
    let base = ProverLimits {
        table_bytes: 1 << 20,
        ..ProverLimits::default()
    };
    vec![
        base,
        ProverLimits {
            width: 2,
            pass_cache: 1 << 10,
            ..base
        },
        ProverLimits {
            width: 3,
            widen_pn: 6,
            pass_cache: 1 << 4,
            ..base
        },
        ProverLimits {
            width: 1,
            narrow_from: 50,
            ..base
        },
        // Weak numbers, the replacement by work (in a table small enough
        // to replace) and a larger ε, each alone, then all together with
        // the narrowing and the cache.
        ProverLimits { weak: true, ..base },
        ProverLimits {
            table_bytes: 16 << 10,
            replace_by_work: true,
            ..base
        },
        ProverLimits {
            epsilon_percent: 100,
            ..base
        },
        ProverLimits {
            table_bytes: 16 << 10,
            width: 2,
            widen_pn: 6,
            pass_cache: 1 << 10,
            weak: true,
            replace_by_work: true,
            epsilon_percent: 60,
            ..base
        },
    ]
}

/// The prover's winning move in `board`, which it proved, leaves the
/// opponent lost by the solver.
fn assert_its_move_wins(prover: &mut Prover, solver: &mut QubicSolver, board: QubicBoard) {
    let mv = prover.winning_move(board).unwrap().expect("a winning move");
    let (child, _) = Q.play(board, QubicCell::new(mv).expect("a cell"));
    let child_score = match Q.terminal_score(child) {
        Some(s) => s,
        None => solver.score(child).unwrap(),
    };
    assert!(child_score < 0, "{} plays {mv}", Q.notation(board));
}

#[test]
fn the_prover_agrees_with_the_solver_and_its_moves_win() {
    let mut solver = QubicSolver::new(SearchLimits::default());
    for limits in prover_configurations() {
        let (mut proved, mut disproved) = (0, 0);
        for (empties, count) in [(6, 30), (14, 30), (22, 20)] {
            for board in late_positions(count, empties, 700 + u64::from(empties)) {
                let score = if empties <= 7 {
                    minimax_score(board)
                } else {
                    solver.score(board).unwrap()
                };
                let attacker = if board.x_to_move() {
                    Attacker::X
                } else {
                    Attacker::O
                };
                let mut prover = Prover::new(attacker, limits);
                let verdict = prover.prove(board).unwrap();
                assert_eq!(
                    verdict == Verdict::Proved,
                    score > 0,
                    "{} {limits:?}",
                    Q.notation(board)
                );
                if verdict == Verdict::Proved {
                    proved += 1;
                    assert_its_move_wins(&mut prover, &mut solver, board);
                } else {
                    disproved += 1;
                }
            }
        }
        assert!(
            proved >= 10 && disproved >= 10,
            "{proved} proved, {disproved} disproved with {limits:?}"
        );
    }
}

#[test]
fn a_stone_limit_proves_only_wins() {
    // Within a limit a proof is still a proof: the solver confirms the
    // verdict and the winning move.
    let mut solver = QubicSolver::new(SearchLimits::default());
    let mut proved = 0;
    for (empties, count) in [(14, 30), (22, 30)] {
        for board in late_positions(count, empties, 900 + u64::from(empties)) {
            let score = solver.score(board).unwrap();
            let attacker = if board.x_to_move() {
                Attacker::X
            } else {
                Attacker::O
            };
            for extra in [0, 2, 4] {
                let limits = ProverLimits {
                    table_bytes: 1 << 20,
                    max_stones: board.stones() + extra,
                    ..ProverLimits::default()
                };
                let mut prover = Prover::new(attacker, limits);
                if prover.prove(board).unwrap() == Verdict::Proved {
                    assert!(score > 0, "{} {limits:?}", Q.notation(board));
                    assert_its_move_wins(&mut prover, &mut solver, board);
                    proved += 1;
                }
            }
        }
    }
    assert!(proved >= 30, "{proved} proved");
}

#[test]
fn the_pass_cache_changes_the_time_only() {
    // The cache returns what the threat search would: the proof search
    // takes the same steps, with fewer threat-search nodes.
    let mut hits = 0;
    for board in late_positions(40, 30, 4242) {
        let attacker = if board.x_to_move() {
            Attacker::X
        } else {
            Attacker::O
        };
        let limits = ProverLimits {
            table_bytes: 1 << 20,
            nodes: Some(2_000_000),
            ..ProverLimits::default()
        };
        let mut plain = Prover::new(attacker, limits);
        let mut cached = Prover::new(
            attacker,
            ProverLimits {
                pass_cache: 1 << 12,
                nodes: None,
                ..limits
            },
        );
        let Ok(verdict) = plain.prove(board) else {
            continue;
        };
        assert_eq!(
            cached.prove(board).unwrap(),
            verdict,
            "{}",
            Q.notation(board)
        );
        let (p, c) = (plain.stats(), cached.stats());
        assert_eq!(
            (p.mid_calls, p.expansions, p.zone_wins),
            (c.mid_calls, c.expansions, c.zone_wins),
            "{}",
            Q.notation(board)
        );
        assert!(c.threat_nodes <= p.threat_nodes);
        hits += c.pass_cache_hits;
    }
    assert!(hits > 0, "the cache was never used");
}

#[test]
fn a_full_table_replacing_by_work_proves_what_a_large_one_proves() {
    // A table of 64 entries fills on these positions, so its buckets
    // replace entries; the verdicts must be those of a table that does not.
    let mut filled = 0;
    for board in late_positions(20, 44, 977) {
        let attacker = if board.x_to_move() {
            Attacker::X
        } else {
            Attacker::O
        };
        let large = ProverLimits {
            table_bytes: 1 << 22,
            nodes: Some(2_000_000),
            ..ProverLimits::default()
        };
        let Ok(verdict) = Prover::new(attacker, large).prove(board) else {
            continue;
        };
        let mut small = Prover::new(
            attacker,
            ProverLimits {
                table_bytes: 2 << 10,
                replace_by_work: true,
                nodes: None,
                ..large
            },
        );
        assert_eq!(
            small.prove(board).unwrap(),
            verdict,
            "{}",
            Q.notation(board)
        );
        let (used, capacity) = small.table_use();
        filled += usize::from(used == capacity);
    }
    assert!(filled > 0, "the small table never filled");
}

#[test]
fn a_deepened_proof_gives_the_solvers_verdict_for_either_attacker() {
    // Within the limits in turn, then without one: a proof is a win of the
    // attacker, and a disproof (only ever without a limit) is none, for X
    // and for O; the limits that held no win are reported in order.
    let mut solver = QubicSolver::new(SearchLimits::default());
    let (mut proved, mut disproved, mut deepened) = (0, 0, 0);
    for board in late_positions(30, 22, 777) {
        let score = solver.score(board).unwrap();
        for attacker in [Attacker::X, Attacker::O] {
            let attacker_wins = (score > 0) == (attacker == Attacker::X) && score != 0;
            let limits = ProverLimits {
                table_bytes: 1 << 20,
                width: 4,
                ..ProverLimits::default()
            };
            let mut reported = Vec::new();
            let deepened_proof = super::prove_deepening(
                board,
                attacker,
                limits,
                &[1, 3, 5],
                None,
                &crate::Stop::default(),
                |limit, _| reported.push(limit - board.stones()),
            );
            let verdict = deepened_proof.verdict.unwrap();
            assert_eq!(
                verdict == Verdict::Proved,
                attacker_wins,
                "{} {attacker:?}",
                Q.notation(board)
            );
            assert!(reported.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(deepened_proof.stone_limit.is_none(), reported.len() == 3);
            if verdict == Verdict::Disproved {
                assert_eq!(
                    deepened_proof.stone_limit, None,
                    "a disproof within a limit"
                );
                disproved += 1;
            } else {
                proved += 1;
            }
            deepened += usize::from(!reported.is_empty());
        }
    }
    assert!(
        proved >= 10 && disproved >= 10 && deepened >= 10,
        "{proved} proved, {disproved} disproved, {deepened} past a limit"
    );
}
