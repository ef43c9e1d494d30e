//! The explorer page as the browser tests drive it: the server and a tab
//! ([`start`]), the page's controls and what it shows ([`Page`]), and the
//! positions and words the tests compare it with.

use std::future::Future;
use std::path::Path;
use std::time::{Duration, Instant};

use fantoccini::Locator;
use serde_json::Value;
use solvedb_lookup::testkit::{Rng, random_positions};
use solvedb_lookup::{AnyValue, Cube, Game, GameId, Oracle, Source, TicTacToe, Wdl, with_game};
use solvedb_server::http::{self, AppState, ServerLimits};

use crate::committed_tables;
use crate::webdriver::{Driver, Tab, move_selector};

/// The browser and the server of the run.
#[derive(Debug)]
pub struct Page {
    /// The browser tab.
    pub tab: Tab,
    /// The server's address, `http://HOST:PORT`.
    pub base: String,
    /// The oracle over the committed tables, for the expected values.
    pub oracle: Oracle,
}

/// The test's calls on its one tab ([`Tab`]), through the page.
impl std::ops::Deref for Page {
    type Target = Tab;

    fn deref(&self) -> &Tab {
        &self.tab
    }
}

pub const ENTER: &str = "\u{E007}";
pub const TAB: &str = "\u{E004}";
pub const LEFT: &str = "\u{E012}";
pub const UP: &str = "\u{E013}";
pub const RIGHT: &str = "\u{E014}";
pub const DOWN: &str = "\u{E015}";
pub const PAGE_DOWN: &str = "\u{E00F}";

/// A Qubic position with 40 stones from careful random play, X to move,
/// nobody threatening a cell: a win in 3 for X by a fork.
pub const QUBIC_LATE: &str =
    "XX../.O../...O/OX..//XOOO/O.XX/OXOX/X.O.//XX../XXO./X.OO/O.XX//OO../OO.X/.OXO/XX..";

/// Qubic after X's first move on an edge cell and O's in a corner (X to
/// move): not a position of the committed strategy (where X starts in a
/// corner), so only a live search answers it.
pub const QUBIC_EDGE_OPENING: &str =
    "OX../..../..../....//..../..../..../....//..../..../..../....//..../..../..../....";

/// Where the moves' heading is, the board's height, then the heights of
/// what is above the heading and the texts there (for the message when the
/// first two move).
pub const LAYOUT: &str = "const h = (id) => document.getElementById(id).getBoundingClientRect().height;
    return [document.getElementById('moves-title').getBoundingClientRect().top, h('board'),
            h('value'), h('progress'), h('explain'), h('source'),
            ...['value', 'explain', 'source'].map((id) => document.getElementById(id).textContent)]";

