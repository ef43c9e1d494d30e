//! The explorer where the server searches live (no complete table): the
//! ranges a stopped search proved drawn on every searched dots board, one
//! end or both on either side of zero; a Qubic win in one off the
//! strategy settled by forced play before any search, its winning move
//! proven best while the others stay open and played by the perfect
//! computer; and one search per position, counted by the server; the
//! streamed analysis narrowing (Qubic and dots), and a Qubic table's answer
//! streamed before the search values the moves it leaves open; a review cost known only
//! as a range said as one; a 5x5 board on a phone with no tag overlapping
//! another or off the board; and the page's smaller promises (first
//! visit, bad link, untagged cells, sources of forced play, rated game).
//! Headless Chromium over WebDriver, as `browser_flows`.

use std::time::{Duration, Instant};

use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{BoardKind, Dots, Game, GameId, Qubic, Stop, Want, catalogue};
use solvedb_server::http::ServerLimits;
use solvedb_tests::explorer::*;

#[test]
fn searched_positions_in_headless_chromium() {
    run_browser_test(|| async {
        let started = Instant::now();
        let profile = tempfile::tempdir().unwrap();
        let (_driver, page) = start(profile.path()).await;
        smaller_items(&page).await;
        qubic_win_in_one(&page).await;
        eprintln!("qubic: {:.1} s", started.elapsed().as_secs_f64());
        ranges_narrow_as_they_stream(&page).await;
        a_tables_answer_streams_first_then_its_open_moves(&page).await;
        dots_ranges_narrow_as_they_stream(&page).await;
        eprintln!("stream: {:.1} s", started.elapsed().as_secs_f64());
        ranges_on_every_dots_board(&page).await;
        eprintln!("dots: {:.1} s", started.elapsed().as_secs_f64());
        creator_takes_a_seat(&page).await;
        finish(page, started).await;
    });
}

