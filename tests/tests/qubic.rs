//! Qubic against an independent plain search (`plain_qubic`): the value of
//! random late positions and of every move, symmetric images, the
//! symmetry group, notation, refusals, budgeted searches of symmetric
//! images, and the faces without a strategy table.

use std::collections::BTreeSet;

use solvedb_generator::games::qubic::samples::careful_cells;
use solvedb_lookup::format::{Header, encode_table};
use solvedb_lookup::games::qubic::{SYMMETRIES, threats};
use solvedb_lookup::testkit::{Rng, playout, random_game};
use solvedb_lookup::{
    AnyValue, Error, ErrorKind, Game, GameId, GameOracle, IndexScheme, Oracle, Outcome,
    PositionError, Qubic, QubicBoard, QubicCell, Source, Table, TableError, ValueEncoding, Want,
    Wdl,
};
use solvedb_tests::plain_qubic::{self, Solver, Value};
use solvedb_tests::solvedb;

/// The library's outcome in the plain search's words.
fn plain(outcome: Outcome) -> Value {
    Value {
        result: match outcome.wdl {
            Wdl::Win => plain_qubic::Wdl::Win,
            Wdl::Draw => plain_qubic::Wdl::Draw,
            Wdl::Loss => plain_qubic::Wdl::Loss,
        },
        plies: u32::from(outcome.plies),
    }
}

/// Up to `per_game` positions of each uniformly random game that has 6 to
/// 12 empty cells and is not over, `count` in all. About 2% of random games
/// last that long.
fn random_late_positions(count: usize, per_game: usize, seed: u64) -> Vec<QubicBoard> {
    let mut rng = Rng::new(seed);
    let mut found = Vec::new();
    while found.len() < count {
        let mut late: Vec<QubicBoard> = random_game(&Qubic, &mut rng)
            .into_iter()
            .filter(|p| (6..=12).contains(&(64 - p.stones())))
            .filter(|&p| Qubic.terminal_score(p).is_none())
            .collect();
        for _ in 0..per_game.min(late.len()) {
            let at = rng.index(late.len());
            found.push(late.swap_remove(at));
        }
    }
    found.truncate(count);
    found
}

/// Late positions from games where nobody completes a line while another
/// move is left and threats are mostly blocked: uniformly random games are
/// almost always a win in 1 that late, these reach draws and longer fights.
fn careful_late_positions(count: usize, seed: u64) -> Vec<QubicBoard> {
    let mut rng = Rng::new(seed);
    let mut found = Vec::new();
    while found.len() < count {
        let empties = 6 + rng.below(7) as u32;
        let game = playout(&Qubic, &mut rng, |rng, board, moves| {
            // Choosing moves is not what is checked: the library's threats.
            let (me, you) = board.mover_and_other();
            let (wins, blocks) = (threats(me, board.empty()), threats(you, board.empty()));
            let cells = |mask: u64| -> Vec<QubicCell> {
                moves
                    .iter()
                    .filter(|m| mask >> m.index() & 1 != 0)
                    .copied()
                    .collect()
            };
            let (quiet, blocking) = (cells(!wins), cells(blocks & !wins));
            if !blocking.is_empty() && rng.chance(0.7) {
                *rng.pick(&blocking)
            } else if !quiet.is_empty() {
                *rng.pick(&quiet)
            } else {
                *rng.pick(moves)
            }
        });
        if let Some(&p) = game.iter().find(|p| 64 - p.stones() == empties)
            && Qubic.terminal_score(p).is_none()
        {
            found.push(p);
        }
    }
    found
}

/// Checks the library's answer for `p` (its value and every move's)
/// against the plain search, and returns the position's value.
fn check_against_plain(
    oracle: &GameOracle<Qubic, Vec<u8>>,
    solver: &mut Solver,
    p: QubicBoard,
) -> Outcome {
    let text = Qubic.notation(p);
    let board = plain_qubic::parse(&text);
    let answer = oracle.answer(p).unwrap();
    assert_eq!(answer.source, Source::Search);
    assert_eq!(plain(answer.value), solver.value(&board), "{text}");
    let children = solver.children(&board);
    let moves: BTreeSet<usize> = answer
        .moves
        .iter()
        .map(|m| usize::from(m.mv.index()))
        .collect();
    let cells: BTreeSet<usize> = children.iter().map(|&(c, _)| c).collect();
    assert_eq!(moves, cells, "{text}");
    for m in &answer.moves {
        let (_, child) = children
            .iter()
            .find(|&&(c, _)| c == usize::from(m.mv.index()))
            .unwrap();
        assert_eq!(
            plain(m.value),
            solver.value(child).before(),
            "{text} move {}",
            m.mv
        );
    }
    // Best first.
    assert_eq!(answer.moves[0].value, answer.value, "{text}");
    solver.clear();
    answer.value
}

