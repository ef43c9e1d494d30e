//! The explorer in a real browser: one named check per problem people met
//! with it while it waits, on smaller screens and on phones, each run even
//! when another fails; then screenshots of every board in every theme, at
//! desktop (1280×800) and phone (390×844) sizes, in `target/screenshots/`.
//! Headless Chromium driven over WebDriver (chromedriver) against one
//! in-process server; needs the Debian packages `chromium` and
//! `chromium-driver` (`.ci/run` installs them); without them this test
//! fails, it does not skip.

use std::time::{Duration, Instant};

use fantoccini::Locator;
use solvedb_tests::explorer::*;
use solvedb_tests::webdriver::Checks;

#[test]
fn the_explorer_layout_in_headless_chromium() {
    run_browser_test(|| async {
        let started = Instant::now();
        let profile = tempfile::tempdir().unwrap();
        let (_driver, page) = start(profile.path()).await;
        let mut checks = Checks::default();
        layout_checks(&page, &mut checks).await;
        eprintln!("checks: {:.1} s", started.elapsed().as_secs_f64());
        screenshots(&page).await;
        finish(page, started).await;
        checks.finish();
    });
}

/// One named check per problem of the explorer while it waits, on smaller
/// screens and on phones.
async fn layout_checks(page: &Page, checks: &mut Checks) {
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
