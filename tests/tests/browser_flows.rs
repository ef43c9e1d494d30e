//! The explorer in a real browser: what people do on it, step by step,
//! and the bounds shown where a search stops before it settles a position.
//! Headless Chromium driven over WebDriver (chromedriver) against one
//! in-process server; needs the Debian packages `chromium` and
//! `chromium-driver` (`.ci/run` installs them); without them this test
//! fails, it does not skip.

use std::time::{Duration, Instant};

use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{AnyValue, Dots, Game, GameId};
use solvedb_server::http::ServerLimits;
use solvedb_tests::explorer::*;

#[test]
fn the_explorer_in_headless_chromium() {
    run_browser_test(|| async {
        let started = Instant::now();
        let profile = tempfile::tempdir().unwrap();
        let (_driver, page) = start(profile.path()).await;
        let mut rng = Rng::new(2026);
        flows(&page, &mut rng).await;
        eprintln!("flows: {:.1} s", started.elapsed().as_secs_f64());
        bounds_shown(&page).await;
        eprintln!("bounds: {:.1} s", started.elapsed().as_secs_f64());
        finish(page, started).await;
    });
}

/// What people do on the explorer, step by step.
async fn flows(page: &Page, rng: &mut Rng) {
    // Load the page: the start of tic-tac-toe, every move valued.
    page.open("?game=tictactoe&first=human&second=human").await;
    assert_eq!(page.js("return document.title").await, "solvedb explorer");
    assert_eq!(page.check_values_shown().await.len(), 9);
    assert!(page.text("value").await.contains("draw in 9"));
    assert!(page.text("source").await.contains("table"));

    // Whole tic-tac-toe games against the perfect level, on either side:
    // it never loses.
    for (first, second, perfect) in [("human", "perfect", 'O'), ("perfect", "human", 'X')] {
        for _ in 0..2 {
            page.open(&format!("?game=tictactoe&first={first}&second={second}"))
                .await;
            let result = play_against_perfect(page, rng).await;
            let loser = if perfect == 'X' { "O wins" } else { "X wins" };
            assert!(
                result == "Draw" || result == format!("{perfect} wins"),
                "perfect {perfect}: {result}"
            );
            assert_ne!(result, loser);
        }
    }

    // Undo and redo: back to the person's last turn, and forward again.
    let end = page.notation().await;
    let url = page.c.current_url().await.unwrap().to_string();
    page.click("undo").await;
    let back = page.notation().await;
    assert_ne!(back, end);
    assert!(!page.check_values_shown().await.is_empty());
    page.click("redo").await;
    assert_eq!(page.notation().await, end);

    // Reload from the shared URL: the same position and history.
    page.c.goto("about:blank").await.unwrap();
    page.c.goto(&url).await.unwrap();
    page.idle().await;
    assert_eq!(page.notation().await, end);
    page.click("undo").await;
    assert_eq!(page.notation().await, back);

    // The computer's other levels (their moves come from the server) play
    // whole games, on either side.
    for (first, second) in [
        ("human", "classic"),
        ("random", "human"),
        ("classic", "random"),
    ] {
        page.open(&format!("?game=tictactoe&first={first}&second={second}"))
            .await;
        loop {
            let moves = page.check_values_shown().await;
            if moves.is_empty() {
                break;
            }
            page.click_move(rng.pick(&moves).as_str()).await;
        }
        let result = page.text("score").await;
        assert!(
            ["X wins", "O wins", "Draw"].contains(&result.as_str()),
            "{result}"
        );
    }

    // Input is locked while the computer moves: a second click is ignored.
    page.open("?game=tictactoe&first=human&second=perfect")
        .await;
    page.js("document.querySelector('[data-move=\"0\"]').click();
             document.querySelector('[data-move=\"8\"]').click();")
        .await;
    page.idle().await;
    let board = page.notation().await;
    assert_eq!(board.matches('X').count(), 1, "{board}");
    assert_eq!(board.matches('O').count(), 1, "{board}");
    assert!(board.starts_with('X'), "{board}");

    // The position editor: the server refuses an illegal position and takes a legal one.
    page.open("?game=tictactoe&first=human&second=human").await;
    page.click("edit").await;
    for cell in ["0", "1", "2"] {
        page.click_move(cell).await; // . -> X
    }
    for cell in ["3", "4", "5"] {
        page.click_move(cell).await;
        page.click_move(cell).await; // . -> X -> O
    }
    page.click("edit").await;
    let refused = page.text("value").await;
    assert!(
        refused.contains("Not legal") && refused.contains("both X and O"),
        "{refused}"
    );
    page.click_move("5").await; // O -> .
    page.click("edit").await;
    assert_eq!(page.notation().await, "XXX/OO./...");
    assert_eq!(page.text("score").await, "X wins");

    // The best line, step by step, follows the best move.
    page.open("?game=tictactoe&first=human&second=human&start=X..%2F.O.%2F...")
        .await;
    page.click("mainline").await;
    let line = page.text("line").await;
    assert!(line.contains("draw in 7"), "{line}");
    for _ in 0..7 {
        let before = page.notation().await;
        let best = page
            .oracle
            .best_move(GameId::TicTacToe, &before)
            .unwrap()
            .unwrap();
        page.click("step").await;
        let after = page
            .oracle
            .moves(GameId::TicTacToe, &page.notation().await)
            .unwrap();
        assert_ne!(after.position, before);
        let last = page
            .js("return new URLSearchParams(location.search).get('moves').split(' ').pop()")
            .await;
        assert_eq!(last, best.mv.as_str());
    }
    assert_eq!(page.text("score").await, "Draw");

    // Keyboard only: Tab to the board (one stop), arrows to move, Enter to play.
    page.open("?game=tictactoe&first=human&second=human").await;
    page.js("document.activeElement && document.activeElement.blur()")
        .await;
    for _ in 0..40 {
        if page.focused_move().await == "0" {
            break;
        }
        page.key(TAB).await;
    }
    assert_eq!(page.focused_move().await, "0");
    // X 0, O 1, X 4, O 2, X 8: X wins on the diagonal.
    for keys in [
        &[ENTER][..],
        &[RIGHT, ENTER],
        &[DOWN, ENTER],
        &[UP, RIGHT, ENTER],
        &[DOWN, DOWN, ENTER],
    ] {
        for k in keys {
            page.key(k).await;
        }
    }
    assert_eq!(page.notation().await, "XOO/.X./..X");
    assert_eq!(page.text("score").await, "X wins");
    assert!(page.text("status").await.contains("X wins"), "announced");
    let focus = page
        .js("return getComputedStyle(document.activeElement).outlineStyle")
        .await;
    assert_ne!(focus, "none", "visible focus");

    // A cube game by clicks against the perfect level; a won game shows its line.
    page.open("?game=cube&first=human&second=perfect").await;
    play_to_the_end_against_perfect(page, rng, 3).await;

    // Qubic from a late position (X to move, a fork to make) by clicks
    // against the perfect level: four layers of 4×4, a won game shows its
    // four cells.
    page.open(&format!(
        "?game=qubic&start={}&first=human&second=perfect",
        enc(QUBIC_LATE)
    ))
    .await;
    let layers = page
        .js("return document.querySelectorAll('#board .grid').length")
        .await;
    assert_eq!(layers, 4);
    play_to_the_end_against_perfect(page, rng, 4).await;

    // Qubic from the empty board, the perfect level as X against a person
    // (random moves, by clicks) as O: the committed strategy answers every
    // position on the way and wins.
    page.open("?game=qubic&first=perfect&second=human").await;
    assert!(page.text("source").await.contains("table"));
    assert_eq!(play_against_perfect(page, rng).await, "X wins");

    // A 2x2 dots game by clicks, two people: every box filled, scores add up.
    page.open("?game=dots%3A2x2&first=human&second=human").await;
    assert!(page.text("source").await.contains("table"));
    loop {
        let moves = page.check_values_shown().await;
        if moves.is_empty() {
            break;
        }
        page.click_move(rng.pick(&moves).as_str()).await;
    }
    let boxes = page
        .js("return document.querySelectorAll('rect.box').length")
        .await;
    assert_eq!(boxes, 4);
    let score = page.text("score").await;
    let points: Vec<u32> = score
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|t| t.parse().ok())
        .collect();
    // "A wins, 3 to 1. Score: A 3, B 1": the score twice.
    assert_eq!(points.iter().sum::<u32>(), 8, "{score}");

    // Beyond the search budget: 5x5 dots from the start is not settled,
    // and the page says what the search proved instead.
    page.open("?game=dots%3A5x5&first=human&second=human").await;
    let value = page.text("value").await;
    let explain = page.text("explain").await;
    assert!(
        value.contains("not settled")
            && explain.contains("before settling")
            && explain.contains(" box"),
        "{value} / {explain}"
    );

    // Themes: switched, remembered across visits.
    page.open("?game=tictactoe").await;
    let light = page
        .js("return getComputedStyle(document.body).backgroundColor")
        .await;
    page.select("theme", "dark").await;
    assert_eq!(
        page.js("return document.documentElement.dataset.theme")
            .await,
        "dark"
    );
    page.c.refresh().await.unwrap();
    page.idle().await;
    assert_eq!(
        page.js("return document.documentElement.dataset.theme")
            .await,
        "dark"
    );
    let dark = page
        .js("return getComputedStyle(document.body).backgroundColor")
        .await;
    assert_ne!(light, dark);
    page.js("localStorage.setItem('solvedb-theme', 'light')")
        .await;
}

