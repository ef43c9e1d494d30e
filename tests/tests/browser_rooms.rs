//! Play a friend in real browsers: two headless Chromium sessions (two
//! profiles, two people) on one chromedriver play whole games in one room
//! by clicks, through one in-process server; a rated game against the
//! computer on the explorer, played through the server; two more people,
//! anonymous, who only draw; then the leaderboard page. Needs `chromium`
//! and `chromium-driver`; fails without them. Screenshots of the flow and
//! of the leaderboard, light and dark, desktop (1280×800) and phone
//! (390×844), go to `target/screenshots/rooms-*.png`.

use solvedb_server::store::min_moves;
use std::time::{Duration, Instant};

use fantoccini::Locator;
use serde_json::Value;
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{Error, Game, GameId, with_game};
use solvedb_server::http::{self, AppState, ServerLimits};
use solvedb_tests::committed_tables;
use solvedb_tests::webdriver::{Checks, Driver, Tab, move_selector};

/// `GET` over loopback: the status and the JSON body.
async fn http_get(base: &str, path: &str) -> (u16, Value) {
    let (status, body) = solvedb_server::http::client::Client::new()
        .get(&format!("{base}{path}"))
        .await
        .unwrap();
    (status, serde_json::from_str(&body).unwrap())
}

struct Person {
    tab: Tab,
}

/// A person's calls on their tab ([`Tab`]).
impl std::ops::Deref for Person {
    type Target = Tab;

    fn deref(&self) -> &Tab {
        &self.tab
    }
}

impl Person {
    /// Waits until the page is idle with `moves` moves (any count if None).
    async fn settled(&self, moves: Option<usize>) {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let state = self
                .js("return [document.body.dataset.state || '', document.body.dataset.moves || '']")
                .await;
            let idle = state[0] == "idle";
            let count = state[1].as_str().unwrap().parse::<usize>().ok();
            if idle && (moves.is_none() || count == moves) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the page never showed {moves:?} moves: {state}, {}",
                self.text("turn").await
            );
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }

    async fn screenshot(&self, name: &str) {
        self.tab.screenshot(&format!("rooms-{name}")).await;
    }

    async fn theme(&self, theme: &str) {
        self.js(&format!("localStorage.setItem('solvedb-theme', '{theme}')"))
            .await;
    }
}