#[test]
fn values_and_every_moves_value_match_the_plain_search_on_random_late_positions() {
    let oracle = GameOracle::<_, Vec<u8>>::search_only(Qubic);
    let mut solver = Solver::new();
    let mut kinds = BTreeSet::new();
    let positions = random_late_positions(150, 2, 0x9b1c);
    assert_eq!(positions.len(), 150);
    for p in positions {
        let value = check_against_plain(&oracle, &mut solver, p);
        kinds.insert((value.wdl, value.plies.min(3)));
    }
    // Uniformly random play this late: nearly always a win in 1, but not
    // only.
    assert!(kinds.len() >= 2, "{kinds:?}");
}

#[test]
fn values_and_every_moves_value_match_the_plain_search_on_careful_late_positions() {
    let oracle = GameOracle::<_, Vec<u8>>::search_only(Qubic);
    let mut solver = Solver::new();
    let mut wdl = BTreeSet::new();
    let mut long = 0;
    for p in careful_late_positions(150, 0x51de) {
        let value = check_against_plain(&oracle, &mut solver, p);
        wdl.insert(value.wdl);
        long += usize::from(value.plies >= 4);
    }
    assert_eq!(wdl.len(), 3, "wins, draws and losses: {wdl:?}");
    assert!(long >= 30, "only {long} values of 4 plies or more");
}

/// Positions with 24 to 40 stones from games of careful random play (a
/// player completes a line if it can, else blocks a threat, else makes two
/// threats at once, else takes the opponent's cell for that, else plays at
/// random): too deep for the plain search.
fn careful_middle_positions(count: usize, seed: u64) -> Vec<QubicBoard> {
    let mut rng = Rng::new(seed);
    let mut found = Vec::new();
    while found.len() < count {
        let stones = 24 + rng.below(17) as u32;
        let game = playout(&Qubic, &mut rng, |rng, board, moves| {
            let wanted = careful_cells(board).unwrap_or(board.empty());
            let cells: Vec<QubicCell> = moves
                .iter()
                .filter(|m| wanted >> m.index() & 1 != 0)
                .copied()
                .collect();
            *rng.pick(&cells)
        });
        if let Some(&p) = game.iter().find(|p| p.stones() == stones)
            && Qubic.terminal_score(p).is_none()
        {
            found.push(p);
        }
    }
    found
}

#[test]
fn deeper_positions_are_the_best_of_their_moves_and_agree_with_their_images() {
    // Beyond the plain search: the value of the position (one search) is
    // the best of its moves' values (a search of each child), and images
    // under symmetry, whose searches share nothing with the original's
    // (the table's keys are the boards themselves), agree.
    let oracle = GameOracle::<_, Vec<u8>>::search_only(Qubic);
    let mut rng = Rng::new(0xdee9);
    let mut kinds = BTreeSet::new();
    for p in careful_middle_positions(100, 0x3d) {
        let answer = oracle.answer(p).unwrap();
        let best = answer.moves.iter().map(|m| m.value).max().unwrap();
        assert_eq!(best, answer.value, "{}", Qubic.notation(p));
        let image = Qubic.image(p, 1 + rng.index(191));
        assert_eq!(oracle.probe(image).unwrap(), answer.value);
        kinds.insert(answer.value.wdl);
    }
    assert!(kinds.len() >= 2, "{kinds:?}");
}