/// The words the page uses for a value.
pub fn words(value: AnyValue) -> String {
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
pub fn after_moves(game: GameId, moves: &[String]) -> String {
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
pub fn enc(text: &str) -> String {
    text.replace('%', "%25")
        .replace('/', "%2F")
        .replace(':', "%3A")
        .replace(' ', "+")
        .replace(',', "%2C")
}

impl Page {
    pub async fn notation(&self) -> String {
        self.js("return document.getElementById('notation').value")
            .await
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// Waits until the page has its answer and no computer move is due.
    pub async fn idle(&self) {
        self.idle_within(Duration::from_secs(30)).await;
    }

    pub async fn idle_within(&self, patience: Duration) {
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

    pub async fn goto(&self, path: &str) {
        self.c.goto(&format!("{}/{path}", self.base)).await.unwrap();
    }

    pub async fn open(&self, query: &str) {
        self.goto(query).await;
        self.idle().await;
    }

    /// Opens `query` and waits a little at most: for the checks, which
    /// must fail (not hang) on a page that never settles.
    pub async fn visit(&self, query: &str) {
        self.goto(query).await;
        self.idle_within(Duration::from_secs(10)).await;
    }

    pub async fn select(&self, id: &str, value: &str) {
        let select = self.c.find(Locator::Id(id)).await.unwrap();
        select.select_by_value(value).await.unwrap();
        self.idle().await;
    }

    pub async fn click_move(&self, mv: &str) {
        self.click_css(&move_selector(mv)).await;
        self.idle().await;
    }

    /// Sends a key to the focused element.
    pub async fn key(&self, k: &str) {
        let focused = self.c.active_element().await.unwrap();
        focused.send_keys(k).await.unwrap();
        self.idle().await;
    }

    pub async fn click(&self, id: &str) {
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
    pub async fn game(&self) -> GameId {
        self.js("return document.getElementById('game').value")
            .await
            .as_str()
            .unwrap()
            .parse()
            .unwrap()
    }

    /// The move the focused element stands for.
    pub async fn focused_move(&self) -> Value {
        self.js("return document.activeElement && document.activeElement.dataset.move || null")
            .await
    }

    /// Whether the link's problem is shown, and the board is not.
    pub async fn problem(&self) -> Option<String> {
        let shown = self
            .js("const p = document.getElementById('problem');
                 const cells = document.querySelectorAll('#board [data-move]').length;
                 return p && !p.hidden && cells === 0 ? p.textContent : null")
            .await;
        shown.as_str().map(str::to_owned)
    }

    /// Checks that every legal move of the position shown is marked on the
    /// board with the value the oracle gives it, and the list has them all,
    /// best first (and, of the moves the tables leave open, those the
    /// server's search valued). Returns the moves the oracle values.
    pub async fn check_values_shown(&self) -> Vec<String> {
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
        // Qubic's moves the tables leave open may have been valued by the
        // server's search as well (within its time): only those join.
        let extra: Vec<&String> = listed.iter().filter(|m| !expected.contains(m)).collect();
        assert!(
            extra.iter().all(|m| report.unknown.contains(m)),
            "moves listed that the tables value otherwise: {extra:?}"
        );
        let tabled: Vec<String> = listed
            .iter()
            .filter(|m| expected.contains(m))
            .cloned()
            .collect();
        assert_eq!(tabled, expected, "the move list, best first");
        expected
    }
}

/// Plays the open game to its end against the perfect level: a result is
/// announced, and a won game highlights its line of `line` cells.
pub async fn play_to_the_end_against_perfect(page: &Page, rng: &mut Rng, line: u64) {
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
pub async fn play_against_perfect(page: &Page, rng: &mut Rng) -> String {
    loop {
        let moves = page.check_values_shown().await;
        if moves.is_empty() {
            return page.text("score").await;
        }
        page.click_move(rng.pick(&moves).as_str()).await;
    }
}

/// A tic-tac-toe position where the player to move has losing moves that
/// hold out for different lengths, and the moves longest and shortest.
pub fn losses_of_two_lengths(oracle: &Oracle) -> (String, String, String) {
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
pub fn thrown_away(oracle: &Oracle) -> Vec<String> {
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
pub fn late_5x5() -> Vec<String> {
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
pub fn forced_cube_position(oracle: &Oracle) -> String {
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
pub async fn phone_sizes(page: &Page) -> (f64, f64, f64, i64) {
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

/// An HTTP server with the committed tables and `limits` on a free
/// loopback port, running until the test ends: its base URL.
pub async fn serve(limits: ServerLimits) -> String {
    let state = AppState::new(&committed_tables(), limits).unwrap();
    let listener = http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(http::serve_until(listener, state, std::future::pending()));
    base
}

/// The explorer's server on a free loopback port (live searches stopped
/// after 1 s), and a browser tab of a chromedriver session in `profile`
/// on it, at 1280×800. The driver must outlive the page.
pub async fn start(profile: &Path) -> (Driver, Page) {
    let limits = ServerLimits {
        search_time: Duration::from_secs(1),
        ..ServerLimits::default()
    };
    let base = serve(limits).await;
    let driver = Driver::start().await;
    let tab = driver.session(profile).await;
    tab.viewport(1280, 800).await;
    let page = Page {
        tab,
        base,
        oracle: Oracle::open(&committed_tables()).unwrap(),
    };
    (driver, page)
}

/// Runs `test` on a runtime of two workers (the browser tests' own).
pub fn run_browser_test<F: Future<Output = ()>>(test: impl FnOnce() -> F) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(test());
}

/// Ends a browser test: clears the page's storage, closes its tab and says
/// how long the test took since `started`.
pub async fn finish(page: Page, started: Instant) {
    page.js("localStorage.clear()").await;
    page.tab.c.close().await.unwrap();
    eprintln!(
        "browser tests took {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
