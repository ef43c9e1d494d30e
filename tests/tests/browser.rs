//! The explorer in a real browser: headless Chromium driven over WebDriver
//! (chromedriver), against one in-process server. Needs the Debian packages
//! `chromium` and `chromium-driver` (`.ci/run` installs them); without them
//! this test fails, it does not skip.
//!
//! One test, one server, one chromedriver. First the flows people use,
//! step by step; then one named check per problem of the explorer as
//! people met it (issue 22), each run even when another fails, so that a
//! run names every one that does; then screenshots of every board in every
//! theme, at desktop (1280×800) and phone (390×844) sizes, in
//! `target/screenshots/`.

use std::time::{Duration, Instant};

use fantoccini::Locator;
use serde_json::Value;
use solvedb_lookup::testkit::{Rng, random_positions};
use solvedb_lookup::{
    AnyValue, Cube, Dots, Game, GameId, Oracle, Source, TicTacToe, Wdl, with_game,
};
use solvedb_server::http::{self, AppState, ServerLimits};
use solvedb_tests::committed_tables;
use solvedb_tests::webdriver::{Checks, Driver, Tab, move_selector};

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

const ENTER: &str = "\u{E007}";
const TAB: &str = "\u{E004}";
const LEFT: &str = "\u{E012}";
const UP: &str = "\u{E013}";
const RIGHT: &str = "\u{E014}";
const DOWN: &str = "\u{E015}";
const PAGE_DOWN: &str = "\u{E00F}";

/// A Qubic position with 40 stones from careful random play, X to move,
/// nobody threatening a cell: a win in 3 for X by a fork.
const QUBIC_LATE: &str =
    "XX../.O../...O/OX..//XOOO/O.XX/OXOX/X.O.//XX../XXO./X.OO/O.XX//OO../OO.X/.OXO/XX..";

/// Qubic after X's first move on an edge cell and O's in a corner (X to
/// move): not a position of the committed strategy (where X starts in a
/// corner), so only a live search answers it.
const QUBIC_EDGE_OPENING: &str =
    "OX../..../..../....//..../..../..../....//..../..../..../....//..../..../..../....";

/// Where the moves' heading is, the board's height, then the heights of
/// what is above the heading and the texts there (for the message when the
/// first two move).
const LAYOUT: &str = "const h = (id) => document.getElementById(id).getBoundingClientRect().height;
    return [document.getElementById('moves-title').getBoundingClientRect().top, h('board'),
            h('value'), h('progress'), h('explain'), h('source'),
            ...['value', 'explain', 'source'].map((id) => document.getElementById(id).textContent)]";

/// The words the page uses for a value.
fn words(value: AnyValue) -> String {
    match value {
        AnyValue::Outcome(o) if o.plies == 0 => o.wdl.as_str().to_owned(),
        AnyValue::Outcome(o) => format!("{} in {}", o.wdl.as_str(), o.plies),
        AnyValue::AtMost(o) => format!("{} in ≤{}", o.wdl.as_str(), o.plies),
        AnyValue::Margin(n) => {
            let sign = match n {
                n if n > 0 => "+",
                n if n < 0 => "−",
                _ => "±",
            };
            let unit = if n.abs() == 1 { "box" } else { "boxes" };
            format!("{sign}{} {unit}", n.abs())
        }
    }
}

/// `moves` played from the start of `game`, by the library.
fn after_moves(game: GameId, moves: &[String]) -> String {
    with_game!(game, g => {
        let mut p = g.start();
        for mv in moves {
            p = g.play_notation(p, mv).unwrap();
        }
        Ok::<_, solvedb_lookup::Error>(g.notation(p))
    })
    .unwrap()
}

/// Percent-encodes what a query value needs here.
fn enc(text: &str) -> String {
    text.replace('%', "%25")
        .replace('/', "%2F")
        .replace(':', "%3A")
        .replace(' ', "+")
        .replace(',', "%2C")
}

