//! The leaderboard counts only what the server refereed: games against
//! the computer played through a session (the server makes the computer's
//! moves, referees the person's, judges both and records the end), and
//! room games, each counted for the per-browser identity in its seat; a
//! posted move list makes nothing. Players who only drew, only lost or
//! only won are listed; anonymous people are apart; the computer is
//! listed apart from people; a rank needs a minimum of games.

use crate::roomkit;

use std::collections::HashMap;
use std::time::Duration;

use roomkit::{Player, Server, identity_of};
use serde_json::{Value, json};
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{AnyValue, Error, Game, GameId, Oracle, with_game};
use solvedb_server::http::AppState;
use solvedb_server::http::ServerLimits;
use solvedb_server::http::sessions::SessionLimits;
use solvedb_server::store::{MIN_RANKED_GAMES, min_moves};
use solvedb_tests::committed_tables;

fn legal(game: GameId, position: &str) -> Vec<String> {
    with_game!(game, g => {
        let p = g.parse(position).unwrap();
        Ok::<_, Error>(g.moves(p).iter().map(ToString::to_string).collect())
    })
    .unwrap()
}

/// The position after `mv`, and whether its mover moves again.
fn after(game: GameId, position: &str, mv: &str) -> (String, bool) {
    with_game!(game, g => {
        let p = g.parse(position).unwrap();
        let (next, t) = g.play(p, g.parse_move(mv).unwrap());
        Ok::<_, Error>((g.notation(next), t.same_mover))
    })
    .unwrap()
}

/// Whether `mv` kept the value of `position`, by the oracle.
fn kept(oracle: &Oracle, game: GameId, position: &str, mv: &str) -> Option<bool> {
    let report = oracle.moves(game, position).ok()?;
    let value = report.moves.iter().find(|m| m.mv == mv)?.value;
    Some(match (report.value, value) {
        (AnyValue::Outcome(a), AnyValue::Outcome(b)) => a.wdl == b.wdl,
        (AnyValue::Margin(a), AnyValue::Margin(b)) => a == b,
        _ => unreachable!(),
    })
}

/// The leaderboard's JSON for `game` (all games with `None`).
async fn board(server: &Server, game: Option<&str>) -> Value {
    let path = match game {
        Some(game) => format!("/api/v1/leaderboard?game={game}&per_page=100"),
        None => "/api/v1/leaderboard?per_page=100".to_owned(),
    };
    let (status, board) = server.get(&path).await;
    assert_eq!(status, 200, "{board}");
    board
}

/// An entry of `list` (`entries` or `computer`) by name.
fn entry<'a>(board: &'a Value, list: &str, name: &str) -> &'a Value {
    board[list]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {list}: {board}"))
}

