//! The explorer in a real browser: one named check per problem people met
//! with its address, coordinates, explanations and keyboard, each run even
//! when another fails, so that a run names every one that does. Headless
//! Chromium driven over WebDriver (chromedriver) against one in-process
//! server; needs the Debian packages `chromium` and `chromium-driver`
//! (`.ci/run` installs them); without them this test fails, it does not
//! skip.

use std::time::Instant;

use serde_json::Value;
use solvedb_lookup::{Game, GameId, with_game};
use solvedb_tests::explorer::*;
use solvedb_tests::webdriver::Checks;

#[test]
fn the_explorer_checks_in_headless_chromium() {
    run_browser_test(|| async {
        let started = Instant::now();
        let profile = tempfile::tempdir().unwrap();
        let (_driver, page) = start(profile.path()).await;
        let mut checks = Checks::default();
        explorer_checks(&page, &mut checks).await;
        eprintln!("checks: {:.1} s", started.elapsed().as_secs_f64());
        finish(page, started).await;
        checks.finish();
    });
}

/// One named check per problem of the explorer's address, coordinates,
/// explanations and keyboard.
async fn explorer_checks(page: &Page, checks: &mut Checks) {
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
    checks
        .run("qubic: bounds alone star no move; the opening table values more than the strategy's move", async {
            // O to move inside the strategy: every move a loss "in at most
            // N", so none is proved best; the largest bound is hinted as
            // the longest resistance known.
            page.visit("?game=qubic&first=human&second=human&moves=0%2021%2015").await;
            page.screenshot("qubic-bounds-starless-1280").await;
            let starred = page.js("return document.querySelectorAll('#board .best').length").await;
            assert_eq!(starred.as_u64(), Some(0), "a move starred on bounds alone");
            let hints = page.js("return [...document.querySelectorAll('#board [data-move]')].filter(b => (b.getAttribute('aria-label') || '').includes('longest resistance known')).length").await;
            assert!(hints.as_u64().unwrap_or(0) >= 1, "{hints}");
            // The computer as O there plays that move and says what it is.
            page.visit("?game=qubic&first=human&second=perfect&moves=0%2021%2015").await;
            page.screenshot("qubic-computer-resists-1280").await;
            let status = page.text("status").await;
            assert!(
                status.contains("O played") && status.contains("the longest resistance known: loss in"),
                "{status}"
            );
            // X to move six stones in, inside the strategy: wins beside the
            // strategy's move, from the opening table.
            page.visit("?game=qubic&first=human&second=human&moves=0%2021%2015%201%2012%2042").await;
            let wins = page.js("return [...document.querySelectorAll('#board [data-move]')].filter(b => (b.getAttribute('aria-label') || '').includes('win in')).length").await;
            page.screenshot("qubic-opening-wins-1280").await;
            assert!(wins.as_u64().unwrap_or(0) >= 5, "{wins}");
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
                !source.contains("(the rules)") && source.contains("finishes a line"),
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
}