#[test]
fn every_symmetric_image_answers_the_same() {
    let oracle = GameOracle::<_, Vec<u8>>::search_only(Qubic);
    let mut rng = Rng::new(0x5e77);
    let mut solver = Solver::new();
    let mut positions = careful_late_positions(12, 0x1111);
    positions.extend(random_late_positions(12, 1, 0x2222));
    for p in positions {
        let answer = oracle.answer(p).unwrap();
        let value_of = |cell: u8| {
            answer
                .moves
                .iter()
                .find(|m| m.mv.index() == cell)
                .unwrap()
                .value
        };
        for s in 0..Qubic.symmetry_count() {
            let image = Qubic.image(p, s);
            assert_eq!(Qubic.canonical(image), Qubic.canonical(p));
            assert_eq!(oracle.probe(image).unwrap(), answer.value, "symmetry {s}");
        }
        // Every move's value, at a few images: the move's image has it.
        for _ in 0..4 {
            let s = rng.index(Qubic.symmetry_count());
            let image = oracle.answer(Qubic.image(p, s)).unwrap();
            assert_eq!(image.value, answer.value);
            for m in &image.moves {
                let from = SYMMETRIES[s]
                    .iter()
                    .position(|&to| to == m.mv.index())
                    .unwrap();
                assert_eq!(m.value, value_of(from as u8), "symmetry {s}");
            }
        }
        // The plain search, which knows no symmetry, agrees on an image.
        let s = rng.index(Qubic.symmetry_count());
        let image = plain_qubic::parse(&Qubic.notation(Qubic.image(p, s)));
        assert_eq!(solver.value(&image), plain(answer.value));
        solver.clear();
    }
}

/// Under a node budget every image of a position takes the same search: all
/// answer alike or all run out. The position is the one the fuzzer caught
/// (five of its images answered Loss in 14 within 20,000 nodes while one ran
/// out); the budgets around the one it needs are the ones that tell.
#[test]
fn a_budgeted_search_answers_or_stops_alike_for_every_image() {
    let p = Qubic
        .parse("..../...O/..../....//.XX./.O../..../XXX.//..../...O/..../.O.O//.O../X.../..../...X")
        .unwrap();
    let exact = GameOracle::<_, Vec<u8>>::search_only(Qubic)
        .probe(p)
        .unwrap();
    let mut answered = 0;
    let mut stopped = 0;
    for budget in [2_000, 5_000, 10_000, 20_000, 50_000] {
        let oracle = GameOracle::<_, Vec<u8>>::search_only(Qubic).with_search_budget(budget);
        let first = oracle.probe(p).ok();
        match first {
            Some(value) => {
                assert_eq!(value, exact, "budget {budget}");
                answered += 1;
            }
            None => stopped += 1,
        }
        for s in 0..Qubic.symmetry_count() {
            assert_eq!(
                oracle.probe(Qubic.image(p, s)).ok(),
                first,
                "budget {budget}, symmetry {s}"
            );
        }
    }
    // The budgets straddle what the search needs, so both cases were seen.
    assert!(
        answered > 0 && stopped > 0,
        "{answered} answered, {stopped} stopped"
    );
}

#[test]
fn the_symmetries_are_the_group_the_plain_generators_make() {
    let group: BTreeSet<Vec<usize>> = plain_qubic::symmetries()
        .iter()
        .map(|m| m.to_vec())
        .collect();
    assert_eq!(group.len(), 192);
    let ours: BTreeSet<Vec<usize>> = SYMMETRIES
        .iter()
        .map(|m| m.iter().map(|&c| usize::from(c)).collect())
        .collect();
    assert_eq!(ours, group);
    assert_eq!(Qubic.symmetry_count(), 192);
    // Boards map the same way.
    let mut rng = Rng::new(4);
    for p in random_game(&Qubic, &mut rng) {
        let s = rng.index(192);
        let map: plain_qubic::Map = std::array::from_fn(|c| usize::from(SYMMETRIES[s][c]));
        let image = plain_qubic::image(&map, &plain_qubic::parse(&Qubic.notation(p)));
        assert_eq!(
            plain_qubic::notation(&image),
            Qubic.notation(Qubic.image(p, s))
        );
    }
}

#[test]
fn notation_round_trips_with_double_single_and_no_slashes() {
    let mut rng = Rng::new(12);
    for _ in 0..200 {
        let game = random_game(&Qubic, &mut rng);
        let mut moves = Vec::new();
        for pair in game.windows(2) {
            let cell = (0..64u8)
                .find(|&c| {
                    (pair[1].x() | pair[1].o()) >> c & 1 != (pair[0].x() | pair[0].o()) >> c & 1
                })
                .unwrap();
            moves.push(cell.to_string());
        }
        // The move list reads as the position it reaches.
        let last = *game.last().unwrap();
        assert_eq!(Qubic.parse(&moves.join(" ")), Ok(last));
        for &p in &game {
            let text = Qubic.notation(p);
            // The plain writer writes what the library writes.
            assert_eq!(plain_qubic::notation(&plain_qubic::parse(&text)), text);
            assert_eq!(Qubic.parse(&text), Ok(p), "{text}");
            assert_eq!(Qubic.parse(&text.replace("//", "/")), Ok(p), "{text}");
            assert_eq!(Qubic.parse(&text.replace('/', "")), Ok(p), "{text}");
            assert_eq!(Qubic.parse(&format!("  {text}\n")), Ok(p), "{text}");
        }
    }
}