/// The page's query for `position` of `game`, two people at the board.
fn for_two(game: &str, position: &str) -> String {
    format!(
        "?game={game}&start={}&first=human&second=human",
        enc(position)
    )
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

/// The page's smaller promises, in the one session: the first visit's
/// line (and none on the next), the bad link's game menu naming the
/// link's game, Qubic's untagged cells counted and explained, the source
/// sentence of an answer of forced play true of its kind (a threat line's
/// bound: the defender has choices), the rated game's sentence in one
/// line of text with the name field still editable once it is ticked.
async fn smaller_items(page: &Page) {
    // The first visit (a fresh profile) says what the page is, once.
    page.open("").await;
    let intro = page
        .js("const i = document.getElementById('intro'); return i.hidden ? '' : i.textContent")
        .await;
    assert!(
        intro.as_str().is_some_and(|t| t.len() > 20),
        "first visit: {intro}"
    );
    page.open("").await;
    assert_eq!(
        page.js("return document.getElementById('intro').hidden")
            .await,
        true
    );

    // A bad Qubic link: the problem page's game menu names Qubic.
    page.visit("?game=qubic&start=not-a-position").await;
    assert!(
        page.problem().await.is_some(),
        "a bad link shows the problem"
    );
    assert_eq!(
        page.js("return document.getElementById('game').value")
            .await,
        "qubic"
    );

    // Qubic's start: the strategy gives X's move only; the cells without
    // a tag are counted in the meaning.
    page.open("?game=qubic&first=human&second=human").await;
    let (tagged, cells): (usize, usize) = serde_json::from_value(
        page.js(
            "return [document.querySelectorAll('#board [data-move] .tag').length,
                         document.querySelectorAll('#board [data-move]').length]",
        )
        .await,
    )
    .unwrap();
    let explain = page.text("explain").await;
    assert!(tagged < cells, "{tagged} of {cells} tagged");
    assert!(
        explain.contains(&format!("{} cells without a tag", cells - tagged)),
        "{explain}"
    );

    // An answer of the rules whose length is a bound (a threat line): its
    // source says the defender may reply otherwise, never that every move
    // is forced; one of exact forced play says neither.
    let (bounded, exact) = qubic_forced_positions(&page.oracle);
    for (position, bound) in [(&bounded, true), (&exact, false)] {
        page.open(&for_two("qubic", position)).await;
        page.screenshot(if bound {
            "qubic-forced-bound-1280"
        } else {
            "qubic-forced-exact-1280"
        })
        .await;
        let source = page.text("source").await;
        assert!(
            !source.contains("every move to the end"),
            "{position}: {source}"
        );
        assert!(source.contains("without a search"), "{position}: {source}");
        assert_eq!(
            source.contains("may reply otherwise"),
            bound,
            "{position}: {source}"
        );
        let explain = page.text("explain").await;
        assert!(
            !explain.contains("a bound from the proved strategy"),
            "{position}: {explain}"
        );
    }

    // Rated: its sentence one run of text (the link inline, not floated
    // away), the name field editable once ticked.
    page.open("?game=tictactoe&first=human&second=perfect")
        .await;
    page.click("rated").await;
    let rated = page
        .js("const span = document.querySelector('#rated + span');
             const a = span.querySelector('a');
             const s = span.getBoundingClientRect(), r = a.getBoundingClientRect();
             const name = document.getElementById('name');
             return [span.children.length === 1 && span.textContent.includes('goes into the leaderboard'),
                     getComputedStyle(a).float === 'none' && r.left >= s.left && r.right <= s.right
                       && r.top >= s.top && r.bottom <= s.bottom,
                     !name.disabled && !name.readOnly]")
        .await;
    page.screenshot("rated-ticked-1280").await;
    assert_eq!(
        rated,
        serde_json::json!([true, true, true]),
        "rated: {rated}"
    );
    page.click("rated").await;
}

/// Two Qubic positions the rules answer without the strategy's table: one
/// where the answer's length is a bound (a threat line), one exact.
fn qubic_forced_positions(oracle: &solvedb_lookup::Oracle) -> (String, String) {
    let g = Qubic;
    let mut rng = Rng::new(4559);
    let (mut bounded, mut exact) = (None, None);
    for _ in 0..100_000 {
        let mut p = g.start();
        for _ in 0..rng.below(14) + 4 {
            let moves = g.moves(p);
            p = g.play(p, *rng.pick(&moves)).0;
            if g.terminal_score(p).is_some() {
                break;
            }
        }
        if g.terminal_score(p).is_some() {
            continue;
        }
        let text = g.notation(p);
        let Ok(report) = oracle.answer_within(GameId::Qubic, &text, Want::Moves, &table_only())
        else {
            continue;
        };
        if report.source != solvedb_lookup::Source::ForcedPlay {
            continue;
        }
        match report.value {
            solvedb_lookup::AnyValue::AtMost(_) => bounded.get_or_insert(text),
            _ => exact.get_or_insert(text),
        };
        if let (Some(b), Some(e)) = (&bounded, &exact) {
            return (b.clone(), e.clone());
        }
    }
    panic!("no forced Qubic positions: bound {bounded:?}, exact {exact:?}");
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
    let query = for_two("qubic", &position);
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
    let base = serve(limits).await;
    let boards: Vec<GameId> = catalogue()
        .iter()
        .filter(|g| g.explorer && g.board.kind() == BoardKind::Dots)
        .map(|g| g.id)
        .filter(|&id| !page.oracle.has_table(id))
        .collect();
    assert!(boards.len() >= 3, "{boards:?}");
    let mut rng = Rng::new(4518);
    let (mut ranged_costs, mut one_sided) = (0, 0);
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
            ranged_costs += range_cost_said_as_range(page, game, &text).await;
            one_sided += one_sided_value_said(page, game, &text).await;
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
        eprintln!(
            "{game}: so far {ranged_costs} costs known only as a range, {one_sided} values above zero at both ends"
        );
        if (rows, cols) == (5, 5) {
            // On a phone the ranges' tags stay readable: 12 px at least.
            page.viewport(390, 844).await;
            page.c.refresh().await.unwrap();
            page.idle_within(Duration::from_secs(20)).await;
            let (_, _, tag, _) = phone_sizes(page).await;
            page.screenshot("dots-5x5-ranges-390").await;
            assert!(tag >= 12.0, "{game}: range tags of {tag:.1} px on a phone");
            // No two tags overlap, and every tag lies on the board.
            let clash = page
                .js("const board = document.querySelector('#board svg').getBoundingClientRect();
                     const tags = [...document.querySelectorAll('#board .edge-tag')]
                       .map((t) => [t.textContent, t.getBoundingClientRect()]);
                     const out = [];
                     for (const [text, r] of tags) {
                       if (r.left < board.left || r.right > board.right ||
                           r.top < board.top || r.bottom > board.bottom) out.push(`${text} off the board`);
                     }
                     for (let i = 0; i < tags.length; i++)
                       for (let j = i + 1; j < tags.length; j++) {
                         const [a, r] = tags[i], [b, q] = tags[j];
                         if (r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom)
                           out.push(`${a} overlaps ${b}`);
                       }
                     return [tags.length, out];")
                .await;
            let (count, clashes): (usize, Vec<String>) = serde_json::from_value(clash).unwrap();
            assert!(
                count > 0 && clashes.is_empty(),
                "{game} at 390 px: {clashes:?}"
            );
            page.viewport(1280, 800).await;
        }
    }
    assert!(ranged_costs > 0, "no move's cost was known only as a range");
}

/// Where the stopped answer of `position` proves a move gave boxes away
/// but only bounds how many (the value's range less the move's), the
/// review's verdict on it, judged and drawn by the page's own code, says
/// the range, not one count. Returns 1 where there was such a move.
async fn range_cost_said_as_range(page: &Page, game: GameId, position: &str) -> usize {
    let said = page
        .js(&format!(
            "return (async () => {{
               const {{ judge, renderReview }} = await import('/assets/review.js');
               const r = await fetch('/api/v1/probe?game={}&position={}');
               const body = await r.json();
               if (r.ok || !body.bounds) return null;
               const b = body.bounds;
               const m = b.moves.find((m) => m.upper < b.lower && b.upper - m.lower > b.lower - m.upper);
               if (!m) return null;
               const v = judge({{ ok: false, ...body }}, null, m.move, {{ dots: true, coord: (x) => x }});
               const div = document.createElement('div');
               renderReview(div, [{{ ply: 0, seat: 0, who: 'A', coord: m.move, kept: null, ...v }}],
                 {{ dots: true, players: ['A', 'B'] }});
               return [div.querySelector('#verdicts li').textContent, b.lower - m.upper, b.upper - m.lower];
             }})()",
            enc(&game.to_string()),
            enc(position)
        ))
        .await;
    if said.is_null() {
        return 0;
    }
    let (text, least, most): (String, i64, i64) = serde_json::from_value(said).unwrap();
    assert!(
        text.contains(&format!("gave away between {least} and {most} boxes")),
        "{game} {position}: {text}"
    );
    1
}

