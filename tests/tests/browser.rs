//! The explorer in a real browser: headless Chromium driven over WebDriver
//! (chromedriver), against one in-process server. Needs the Debian packages
//! `chromium` and `chromium-driver` (`.ci/run` installs them); without them
//! this test fails, it does not skip.
//!
//! One test, one server, one chromedriver: the steps run in order and each
//! says what it checks. Screenshots of every board in every theme, at
//! desktop and phone widths, go to `target/screenshots/`.

use std::time::{Duration, Instant};

use fantoccini::Locator;
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{AnyValue, GameId, Oracle};
use solvedb_server::http::{self, AppState, ServerLimits};
use solvedb_tests::committed_tables;
use solvedb_tests::webdriver::{Driver, Tab, move_selector};

/// The browser and the server of the run.
struct Page {
    tab: Tab,
    base: String,
    oracle: Oracle,
}

/// The test's calls on its one tab ([`Tab`]), through the page.
impl std::ops::Deref for Page {
    type Target = Tab;

    fn deref(&self) -> &Tab {
        &self.tab
    }
}

impl Page {
    async fn notation(&self) -> String {
        self.js("return document.getElementById('notation').value")
            .await
            .as_str()
            .unwrap()
            .to_owned()
    }

    /// Waits until the page has its answer and no computer move is due.
    async fn idle(&self) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let state = self.js("return document.body.dataset.state || ''").await;
            if state == "idle" {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the page never settled: {}",
                self.text("value").await
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    async fn open(&self, query: &str) {
        self.c
            .goto(&format!("{}/{query}", self.base))
            .await
            .unwrap();
        self.idle().await;
    }

    async fn select(&self, id: &str, value: &str) {
        let select = self.c.find(Locator::Id(id)).await.unwrap();
        select.select_by_value(value).await.unwrap();
        self.idle().await;
    }

    async fn click_move(&self, mv: &str) {
        self.click_css(&move_selector(mv)).await;
        self.idle().await;
    }

    /// Sends a key to the focused element.
    async fn key(&self, k: &str) {
        let focused = self.c.active_element().await.unwrap();
        focused.send_keys(k).await.unwrap();
        self.idle().await;
    }

    async fn click(&self, id: &str) {
        self.c
            .find(Locator::Id(id))
            .await
            .unwrap()
            .click()
            .await
            .unwrap();
        self.idle().await;
    }

    /// The game the page shows.
    async fn game(&self) -> GameId {
        self.js("return document.getElementById('game').value")
            .await
            .as_str()
            .unwrap()
            .parse()
            .unwrap()
    }

    /// Checks that every legal move of the position shown is marked on the
    /// board with the value the oracle gives it, and the list has them all,
    /// best first. Returns the legal moves.
    async fn check_values_shown(&self) -> Vec<String> {
        let game = self.game().await;
        let report = self.oracle.moves(game, &self.notation().await).unwrap();
        let labels = self
            .js("return [...document.querySelectorAll('#board [data-move]')]
                   .map(e => [e.dataset.move, e.getAttribute('aria-label')])")
            .await;
        let labels: Vec<(String, String)> = serde_json::from_value(labels).unwrap();
        for m in &report.moves {
            let words = match m.value {
                AnyValue::Outcome(o) if o.plies == 0 => o.wdl.as_str().to_owned(),
                AnyValue::Outcome(o) => format!("{} in {}", o.wdl.as_str(), o.plies),
                AnyValue::Margin(n) => {
                    let sign = match n {
                        n if n > 0 => "+",
                        n if n < 0 => "−",
                        _ => "±",
                    };
                    let unit = if n.abs() == 1 { "box" } else { "boxes" };
                    format!("{sign}{} {unit}", n.abs())
                }
            };
            let label = &labels
                .iter()
                .find(|(mv, _)| *mv == m.mv)
                .unwrap_or_else(|| panic!("no element for move {}", m.mv))
                .1;
            assert!(
                label.ends_with(&format!("move {}: {words}", m.mv)),
                "{game} move {}: {label:?}, oracle {words}",
                m.mv
            );
        }
        let listed = self
            .js("return [...document.querySelectorAll('#moves button')].map(b => b.dataset.move)")
            .await;
        let listed: Vec<String> = serde_json::from_value(listed).unwrap();
        let expected: Vec<String> = report.moves.iter().map(|m| m.mv.clone()).collect();
        assert_eq!(listed, expected, "the move list, best first");
        expected
    }
}

/// A person (random legal moves, by clicks) against the perfect level,
/// to the end; returns the final status line.
/// A Qubic position with 40 stones from careful random play, X to move,
/// nobody threatening a cell: a win in 3 for X by a fork.
const QUBIC_LATE: &str =
    "XX../.O../...O/OX..//XOOO/O.XX/OXOX/X.O.//XX../XXO./X.OO/O.XX//OO../OO.X/.OXO/XX..";

/// Plays the open game to its end against the perfect level: a result is
/// announced, and a won game highlights its line of `line` cells.
async fn play_to_the_end_against_perfect(page: &Page, rng: &mut Rng, line: u64) {
    let result = play_against_perfect(page, rng).await;
    assert!(
        ["X wins", "O wins", "draw"].contains(&result.as_str()),
        "{result}"
    );
    if result.ends_with("wins") {
        let highlighted = page
            .js("return document.querySelectorAll('.cell.win').length")
            .await;
        assert_eq!(highlighted, line);
    }
}

async fn play_against_perfect(page: &Page, rng: &mut Rng) -> String {
    loop {
        let moves = page.check_values_shown().await;
        if moves.is_empty() {
            return page.text("score").await;
        }
        page.click_move(rng.pick(&moves).as_str()).await;
    }
}

#[test]
fn the_explorer_in_headless_chromium() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run());
}