impl Page {
    async fn notation(&self) -> String {
        self.js("return document.getElementById('notation').value")
            .await
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// Waits until the page has its answer and no computer move is due.
    async fn idle(&self) {
        self.idle_within(Duration::from_secs(30)).await;
    }

    async fn idle_within(&self, patience: Duration) {
        let deadline = Instant::now() + patience;
        loop {
            let state = self.js("return document.body.dataset.state || ''").await;
            if state == "idle" {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the page never settled: {:?}",
                self.js("const v = document.getElementById('value'); return v && v.textContent")
                    .await
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    async fn goto(&self, path: &str) {
        self.c.goto(&format!("{}/{path}", self.base)).await.unwrap();
    }

    async fn open(&self, query: &str) {
        self.goto(query).await;
        self.idle().await;
    }

    /// Opens `query` and waits a little at most: for the checks, which
    /// must fail (not hang) on a page that never settles.
    async fn visit(&self, query: &str) {
        self.goto(query).await;
        self.idle_within(Duration::from_secs(10)).await;
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

    /// The move the focused element stands for.
    async fn focused_move(&self) -> Value {
        self.js("return document.activeElement && document.activeElement.dataset.move || null")
            .await
    }

    /// Whether the link's problem is shown, and the board is not.
    async fn problem(&self) -> Option<String> {
        let shown = self
            .js("const p = document.getElementById('problem');
                 const cells = document.querySelectorAll('#board [data-move]').length;
                 return p && !p.hidden && cells === 0 ? p.textContent : null")
            .await;
        shown.as_str().map(str::to_owned)
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
            let words = words(m.value);
            let label = &labels
                .iter()
                .find(|(mv, _)| *mv == m.mv)
                .unwrap_or_else(|| panic!("no element for move {}", m.mv))
                .1;
            // "b2, empty: draw in 7, best": the value after the last colon.
            let shown = label.rsplit(": ").next().and_then(|v| v.split(", ").next());
            assert_eq!(
                shown,
                Some(words.as_str()),
                "{game} move {}: {label:?}",
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

/// Plays the open game to its end against the perfect level: a result is
/// announced, and a won game highlights its line of `line` cells.
async fn play_to_the_end_against_perfect(page: &Page, rng: &mut Rng, line: u64) {
    let result = play_against_perfect(page, rng).await;
    assert!(
        ["X wins", "O wins", "Draw"].contains(&result.as_str()),
        "{result}"
    );
    if result.ends_with("wins") {
        let highlighted = page
            .js("return document.querySelectorAll('.grid .cell.win').length")
            .await;
        assert_eq!(highlighted, line);
    }
}

/// A person (random legal moves, by clicks) against the perfect level,
/// to the end; returns the result line.
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
    tab.viewport(1280, 800).await;
    let page = Page {
        tab,
        base,
        oracle: Oracle::open(&committed_tables()).unwrap(),
    };
    let mut rng = Rng::new(2026);

    flows(&page, &mut rng).await;
    eprintln!("flows: {:.1} s", started.elapsed().as_secs_f64());

    bounds_shown(&page).await;
    eprintln!("bounds: {:.1} s", started.elapsed().as_secs_f64());

    let mut checks = Checks::default();
    issue_22(&page, &mut checks).await;
    eprintln!("checks: {:.1} s", started.elapsed().as_secs_f64());

    screenshots(&page).await;
    page.js("localStorage.clear()").await;
    page.tab.c.close().await.unwrap();
    eprintln!(
        "browser tests took {:.1} s",
        started.elapsed().as_secs_f64()
    );
    checks.finish();
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
    let state = AppState::new(&committed_tables(), limits).unwrap();
    let listener = http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(http::serve_until(listener, state, std::future::pending()));
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

/// A tic-tac-toe position where the player to move has losing moves that
/// hold out for different lengths, and the moves longest and shortest.
fn losses_of_two_lengths(oracle: &Oracle) -> (String, String, String) {
    for p in random_positions(&TicTacToe, &mut Rng::new(7), 2000) {
        let text = TicTacToe.notation(p);
        let report = oracle.moves(GameId::TicTacToe, &text).unwrap();
        let mut losses: Vec<(u8, String)> = report
            .moves
            .iter()
            .filter_map(|m| match m.value {
                AnyValue::Outcome(o) if o.wdl == Wdl::Loss => Some((o.plies, m.mv.clone())),
                _ => None,
            })
            .collect();
        losses.sort();
        if let (Some(short), Some(long)) = (losses.first(), losses.last())
            && short.0 != long.0
        {
            return (text, long.1.clone(), short.1.clone());
        }
    }
    panic!("no position with losses of two lengths");
}

/// A tic-tac-toe game that O throws away: X takes the centre, O's edge
/// (b1) loses, then both play the best moves to X's win.
fn thrown_away(oracle: &Oracle) -> Vec<String> {
    let mut moves = vec!["4".to_owned(), "1".to_owned()];
    loop {
        let position = after_moves(GameId::TicTacToe, &moves);
        match oracle.best_move(GameId::TicTacToe, &position).unwrap() {
            Some(best) => moves.push(best.mv),
            None => return moves,
        }
    }
}

/// 42 random edges of a 5×5 dots board (18 left: answered at once).
fn late_5x5() -> Vec<String> {
    let game: GameId = "dots:5x5".parse().unwrap();
    let mut rng = Rng::new(55);
    with_game!(game, g => {
        let mut p = g.start();
        let mut moves = Vec::new();
        for _ in 0..42 {
            let legal = g.moves(p);
            let mv = *rng.pick(&legal);
            moves.push(mv.to_string());
            p = g.play(p, mv).0;
        }
        Ok::<_, solvedb_lookup::Error>(moves)
    })
    .unwrap()
}

/// A cube position the rules settle by forced play.
fn forced_cube_position(oracle: &Oracle) -> String {
    random_positions(&Cube, &mut Rng::new(5), 5000)
        .into_iter()
        .map(|p| Cube.notation(p))
        .find(|text| {
            oracle
                .moves(GameId::Cube, text)
                .is_ok_and(|r| r.source == Source::ForcedPlay)
        })
        .expect("a position settled by forced play")
}

/// Sizes at 390×844 of the board shown: the smallest cell or edge target
/// (width, height), the smallest value tag in pixels, the visible layers.
async fn phone_sizes(page: &Page) -> (f64, f64, f64, i64) {
    let sizes = page
        .js("const seen = (e) => e.getClientRects().length > 0;
             let w = 1e9, h = 1e9, tag = 1e9;
             for (const c of document.querySelectorAll('#board .cell')) {
               if (!seen(c)) continue;
               const r = c.getBoundingClientRect();
               w = Math.min(w, r.width); h = Math.min(h, r.height);
             }
             for (const t of document.querySelectorAll('#board .cell .tag')) {
               if (seen(t)) tag = Math.min(tag, parseFloat(getComputedStyle(t).fontSize));
             }
             const svg = document.querySelector('#board svg');
             if (svg) {
               const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
               for (const hit of svg.querySelectorAll('.hit')) {
                 const r = hit.getBoundingClientRect();
                 w = Math.min(w, r.width); h = Math.min(h, r.height);
               }
               for (const t of svg.querySelectorAll('.edge-tag')) {
                 tag = Math.min(tag, parseFloat(getComputedStyle(t).fontSize) * scale);
               }
             }
             const layers = [...document.querySelectorAll('#board .layer')].filter(seen).length;
             return [w, h, tag, layers];")
        .await;
    serde_json::from_value(sizes).unwrap()
}

/// One named check per problem of issue 22.
async fn issue_22(page: &Page, checks: &mut Checks) {
    let oracle = &page.oracle;

    // ---- The URL is checked by the rules before anything is drawn.
    checks
        .run(
            "a start that is not a position is refused, nothing drawn",
            async {
                page.visit("?game=tictactoe&start=hello").await;
                let problem = page
                    .problem()
                    .await
                    .expect("the problem is shown, no board");
                assert!(problem.contains("not one of tic-tac-toe"), "{problem}");
                assert!(!page.text("status").await.contains("wins"));
            },
        )
        .await;
    checks
        .run("a cube position under tic-tac-toe is refused", async {
            let cube = ".".repeat(13) + "X" + &".".repeat(13);
            page.visit(&format!("?game=tictactoe&start={cube}")).await;
            assert!(page.problem().await.is_some());
        })
        .await;
    checks
        .run(
            "both sides with a line: refused, no winning line drawn",
            async {
                page.visit("?game=tictactoe&start=XXX%2FOOO%2F...").await;
                let problem = page.problem().await.expect("the problem is shown");
                assert!(problem.contains("both X and O"), "{problem}");
                assert_eq!(
                    page.js("return document.querySelectorAll('.win').length")
                        .await,
                    0
                );
            },
        )
        .await;
    checks
        .run("a move on a taken cell is refused and named", async {
            page.visit("?game=tictactoe&moves=4+4").await;
            let problem = page.problem().await.expect("the problem is shown");
            assert!(
                problem.contains("Move 2") && problem.contains("b2"),
                "{problem}"
            );
        })
        .await;
    checks
        .run(
            "a dots position of the wrong length: refused, the page settles",
            async {
                page.visit("?game=dots%3A2x2&start=2x2%3A0000").await;
                let problem = page.problem().await.expect("the problem is shown");
                assert!(problem.contains("dots-and-boxes 2×2"), "{problem}");
            },
        )
        .await;
    checks
        .run("an unknown game says so", async {
            page.visit("?game=chess").await;
            let problem = page.problem().await.expect("the problem is shown");
            assert!(problem.contains("no game called “chess”"), "{problem}");
        })
        .await;
    checks
        .run(
            "a step past the moves is refused; the button goes to the start",
            async {
                page.visit("?game=tictactoe&moves=4+0&step=7").await;
                let problem = page.problem().await.expect("the problem is shown");
                assert!(problem.contains("Step “7”"), "{problem}");
                page.click("problem-start").await;
                assert_eq!(page.notation().await, ".../.../...");
                assert_eq!(page.check_values_shown().await.len(), 9);
            },
        )
        .await;

    // ---- Coordinates everywhere.
    checks
        .run("coordinates beside every board", async {
            page.visit("?game=tictactoe").await;
            assert_eq!(page.js("return document.querySelector('#board .axis.columns').textContent").await, "abc");
            assert_eq!(page.js("return document.querySelector('#board .axis.rows').textContent").await, "123");
            page.visit("?game=cube").await;
            let captions = page
                .js("return [...document.querySelectorAll('#board figcaption')].map(c => c.textContent).join(' ')")
                .await;
            assert_eq!(captions, "Layer A Layer B Layer C");
            page.visit("?game=dots%3A2x2").await;
            let labels = page
                .js("return [...document.querySelectorAll('#board .axis-label')].map(t => t.textContent).join('')")
                .await;
            assert_eq!(labels, "abc123");
        })
        .await;
    checks
        .run("the move list speaks in coordinates", async {
            page.visit("?game=tictactoe&first=human&second=human").await;
            let first = page.js("const c = document.querySelector('#moves button .coord'); return c && c.textContent").await;
            assert_eq!(first, "a1", "the corners are draws in 9 too, a1 first");
            page.visit("?game=dots%3A2x2&first=human&second=human").await;
            let first = page.js("const c = document.querySelector('#moves button .coord'); return c && c.textContent").await;
            let first = first.as_str().unwrap_or_default().to_owned();
            assert!(first.contains('–'), "an edge by its dots: {first}");
        })
        .await;
    checks
        .run("the best line: coordinates, clickable, stepping on the board", async {
            page.visit("?game=tictactoe&first=human&second=human&start=X..%2F.O.%2F...").await;
            page.click("mainline").await;
            let line = page.js("return [...document.querySelectorAll('#line-moves button')].map(b => b.textContent)").await;
            let line: Vec<String> = serde_json::from_value(line).unwrap();
            let pv = oracle.mainline(GameId::TicTacToe, "X../.O./...").unwrap().moves;
            assert_eq!(line.len(), pv.len(), "{line:?}");
            assert!(line[0].starts_with("X ") && line[1].starts_with("O "), "{line:?}");
            page.click_css("#line-moves li:nth-child(3) button").await;
            page.idle().await;
            let start = "X..\n.O.\n...".replace('\n', "/");
            let expected = with_game!(GameId::TicTacToe, g => {
                let mut p = g.parse(&start).unwrap();
                for mv in &pv[..3] {
                    p = g.play_notation(p, mv).unwrap();
                }
                Ok::<_, solvedb_lookup::Error>(g.notation(p))
            })
            .unwrap();
            assert_eq!(page.notation().await, expected);
            let current = page.js("return document.querySelector('#line-moves [aria-current=step]').textContent").await;
            assert_eq!(current, line[2].as_str());
        })
        .await;
    checks
        .run(
            "an announced move names its place and the new value",
            async {
                page.visit("?game=tictactoe&first=human&second=human").await;
                page.click_move("4").await;
                let status = page.text("status").await;
                assert!(
                    status.contains("X played b2.") && status.contains("O to move: draw in 8"),
                    "{status}"
                );
            },
        )
        .await;

    // ---- Explanations.
    checks
        .run("a legend and a sentence for the value", async {
            page.visit("?game=tictactoe&first=human&second=human").await;
            let legend = page.text("legend").await;
            assert!(
                legend.contains("W5") && legend.contains("L6") && legend.contains("D8"),
                "{legend}"
            );
            let explain = page.text("explain").await;
            assert!(explain.contains("draw"), "{explain}");
            page.visit("?game=dots%3A2x2&first=human&second=human")
                .await;
            let legend = page.text("legend").await;
            assert!(
                legend.contains("+2") && legend.contains("boxes"),
                "{legend}"
            );
        })
        .await;
    let (position, longest, quickest) = losses_of_two_lengths(oracle);
    checks
        .run("losing moves shaded by how long they hold out", async {
            page.visit(&format!("?game=tictactoe&first=human&second=human&start={}", enc(&position))).await;
            let colour = |mv: &str| {
                format!("return getComputedStyle(document.querySelector('#board [data-move=\"{mv}\"]')).backgroundColor")
            };
            let long = page.js(&colour(&longest)).await;
            let quick = page.js(&colour(&quickest)).await;
            assert_ne!(long, quick, "{position}: {longest} and {quickest} in one colour");
            // In the light theme the longer defence is the paler red.
            let light = |c: &Value| -> f64 {
                c.as_str().unwrap().split(|ch: char| !ch.is_ascii_digit()).filter_map(|t| t.parse::<f64>().ok()).take(3).sum()
            };
            assert!(light(&long) > light(&quick), "{long} vs {quick}");
            let label = page.js(&format!("return document.querySelector('#board [data-move=\"{longest}\"]').getAttribute('aria-label')")).await;
            assert!(label.as_str().unwrap_or_default().contains("longest defence"), "{label}");
        })
        .await;
    let forced = forced_cube_position(oracle);
    checks
        .run("forced play is explained, not jargon", async {
            page.visit(&format!(
                "?game=cube&first=human&second=human&start={}",
                enc(&forced)
            ))
            .await;
            let source = page.text("source").await;
            assert!(
                !source.contains("(the rules)") && source.contains("forced ("),
                "{source}"
            );
        })
        .await;
    checks
        .run("a finished game is reviewed against perfect play", async {
            let moves = thrown_away(oracle);
            page.visit(&format!(
                "?game=tictactoe&first=human&second=human&moves={}",
                moves.join("+")
            ))
            .await;
            assert_eq!(page.text("score").await, "X wins");
            let review = page.text("review").await;
            assert!(
                review.contains("The result changed at move 2: O b1 turned a draw into a loss")
                    && review.contains("would have held"),
                "{review}"
            );
            assert_eq!(
                page.js("return document.getElementById('moves-title').hidden")
                    .await,
                true
            );
        })
        .await;

    // ---- Keyboard.
    checks
        .run("one Tab stop per board", async {
            for query in ["?game=tictactoe", "?game=cube", "?game=dots%3A3x3"] {
                page.visit(query).await;
                let stops = page
                    .js(
                        "return [...document.querySelectorAll('#board button, #board [tabindex]')]
                           .filter(e => e.tabIndex >= 0 && e.getClientRects().length > 0).length",
                    )
                    .await;
                assert_eq!(stops, 1, "{query}");
                page.js("document.querySelector('#board [tabindex=\"0\"]').focus()")
                    .await;
                page.key(TAB).await;
                let inside = page
                    .js("return document.getElementById('board').contains(document.activeElement)")
                    .await;
                assert_eq!(inside, false, "{query}: one Tab leaves the board");
            }
        })
        .await;
    checks
        .run("arrows cross the cube's and Qubic's layers", async {
            page.visit("?game=cube").await;
            page.js("document.querySelector('#board [data-move=\"2\"]').focus()")
                .await;
            page.key(RIGHT).await;
            assert_eq!(page.focused_move().await, "9", "c1 on A, then a1 on B");
            page.key(PAGE_DOWN).await;
            assert_eq!(page.focused_move().await, "18");
            page.key(LEFT).await;
            assert_eq!(page.focused_move().await, "11", "back to c1 on B");
            page.visit("?game=qubic").await;
            page.js("document.querySelector('#board [data-move=\"7\"]').focus()")
                .await;
            page.key(RIGHT).await;
            assert_eq!(page.focused_move().await, "20");
        })
        .await;
    checks
        .run("arrows walk along dots edges", async {
            page.visit("?game=dots%3A2x2").await;
            page.js("document.querySelector('#board [data-move=\"h0,0\"]').focus()")
                .await;
            for (key, to) in [
                (RIGHT, "h0,1"),
                (DOWN, "v0,1"),
                (DOWN, "h1,1"),
                (LEFT, "h1,0"),
                (UP, "v0,0"),
            ] {
                page.key(key).await;
                assert_eq!(page.focused_move().await, to);
            }
            page.key(ENTER).await;
            let moves = page
                .js("return new URLSearchParams(location.search).get('moves')")
                .await;
            assert_eq!(moves, "v0,0", "Enter plays the edge");
        })
        .await;
    checks
        .run("a key help", async {
            page.visit("?game=tictactoe").await;
            page.js("document.activeElement && document.activeElement.blur()")
                .await;
            page.key("?").await;
            assert_eq!(
                page.js("const k = document.getElementById('keys'); return !!k && k.open")
                    .await,
                true
            );
            let help = page.text("keys").await;
            assert!(
                help.contains("Page Up") && help.contains("Arrow keys"),
                "{help}"
            );
        })
        .await;

    // ---- Waiting.
    checks
        .run("progress while a search runs, and no layout jump", async {
            // Qubic outside the committed strategy: a live search that runs
            // into the server's limit, "unknown". The empty dots 5x5: the
            // same, with the bounds the search proved (a longer text).
            for start in [
                format!("?game=qubic&start={}&first=human&second=human", enc(QUBIC_EDGE_OPENING)),
                "?game=dots%3A5x5&first=human&second=human".to_owned(),
            ] {
                page.goto(&start).await;
                let deadline = Instant::now() + Duration::from_secs(5);
                let during = loop {
                    let seen = page
                        .js(&format!("const p = document.getElementById('progress');
                             if (!p || !p.classList.contains('on')) return null;
                             {LAYOUT}"))
                        .await;
                    if !seen.is_null() {
                        break seen;
                    }
                    assert!(Instant::now() < deadline, "{start}: no progress shown while searching");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                };
                page.idle().await;
                let after = page
                    .js(LAYOUT)
                    .await;
                // The heading and the board; the rest says what moved.
                assert_eq!(
                    during.as_array().unwrap()[..2],
                    after.as_array().unwrap()[..2],
                    "{start}: the moves' heading and the board stay in place: during {during}, after {after}"
                );
            }
            let menu = page.js("return [...document.querySelectorAll('#game option')].map(o => o.textContent).join('|')").await;
            assert!(!menu.as_str().unwrap().contains("exact search"), "the menu promises nothing: {menu}");
        })
        .await;

    // ---- Smaller.
    checks
        .run("a favicon", async {
            page.visit("?game=tictactoe").await;
            let status = page
                .js("return fetch('/favicon.ico').then(r => [r.status, r.headers.get('content-type')])")
                .await;
            assert_eq!(status[0], 200, "{status}");
            let icon = page.js("const l = document.querySelector('link[rel=icon]'); return l && l.href").await;
            assert!(icon.as_str().unwrap_or_default().ends_with("/assets/favicon.svg"), "{icon}");
        })
        .await;
    checks
        .run("an HTML 404 page", async {
            page.goto("nope").await;
            let heading = page.js("const h = document.querySelector('h2'); return h && h.textContent").await;
            assert_eq!(heading, "There is no page at this address");
            let home = page.js("return [...document.querySelectorAll('a')].some(a => a.getAttribute('href') === '/')").await;
            assert_eq!(home, true);
        })
        .await;
    checks
        .run("one box, not 1 boxes", async {
            page.visit("?game=dots%3A1x2&start=1x2%3A1010110&first=human&second=human")
                .await;
            let score = page.text("score").await;
            assert!(
                score.contains("1 box ") && !score.contains("1 boxes"),
                "{score}"
            );
        })
        .await;
    checks
        .run("a position pasted into the field and loaded", async {
            page.visit("?game=tictactoe&first=human&second=human").await;
            let field = page.c.find(Locator::Id("notation")).await.unwrap();
            field.clear().await.unwrap();
            field.send_keys("X../.O./...").await.unwrap();
            page.click("load-button").await;
            assert_eq!(page.notation().await, "X../.O./...");
            assert_eq!(page.check_values_shown().await.len(), 7);
            let start = page
                .js("return new URLSearchParams(location.search).get('start')")
                .await;
            assert_eq!(start, "X../.O./...");
        })
        .await;
    checks
        .run("Back steps back", async {
            page.visit("?game=tictactoe&first=human&second=human").await;
            page.click_move("4").await;
            page.click_move("0").await;
            page.c.back().await.unwrap();
            page.idle().await;
            assert_eq!(page.notation().await, ".../.X./...");
            page.c.back().await.unwrap();
            page.idle().await;
            assert_eq!(page.notation().await, ".../.../...");
            page.c.forward().await.unwrap();
            page.idle().await;
            assert_eq!(page.notation().await, ".../.X./...");
        })
        .await;

    // ---- Seen on the screenshots: a small dots board drawn large had
    // tags and coordinates of 31 px.
    checks
        .run("dots tags and coordinates the same size on every board", async {
            let late = format!("?game=dots%3A5x5&moves={}", enc(&late_5x5().join(" ")));
            for query in ["?game=dots%3A2x2", late.as_str(), "?game=dots%3A1x7"] {
                page.visit(query).await;
                let sizes = page
                    .js("const svg = document.querySelector('#board svg');
                         const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
                         const px = (sel) => [...svg.querySelectorAll(sel)]
                           .map(t => parseFloat(getComputedStyle(t).fontSize) * scale);
                         const tags = px('.edge-tag'), labels = px('.axis-label');
                         return [Math.min(...tags), Math.max(...tags), Math.min(...labels), Math.max(...labels)]")
                    .await;
                let [tag_min, tag_max, label_min, label_max]: [f64; 4] =
                    serde_json::from_value(sizes).unwrap();
                assert!(
                    (15.0..=17.0).contains(&tag_min) && (15.0..=17.0).contains(&tag_max),
                    "{query}: tags of {tag_min:.1} to {tag_max:.1} px"
                );
                assert!(
                    (13.0..=15.0).contains(&label_min) && (13.0..=15.0).contains(&label_max),
                    "{query}: coordinates of {label_min:.1} to {label_max:.1} px"
                );
            }
        })
        .await;

    // ---- Phones.
    page.viewport(390, 844).await;
    let dots_5x5 = late_5x5();
    let boards = [
        ("tictactoe", "", "4 0".to_owned()),
        ("tictactoe:4x4", "", "5 0".to_owned()),
        ("cube", "", "13 0 4".to_owned()),
        ("qubic", QUBIC_LATE, String::new()),
        ("dots:3x3", "", "h0,0 v0,0".to_owned()),
        ("dots:5x5", "", dots_5x5.join(" ")),
        ("dots:1x7", "", String::new()),
    ];
    checks
        .run(
            "phone: cells of 44 px, tags of 12 px, one layer at a time",
            async {
                for (game, start, moves) in &boards {
                    let mut query = format!(
                        "?game={}&first=human&second=human&moves={}",
                        enc(game),
                        enc(moves)
                    );
                    if !start.is_empty() {
                        query.push_str(&format!("&start={}", enc(start)));
                    }
                    page.visit(&query).await;
                    let (w, h, tag, layers) = phone_sizes(page).await;
                    assert!(w >= 44.0 && h >= 44.0, "{game}: targets {w:.1} × {h:.1} px");
                    assert!(tag >= 12.0, "{game}: tags of {tag:.1} px");
                // Seen on the screenshots: the last column's values ran
                // past the board's right edge on a phone.
                let outside = page
                    .js("const svg = document.querySelector('#board svg');
                         if (!svg) return [];
                         const b = svg.getBoundingClientRect();
                         return [...svg.querySelectorAll('.edge-tag')].filter(t => {
                           const r = t.getBoundingClientRect();
                           return r.left < b.left - 0.5 || r.right > b.right + 0.5
                             || r.top < b.top - 0.5 || r.bottom > b.bottom + 0.5;
                         }).map(t => t.parentNode.dataset.move)")
                    .await;
                assert_eq!(outside, serde_json::json!([]), "{game}: values outside the board");
                // ... and on the last column over the values beside them.
                let overlapping = page
                    .js("const tags = [...document.querySelectorAll('#board svg .edge-tag')]
                           .map(t => [t.parentNode.dataset.move, t.getBoundingClientRect()]);
                         const hit = [];
                         for (const [m, a] of tags) for (const [n, b] of tags)
                           if (m < n && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
                             hit.push(`${m} ${n}`);
                         return hit")
                    .await;
                assert_eq!(overlapping, serde_json::json!([]), "{game}: values over each other");
                    if game == &"cube" || game == &"qubic" {
                        assert_eq!(layers, 1, "{game}: one layer at a time");
                    // Seen on the screenshots: Qubic's four tabs wrapped
                    // "Layer A" over two lines.
                    let wrapped = page
                        .js("return [...document.querySelectorAll('#board .layer-name')]
                               .filter(n => n.getBoundingClientRect().height
                                            > 1.8 * parseFloat(getComputedStyle(n).fontSize)).length")
                        .await;
                    assert_eq!(wrapped, 0, "{game}: a layer's tab on two lines");
                    }
                }
            },
        )
        .await;
    checks
        .run(
            "phone: the value and the moves right after the board",
            async {
                for (game, start, moves) in &boards {
                    let mut query = format!(
                        "?game={}&first=human&second=human&moves={}",
                        enc(game),
                        enc(moves)
                    );
                    if !start.is_empty() {
                        query.push_str(&format!("&start={}", enc(start)));
                    }
                    page.visit(&query).await;
                    let tops = page
                        .js("const b = document.querySelector('#moves button');
                         return [document.getElementById('value').getBoundingClientRect().bottom,
                                 b ? b.getBoundingClientRect().top : 1e9, innerHeight]")
                        .await;
                    let [value, first, height]: [f64; 3] = serde_json::from_value(tops).unwrap();
                    assert!(
                        value <= height && first < height,
                        "{game}: value ends at {value}, the first move at {first} of {height}"
                    );
                }
            },
        )
        .await;
    page.viewport(1280, 800).await;
}

/// Screenshots of every board in every theme, desktop and phone; the
/// board stays square and inside the window.
async fn screenshots(page: &Page) {
    let late_5x5 = late_5x5().join(" ");
    let listed = page
        .js("return [...document.getElementById('game').options].map(o => o.value)")
        .await;
    let listed: Vec<String> = serde_json::from_value(listed).unwrap();
    let mut games = vec![
        "tictactoe",
        "cube",
        "qubic",
        "dots:1x7",
        "dots:2x2",
        "dots:3x3",
        "dots:5x5",
    ];
    if listed.iter().any(|g| g == "tictactoe:4x4") {
        games.insert(1, "tictactoe:4x4");
    }
    for (width, height) in [(1280, 800), (390, 844)] {
        page.viewport(width, height).await;
        for game in &games {
            // A few moves in, so marks, values and boxes all show (Qubic
            // inside its strategy, O to move: every move a loss "in ≤ N";
            // 5×5 with 40 edges drawn).
            let (start, moves) = match *game {
                "tictactoe" => ("", "4 0 2"),
                "tictactoe:4x4" => ("", "5 0 10"),
                "cube" => ("", "13 0 4"),
                "qubic" => ("", "0 21 15"),
                "dots:1x7" => ("", "h0,0 v0,0 h1,0"),
                "dots:2x2" => ("", "h0,0 v0,0 h1,0 v0,1 h2,1"),
                "dots:5x5" => ("", late_5x5.as_str()),
                _ => ("", "h0,0 v0,0 h1,0 v0,1 h3,2 v2,3"),
            };
            for theme in ["light", "dark", "contrast"] {
                page.js(&format!("localStorage.setItem('solvedb-theme', '{theme}')"))
                    .await;
                let mut query = format!(
                    "?game={}&moves={}&first=human&second=human",
                    enc(game),
                    enc(moves)
                );
                if !start.is_empty() {
                    query.push_str(&format!("&start={}", enc(start)));
                }
                page.open(&query).await;
                // Taken first, so that a failing check below can be looked at.
                let name = format!("{}-{theme}-{width}", game.replace(':', "-"));
                page.screenshot(&name).await;
                assert!(page.problem().await.is_none(), "{game}: {query}");
                page.check_values_shown().await;
                let rect = page
                    .js(
                        "const shown = [...document.querySelectorAll('#board .grid, #board svg')]
                           .find(e => e.getClientRects().length > 0);
                         const r = shown.getBoundingClientRect();
                         return [r.width, r.height, r.right, window.innerWidth]",
                    )
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
        // The problem view, the review and the legend, in the light theme.
        page.js("localStorage.setItem('solvedb-theme', 'light')")
            .await;
        page.open("?game=tictactoe&moves=4+4").await;
        page.screenshot(&format!("problem-light-{width}")).await;
        page.open("?game=tictactoe&start=hello").await;
        page.screenshot(&format!("problem-start-light-{width}"))
            .await;
        page.open("?game=chess").await;
        page.screenshot(&format!("problem-game-light-{width}"))
            .await;
        page.open(&format!(
            "?game=tictactoe&first=human&second=human&moves={}",
            thrown_away(&page.oracle).join("+")
        ))
        .await;
        page.screenshot(&format!("review-light-{width}")).await;
    }
    page.viewport(1280, 800).await;
}