/// Where the stopped answer of `position` (the page's) proves the value
/// above zero at both ends, the page says it is "at least" the low end.
/// Returns 1 where it was so.
async fn one_sided_value_said(page: &Page, game: GameId, position: &str) -> usize {
    let asked = page
        .js(&format!(
            "return fetch('/api/v1/probe?game={}&position={}').then(r => r.json())
               .then(b => b.bounds ? [b.bounds.lower, b.bounds.upper] : null)",
            enc(&game.to_string()),
            enc(position)
        ))
        .await;
    let Ok((lower, upper)) = serde_json::from_value::<(i64, i64)>(asked) else {
        return 0;
    };
    if lower <= 0 || lower == upper {
        return 0;
    }
    let explain = page.text("explain").await;
    assert!(
        explain.contains(&format!("the value is at least +{lower} box")),
        "{game} {position}: {lower}..{upper}: {explain}"
    );
    1
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
        let (events, steps, answer) = stream(page, "qubic", &position).await;
        if steps.len() >= 2 {
            break (position, events, steps, answer);
        }
        tried.push(position);
    };
    let answer = answer.unwrap_or_else(|| panic!("{position}: no answer in {events}"));
    assert!(steps.len() >= 2, "{position}: {} steps", steps.len());
    // Each move's range in a later step lies within its range before,
    // and a step settles one more move.
    for pair in steps.windows(2) {
        let (before, after) = (ranges(&pair[0]), ranges(&pair[1]));
        assert!(
            narrower(&before, &after),
            "{position}: {before:?} then {after:?}"
        );
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
    page.open(&for_two("qubic", &position)).await;
    page.screenshot("qubic-streamed-1280").await;
    let value = page.text("value").await;
    assert!(!value.contains("searching"), "{position}: {value}");
    eprintln!("streamed: {} steps, then {}", steps.len(), answer["status"]);
}