/// Whether a board could arise in play, by the plain rules: X moves first,
/// at most one player owns a line, and that player moved last, with a
/// stone without which it owned none (the game ended with it).
fn plain_reachable(board: &plain_qubic::Board) -> bool {
    let lines = plain_qubic::lines();
    let xs = board.iter().filter(|&&c| c == b'X').count();
    let os = board.iter().filter(|&&c| c == b'O').count();
    if xs != os && xs != os + 1 {
        return false;
    }
    let (x_wins, o_wins) = (
        plain_qubic::wins(&lines, board, b'X'),
        plain_qubic::wins(&lines, board, b'O'),
    );
    let winner = match (x_wins, o_wins) {
        (true, true) => return false,
        (false, false) => return true,
        (true, false) if xs == os + 1 => b'X',
        (false, true) if xs == os => b'O',
        _ => return false,
    };
    (0..64).any(|c| {
        let mut without = *board;
        if without[c] != winner {
            return false;
        }
        without[c] = b'.';
        !plain_qubic::wins(&lines, &without, winner)
    })
}

#[test]
fn the_parser_refuses_bad_text_and_unreachable_boards_with_typed_errors() {
    let dots = |n: usize| ".".repeat(n);
    type Expected = fn(&PositionError) -> bool;
    let cases: Vec<(String, Expected)> = vec![
        ("X...".into(), |e| {
            matches!(
                e,
                PositionError::Length {
                    expected: 64,
                    found: 4,
                    ..
                }
            )
        }),
        (dots(65), |e| {
            matches!(e, PositionError::Length { found: 65, .. })
        }),
        (format!("{}x{}", dots(3), dots(60)), |e| {
            matches!(
                e,
                PositionError::Character {
                    found: 'x',
                    at: 3,
                    ..
                }
            )
        }),
        (format!("/{}", dots(64)), |e| {
            matches!(e, PositionError::Character { found: '/', .. })
        }),
        (format!("XX{}", dots(62)), |e| {
            matches!(e, PositionError::Counts { x: 2, o: 0 })
        }),
        (format!("XXXXOOOO{}", dots(56)), |e| {
            matches!(e, PositionError::BothWin)
        }),
        (format!("XXXXOOO.O{}", dots(55)), |e| {
            matches!(e, PositionError::PlayAfterWin { winner: 'X' })
        }),
        ("0 1 2 64".into(), |e| {
            matches!(e, PositionError::BadMove { .. })
        }),
        ("0 1 1".into(), |e| {
            matches!(e, PositionError::IllegalMove { .. })
        }),
        // X completes the row 0-3 with its fourth move; O may not go on.
        ("0 4 1 5 2 6 3 7".into(), |e| {
            matches!(e, PositionError::IllegalMove { .. })
        }),
        (".".repeat(5000), |e| {
            matches!(e, PositionError::TooLong { .. })
        }),
    ];
    for (text, expected) in &cases {
        let err = Qubic.parse(text).unwrap_err();
        assert!(expected(&err), "{text:.80}: {err}");
    }
    // Random boards: the parser accepts exactly those the plain rules call
    // reachable. Few stones, so that lines are neither always nor never
    // there.
    let mut rng = Rng::new(99);
    let (mut accepted, mut refused) = (0, 0);
    for _ in 0..20_000 {
        let mut board = plain_qubic::EMPTY;
        let os = 2 + rng.below(6) as usize;
        let xs = os + rng.below(3) as usize;
        for (count, mark) in [(xs, b'X'), (os, b'O')] {
            let mut placed = 0;
            while placed < count {
                // Stones on two layers only, where lines form often.
                let c = rng.index(32);
                if board[c] == b'.' {
                    board[c] = mark;
                    placed += 1;
                }
            }
        }
        let text = plain_qubic::notation(&board);
        match Qubic.parse(&text) {
            Ok(p) => {
                assert!(plain_reachable(&board), "{text}");
                assert_eq!(Qubic.notation(p), text);
                accepted += 1;
            }
            Err(e) => {
                assert!(!plain_reachable(&board), "{text}: {e}");
                assert!(
                    matches!(
                        e,
                        PositionError::Counts { .. }
                            | PositionError::BothWin
                            | PositionError::PlayAfterWin { .. }
                    ),
                    "{e}"
                );
                refused += 1;
            }
        }
    }
    assert!(
        accepted > 2000 && refused > 2000,
        "{accepted} accepted, {refused} refused"
    );
}

