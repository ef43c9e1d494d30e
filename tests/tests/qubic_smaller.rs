//! The pass that makes Qubic's strategy smaller
//! (`games::qubic::smaller`), on strategies proved here from late roots
//! (CI-sized): the smaller strategy is walked against every defence by
//! the verifier's own walker, every move the pass changed is a win by the
//! library's exact alpha-beta (which shares no code with the prover or the
//! pass), its strategic positions (Patashnik's sense) are among the
//! proof's own, and the pass gives the same moves twice. The pass on the
//! committed strategy is measured by the `qubic_smaller` example.

use std::collections::HashSet;

use solvedb_generator::build::encode_solution;
use solvedb_generator::games::qubic::dictionary::strategic;
use solvedb_generator::games::qubic::prove::{ProvedStrategy, prove_strategy};
use solvedb_generator::games::qubic::records::{StrategyRecords, strategy_records};
use solvedb_generator::games::qubic::samples::won_positions;
use solvedb_generator::games::qubic::smaller::smaller_strategy;
use solvedb_generator::games::qubic::strategy_solution;
use solvedb_generator::games::qubic::task::ProofOptions;
use solvedb_generator::games::qubic::walk::walk_from;
use solvedb_lookup::games::qubic::canonical_with_symmetry;
use solvedb_lookup::games::qubic::strategy::{board_of_key, probe_threats};
use solvedb_lookup::{
    ExactSolver, Game, Qubic, QubicBoard, QubicCell, QubicSolver, SearchLimits, Table,
};

fn proved(root: QubicBoard) -> ProvedStrategy {
    let options = ProofOptions {
        threads: 2,
        task_table_bytes: 4 << 20,
        task_nodes: Some(20_000_000),
        ..ProofOptions::default()
    };
    prove_strategy(root, options, None, &|_| {}).expect("proved")
}

/// The strategic positions among a strategy's records.
fn strategic_keys(records: &StrategyRecords) -> HashSet<u128> {
    let mut search = probe_threats();
    records
        .records
        .iter()
        .map(|&(key, _)| key)
        .filter(|&key| strategic(&mut search, board_of_key(key)))
        .collect()
}

#[test]
fn the_smaller_strategy_wins_and_keeps_only_strategic_positions_of_the_proof() {
    let mut solver = QubicSolver::new(SearchLimits::default());
    let (mut changed, mut before_count, mut after_count) = (0, 0, 0);
    for (root, _) in won_positions(4, 32, 44, true) {
        let proved = proved(root);
        let before = strategy_records(root, &proved.proved_moves).expect("the proof's strategy");
        let after = StrategyRecords {
            records: proved.records.clone(),
            depth: proved.depth,
            root_depths: vec![proved.depth],
            by_stones: proved.by_stones.clone(),
        };
        // The proof's own strategy walks as well (the pass's input).
        let table =
            Table::new(encode_solution(&Qubic, &strategy_solution(&proved), 3)).expect("a table");
        let (report, moves) = walk_from(&table, root, true).expect("the smaller strategy walks");
        assert_eq!(report.depth, proved.depth, "{}", Qubic.notation(root));
        // Every move the pass changed wins, by exact search.
        for (&position, &cell) in moves.as_ref().expect("asked for") {
            let board = board_of_key(position);
            let (canonical, s) = canonical_with_symmetry(board);
            let key = solvedb_lookup::games::qubic::strategy::key(canonical);
            let Some(&proof_move) = proved.proved_moves.get(&key) else {
                continue;
            };
            let mv = solvedb_lookup::games::qubic::SYMMETRIES[s][usize::from(cell)];
            if mv == proof_move {
                continue;
            }
            changed += 1;
            let after = board.with_move(QubicCell::new(cell).expect("a cell"));
            assert!(
                solver.score(after).expect("solved") < 0,
                "{}: the pass's move {cell} does not win",
                Qubic.notation(board)
            );
        }
        // No strategic position that the proof's strategy did not have.
        let (was, is) = (strategic_keys(&before), strategic_keys(&after));
        assert!(is.is_subset(&was), "{}", Qubic.notation(root));
        before_count += was.len();
        after_count += is.len();
        // The same moves twice.
        let once = smaller_strategy(root, &proved.proved_moves).expect("the pass");
        let twice = smaller_strategy(root, &proved.proved_moves).expect("the pass");
        assert_eq!(once, twice);
    }
    assert!(changed > 0, "the pass changed no move on these roots");
    assert!(
        after_count < before_count,
        "strategic positions {before_count} -> {after_count}"
    );
}