/// Creates a room of `game` on `host`'s page; returns the two seat links.
async fn create_room(host: &Person, base: &str, game: &str) -> [String; 2] {
    host.c.goto(&format!("{base}/play")).await.unwrap();
    host.settled(None).await;
    host.c
        .find(Locator::Id("game"))
        .await
        .unwrap()
        .select_by_value(game)
        .await
        .unwrap();
    host.click_css("#make").await;
    let deadline = Instant::now() + Duration::from_secs(10);
    while host
        .js("return document.getElementById('links').hidden")
        .await
        == true
    {
        assert!(
            Instant::now() < deadline,
            "no links: {}",
            host.text("status").await
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let links = host
        .js("return [document.getElementById('link-first').value, document.getElementById('link-second').value]")
        .await;
    serde_json::from_value(links).unwrap()
}

/// Plays a whole game by clicks, random legal moves (by the library's
/// rules), each on the page of the player whose turn the page says it is.
async fn play(people: &[Person; 2], game: GameId, rng: &mut Rng) -> String {
    let mut position = with_game!(game, g => Ok::<_, Error>(g.notation(g.start()))).unwrap();
    let mut seat = 0usize;
    let mut played = 0usize;
    let mut per_seat = [0usize; 2];
    let mut last: Option<String> = None;
    loop {
        let moves = with_game!(game, g => {
            let p = g.parse(&position).unwrap();
            Ok::<_, Error>(g.moves(p).iter().map(ToString::to_string).collect::<Vec<_>>())
        })
        .unwrap();
        if moves.is_empty() {
            break;
        }
        // Until each seat has made the game family's minimum of moves (a
        // shorter game does not rank), a move that does not end the game
        // if there is one.
        let going_on: Vec<String> = moves
            .iter()
            .filter(|mv| {
                with_game!(game, g => {
                    let p = g.parse(&position).unwrap();
                    let (n, _) = g.play(p, g.parse_move(mv.as_str()).unwrap());
                    Ok::<_, Error>(!g.moves(n).is_empty())
                })
                .unwrap()
            })
            .cloned()
            .collect();
        let short = per_seat.iter().any(|&n| n < min_moves(&game.to_string()));
        let mv = if short && !going_on.is_empty() {
            rng.pick(&going_on).clone()
        } else {
            rng.pick(&moves).clone()
        };
        if let (GameId::TicTacToe, Some(taken), 1) = (game, &last, played) {
            refused_move_names_its_cell(&people[seat], taken).await;
        }
        last = Some(mv.clone());
        per_seat[seat] += 1;
        // The other player's board refuses the click: not their turn.
        people[1 - seat].click_css(&move_selector(&mv)).await;
        people[seat].click_css(&move_selector(&mv)).await;
        played += 1;
        for p in people {
            p.settled(Some(played)).await;
        }
        let (after, same) = with_game!(game, g => {
            let p = g.parse(&position).unwrap();
            let (n, t) = g.play(p, g.parse_move(&mv).unwrap());
            Ok::<_, Error>((g.notation(n), t.same_mover))
        })
        .unwrap();
        position = after;
        if !same {
            seat = 1 - seat;
        }
    }
    people[0].text("turn").await
}

/// A click on a taken tic-tac-toe cell on the mover's page: the server
/// refuses it, and the page names the cell as the board does ("b2" for
/// cell 4: column letter, row number), not by its number.
/// Plays random free cells on the explorer's board against the computer
/// until the game ends (the score shows, or no cell is free).
async fn play_out_against_the_computer(p: &Person, rng: &mut Rng) {
    loop {
        let free = p
            .js("return [...document.querySelectorAll('#board button.cell')]
               .filter(b => b.textContent === '').map(b => b.dataset.move)")
            .await;
        let free: Vec<String> = serde_json::from_value(free).unwrap();
        if free.is_empty() || !p.text("score").await.is_empty() {
            break;
        }
        let mv = rng.pick(&free).clone();
        p.click_css(&move_selector(&mv)).await;
        p.settled(None).await;
    }
}

async fn refused_move_names_its_cell(person: &Person, taken: &str) {
    let cell: u32 = taken.parse().unwrap();
    let name = format!("{}{}", char::from(b'a' + (cell % 3) as u8), cell / 3 + 1);
    person.click_css(&move_selector(taken)).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        let status = person.text("status").await;
        if status.contains("Refused") {
            break status;
        }
        assert!(Instant::now() < deadline, "no refusal of {taken}: {status}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    };
    assert!(
        status.contains(&format!("move {name}")) && !status.contains(&format!("move {taken}")),
        "{taken}: {status}"
    );
    person.settled(Some(1)).await;
}

#[test]
fn two_people_play_a_room_in_two_chromium_sessions() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run());
}

async fn run() {
    let data = tempfile::tempdir().unwrap();
    let state = AppState::new(&committed_tables(), ServerLimits::default())
        .unwrap()
        .with_data(data.path())
        .unwrap();
    let listener = http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(http::serve_until(listener, state, std::future::pending()));
    let driver = Driver::start().await;
    let profiles = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let people = [
        Person {
            tab: driver.session(profiles[0].path()).await,
        },
        Person {
            tab: driver.session(profiles[1].path()).await,
        },
    ];
    for p in &people {
        p.viewport(1280, 800).await;
    }
    let mut rng = Rng::new(1111);
    // Names, kept in each browser's storage.
    for (p, name) in people.iter().zip(["ann", "bob"]) {
        p.c.goto(&format!("{base}/play")).await.unwrap();
        p.js(&format!("localStorage.setItem('solvedb-name', '{name}')"))
            .await;
    }

    let mut games_played = 0;
    for (game, shots) in [("tictactoe", true), ("dots:2x2", false), ("cube", false)] {
        let id: GameId = game.parse().unwrap();
        let links = create_room(&people[0], &base, game).await;
        assert!(
            links[0].contains("token=") && links[1].contains("invite="),
            "{links:?}"
        );
        if shots {
            for theme in ["light", "dark"] {
                people[0].theme(theme).await;
                people[0].c.refresh().await.unwrap();
                // A reload shows the form again; the links need a new room.
                let _ = create_room(&people[0], &base, game).await;
                people[0].screenshot(&format!("create-{theme}-1280")).await;
            }
            people[0].theme("light").await;
        }
        people[0].c.goto(&links[0]).await.unwrap();
        people[1].c.goto(&links[1]).await.unwrap();
        for p in &people {
            p.settled(Some(0)).await;
        }
        // Each page shows both names and whose turn it is.
        let seats = people[1].text("players").await;
        assert!(
            seats.contains("ann") && seats.contains("bob (you)"),
            "{seats}"
        );
        assert!(people[0].text("turn").await.starts_with("your move"));
        assert!(people[1].text("turn").await.starts_with("waiting for ann"));
        let end = play(&people, id, &mut rng).await;
        assert!(end.starts_with("game over"), "{end}");
        assert_eq!(
            people[1]
                .js("return document.getElementById('review').hidden")
                .await,
            false
        );
        // Each move that gave something away is said exactly, from the
        // values it was judged by, with a move that would have held.
        let missed: Vec<String> = serde_json::from_value(
            people[1]
                .js("return [...document.querySelectorAll('#verdicts li.missed')].map(li => li.textContent)")
                .await,
        )
        .unwrap();
        for text in &missed {
            assert!(
                [
                    "turned a win into a draw",
                    "turned a draw into a loss",
                    "turned a win into a loss",
                    "gave away"
                ]
                .iter()
                .any(|said| text.contains(said))
                    && text.contains("would have held it"),
                "{text}"
            );
        }
        // The room's game is recorded, and the page says so with its rank.
        let record = people[1].text("record").await;
        assert!(
            record == "Recorded in the leaderboard."
                || record.starts_with("Recorded, not ranked: "),
            "{record}"
        );
        games_played += 1;
        if shots {
            for theme in ["light", "dark"] {
                for (width, height) in [(1280, 800), (390, 844)] {
                    for p in &people {
                        p.viewport(width, height).await;
                        p.theme(theme).await;
                        p.c.refresh().await.unwrap();
                        p.settled(None).await;
                    }
                    people[0].screenshot(&format!("over-{theme}-{width}")).await;
                }
            }
            for p in &people {
                p.viewport(1280, 800).await;
                p.theme("light").await;
            }
        }
    }

    let mut checks = Checks::default();

    // A mid-game screenshot: a fresh room, three moves in; the history and
    // the announcements in coordinates.
    let links = create_room(&people[0], &base, "tictactoe").await;
    people[0].c.goto(&links[0]).await.unwrap();
    people[1].c.goto(&links[1]).await.unwrap();
    people[0].settled(Some(0)).await;
    people[1].settled(Some(0)).await;
    for (k, mv) in ["4", "0", "8"].iter().enumerate() {
        people[k % 2].click_css(&move_selector(mv)).await;
        people[0].settled(Some(k + 1)).await;
        people[1].settled(Some(k + 1)).await;
    }
    checks
        .run("a room's history in coordinates", async {
            let history = people[1]
                .js("return [...document.querySelectorAll('#history li')].map(li => li.textContent)")
                .await;
            assert_eq!(history, serde_json::json!(["X b2", "O a1", "X c3"]));
        })
        .await;
    checks
        .run("a room's announcements in coordinates", async {
            let status = people[1].text("status").await;
            assert_eq!(status, "ann (X) played c3. Your move.");
            let status = people[0].text("status").await;
            assert!(status.starts_with("You played c3."), "{status}");
        })
        .await;
    for theme in ["light", "dark"] {
        for (width, height) in [(1280, 800), (390, 844)] {
            people[1].viewport(width, height).await;
            people[1].theme(theme).await;
            people[1].c.refresh().await.unwrap();
            people[1].settled(Some(3)).await;
            people[1]
                .screenshot(&format!("midgame-{theme}-{width}"))
                .await;
        }
    }
    people[1].viewport(1280, 800).await;
    people[1].theme("light").await;

    // A rated game against the computer on the explorer: played through
    // the server (the page sends each move, the server answers with the
    // computer's), the values hidden until the end, then recorded.
    let p = &people[0];
    checks
        .run(
            "a rated game against the computer is played through the server",
            async {
                p.c.goto(&format!(
                    "{base}/?game=tictactoe&first=human&second=perfect"
                ))
                .await
                .unwrap();
                p.settled(None).await;
                p.click_css("#rated").await;
                p.settled(None).await;
                assert_eq!(
                    p.js("return document.querySelectorAll('#board .tag').length")
                        .await,
                    0,
                    "values hidden"
                );
                play_out_against_the_computer(p, &mut rng).await;
                let status = p.text("status").await;
                assert!(status.contains("Recorded in the leaderboard"), "{status}");
                assert!(
                    !p.js("return document.getElementById('review').hidden")
                        .await
                        .as_bool()
                        .unwrap()
                );
                let (_, board) = http_get(&base, "/api/v1/leaderboard?game=tictactoe").await;
                let people: Vec<&str> = board["entries"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e["name"].as_str().unwrap())
                    .collect();
                let computer: Vec<&str> = board["computer"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e["name"].as_str().unwrap())
                    .collect();
                assert!(people.contains(&"ann"), "{people:?}");
                assert_eq!(
                    computer,
                    ["computer (perfect)"],
                    "the computer apart from people"
                );
                assert!(
                    !people.iter().any(|n| n.starts_with("computer")),
                    "{people:?}"
                );
            },
        )
        .await;
    checks
        .run(
            "a rated game against the random level is recorded, not ranked, and says why",
            async {
                p.c.goto(&format!("{base}/?game=tictactoe&first=human&second=random"))
                    .await
                    .unwrap();
                p.settled(None).await;
                p.click_css("#rated").await;
                p.settled(None).await;
                play_out_against_the_computer(p, &mut rng).await;
                let status = p.text("status").await;
                assert!(
                    status.contains("Recorded, not ranked: games against the computer's random level do not rank."),
                    "{status}"
                );
            },
        )
        .await;
    checks
        .run("a posted move list makes no result", async {
            let answer = p
                .js("return fetch('/api/v1/games', {method: 'POST', headers: {'content-type': 'application/json'},
                       body: JSON.stringify({game: 'tictactoe', moves: ['0','3','1','4','2'],
                                             players: {first: 'eve', second: 'computer (perfect)'}})})
                       .then(r => r.status)")
                .await;
            assert_eq!(answer, 405);
            let (_, board) = http_get(&base, "/api/v1/leaderboard").await;
            assert!(!board.to_string().contains("eve"), "{board}");
        })
        .await;
    checks
        .run("the computer's names are refused to people", async {
            p.c.goto(&format!("{base}/play")).await.unwrap();
            p.settled(None).await;
            let field = p.c.find(Locator::Id("create-name")).await.unwrap();
            field.clear().await.unwrap();
            field.send_keys("Computer (perfect)").await.unwrap();
            p.click_css("#make").await;
            p.settled(None).await;
            assert_eq!(
                p.js("return document.getElementById('links').hidden").await,
                true,
                "no room made"
            );
            let note = p.text("create-note").await;
            assert!(note.contains("the computer's name"), "{note}");
            assert_eq!(
                p.js("return localStorage.getItem('solvedb-name')").await,
                "ann"
            );
        })
        .await;

    // The leaderboard page: both players, one line each, the computer apart.
    let p = &people[1];
    for theme in ["light", "dark"] {
        for (width, height) in [(1280, 800), (390, 844)] {
            p.viewport(width, height).await;
            p.theme(theme).await;
            p.c.goto(&format!("{base}/leaderboard")).await.unwrap();
            p.settled(None).await;
            let rows = p
                .js("return [...document.querySelectorAll('#entries tr')].filter(r => r.children.length > 1)
                       .map(r => [...r.children].map(c => c.textContent))")
                .await;
            let rows: Vec<Vec<String>> = serde_json::from_value(rows).unwrap();
            let names: Vec<&str> = rows.iter().map(|r| r[1].as_str()).collect();
            assert_eq!(names.len(), 2, "{rows:?}");
            assert!(names.contains(&"ann") && names.contains(&"bob"), "{rows:?}");
            let games = |name: &str| rows.iter().find(|r| r[1] == name).unwrap()[3].clone();
            assert_eq!(games("bob"), games_played.to_string(), "{rows:?}");
            assert_eq!(games("ann"), (games_played + 1).to_string(), "{rows:?}");
            let computer = p
                .js("return [...document.querySelectorAll('#computer tr')].map(r => [...r.children].map(c => c.textContent))")
                .await;
            let computer: Vec<Vec<String>> = serde_json::from_value(computer).unwrap();
            assert_eq!(computer.len(), 1, "{computer:?}");
            assert_eq!(
                (computer[0][0].as_str(), computer[0][3].as_str()),
                ("perfect", "1")
            );
            p.screenshot(&format!("leaderboard-{theme}-{width}")).await;
        }
    }
    p.viewport(1280, 800).await;
    p.theme("light").await;
    // The ranking rules, stated on the page with the server's figures.
    checks
        .run("the leaderboard page states the ranking rules", async {
            let (_, board) = http_get(&base, "/api/v1/leaderboard").await;
            p.click_css("#rules summary").await;
            let rules = p.text("rules").await;
            for rule in [
                "unjudged move is never counted as accurate",
                "random level do not rank",
                "Playing yourself",
            ] {
                assert!(rules.contains(rule), "{rule:?} in {rules}");
            }
            let minimums = format!(
                "minimum of moves: {} in 3×3 tic-tac-toe, the 3×3×3 cube and dots-and-boxes, {} in 4×4 tic-tac-toe and Qubic",
                min_moves("tictactoe"),
                min_moves("qubic")
            );
            assert!(rules.contains(&minimums), "{minimums:?} in {rules}");
            let per_hour = format!(
                "at most {} new players (browsers) an hour",
                board["new_identities_per_hour"]
            );
            assert!(rules.contains(&per_hour), "{per_hour:?} in {rules}");
            let min_games = format!("after {} ranked games", board["min_games"]);
            assert!(rules.contains(&min_games), "{min_games:?} in {rules}");
            p.screenshot("leaderboard-rules").await;
        })
        .await;
    // One game's leaderboard through the picker.
    p.c.find(Locator::Id("game"))
        .await
        .unwrap()
        .select_by_value("cube")
        .await
        .unwrap();
    p.settled(None).await;
    assert!(p.text("status").await.contains("cube"));
    for person in people {
        person.tab.c.close().await.unwrap();
    }

    // Two more people, who give no name: a drawn room game. Two lines,
    // not one "anonymous"; a player with only draws breaks nothing.
    let profiles = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
    let people = [
        Person {
            tab: driver.session(profiles[0].path()).await,
        },
        Person {
            tab: driver.session(profiles[1].path()).await,
        },
    ];
    for p in &people {
        p.viewport(1280, 800).await;
    }
    let links = create_room(&people[0], &base, "tictactoe").await;
    people[0].c.goto(&links[0]).await.unwrap();
    people[1].c.goto(&links[1]).await.unwrap();
    people[0].settled(Some(0)).await;
    people[1].settled(Some(0)).await;
    for (k, mv) in ["4", "0", "2", "6", "3", "5", "1", "7", "8"]
        .iter()
        .enumerate()
    {
        people[k % 2].click_css(&move_selector(mv)).await;
        people[0].settled(Some(k + 1)).await;
        people[1].settled(Some(k + 1)).await;
    }
    let p = &people[1];
    checks
        .run("a room's review in coordinates", async {
            let review = p.text("review-body").await;
            assert!(review.contains("kept the value"), "{review}");
            let first = p
                .js("return document.querySelector('#verdicts li .coord').textContent")
                .await;
            assert_eq!(first, "anonymous b2");
        })
        .await;
    checks
        .run("players who only drew: the leaderboard still answers, anonymous people apart", async {
            let (status, board) = http_get(&base, "/api/v1/leaderboard?game=tictactoe").await;
            assert_eq!(status, 200, "{board}");
            p.c.goto(&format!("{base}/leaderboard?game=tictactoe")).await.unwrap();
            p.settled(None).await;
            let anonymous = p
                .js("return [...document.querySelectorAll('#entries tr th')].map(c => c.textContent)
                       .filter(t => t.startsWith('anonymous'))")
                .await;
            let anonymous: Vec<String> = serde_json::from_value(anonymous).unwrap();
            assert_eq!(anonymous.len(), 2, "{anonymous:?}");
            assert_ne!(anonymous[0], anonymous[1], "told apart by number: {anonymous:?}");
            let unranked = p
                .js("return [...document.querySelectorAll('#entries tr.unranked th')]
                       .filter(c => c.textContent.startsWith('anonymous')).length")
                .await;
            assert_eq!(unranked, 2, "one game each: no rank yet");
            // Over every game, ann and bob have played enough to rank.
            p.c.goto(&format!("{base}/leaderboard")).await.unwrap();
            p.settled(None).await;
            let ranks = p
                .js("return [...document.querySelectorAll('#entries tr')].filter(r => r.children.length > 1)
                       .map(r => r.children[0].textContent)")
                .await;
            assert_eq!(ranks, serde_json::json!(["1", "2", "—", "—"]));
        })
        .await;

    // Phones: /play's form first, the leaderboard whole.
    p.viewport(390, 844).await;
    checks
        .run("phone: the form to make a room comes first", async {
            p.c.goto(&format!("{base}/play")).await.unwrap();
            p.settled(None).await;
            let bottom = p.js("return [document.getElementById('make').getBoundingClientRect().bottom, innerHeight]").await;
            let [bottom, height]: [f64; 2] = serde_json::from_value(bottom).unwrap();
            assert!(bottom <= height, "Create room ends at {bottom} of {height}");
            p.screenshot("create-light-390").await;
        })
        .await;
    checks
        .run("phone: the leaderboard readable at 390 px", async {
            p.c.goto(&format!("{base}/leaderboard")).await.unwrap();
            p.settled(None).await;
            p.screenshot("leaderboard-anonymous-light-390").await;
            for id in ["board-table", "computer-table"] {
                let fit = p
                    .js(&format!("const t = document.getElementById('{id}');
                         return [t.scrollWidth, t.parentElement.clientWidth, document.documentElement.scrollWidth, innerWidth]"))
                    .await;
                let [table, wrap, page, width]: [f64; 4] = serde_json::from_value(fit).unwrap();
                assert!(table <= wrap && page <= width, "{id}: table {table} in {wrap}, page {page} in {width}");
                // Every word of every cell on one line ("comput/er" is not readable).
                let broken = p
                    .js(&format!("const broken = [];
                         for (const cell of document.querySelectorAll('#{id} tbody th, #{id} tbody td')) {{
                           const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
                           for (let n = walk.nextNode(); n; n = walk.nextNode()) {{
                             for (const m of n.data.matchAll(/\\S+/g)) {{
                               const r = document.createRange();
                               r.setStart(n, m.index);
                               r.setEnd(n, m.index + m[0].length);
                               if (r.getClientRects().length > 1) broken.push(m[0]);
                             }}
                           }}
                         }}
                         return broken"))
                    .await;
                assert_eq!(broken, serde_json::json!([]), "{id}: words broken over lines");
            }
        })
        .await;
    for person in people {
        person.tab.c.close().await.unwrap();
    }
    drop(driver);
    checks.finish();
}