/// A position on Qubic's strategy line, X to move, where the tables value
/// only some moves: the stream sends the tables' answer first (a `moves`
/// event), then the answer with the moves the search settled added (the
/// tables' own moves and value unchanged), and the page shows it, its
/// untagged cells the answer's open moves.
async fn a_tables_answer_streams_first_then_its_open_moves(page: &Page) {
    let table =
        solvedb_lookup::read_table(&solvedb_tests::committed_tables().join("qubic.sdb")).unwrap();
    let mut strategy = solvedb_lookup::games::qubic::strategy::Strategy::new(&table);
    // Two positions: the stream read here, then one the page asks first
    // (a position asked before is answered from the server's cache).
    let mut found = (0..50u64)
        .filter_map(|seed| {
            let x_move = |b| Some(strategy.x_move(b).ok()??.cell.index());
            let board = solvedb_lookup::games::qubic::samples::people_position_with(
                6100 + seed,
                8,
                x_move,
            )?;
            let text = Qubic.notation(board);
            let report = page
                .oracle
                .answer_within(GameId::Qubic, &text, Want::Moves, &table_only())
                .ok()?;
            (!report.unknown.is_empty() && report.source != solvedb_lookup::Source::Search)
                .then_some((text, report))
        })
        .take(3);
    let mut next = || {
        found
            .next()
            .expect("strategy positions at 8 stones with moves the tables leave open")
    };
    let (position, tables) = next();
    let (on_page, on_page_tables) = next();
    let (for_best, best_tables) = next();

    // The perfect computer's move and a probe for the best move take the
    // tables' answer as it is: no search runs, and none is kept, so a
    // probe for every move searches the open moves after them.
    let probe = |want: &str| format!("probe?game=qubic&position={}&want={want}", enc(&for_best));
    let before = searches(page, &probe("value")).await;
    let computer = format!(
        "computer?game=qubic&position={}&level=perfect",
        enc(&for_best)
    );
    let played = page
        .js(&format!(
            "return fetch('/api/v1/{computer}').then(r => r.json()).then(j => j.move)"
        ))
        .await;
    let best_value = best_tables.moves[0].value;
    assert!(
        best_tables
            .moves
            .iter()
            .any(|m| m.value == best_value && Some(m.mv.as_str()) == played.as_str()),
        "{for_best}: the computer played {played}, not a best move of the tables"
    );
    assert_eq!(searches(page, &probe("best")).await, before, "{for_best}");
    assert_eq!(
        searches(page, &probe("moves")).await,
        before + 1,
        "{for_best}"
    );
    // A session against the perfect computer as X: its moves are the
    // strategy's and the person's are judged by the strategy's records,
    // so no search runs.
    let before = searches(page, &probe("value")).await;
    let history = page
        .js(
            r#"const post = (path, body) => fetch(`/api/v1/sessions${path}`, {
                   method: "POST", headers: {"content-type": "application/json"},
                   body: JSON.stringify(body)}).then(r => r.json());
               return (async () => {
                 let s = await post("", {game: "qubic", first: "perfect", second: "person",
                                         player: "strategy-session"});
                 for (let i = 0; i < 4 && !s.result; i++) {
                   const taken = new Set(s.history);
                   let mv = 0;
                   while (taken.has(String(mv))) mv++;
                   s = await post("/move", {session: s.session, move: String(mv)});
                 }
                 return s.history;
               })()"#,
        )
        .await;
    let history: Vec<String> =
        serde_json::from_value(history.clone()).unwrap_or_else(|e| panic!("{history}: {e}"));
    assert!(history.len() >= 8, "{history:?}");
    assert_eq!(searches(page, &probe("value")).await, before, "{history:?}");
    let (events, _, answer) = stream(page, "qubic", &position).await;
    let first: serde_json::Value = events
        .split("\n\n")
        .find_map(|block| {
            block.lines().any(|l| l == "event: moves").then(|| {
                let data = block
                    .lines()
                    .find_map(|l| l.strip_prefix("data: "))
                    .unwrap();
                serde_json::from_str(data).unwrap()
            })
        })
        .unwrap_or_else(|| panic!("{position}: no moves event in {events}"));
    let names = |json: &serde_json::Value, key: &str| -> Vec<String> {
        json[key].as_array().map_or(Vec::new(), |a| {
            a.iter()
                .map(|m| m.get("move").unwrap_or(m).as_str().unwrap().to_owned())
                .collect()
        })
    };
    assert_eq!(names(&first, "unknown_moves"), tables.unknown, "{position}");
    assert_eq!(
        names(&first, "moves").len(),
        tables.moves.len(),
        "{position}"
    );
    let answer = answer.unwrap_or_else(|| panic!("{position}: no answer in {events}"));
    assert_eq!(answer["status"], 200, "{position}: {answer}");
    let body = &answer["body"];
    assert_eq!(body["value"], first["value"], "{position}");
    let open = names(body, "unknown_moves");
    assert!(
        open.iter().all(|m| tables.unknown.contains(m)),
        "{position}: {open:?}"
    );
    for m in first["moves"].as_array().unwrap() {
        assert!(
            body["moves"].as_array().unwrap().contains(m),
            "{position}: {m} kept"
        );
    }
    // The answer names the moves its search valued: those beyond the
    // tables' answer, in the game's order.
    let by_tables = names(&first, "moves");
    let added: Vec<String> = Qubic
        .moves(Qubic.parse(&position).unwrap())
        .iter()
        .map(ToString::to_string)
        .filter(|m| names(body, "moves").contains(m) && !by_tables.contains(m))
        .collect();
    assert_eq!(names(body, "searched_moves"), added, "{position}");
    let valued = names(body, "moves").len();
    assert_eq!(
        valued + open.len(),
        Qubic.moves(Qubic.parse(&position).unwrap()).len()
    );
    eprintln!(
        "tables then search: {} of {} moves valued by the tables, {valued} after",
        tables.moves.len(),
        valued + open.len()
    );
    // The page: the tables' answer streamed, then the search's; its open
    // moves untagged, the moves it searched said to be.
    page.open(&for_two("qubic", &on_page)).await;
    // The page is idle only once the search's answer is in (within the
    // server's search time), not at the streamed tables' answer.
    page.idle().await;
    let explain = page.text("explain").await;
    assert!(!explain.contains("Searching the"), "{on_page}: {explain}");
    page.screenshot("qubic-table-then-search-1280").await;
    let listed = page
        .js("return document.querySelectorAll('#moves button').length")
        .await;
    let listed = usize::try_from(listed.as_u64().unwrap()).unwrap();
    let untagged = Qubic.moves(Qubic.parse(&on_page).unwrap()).len() - listed;
    let explain = page.text("explain").await;
    if untagged > 0 {
        assert!(
            explain.contains(&format!("{untagged} cell"))
                && explain.contains("the search within its time limit"),
            "{on_page}: {explain}"
        );
    }
    let searched = listed - on_page_tables.moves.len();
    let source = page.text("source").await;
    // The value's source as the tables' answer names it.
    let of_value = match on_page_tables.source {
        solvedb_lookup::Source::Table => "From the table",
        _ => "The value was worked out now without a search",
    };
    assert!(source.starts_with(of_value), "{on_page}: {source}");
    let said = match searched {
        0 => None,
        1 => Some("The value of 1 other move was worked out by an exact search".to_owned()),
        n => Some(format!(
            "The values of {n} other moves were worked out by an exact search"
        )),
    };
    match &said {
        Some(said) => assert!(source.contains(said), "{on_page}: {source}"),
        None => assert!(!source.contains("exact search"), "{on_page}: {source}"),
    }
    // Opened again, the position is answered from what the server kept
    // (no stream of the tables' answer first): the same moves, and the
    // same count of those its search valued.
    page.open(&for_two("qubic", &on_page)).await;
    page.idle().await;
    let again = page
        .js("return document.querySelectorAll('#moves button').length")
        .await;
    assert_eq!(again.as_u64(), Some(listed as u64), "{on_page}");
    let source = page.text("source").await;
    assert!(source.starts_with(of_value), "{on_page}: {source}");
    match &said {
        Some(said) => assert!(source.contains(said), "{on_page}: {source}"),
        None => assert!(!source.contains("exact search"), "{on_page}: {source}"),
    }
}

