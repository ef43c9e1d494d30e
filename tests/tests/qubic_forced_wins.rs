//! Qubic positions as people reach them (`people_position`) and the
//! strategy table's answers off its own line: O's forced wins after X has
//! left the strategy, checked against the exact live search (alpha-beta
//! with forced play, which shares no code with the threat search), and
//! answered alike on symmetric images.

use solvedb_lookup::games::qubic::samples::people_position;
use solvedb_lookup::{Game, GameOracle, Qubic, SearchLimits, Source, Wdl, read_table};
use solvedb_tests::qubic_image;

#[test]
fn people_positions_are_reproducible_legal_and_not_over() {
    let mut reached = 0;
    for seed in 0..40 {
        let stones = (seed % 25) as u32;
        let a = people_position(seed, stones);
        assert_eq!(a, people_position(seed, stones), "seed {seed}");
        if let Some(board) = a {
            reached += 1;
            assert_eq!(board.stones(), stones);
            assert!(Qubic.terminal_score(board).is_none());
            assert_eq!(Qubic.parse(&Qubic.notation(board)).unwrap(), board);
        }
    }
    assert!(
        reached > 30,
        "only {reached} of 40 games reached their stones"
    );
}

#[test]
fn o_forced_wins_off_the_strategy_agree_with_the_exact_search_and_their_images() {
    let table = read_table(&solvedb_tests::committed_tables().join("qubic.sdb")).unwrap();
    let oracle = GameOracle::with_table(Qubic, table).unwrap();
    let search = GameOracle::<_, Vec<u8>>::search_only(Qubic).with_search_limits(SearchLimits {
        nodes: Some(2_000_000),
        ..SearchLimits::default()
    });
    let (mut checked, mut seed) = (0, 0u64);
    while checked < 6 && seed < 4000 {
        seed += 1;
        let stones = 21 + 2 * (seed % 8) as u32;
        let Some(board) = people_position(seed, stones) else {
            continue;
        };
        let Ok(probe) = oracle.probe_value(board) else {
            continue;
        };
        // O to move, answered by O's forced win (X left the strategy).
        if board.x_to_move() || probe.source != Source::ForcedPlay || probe.score <= 0 {
            continue;
        }
        let bound = probe.value.plies;
        let Ok(exact) = search.probe_value(board) else {
            continue;
        };
        let exact = exact.value;
        let text = Qubic.notation(board);
        assert_eq!(exact.wdl, Wdl::Win, "{text}: the search says {exact:?}");
        assert!(
            exact.plies <= bound,
            "{text}: {} plies > the bound {bound}",
            exact.plies
        );
        for s in [1, 47, 100, 191] {
            let other = oracle.probe_value(qubic_image(board, s)).unwrap();
            assert_eq!(other.score, probe.score, "{text}: image {s}");
        }
        checked += 1;
    }
    assert!(
        checked >= 6,
        "only {checked} forced wins of O were found and checked"
    );
}
