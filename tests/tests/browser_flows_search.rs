//! The explorer where the server searches live (no complete table): the
//! ranges a stopped search proved drawn on every searched dots board, one
//! end or both on either side of zero; a Qubic win in one off the
//! strategy settled by forced play before any search, its winning move
//! proven best while the others stay open and played by the perfect
//! computer; and one search per position, counted by the server.
//! Headless Chromium over WebDriver, as `browser_flows`.

use std::time::{Duration, Instant};

use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{BoardKind, Dots, Game, GameId, Qubic, Stop, Want, catalogue};
use solvedb_server::http::{self, AppState, ServerLimits};
use solvedb_tests::committed_tables;
use solvedb_tests::explorer::*;

#[test]
fn searched_positions_in_headless_chromium() {
    run_browser_test(|| async {
        let started = Instant::now();
        let profile = tempfile::tempdir().unwrap();
        let (_driver, page) = start(profile.path()).await;
        qubic_win_in_one(&page).await;
        eprintln!("qubic: {:.1} s", started.elapsed().as_secs_f64());
        ranges_narrow_as_they_stream(&page).await;
        eprintln!("stream: {:.1} s", started.elapsed().as_secs_f64());
        ranges_on_every_dots_board(&page).await;
        eprintln!("dots: {:.1} s", started.elapsed().as_secs_f64());
        creator_takes_a_seat(&page).await;
        finish(page, started).await;
    });
}

/// A table-only probe: a stop that lets no search start.
fn table_only() -> Stop {
    let stop = Stop::new(None, None);
    stop.cancel();
    stop
}

/// A Qubic position of random play (X off the strategy: the probe answers
/// it by the rules, O's forced win, and the page must show it) where X, to
/// move last, left O a line of three with its fourth cell open (O to move, nobody has a
/// line yet), and O's winning cells.
fn qubic_open_three() -> (String, Vec<String>) {
    let g = Qubic;
    let mut rng = Rng::new(4545);
    for _ in 0..100_000 {
        let mut p = g.start();
        for _ in 0..9 {
            let moves = g.moves(p);
            p = g.play(p, *rng.pick(&moves)).0;
            if g.terminal_score(p).is_some() {
                break;
            }
        }
        if g.terminal_score(p).is_some() || g.side_to_move(p) != Some('O') {
            continue;
        }
        let wins: Vec<String> = g
            .moves(p)
            .into_iter()
            .filter(|&mv| g.terminal_score(g.play(p, mv).0).is_some_and(|s| s < 0))
            .map(|mv| mv.to_string())
            .collect();
        let text = g.notation(p);
        if !wins.is_empty() {
            return (text, wins);
        }
    }
    panic!("no Qubic position with O to move and a win in one in 100,000 random games");
}

/// The searches the server has counted, read from a probe's header.
async fn searches(page: &Page, query: &str) -> i64 {
    let count = page
        .js(&format!(
            "return fetch('/api/v1/{query}').then(r => Number(r.headers.get('x-solvedb-searches')))"
        ))
        .await;
    count.as_i64().unwrap_or_else(|| panic!("{query}: {count}"))
}