/// The server-sent events of the analysis of `position` of `game` (as
/// the API names it), fetched by the page: the whole text, the `bounds`
/// steps, the `answer`.
async fn stream(
    page: &Page,
    game: &str,
    position: &str,
) -> (String, Vec<serde_json::Value>, Option<serde_json::Value>) {
    let events = page
        .js(&format!(
            "return fetch('/api/v1/analysis?game={}&position={}').then(r => r.text())",
            enc(game),
            enc(position)
        ))
        .await;
    let events = events.as_str().unwrap().to_owned();
    let mut steps = Vec::new();
    let mut answer = None;
    for block in events.split("\n\n") {
        let kind = block.lines().find_map(|l| l.strip_prefix("event: "));
        let data = block.lines().find_map(|l| l.strip_prefix("data: "));
        match (kind, data) {
            (Some("bounds"), Some(d)) => steps.push(serde_json::from_str(d).unwrap()),
            (Some("answer"), Some(d)) => answer = Some(serde_json::from_str(d).unwrap()),
            _ => {}
        }
    }
    (events, steps, answer)
}

/// A value of the API on one scale: a margin as it is, a win or a loss by
/// its length (sooner is more extreme), a draw 0.
fn rank(v: &serde_json::Value) -> i64 {
    if let Some(margin) = v.as_i64() {
        return margin;
    }
    let plies = v["plies"].as_i64().unwrap();
    match v["result"].as_str().unwrap() {
        "win" => 1000 - plies,
        "loss" => -1000 + plies,
        _ => 0,
    }
}