#[test]
fn a_table_that_is_no_strategy_is_refused_and_without_one_qubic_is_searched() {
    // A table that claims to be Qubic's but is not a strategy table is
    // refused, in memory and on disk.
    let header = Header {
        game: GameId::Qubic,
        index: IndexScheme::SortedKeys,
        values: ValueEncoding::OutcomePlies,
        entries: 0,
        stored: 0,
        block_entries: 4096,
        generator: "test".into(),
    };
    let bytes = encode_table(&header, &[], 3);
    let err = GameOracle::with_table(Qubic, Table::new(bytes.clone()).unwrap()).unwrap_err();
    assert!(matches!(err, TableError::Header(_)), "{err}");
    assert!(
        err.to_string()
            .contains("SortedWideKeys with StrategyMoves"),
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(GameId::Qubic.table_file_name()), &bytes).unwrap();
    let oracle = Oracle::open(dir.path()).unwrap();
    let err = oracle.probe(GameId::Qubic, &".".repeat(64)).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Table, "{err}");

    // Without one, positions are searched.
    let oracle = Oracle::search_only();
    let report = oracle
        .probe(GameId::Qubic, &format!("XXX.OOO.X...O{}", ".".repeat(51)))
        .unwrap();
    assert_eq!(report.source, Source::Search);
    assert!(matches!(report.value, AnyValue::Outcome(o) if o.wdl == Wdl::Win && o.plies == 1));
    let err = oracle.probe(GameId::Qubic, "XO").unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Position);

    // A budget that runs out is an error, not a guess.
    let budgeted = GameOracle::<_, Vec<u8>>::search_only(Qubic).with_search_budget(1000);
    assert!(matches!(
        budgeted.probe(Qubic.start()),
        Err(Error::BudgetExhausted { budget: 1000 })
    ));

    // The command line searches without a table.
    let p = careful_late_positions(1, 0xc11)[0];
    let expected = GameOracle::<_, Vec<u8>>::search_only(Qubic)
        .probe(p)
        .unwrap();
    let (code, stdout, err) = solvedb(&["search", "qubic", &Qubic.notation(p)]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains(&format!("value    {expected}")), "{stdout}");
    assert!(stdout.contains("z=3"), "the picture: {stdout}");
}

/// The committed strategy (`tables/qubic.sdb`) played from the empty board
/// through the oracle, X taking the table's move, O a random reply or the
/// one the table says resists longest, refereed by the plain rules
/// (`plain_qubic`, no code shared with the library): O never completes a
/// line, X always does, within the plies the table claimed at the start,
/// and no answer on the way needs a live search. (`solvedb verify`
/// walks every defence; it takes minutes.)
#[test]
fn the_committed_strategy_wins_every_game_against_random_and_stubborn_defences() {
    let oracle = Oracle::open(&solvedb_tests::committed_tables()).unwrap();
    let mut rng = Rng::new(1977);
    let longest = (0..40)
        .map(|game| play_the_strategy(&oracle, plain_qubic::EMPTY, game % 2 == 0, &mut rng))
        .max();
    assert!(
        longest > Some(10),
        "every game was short: {longest:?} plies"
    );
}