async fn qubic_win_in_one(page: &Page) {
    let (position, wins) = qubic_open_three();
    let query = format!(
        "?game=qubic&start={}&first=human&second=human",
        enc(&position)
    );
    let asked = Instant::now();
    page.open(&query).await;
    eprintln!(
        "qubic {position}: win in one shown after {:.2} s",
        asked.elapsed().as_secs_f64()
    );
    page.screenshot("qubic-win-in-one-1280").await;
    let value = page.text("value").await;
    assert!(value.contains("win in 1"), "{position}: {value}");
    // Each winning cell says so; a winning cell is first in the list,
    // marked best, while moves not settled show ranges.
    for mv in &wins {
        let label = page
            .js(&format!(
                "return document.querySelector('#board [data-move=\"{mv}\"]').getAttribute('aria-label')"
            ))
            .await;
        assert!(
            label.as_str().unwrap().contains("win in 1"),
            "{position} {mv}: {label}"
        );
    }
    let first = page
        .js("const b = document.querySelector('#moves button');
             return [b.dataset.move, b.classList.contains('best')]")
        .await;
    let (first, starred): (String, bool) = serde_json::from_value(first).unwrap();
    assert!(wins.contains(&first), "{position}: first listed {first}");
    assert!(starred, "{position}: the proven best move is starred");

    // The same position asked again, and the perfect computer's move there,
    // run no new search: what the first probe proved is kept.
    let probe = format!("probe?game=qubic&position={}", enc(&position));
    let before = searches(page, &probe).await;
    let computer = format!(
        "computer?game=qubic&position={}&level=perfect",
        enc(&position)
    );
    assert_eq!(
        searches(page, &computer).await,
        before,
        "the computer's move"
    );
    assert_eq!(searches(page, &probe).await, before, "a second probe");

    // The perfect computer plays a winning move, proven best.
    page.open(&format!(
        "?game=qubic&start={}&first=human&second=perfect",
        enc(&position)
    ))
    .await;
    let over = page.text("value").await;
    assert!(over.contains("O wins"), "{position}: {over}");
    let played = page.notation().await;
    assert!(
        wins.iter().any(|mv| {
            let g = Qubic;
            let p = g.parse(&position).unwrap();
            g.notation(g.play(p, g.parse_move(mv).unwrap()).0) == played
        }),
        "{position}: the computer played to {played}"
    );
}

/// Every dots board the server searches (no table), with a small node
/// budget: positions until the page has drawn a range below zero at both
/// ends and one that straddles zero, each answered and settled.
async fn ranges_on_every_dots_board(page: &Page) {
    let limits = ServerLimits {
        search_nodes: Some(3_000),
        search_time: Duration::from_secs(5),
        ..ServerLimits::default()
    };
    let state = AppState::new(&committed_tables(), limits).unwrap();
    let listener = http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(http::serve_until(listener, state, std::future::pending()));
    let boards: Vec<GameId> = catalogue()
        .iter()
        .filter(|g| g.explorer && g.board.kind() == BoardKind::Dots)
        .map(|g| g.id)
        .filter(|&id| !page.oracle.has_table(id))
        .collect();
    assert!(boards.len() >= 3, "{boards:?}");
    let mut rng = Rng::new(4518);
    for game in boards {
        let GameId::Dots { rows, cols } = game else {
            unreachable!()
        };
        let board = Dots::new(rows, cols).unwrap();
        let edges = board.moves(board.start()).len() as u32;
        let (mut below, mut straddling) = (false, false);
        for attempt in 0..24 {
            // From the middle of the game to its first moves.
            let undrawn = edges / 2 + rng.below(u64::from(edges / 3)) as u32;
            let Some(p) = board.random_without_third_sides(&mut rng, undrawn) else {
                continue;
            };
            let text = board.notation(p);
            page.c
                .goto(&format!(
                    "{base}/?game={}&start={}&first=human&second=human",
                    enc(&game.to_string()),
                    enc(&text)
                ))
                .await
                .unwrap();
            page.idle_within(Duration::from_secs(20)).await;
            let tags = page
                .js("return [...document.querySelectorAll('#board .edge-tag')].map(t => t.textContent)")
                .await;
            let tags: Vec<String> = serde_json::from_value(tags).unwrap();
            assert_eq!(
                tags.len(),
                board.moves(p).len(),
                "{game} {text}: every move tagged"
            );
            for tag in &tags {
                if let Some((lo, hi)) = tag.split_once('…') {
                    below |= lo.starts_with('−') && hi.starts_with('−');
                    straddling |= lo.starts_with('−') && hi.starts_with('+');
                }
            }
            if below && straddling {
                page.screenshot(&format!("dots-{rows}x{cols}-ranges-1280"))
                    .await;
                eprintln!(
                    "{game}: both kinds of range after {} positions",
                    attempt + 1
                );
                break;
            }
        }
        assert!(
            below && straddling,
            "{game}: ranges below zero at both ends {below}, across zero {straddling}"
        );
        if (rows, cols) == (5, 5) {
            // On a phone the ranges' tags stay readable: 12 px at least.
            page.viewport(390, 844).await;
            page.c.refresh().await.unwrap();
            page.idle_within(Duration::from_secs(20)).await;
            let (_, _, tag, _) = phone_sizes(page).await;
            page.screenshot("dots-5x5-ranges-390").await;
            assert!(tag >= 12.0, "{game}: range tags of {tag:.1} px on a phone");
            page.viewport(1280, 800).await;
        }
    }
}

/// A late Qubic position off the strategy, nobody threatening a line at
/// once: the streamed analysis sends bounds that only narrow, move by
/// move, then the answer, and the page ends on it.
async fn ranges_narrow_as_they_stream(page: &Page) {
    let g = Qubic;
    let mut rng = Rng::new(4547);
    // The table and the rules may settle every move of a position at once
    // (one step): the first of a few positions that needs the search is
    // the one checked.
    let mut tried = Vec::new();
    let (position, events, steps, answer) = loop {
        assert!(
            tried.len() < 20,
            "every position settled in one step: {tried:?}"
        );
        let position = loop {
            let mut p = g.start();
            for _ in 0..24 {
                let moves = g.moves(p);
                p = g.play(p, *rng.pick(&moves)).0;
                if g.terminal_score(p).is_some() {
                    break;
                }
            }
            let threat = |p| {
                g.moves(p).into_iter().any(|mv| {
                    let (c, _) = g.play(p, mv);
                    g.terminal_score(c).is_some()
                        || g.moves(c)
                            .into_iter()
                            .any(|r| g.terminal_score(g.play(c, r).0).is_some())
                })
            };
            let text = g.notation(p);
            let off_table = page
                .oracle
                .answer_within(GameId::Qubic, &text, Want::Value, &table_only())
                .is_err();
            if g.terminal_score(p).is_none() && off_table && !threat(p) {
                break text;
            }
        };
        let events = page
            .js(&format!(
                "return fetch('/api/v1/analysis?game=qubic&position={}').then(r => r.text())",
                enc(&position)
            ))
            .await;
        let events = events.as_str().unwrap().to_owned();
        let mut steps: Vec<serde_json::Value> = Vec::new();
        let mut answer = None;
        for block in events.split("\n\n") {
            let kind = block.lines().find_map(|l| l.strip_prefix("event: "));
            let data = block.lines().find_map(|l| l.strip_prefix("data: "));
            match (kind, data) {
                (Some("bounds"), Some(d)) => steps.push(serde_json::from_str(d).unwrap()),
                (Some("answer"), Some(d)) => {
                    answer = Some(serde_json::from_str::<serde_json::Value>(d).unwrap())
                }
                _ => {}
            }
        }
        if steps.len() >= 2 {
            break (position, events, steps, answer);
        }
        tried.push(position);
    };
    let answer = answer.unwrap_or_else(|| panic!("{position}: no answer in {events}"));
    assert!(steps.len() >= 2, "{position}: {} steps", steps.len());
    // Each move's range in a later step lies within its range before.
    let rank = |v: &serde_json::Value| -> i64 {
        let plies = v["plies"].as_i64().unwrap();
        match v["result"].as_str().unwrap() {
            "win" => 1000 - plies,
            "loss" => -1000 + plies,
            _ => 0,
        }
    };
    let ranges = |step: &serde_json::Value| -> Vec<(String, i64, i64)> {
        step["bounds"]["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["move"].as_str().unwrap().to_owned(),
                    rank(&m["lower"]),
                    rank(&m["upper"]),
                )
            })
            .collect()
    };
    let exact = |r: &[(String, i64, i64)]| r.iter().filter(|(_, lo, hi)| lo == hi).count();
    for pair in steps.windows(2) {
        let (before, after) = (ranges(&pair[0]), ranges(&pair[1]));
        for ((mv, lo, hi), (mv2, lo2, hi2)) in before.iter().zip(&after) {
            assert_eq!(mv, mv2);
            assert!(
                lo <= lo2 && hi2 <= hi,
                "{position} {mv}: {lo}..{hi} then {lo2}..{hi2}"
            );
        }
        assert!(
            exact(&after) > exact(&before),
            "{position}: a step settles a move"
        );
    }
    // The answer is the last step's, or the whole answer.
    assert!(
        answer["status"] == 200 || answer["body"]["bounds"] == steps.last().unwrap()["bounds"],
        "{position}: {answer}"
    );
    // The page ends on that answer.
    page.open(&format!(
        "?game=qubic&start={}&first=human&second=human",
        enc(&position)
    ))
    .await;
    page.screenshot("qubic-streamed-1280").await;
    let value = page.text("value").await;
    assert!(!value.contains("searching"), "{position}: {value}");
    eprintln!("streamed: {} steps, then {}", steps.len(), answer["status"]);
}

/// Waits until the room page is idle.
async fn room_idle(page: &Page) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while page.js("return document.body.dataset.state").await != "idle" {
        assert!(Instant::now() < deadline, "the room page never settled");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// The room's creator clicks the board they made: they take the first
/// seat and it is their move.
async fn creator_takes_a_seat(page: &Page) {
    page.goto("play").await;
    room_idle(page).await;
    page.click_css("#make").await;
    room_idle(page).await;
    assert_eq!(
        page.js("return document.getElementById('links').hidden")
            .await,
        false
    );
    page.click_css(&solvedb_tests::webdriver::move_selector("4"))
        .await;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let turn = page
            .js("const t = document.getElementById('turn'); return t ? t.textContent : ''")
            .await;
        if turn.as_str().is_some_and(|t| t.contains("your move")) {
            break;
        }
        assert!(Instant::now() < deadline, "the creator has no seat: {turn}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    page.screenshot("room-creator-seat-1280").await;
}