/// The value's range and each move's in one `bounds` step, the value
/// first (named `""`).
fn ranges(step: &serde_json::Value) -> Vec<(String, i64, i64)> {
    let value = &step["bounds"];
    let moves = step["bounds"]["moves"].as_array().unwrap().iter().map(|m| {
        (
            m["move"].as_str().unwrap().to_owned(),
            rank(&m["lower"]),
            rank(&m["upper"]),
        )
    });
    std::iter::once((String::new(), rank(&value["lower"]), rank(&value["upper"])))
        .chain(moves)
        .collect()
}

/// How many of `ranges` are exact.
fn exact(ranges: &[(String, i64, i64)]) -> usize {
    ranges.iter().filter(|(_, lo, hi)| lo == hi).count()
}

/// Whether each range of `after` lies within its range of `before`, the
/// same moves in the same order.
fn narrower(before: &[(String, i64, i64)], after: &[(String, i64, i64)]) -> bool {
    before.len() == after.len()
        && before
            .iter()
            .zip(after)
            .all(|((mv, lo, hi), (mv2, lo2, hi2))| mv == mv2 && lo <= lo2 && hi2 <= hi)
}

/// A dots 4x4 position the server's search settles within its limit: the
/// streamed bounds (the value's, from each of the root's tests, then each
/// move's) only narrow, each step narrowing something, the first step
/// still open; the answer's values lie in the last step's ranges; the page
/// ends on the settled answer.
async fn dots_ranges_narrow_as_they_stream(page: &Page) {
    let board = Dots::new(4, 4).unwrap();
    let mut rng = Rng::new(4551);
    let mut tried = Vec::new();
    // Positions from the middle of the game towards its start, until one
    // takes the search several steps and is settled within the limit.
    let (position, steps, answer) = loop {
        assert!(
            tried.len() < 24,
            "no position streamed and settled: {tried:?}"
        );
        let undrawn = 18 + tried.len() as u32 / 2;
        let Some(p) = board.random_without_third_sides(&mut rng, undrawn) else {
            continue;
        };
        let position = board.notation(p);
        let (events, steps, answer) = stream(page, "dots:4x4", &position).await;
        let answer = answer.unwrap_or_else(|| panic!("{position}: no answer in {events}"));
        if answer["status"] == 200 && steps.len() >= 4 {
            break (position, steps, answer);
        }
        tried.push((position, steps.len(), answer["status"].clone()));
    };
    let all: Vec<Vec<(String, i64, i64)>> = steps.iter().map(ranges).collect();
    assert!(
        exact(&all[0]) < all[0].len(),
        "{position}: the first step is settled"
    );
    for pair in all.windows(2) {
        assert!(
            narrower(&pair[0], &pair[1]),
            "{position}: {:?} then {:?}",
            pair[0],
            pair[1]
        );
        assert_ne!(pair[0], pair[1], "{position}: a step narrows nothing");
    }
    // The answer's exact values lie in the last step's ranges.
    let last = all.last().unwrap();
    let body = &answer["body"];
    assert!(last[0].1 <= rank(&body["value"]) && rank(&body["value"]) <= last[0].2);
    for m in body["moves"].as_array().unwrap() {
        let name = m["move"].as_str().unwrap();
        let (_, lo, hi) = last.iter().find(|r| r.0 == name).unwrap();
        let v = rank(&m["value"]);
        assert!(
            lo <= &v && &v <= hi,
            "{position} {name}: {v} outside {lo}..{hi}"
        );
    }
    page.open(&for_two("dots:4x4", &position)).await;
    page.screenshot("dots-4x4-streamed-1280").await;
    let value = page.text("value").await;
    assert!(
        !value.contains("searching") && !value.contains("not settled"),
        "{position}: {value}"
    );
    let tags = page
        .js("return [...document.querySelectorAll('#board .edge-tag')].map(t => t.textContent)")
        .await;
    let tags: Vec<String> = serde_json::from_value(tags).unwrap();
    assert!(
        !tags.is_empty() && tags.iter().all(|t| !t.contains('…')),
        "{position}: {tags:?}"
    );
    eprintln!(
        "dots 4x4 streamed: {} steps ({} positions tried first)",
        steps.len(),
        tried.len()
    );
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