/// The same from the openings on cells of four lines the table also
/// holds: X on any cell of four lines and O on any other (each an image of
/// one of the build's 16 roots after X's other first move), found here by
/// the plain rules' count of lines through a cell.
#[test]
fn the_committed_strategy_wins_from_every_opening_on_cells_of_four_lines() {
    let oracle = Oracle::open(&solvedb_tests::committed_tables()).unwrap();
    let lines = plain_qubic::lines();
    let four: Vec<usize> = (0..64)
        .filter(|&c| lines.iter().filter(|l| l.contains(&c)).count() == 4)
        .collect();
    assert_eq!(four.len(), 48);
    // After X on one of them, every reply on another is a win the table
    // holds.
    let x = four[0];
    for &o in four.iter().filter(|&&o| o != x) {
        let mut board = plain_qubic::EMPTY;
        board[x] = b'X';
        board[o] = b'O';
        let text = plain_qubic::notation(&board);
        let answer = oracle.answer(GameId::Qubic, &text, Want::Value).unwrap();
        assert_ne!(answer.source, Source::Search, "{text}");
        assert!(
            matches!(answer.value, AnyValue::AtMost(v) if v.wdl == Wdl::Win),
            "{text}: {:?}",
            answer.value
        );
    }
    // Games from random ones of them.
    let mut rng = Rng::new(1980);
    for game in 0..24 {
        let mut board = plain_qubic::EMPTY;
        let x = four[rng.index(four.len())];
        let others: Vec<usize> = four.iter().copied().filter(|&c| c != x).collect();
        board[x] = b'X';
        board[others[rng.index(others.len())]] = b'O';
        play_the_strategy(&oracle, board, game % 2 == 0, &mut rng);
    }
}

/// The same from the root the build takes from its certificate
/// (`generator/certificates/`, proved beforehand): X on cell 1, a cell of
/// four lines, and O on cell 26, a corner of the inner cube. The table
/// holds it as a win, and games from it are won.
#[test]
fn the_committed_strategy_wins_from_the_certified_root() {
    let oracle = Oracle::open(&solvedb_tests::committed_tables()).unwrap();
    let lines = plain_qubic::lines();
    let through = |cell: usize| lines.iter().filter(|l| l.contains(&cell)).count();
    assert_eq!((through(1), through(26)), (4, 7));
    let mut board = plain_qubic::EMPTY;
    board[1] = b'X';
    board[26] = b'O';
    // From the table, not a search: a search within 1,000 nodes fails.
    let text = plain_qubic::notation(&board);
    let held = oracle.answer_within(
        GameId::Qubic,
        &text,
        Want::Value,
        &solvedb_lookup::Stop::new(None, Some(1_000)),
    );
    assert!(
        matches!(&held, Ok(a) if a.source != Source::Search),
        "{text}: {held:?}"
    );
    let mut rng = Rng::new(1981);
    let longest = (0..12)
        .map(|game| play_the_strategy(&oracle, board, game % 2 == 0, &mut rng))
        .max();
    assert!(
        longest > Some(10),
        "every game was short: {longest:?} plies"
    );
}

/// One game from `board` (X to move, a position the table holds): X the
/// table's move, O the longest defence (`stubborn`) or a random reply;
/// returns its plies after checking the win as the test above says.
fn play_the_strategy(
    oracle: &Oracle,
    start: plain_qubic::Board,
    stubborn: bool,
    rng: &mut Rng,
) -> u32 {
    let lines = plain_qubic::lines();
    let text = plain_qubic::notation(&start);
    let claimed = match oracle.answer(GameId::Qubic, &text, Want::Value) {
        Ok(answer) => match answer.value {
            AnyValue::AtMost(o) if o.wdl == Wdl::Win => u32::from(o.plies),
            other => panic!("{text} is {other:?}"),
        },
        Err(e) => panic!("{text}: {e}"),
    };
    let mut board = start;
    let mut plies = 0;
    loop {
        let text = plain_qubic::notation(&board);
        let answer = oracle.answer(GameId::Qubic, &text, Want::Moves).unwrap();
        assert_ne!(answer.source, Source::Search, "{text}");
        let x = plain_qubic::to_move(&board) == b'X';
        let cell: usize = if x || stubborn {
            // The moves come best first: X's win, O's longest defence.
            answer.moves[0].mv.parse().unwrap()
        } else {
            let empty: Vec<usize> = (0..64).filter(|&c| board[c] == b'.').collect();
            empty[rng.index(empty.len())]
        };
        assert_eq!(board[cell], b'.', "{text}: {cell}");
        board[cell] = if x { b'X' } else { b'O' };
        plies += 1;
        assert!(!plain_qubic::wins(&lines, &board, b'O'), "O won: {text}");
        if plain_qubic::wins(&lines, &board, b'X') {
            break;
        }
        assert!(plain_qubic::stones(&board) < 64, "a draw: {text}");
    }
    assert!(
        plies <= claimed,
        "{plies} plies, {claimed} claimed from {text}"
    );
    plies
}
