//! Play a friend in real browsers: two headless Chromium sessions (two
//! profiles, two people) on one chromedriver play whole games in one room
//! by clicks, through one in-process server; then the leaderboard page.
//! Needs `chromium` and `chromium-driver`; fails without them.
//! Screenshots of the flow and of the leaderboard, light and dark, desktop
//! and phone, go to `target/screenshots/rooms-*.png`.

use std::time::{Duration, Instant};

use fantoccini::Locator;
use serde_json::Value;
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{Error, Game, GameId, with_game};
use solvedb_server::http::{self, AppState, ServerLimits};
use solvedb_tests::committed_tables;
use solvedb_tests::webdriver::{Driver, Tab, move_selector};

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
    loop {
        let moves = with_game!(game, g => {
            let p = g.parse(&position).unwrap();
            Ok::<_, Error>(g.moves(p).iter().map(ToString::to_string).collect::<Vec<_>>())
        })
        .unwrap();
        if moves.is_empty() {
            break;
        }
        let mv = rng.pick(&moves).clone();
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
        p.c.set_window_size(1200, 900).await.unwrap();
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
                people[0].screenshot(&format!("create-{theme}-1200")).await;
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
        games_played += 1;
        if shots {
            for theme in ["light", "dark"] {
                for (width, height) in [(1200, 900), (390, 844)] {
                    for p in &people {
                        p.c.set_window_size(width, height).await.unwrap();
                        p.theme(theme).await;
                        p.c.refresh().await.unwrap();
                        p.settled(None).await;
                    }
                    people[0].screenshot(&format!("over-{theme}-{width}")).await;
                }
            }
            for p in &people {
                p.c.set_window_size(1200, 900).await.unwrap();
                p.theme("light").await;
            }
        }
    }

    // A mid-game screenshot: a fresh room, three moves in.
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
    for theme in ["light", "dark"] {
        for (width, height) in [(1200, 900), (390, 844)] {
            people[1].c.set_window_size(width, height).await.unwrap();
            people[1].theme(theme).await;
            people[1].c.refresh().await.unwrap();
            people[1].settled(Some(3)).await;
            people[1]
                .screenshot(&format!("midgame-{theme}-{width}"))
                .await;
        }
    }

    // A game against the computer on the explorer goes into the
    // leaderboard too, under the name given on the play page.
    let p = &people[0];
    p.c.goto(&format!(
        "{base}/?game=tictactoe&first=human&second=perfect"
    ))
    .await
    .unwrap();
    p.settled(None).await;
    loop {
        let free = p
            .js("return [...document.querySelectorAll('#board button.cell')]
                   .filter(b => b.textContent === '' || b.querySelector('.tag'))
                   .map(b => b.dataset.move)")
            .await;
        let free: Vec<String> = serde_json::from_value(free).unwrap();
        if free.is_empty() || !p.text("score").await.is_empty() {
            break;
        }
        let mv = rng.pick(&free).clone();
        p.click_css(&move_selector(&mv)).await;
        p.settled(None).await;
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let (_, board) = http_get(&base, "/api/v1/leaderboard?game=tictactoe").await;
        let names: Vec<&str> = board["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        if names.contains(&"computer (perfect)") {
            assert!(names.contains(&"ann"), "{names:?}");
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the game against the computer was not recorded: {names:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // The leaderboard page: both players, one line each per game played.
    let p = &people[1];
    for theme in ["light", "dark"] {
        for (width, height) in [(1200, 900), (390, 844)] {
            p.c.set_window_size(width, height).await.unwrap();
            p.theme(theme).await;
            p.c.goto(&format!("{base}/leaderboard")).await.unwrap();
            p.settled(None).await;
            let rows = p
                .js("return [...document.querySelectorAll('#entries tr')].map(r => [...r.children].map(c => c.textContent))")
                .await;
            let rows: Vec<Vec<String>> = serde_json::from_value(rows).unwrap();
            let names: Vec<&str> = rows.iter().map(|r| r[1].as_str()).collect();
            assert_eq!(names.len(), 3, "{rows:?}");
            assert!(names.contains(&"ann") && names.contains(&"bob"), "{rows:?}");
            let games = |name: &str| rows.iter().find(|r| r[1] == name).unwrap()[3].clone();
            assert_eq!(games("bob"), games_played.to_string(), "{rows:?}");
            assert_eq!(games("ann"), (games_played + 1).to_string(), "{rows:?}");
            assert_eq!(games("computer (perfect)"), "1", "{rows:?}");
            p.screenshot(&format!("leaderboard-{theme}-{width}")).await;
        }
    }
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
    drop(driver);
}
