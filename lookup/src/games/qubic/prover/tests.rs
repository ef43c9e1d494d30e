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

/// The settings of the saved-state tests: narrowed, with a pass cache (not
/// kept in a state) and a table small enough to replace entries.
fn resumable_limits() -> ProverLimits {
    ProverLimits {
        table_bytes: 64 << 10,
        width: 4,
        pass_cache: 1 << 10,
        replace_by_work: true,
        ..ProverLimits::default()
    }
}

#[test]
fn a_proof_stopped_saved_and_taken_up_again_reaches_the_verdict_of_one_run() {
    // Each round a new prover takes the state the last one saved, searches
    // up to its node budget (over the counts it took in) and saves again;
    // the last one's verdict is the unbroken proof's, a win's move wins,
    // and the counters run on.
    let mut solver = QubicSolver::new(SearchLimits::default());
    let (mut resumed, mut proved) = (0, 0);
    for (board, attacker) in late_positions(30, 56, 2718)
        .into_iter()
        .flat_map(|board| [(board, Attacker::X), (board, Attacker::O)])
    {
        let limits = resumable_limits();
        let mut unbroken = Prover::new(
            attacker,
            ProverLimits {
                nodes: Some(500_000),
                ..limits
            },
        );
        let Ok(verdict) = unbroken.prove(board) else {
            continue;
        };
        let total = unbroken.nodes();
        if total < 20_000 {
            continue;
        }
        let mut saved: Vec<u8> = Vec::new();
        let mut rounds = 0;
        let (last_verdict, mut last) = loop {
            rounds += 1;
            let budget = (total / 4) * rounds;
            let mut prover = Prover::new(
                attacker,
                ProverLimits {
                    nodes: Some(budget),
                    ..limits
                },
            );
            if !saved.is_empty() {
                prover.load_state(board, saved.as_slice()).unwrap();
                assert!(prover.nodes() >= budget - total / 4, "the counts ran on");
            }
            match prover.prove(board) {
                Ok(verdict) => break (verdict, prover),
                Err(crate::Error::BudgetExhausted { .. }) => {
                    saved.clear();
                    prover.save_state(board, &mut saved).unwrap();
                }
                Err(e) => panic!("{e}"),
            }
            assert!(rounds < 12, "{} never ends", Q.notation(board));
        };
        assert_eq!(last_verdict, verdict, "{}", Q.notation(board));
        // The table carried what was learned: taken up again, the proof
        // costs little more than unbroken (a state that lost its table
        // would start over each round and never finish).
        assert!(
            last.nodes() <= 2 * total,
            "{}: {} nodes resumed against {total}",
            Q.notation(board),
            last.nodes()
        );
        resumed += usize::from(rounds > 1);
        if verdict == Verdict::Proved && attacker == Attacker::X {
            assert_its_move_wins(&mut last, &mut solver, board);
            proved += 1;
        }
        if resumed >= 6 && proved >= 2 {
            break;
        }
    }
    assert!(
        resumed >= 6 && proved >= 2,
        "{resumed} resumed, {proved} proved for X"
    );
}

#[test]
fn a_state_of_another_search_or_damaged_is_refused_and_the_prover_left_new() {
    let boards = late_positions(2, 44, 31);
    let (board, other) = (boards[0], boards[1]);
    let attacker = if board.x_to_move() {
        Attacker::X
    } else {
        Attacker::O
    };
    let limits = ProverLimits {
        nodes: Some(5_000),
        ..resumable_limits()
    };
    let mut prover = Prover::new(attacker, limits);
    let _ = prover.prove(board);
    assert!(prover.table_use().0 > 0);
    let mut saved = Vec::new();
    prover.save_state(board, &mut saved).unwrap();

    let refusal = |attacker, limits, root: QubicBoard, bytes: &[u8]| {
        let mut fresh = Prover::new(attacker, limits);
        let error = fresh.load_state(root, bytes).unwrap_err();
        assert_eq!(fresh.table_use().0, 0, "{error}: entries left");
        assert_eq!(fresh.nodes(), 0, "{error}: counts left");
        error.to_string()
    };
    let other_attacker = match attacker {
        Attacker::X => Attacker::O,
        Attacker::O => Attacker::X,
    };
    assert!(refusal(attacker, limits, other, &saved).contains("root's"));
    assert!(refusal(other_attacker, limits, board, &saved).contains("attacker"));
    let wider = ProverLimits { width: 5, ..limits };
    assert!(refusal(attacker, wider, board, &saved).contains("width"));
    let larger = ProverLimits {
        table_bytes: limits.table_bytes * 2,
        ..limits
    };
    assert!(refusal(attacker, larger, board, &saved).contains("bucket count"));
    assert!(refusal(attacker, limits, board, &saved[..saved.len() - 1]).contains("cut short"));
    assert!(refusal(attacker, limits, board, b"SDBQPST").contains("cut short"));
    assert!(refusal(attacker, limits, board, &[0; 64]).contains("not a saved"));
    for at in [200, saved.len() / 2, saved.len() - 1] {
        let mut damaged = saved.clone();
        damaged[at] ^= 0x10;
        assert!(
            refusal(attacker, limits, board, &damaged).contains("damaged"),
            "a byte changed at {at}"
        );
    }

    // Another node budget is the same search: taken, counts and all.
    let mut taken = Prover::new(
        attacker,
        ProverLimits {
            nodes: None,
            ..limits
        },
    );
    taken.load_state(board, saved.as_slice()).unwrap();
    assert_eq!(taken.table_use(), prover.table_use());
    assert_eq!(taken.nodes(), prover.nodes());
    assert_eq!(taken.stats().mid_calls, prover.stats().mid_calls);
}