/// Where the search stops before it settles a position (a second server,
/// with a small node budget), every move on the board shows the bounds the
/// search proved, and they hold the exact values the test's own unbudgeted
/// search finds.
async fn bounds_shown(page: &Page) {
    let limits = ServerLimits {
        search_nodes: Some(3_000),
        search_time: Duration::from_secs(5),
        ..ServerLimits::default()
    };
    let base = serve(limits).await;
    let board = Dots::new(4, 4).unwrap();
    let mut rng = Rng::new(2121);
    let (position, exact) = loop {
        let Some(p) = board.random_without_third_sides(&mut rng, 26) else {
            continue;
        };
        let text = board.notation(p);
        break (text.clone(), page.oracle.moves(board.id(), &text).unwrap());
    };
    page.c
        .goto(&format!(
            "{base}/?game=dots%3A4x4&start={}&first=human&second=human",
            enc(&position)
        ))
        .await
        .unwrap();
    page.idle().await;
    page.screenshot("dots-4x4-bounds-light-1280").await;
    let explain = page.text("explain").await;
    assert!(explain.contains("before settling"), "{position}: {explain}");
    let tags = page
        .js("return [...document.querySelectorAll('#board [data-move]')]
               .filter(e => e.querySelector('.edge-tag'))
               .map(e => [e.dataset.move, e.querySelector('.edge-tag').textContent])")
        .await;
    let tags: Vec<(String, String)> = serde_json::from_value(tags).unwrap();
    assert_eq!(
        tags.len(),
        exact.moves.len(),
        "{position}: every move tagged"
    );
    let number = |t: &str| -> i32 {
        t.replace('−', "-")
            .replace('±', "")
            .parse()
            .unwrap_or_else(|_| panic!("{position}: a tag {t:?}"))
    };
    let mut ranges = 0;
    for (mv, tag) in &tags {
        let (lower, upper) = match tag.split_once('…') {
            Some((lo, hi)) => {
                ranges += 1;
                (number(lo), number(hi))
            }
            None => (number(tag), number(tag)),
        };
        let m = exact.moves.iter().find(|m| m.mv == *mv).unwrap();
        let AnyValue::Margin(value) = m.value else {
            panic!("a dots value {:?}", m.value)
        };
        assert!(
            lower <= value && value <= upper,
            "{position} move {mv}: {value} outside the tag {tag}"
        );
    }
    assert!(ranges > 0, "{position}: no move shown as a range: {tags:?}");
    // The legend explains the ranges.
    let legend = page.text("legend-items").await;
    assert!(
        legend.contains("the exact search stopped before it settled a move"),
        "{legend}"
    );
}