/// Checks a session's state against the library's rules: its position is
/// the start after its history, each mover is the rules' turn, the person
/// moves when the state says so.
fn check_state(state: &Value) {
    let game: GameId = state["game"].as_str().unwrap().parse().unwrap();
    let mut position = state["start"].as_str().unwrap().to_owned();
    let mut seat = 0;
    let movers = state["movers"].as_array().unwrap();
    for (mv, mover) in state["history"].as_array().unwrap().iter().zip(movers) {
        assert_eq!(mover, ["first", "second"][seat], "{state}");
        let (next, again) = after(game, &position, mv.as_str().unwrap());
        position = next;
        if !again {
            seat = 1 - seat;
        }
    }
    assert_eq!(state["position"], position.as_str(), "{state}");
    if state["result"].is_null() {
        assert_eq!(state["to_move"], ["first", "second"][seat]);
        assert_eq!(state["to_move"], state["you"], "the computer has moved");
    } else {
        assert!(state["to_move"].is_null());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_against_the_computer_is_played_through_the_server() {
    let server = Server::start(None, roomkit::limits()).await;
    let oracle = Oracle::open(&committed_tables()).unwrap();
    let game = GameId::TicTacToe;
    let eve = identity_of("eve");
    let body = json!({"game": "tictactoe", "first": "person", "second": "perfect", "player": eve, "name": "eve"});
    let (status, mut state) = server.post("/api/v1/sessions", &body).await;
    assert_eq!(status, 201, "{state}");
    let session = state["session"].as_str().unwrap().to_owned();
    assert_eq!(session.len(), 32, "128 bits in hex");
    assert_eq!(state["history"], json!([]));
    assert_eq!(state["you"], "first");
    let mut rng = Rng::new(5);
    let mut person = (0u64, 0u64);
    while state["result"].is_null() {
        let position = state["position"].as_str().unwrap().to_owned();
        let before = state["history"].as_array().unwrap().len();
        // Refused, and nothing changes: a taken cell, a malformed move,
        // an unknown field.
        if let Some(taken) = state["history"].as_array().unwrap().first() {
            let (status, e) = server
                .post(
                    "/api/v1/sessions/move",
                    &json!({"session": session, "move": taken}),
                )
                .await;
            assert_eq!((status, e["kind"].as_str()), (400, Some("position")), "{e}");
        }
        let (status, e) = server
            .post(
                "/api/v1/sessions/move",
                &json!({"session": session, "move": "x", "result": "win"}),
            )
            .await;
        assert_eq!((status, e["kind"].as_str()), (400, Some("request")), "{e}");
        let moves = legal(game, &position);
        let mv = rng.pick(&moves).clone();
        person.0 += 1;
        person.1 += u64::from(kept(&oracle, game, &position, &mv).unwrap());
        let (status, next) = server
            .post(
                "/api/v1/sessions/move",
                &json!({"session": session, "move": mv}),
            )
            .await;
        assert_eq!(status, 200, "{next}");
        state = next;
        check_state(&state);
        let history = state["history"].as_array().unwrap();
        assert_eq!(history[before], mv.as_str());
        // The computer answered at once, with the oracle's best move.
        if state["result"].is_null() {
            assert_eq!(history.len(), before + 2, "{state}");
            let there = after(game, &position, &mv).0;
            let best = oracle.moves(game, &there).unwrap();
            let value = best.moves[0].value;
            let played = best
                .moves
                .iter()
                .find(|m| m.mv == history[before + 1])
                .unwrap();
            assert_eq!(played.value, value, "a best move");
            assert_eq!(state["by"][before + 1], "perfect");
        }
        assert!(state["by"][before].is_null(), "the person's move");
    }
    assert_ne!(
        state["result"]["winner"], "first",
        "the perfect level never loses"
    );
    assert_eq!(state["recorded"], true);
    let verdicts = state["verdicts"].as_array().unwrap();
    assert_eq!(verdicts.len(), state["history"].as_array().unwrap().len());
    for v in verdicts {
        assert!(v["before"].is_object() && v["best"].is_object(), "{v}");
        if v["seat"] == "second" {
            assert_eq!(v["kept"], true, "{v}");
        }
    }
    // After the end: refused.
    let (status, e) = server
        .post(
            "/api/v1/sessions/move",
            &json!({"session": session, "move": "0"}),
        )
        .await;
    assert_eq!((status, e["kind"].as_str()), (400, Some("position")), "{e}");
    let board = board(&server, Some("tictactoe")).await;
    let eve = entry(&board, "entries", "eve");
    let accuracy = eve["accuracy"].as_f64().unwrap();
    assert_eq!(eve["moves"], person.0);
    assert_eq!((accuracy * person.0 as f64).round() as u64, person.1);
    let computer = entry(&board, "computer", "computer (perfect)");
    assert_eq!(computer["accuracy"], 1.0);
    assert!(computer["rank"].is_null());
    assert_eq!(board["entries"].as_array().unwrap().len(), 1, "people only");

    // A posted move list makes no result.
    let posted = json!({"game": "tictactoe", "moves": ["0", "3", "1", "4", "2"],
                        "players": {"first": "eve", "second": "computer (perfect)"}});
    let (status, _) = server
        .post_raw("/api/v1/games", posted.to_string().as_bytes())
        .await;
    assert_eq!(status, 405);
    assert_eq!(
        self::board(&server, Some("tictactoe")).await["entries"][0]["games"],
        1
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_computer_moves_first_plays_on_after_a_box_and_refuses_what_it_must() {
    let server = Server::start(None, roomkit::limits()).await;
    // The classic level first: it has moved when the session starts.
    let (status, state) = server
        .post(
            "/api/v1/sessions",
            &json!({"game": "cube", "first": "classic", "second": "person"}),
        )
        .await;
    assert_eq!(status, 201, "{state}");
    assert_eq!(state["history"].as_array().unwrap().len(), 1);
    assert_eq!(state["by"][0], "classic");
    check_state(&state);
    // Dots: the random level moves on after a box; every state by the rules.
    let game: GameId = "dots:2x2".parse().unwrap();
    let (_, mut state) = server
        .post(
            "/api/v1/sessions",
            &json!({"game": "dots:2x2", "first": "person", "second": "random",
                                          "player": identity_of("dan")}),
        )
        .await;
    let session = state["session"].as_str().unwrap().to_owned();
    let mut rng = Rng::new(9);
    while state["result"].is_null() {
        let moves = legal(game, state["position"].as_str().unwrap());
        let mv = rng.pick(&moves).clone();
        let (status, next) = server
            .post(
                "/api/v1/sessions/move",
                &json!({"session": session, "move": mv}),
            )
            .await;
        assert_eq!(status, 200, "{next}");
        state = next;
        check_state(&state);
    }
    assert_eq!(state["recorded"], true);
    // Refused: two people, two computers, an unknown level, a reserved
    // name, a malformed identity, an unknown game, an unknown session.
    for (body, kind) in [
        (
            json!({"game": "tictactoe", "first": "person", "second": "person"}),
            "request",
        ),
        (
            json!({"game": "tictactoe", "first": "random", "second": "classic"}),
            "request",
        ),
        (
            json!({"game": "tictactoe", "first": "person", "second": "god"}),
            "request",
        ),
        (
            json!({"game": "tictactoe", "first": "person", "second": "perfect", "name": "Computer (perfect)"}),
            "request",
        ),
        (
            json!({"game": "tictactoe", "first": "person", "second": "perfect", "player": "short"}),
            "request",
        ),
        (
            json!({"game": "chess", "first": "person", "second": "perfect"}),
            "unsupported",
        ),
        (
            json!({"game": "tictactoe", "first": "person", "second": "perfect", "position": "X........"}),
            "request",
        ),
    ] {
        let (status, e) = server.post("/api/v1/sessions", &body).await;
        assert_eq!(
            (status, e["kind"].as_str()),
            (400, Some(kind)),
            "{body}: {e}"
        );
    }
    let (status, e) = server
        .post(
            "/api/v1/sessions/move",
            &json!({"session": "0".repeat(32), "move": "4"}),
        )
        .await;
    assert_eq!((status, e["kind"].as_str()), (400, Some("request")), "{e}");
    // The computer's move for the explorer's unrated play, at each level.
    for level in ["perfect", "classic", "random"] {
        let (status, answer) = server
            .get(&format!(
                "/api/v1/computer?game=tictactoe&position=XX./OO./...&level={level}"
            ))
            .await;
        assert_eq!(status, 200, "{answer}");
        assert_eq!(answer["level"], level);
        let mv = answer["move"].as_str().unwrap();
        assert!(
            legal(GameId::TicTacToe, "XX./OO./...")
                .iter()
                .any(|m| m == mv)
        );
        if level != "random" {
            assert_eq!(mv, "2", "{level} takes the win");
        }
    }
    for query in [
        "game=tictactoe&position=XXX/OO./...&level=classic",
        "game=tictactoe&position=hello&level=random",
        "game=tictactoe&position=.........&level=god",
    ] {
        let (status, e) = server.get(&format!("/api/v1/computer?{query}")).await;
        assert_eq!(status, 400, "{query}: {e}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resigned_or_abandoned_game_counts_as_lost() {
    let state = AppState::new(&committed_tables(), ServerLimits::default())
        .unwrap()
        .with_session_limits(SessionLimits {
            idle: Duration::from_millis(300),
            ..SessionLimits::default()
        });
    let server = Server::serve(state).await;
    // Against the classic level (the random level does not rank), each
    // after the game's minimum of the person's moves.
    let make = |name: &str| {
        json!({"game": "tictactoe", "first": "person", "second": "classic",
                                   "player": identity_of(name), "name": name})
    };
    // Resigned after three moves.
    let (_, state) = server.post("/api/v1/sessions", &make("res")).await;
    let session = state["session"].as_str().unwrap().to_owned();
    play_some(&server, &session, state, min_moves("tictactoe")).await;
    let (status, state) = server
        .post("/api/v1/sessions/resign", &json!({"session": session}))
        .await;
    assert_eq!(status, 200, "{state}");
    assert_eq!(
        state["result"],
        json!({"winner": "second", "resigned": true})
    );
    assert_eq!(state["recorded"], true);
    // Left after three moves: when it expires (at the next session
    // made), lost.
    let (_, state) = server.post("/api/v1/sessions", &make("gone")).await;
    let session = state["session"].as_str().unwrap().to_owned();
    play_some(&server, &session, state, min_moves("tictactoe")).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    server.post("/api/v1/sessions", &make("next")).await;
    let board = board(&server, Some("tictactoe")).await;
    for name in ["res", "gone"] {
        let e = entry(&board, "entries", name);
        assert_eq!(
            (e["games"].as_u64(), e["losses"].as_u64()),
            (Some(1), Some(1)),
            "{e}"
        );
    }
    assert_eq!(entry(&board, "computer", "computer (classic)")["wins"], 2);
    let (status, e) = server
        .post(
            "/api/v1/sessions/move",
            &json!({"session": session, "move": "1"}),
        )
        .await;
    assert_eq!(status, 400, "an expired session is gone");
    assert_eq!(e["kind"], "request", "no such session: {e}");
    server.stop().await;
}

/// Plays `count` of the person's moves in a session (a best move by the
/// oracle each time, so that the person is not beaten first), the game
/// going on before each; returns the state.
async fn play_some(server: &Server, session: &str, mut state: Value, count: usize) -> Value {
    let oracle = Oracle::open(&committed_tables()).unwrap();
    for _ in 0..count {
        assert!(state["result"].is_null(), "over too soon: {state}");
        let game: GameId = state["game"].as_str().unwrap().parse().unwrap();
        let report = oracle
            .moves(game, state["position"].as_str().unwrap())
            .unwrap();
        let mv = report.moves[0].mv.clone();
        let (status, next) = server
            .post(
                "/api/v1/sessions/move",
                &json!({"session": session, "move": mv}),
            )
            .await;
        assert_eq!(status, 200, "{next}");
        state = next;
    }
    state
}

/// Plays `moves` in a new tic-tac-toe room between the two players.
/// Plays `moves` in a new tic-tac-toe room between `players` (name,
/// identity); returns the seats' connections, each with the state it read
/// for the last move.
async fn room_game(
    server: &Server,
    players: [(Option<&str>, Option<String>); 2],
    moves: &[&str],
) -> Vec<(Player, Value)> {
    let made = server.create("tictactoe", false).await;
    let room = made["room"].as_str().unwrap();
    let tokens = server.tokens(&made).await;
    let mut seats = Vec::new();
    for ((name, identity), token) in players.iter().zip(&tokens) {
        seats.push(
            Player::connect_as(server.addr, room, Some(token), *name, identity.as_deref())
                .await
                .unwrap(),
        );
    }
    let mut last = vec![Value::Null; 2];
    for (k, mv) in moves.iter().enumerate() {
        seats[k % 2].send_move(mv).await;
        for (p, last) in seats.iter_mut().zip(&mut last) {
            *last = p.state_with(k + 1).await;
        }
    }
    seats.into_iter().zip(last).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_who_only_drew_only_lost_or_only_won() {
    let data = tempfile::tempdir().unwrap();
    let server = Server::start(Some(data.path()), roomkit::limits()).await;
    const DRAW: &[&str] = &["4", "0", "2", "6", "3", "5", "1", "7", "8"];
    // A game ranks once each person has made three moves: X wins on its
    // fourth, O has made three.
    const X_WINS: &[&str] = &["0", "4", "8", "2", "6", "3", "7"];
    let person = |name: &'static str| (Some(name), Some(identity_of(name)));
    for _ in 0..MIN_RANKED_GAMES {
        room_game(&server, [person("dee"), person("eve")], DRAW).await;
        room_game(&server, [person("win"), person("los")], X_WINS).await;
    }
    // Anonymous: two browsers, no names; and a seat without an identity.
    room_game(
        &server,
        [
            (None, Some(identity_of("x1"))),
            (None, Some(identity_of("x2"))),
        ],
        DRAW,
    )
    .await;
    room_game(&server, [(Some("ghost"), None), person("dee")], DRAW).await;
    let board = board(&server, Some("tictactoe")).await;
    let totals = |name: &str| {
        let e = entry(&board, "entries", name);
        [&e["games"], &e["wins"], &e["draws"], &e["losses"]].map(|v| v.as_u64().unwrap())
    };
    let n = MIN_RANKED_GAMES;
    assert_eq!(totals("dee"), [n + 1, 0, n + 1, 0], "only drew");
    assert_eq!(totals("eve"), [n, 0, n, 0], "only drew");
    assert_eq!(totals("los"), [n, 0, 0, n], "only lost");
    assert_eq!(totals("win"), [n, n, 0, 0], "only won");
    let entries = board["entries"].as_array().unwrap();
    let anonymous: Vec<&Value> = entries
        .iter()
        .filter(|e| e["name"] == "anonymous")
        .collect();
    assert_eq!(
        anonymous.len(),
        2,
        "two anonymous people, two lines: {board}"
    );
    assert_ne!(anonymous[0]["player"], anonymous[1]["player"]);
    assert!(
        anonymous.iter().all(|e| e["rank"].is_null()),
        "one game: no rank"
    );
    assert!(
        !entries.iter().any(|e| e["name"] == "ghost"),
        "no identity: counted for nobody"
    );
    // Ranked: the four with enough games, 1 to 4, first.
    let ranks: Vec<Value> = entries.iter().map(|e| e["rank"].clone()).collect();
    assert_eq!(ranks[..4], [json!(1), json!(2), json!(3), json!(4)]);
    assert_eq!(board["min_games"], MIN_RANKED_GAMES);
    // The same after a restart, from the totals on disk; and pages.
    server.stop().await;
    let server = Server::start(Some(data.path()), roomkit::limits()).await;
    let again = self::board(&server, Some("tictactoe")).await;
    assert_eq!(again["entries"], board["entries"]);
    let (status, page) = server.get("/api/v1/leaderboard?page=2&per_page=2").await;
    assert_eq!(status, 200);
    assert_eq!(page["pages"], 3, "6 people, 2 a page: {page}");
    let mut names: HashMap<String, u64> = HashMap::new();
    for p in 1..=3 {
        let (_, page) = server
            .get(&format!("/api/v1/leaderboard?page={p}&per_page=2"))
            .await;
        for e in page["entries"].as_array().unwrap() {
            *names
                .entry(e["name"].as_str().unwrap().to_owned())
                .or_default() += 1;
        }
    }
    assert_eq!(names.values().sum::<u64>(), 6, "{names:?}");
    // The same pages by cursor: each answer's `next` reads the page the
    // page number does, the last has none.
    let (_, mut page) = server.get("/api/v1/leaderboard?per_page=2").await;
    for p in 2..=3 {
        let next = page["next"].as_str().expect("a next page").to_owned();
        let (status, after) = server
            .get(&format!("/api/v1/leaderboard?per_page=2&after={next}"))
            .await;
        assert_eq!(status, 200, "{after}");
        let (_, numbered) = server
            .get(&format!("/api/v1/leaderboard?page={p}&per_page=2"))
            .await;
        assert_eq!(after["entries"], numbered["entries"], "page {p}");
        assert_eq!(after["page"], p);
        page = after;
    }
    assert!(page["next"].is_null(), "{page}");
    // A cursor edited, of another game, with a page too; a page too deep.
    let next = board_next(&server).await;
    for query in [
        format!("after=0{}", &next[1..]),
        format!("after={next}&game=cube"),
        format!("after={next}&page=2"),
        "page=1002".to_owned(),
    ] {
        let (status, answer) = server
            .get(&format!("/api/v1/leaderboard?per_page=2&{query}"))
            .await;
        assert_eq!(
            (status, &answer["kind"]),
            (400, &json!("request")),
            "{query}: {answer}"
        );
    }
    server.stop().await;
}

/// The first page's `next` cursor (2 a page).
async fn board_next(server: &Server) -> String {
    let (_, page) = server.get("/api/v1/leaderboard?per_page=2").await;
    page["next"].as_str().expect("a next page").to_owned()
}

/// Starts a tic-tac-toe session for `name` against `level`, plays `moves`
/// of the person's moves and resigns; returns the final state.
async fn resigned_after(server: &Server, name: &str, level: &str, moves: usize) -> Value {
    let body = json!({"game": "tictactoe", "first": "person", "second": level,
                      "player": identity_of(name), "name": name});
    let (status, state) = server.post("/api/v1/sessions", &body).await;
    assert_eq!(status, 201, "{state}");
    let session = state["session"].as_str().unwrap().to_owned();
    play_some(server, &session, state, moves).await;
    let (status, state) = server
        .post("/api/v1/sessions/resign", &json!({"session": session}))
        .await;
    assert_eq!(status, 200, "{state}");
    state
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_against_the_random_level_or_too_short_are_recorded_not_ranked() {
    let server = Server::start(None, roomkit::limits()).await;
    let min = min_moves("tictactoe");
    // Too short: one move fewer than the minimum, against the classic level.
    let short = resigned_after(&server, "short", "classic", min - 1).await;
    // Against the random level, long enough.
    let random = resigned_after(&server, "rand", "random", min).await;
    // Ranked: the minimum against the classic level.
    let ranked = resigned_after(&server, "fair", "classic", min).await;
    for state in [&short, &random, &ranked] {
        assert_eq!(state["recorded"], true, "recorded all the same: {state}");
    }
    // Each answer says why its game does not rank, as the store does.
    assert_eq!(short["unranked"]["reason"], "short", "{short}");
    assert_eq!(random["unranked"]["reason"], "random", "{random}");
    assert!(ranked["unranked"].is_null(), "{ranked}");
    for state in [&short, &random] {
        let explained = state["unranked"]["explained"].as_str().unwrap();
        assert!(!explained.is_empty(), "{state}");
    }
    let board = board(&server, None).await;
    let names: Vec<&str> = board["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["fair"], "{board}");
    let computer: Vec<&str> = board["computer"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(computer, ["computer (classic)"], "{board}");
    assert_eq!(entry(&board, "computer", "computer (classic)")["games"], 1);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_address_brings_few_new_identities_an_hour() {
    let limits = ServerLimits {
        new_identities_per_hour: 2,
        ..solvedb_server::http::load::load_server_limits(64)
    };
    let server = Server::start_with(None, limits, roomkit::limits()).await;
    let min = min_moves("tictactoe");
    for name in ["one", "two", "three", "one"] {
        let state = resigned_after(&server, name, "classic", min).await;
        assert_eq!(state["recorded"], true, "{state}");
    }
    let board = board(&server, None).await;
    let people: Vec<(&str, u64)> = board["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["name"].as_str().unwrap(), e["games"].as_u64().unwrap()))
        .collect();
    // From 127.0.0.1: two new identities; the third's game counts for
    // nobody in its seat; a known identity goes on counting.
    assert_eq!(people, [("one", 2), ("two", 1)], "{board}");
    assert_eq!(entry(&board, "computer", "computer (classic)")["games"], 4);
    server.stop().await;
}

/// A server whose database another process's writer holds locked (a
/// `BEGIN EXCLUSIVE` on the same file, well past the server's busy timeout
/// of 100 ms), with that writer's connection and the data directory.
async fn server_with_its_database_locked() -> (Server, rusqlite::Connection, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let limits = ServerLimits {
        store_busy_timeout: Duration::from_millis(100),
        ..solvedb_server::http::load::load_server_limits(64)
    };
    let server = Server::start_with(Some(dir.path()), limits, roomkit::limits()).await;
    let holder =
        rusqlite::Connection::open(dir.path().join(solvedb_server::store::FILE_NAME)).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
    (server, holder, dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_finished_while_the_database_is_locked_is_recorded_once_it_is_free() {
    let (server, holder, _dir) = server_with_its_database_locked().await;
    let min = min_moves("tictactoe");
    let state = resigned_after(&server, "held", "classic", min).await;
    assert_eq!(state["result"]["resigned"], true, "{state}");
    assert_eq!(state["recorded"], false, "the write failed: {state}");
    // Retried meanwhile (every second), and refused each time.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let listed = |board: &Value| {
        board["entries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["name"] == "held")
    };
    assert!(
        !listed(&board(&server, None).await),
        "not written while locked"
    );
    holder.execute_batch("COMMIT").unwrap();
    drop(holder);
    let mut waited = Duration::ZERO;
    let board = loop {
        let board = board(&server, None).await;
        if listed(&board) || waited > Duration::from_secs(20) {
            break board;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        waited += Duration::from_millis(200);
    };
    assert_eq!(entry(&board, "entries", "held")["games"], 1, "{board}");
    assert_eq!(entry(&board, "entries", "held")["losses"], 1, "{board}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_game_finished_while_the_database_is_locked_is_sent_again_once_recorded() {
    let (server, holder, _dir) = server_with_its_database_locked().await;
    let person = |name: &'static str| (Some(name), Some(identity_of(name)));
    // X wins on its fourth move, O has made three: a game that ranks.
    let mut seats = room_game(
        &server,
        [person("top"), person("mid")],
        &["0", "4", "8", "2", "6", "3", "7"],
    )
    .await;
    tokio::time::sleep(Duration::from_millis(1500)).await;
    holder.execute_batch("COMMIT").unwrap();
    drop(holder);
    // Each seat saw the end unrecorded (the write was refused), and then,
    // once a retry wrote it, the state again with the record.
    for (seat, end) in &mut seats {
        assert_eq!(end["result"]["winner"], "first", "{end}");
        assert_eq!(end["recorded"], false, "the write failed: {end}");
        let again = seat.next().await.expect("the room's state once recorded");
        assert_eq!(again["type"], "state", "{again}");
        assert_eq!(again["recorded"], true, "{again}");
    }
    let board = board(&server, Some("tictactoe")).await;
    assert_eq!(entry(&board, "entries", "top")["wins"], 1, "{board}");
    server.stop().await;
}