async fn run() {
    let started = Instant::now();
    let limits = ServerLimits {
        search_time: Duration::from_secs(1),
        ..ServerLimits::default()
    };
    let state = AppState::new(&committed_tables(), limits).unwrap();
    let listener = http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(http::serve_until(listener, state, std::future::pending()));
    let profile = tempfile::tempdir().unwrap();
    let driver = Driver::start().await;
    let tab = driver.session(profile.path()).await;
    tab.c.set_window_size(1200, 900).await.unwrap();
    let page = Page {
        tab,
        base,
        oracle: Oracle::open(&committed_tables()).unwrap(),
    };
    let mut rng = Rng::new(2026);

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
            let result = play_against_perfect(&page, &mut rng).await;
            let loser = if perfect == 'X' { "O wins" } else { "X wins" };
            assert!(
                result == "draw" || result == format!("{perfect} wins"),
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

    // The computer's other levels play whole games, on either side.
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
            ["X wins", "O wins", "draw"].contains(&result.as_str()),
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
        refused.contains("not legal") && refused.contains("both X and O"),
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
    assert_eq!(page.text("score").await, "draw");

    // Keyboard only: Tab to the board, arrows to move, Enter to play.
    page.open("?game=tictactoe&first=human&second=human").await;
    page.js("document.activeElement && document.activeElement.blur()")
        .await;
    for _ in 0..40 {
        let on_cell = page
            .js("return document.activeElement.dataset.move === '0'")
            .await;
        if on_cell == true {
            break;
        }
        page.key("\u{E004}").await; // Tab
    }
    assert_eq!(
        page.js("return document.activeElement.dataset.move").await,
        "0"
    );
    const ENTER: &str = "\u{E007}";
    const RIGHT: &str = "\u{E014}";
    const UP: &str = "\u{E013}";
    const DOWN: &str = "\u{E015}";
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
    play_to_the_end_against_perfect(&page, &mut rng, 3).await;

    // Qubic from a late position (X to move, a fork to make) by clicks
    // against the perfect level: four layers of 4×4, a won game shows its
    // four cells.
    page.open(&format!(
        "?game=qubic&start={}&first=human&second=perfect",
        QUBIC_LATE.replace('/', "%2F")
    ))
    .await;
    let layers = page
        .js("return document.querySelectorAll('#board .grid').length")
        .await;
    assert_eq!(layers, 4);
    play_to_the_end_against_perfect(&page, &mut rng, 4).await;

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
    assert_eq!(points.iter().sum::<u32>(), 4, "{score}");

    // Beyond the search budget: 5x5 dots from the start is unknown, and said so.
    page.open("?game=dots%3A5x5&first=human&second=human").await;
    let value = page.text("value").await;
    assert!(
        value.contains("unknown within the search budget"),
        "{value}"
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

    // Screenshots of every board in every theme, desktop and phone; the
    // board stays square and inside the window.
    let listed = page
        .js("return [...document.getElementById('game').options].map(o => o.value)")
        .await;
    let listed: Vec<String> = serde_json::from_value(listed).unwrap();
    let mut games = vec!["tictactoe", "cube", "qubic", "dots:2x2", "dots:3x3"];
    if listed.iter().any(|g| g == "tictactoe:4x4") {
        games.insert(1, "tictactoe:4x4");
    }
    for (width, height) in [(1200, 900), (390, 844)] {
        page.c.set_window_size(width, height).await.unwrap();
        for game in &games {
            // A few moves in, so marks, values and boxes all show (Qubic
            // late, where its live search answers).
            let (start, moves) = match *game {
                "tictactoe" => ("", "4 0 2"),
                "tictactoe:4x4" => ("", "5 0 10"),
                "cube" => ("", "13 0 4"),
                "qubic" => (QUBIC_LATE, ""),
                "dots:2x2" => ("", "h0,0 v0,0 h1,0 v0,1 h2,1"),
                _ => ("", "h0,0 v0,0 h1,0 v0,1 h3,2 v2,3"),
            };
            for theme in ["light", "dark", "contrast"] {
                page.js(&format!("localStorage.setItem('solvedb-theme', '{theme}')"))
                    .await;
                let mut query = format!(
                    "?game={}&moves={}&first=human&second=human",
                    game.replace(':', "%3A"),
                    moves.replace(' ', "+")
                );
                if !start.is_empty() {
                    query.push_str(&format!("&start={}", start.replace('/', "%2F")));
                }
                page.open(&query).await;
                page.check_values_shown().await;
                // Taken first, so that a failing check below can be looked at.
                let name = format!("{}-{theme}-{width}", game.replace(':', "-"));
                page.screenshot(&name).await;
                let rect = page
                    .js("const r = document.querySelector('#board .grid, #board svg').getBoundingClientRect();
                         return [r.width, r.height, r.right, window.innerWidth]")
                    .await;
                let [w, h, right, inner]: [f64; 4] = serde_json::from_value(rect).unwrap();
                assert!(
                    w > 50.0 && right <= inner + 0.5,
                    "{game} at {width}: {w} wide, right {right} of {inner}"
                );
                if !game.starts_with("dots") {
                    assert!(
                        (w - h).abs() <= 1.0,
                        "{game} at {width}: {w} x {h} is not square"
                    );
                }
            }
        }
    }
    page.js("localStorage.clear()").await;
    page.tab.c.close().await.unwrap();
    eprintln!(
        "browser tests took {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
