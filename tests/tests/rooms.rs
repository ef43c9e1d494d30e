//! Rooms through the server: two WebSocket clients play whole games of
//! every game kind; the referee refuses what it must and the game goes on;
//! a reconnect resumes its seat; the leaderboard holds every game, with
//! the accuracy the oracle gives, across a restart. (Games against the
//! computer and the leaderboard's counting: `leaderboard.rs`.)

use crate::roomkit;

use std::collections::HashMap;
use std::time::Duration;

use futures_util::StreamExt;
use roomkit::{Player, Server};
use serde_json::{Value, json};
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{AnyValue, Error, Game, GameId, Oracle, Stop, Want, with_game};
use solvedb_server::http::rooms::RoomLimits;
use solvedb_server::store::min_moves;
use solvedb_tests::committed_tables;
use tokio_tungstenite::tungstenite::Message;

/// The legal moves at `position`, by the library's rules.
fn legal(game: GameId, position: &str) -> Vec<String> {
    with_game!(game, g => {
        let p = g.parse(position).unwrap();
        Ok::<_, Error>(g.moves(p).iter().map(ToString::to_string).collect())
    })
    .unwrap()
}

/// The position after `mv`, and whether the mover moves again.
fn after(game: GameId, position: &str, mv: &str) -> (String, bool, i32) {
    with_game!(game, g => {
        let p = g.parse(position).unwrap();
        let m = g.parse_move(mv).unwrap();
        let (next, t) = g.play(p, m);
        Ok::<_, Error>((g.notation(next), t.same_mover, t.gain))
    })
    .unwrap()
}

/// Whether a move kept the position's value, by the oracle: the same
/// result class (tic-tac-toe family), no box given away (dots).
fn kept(oracle: &Oracle, game: GameId, position: &str, mv: &str) -> Option<bool> {
    kept_within(oracle, game, position, mv, &Stop::default())
}

/// [`kept`], the moves the tables leave open (Qubic off the strategy's
/// line) searched within `stop`'s deadline, as the server searches them.
fn kept_within(
    oracle: &Oracle,
    game: GameId,
    position: &str,
    mv: &str,
    stop: &Stop,
) -> Option<bool> {
    let report = oracle
        .answer_within(game, position, Want::Moves, stop)
        .ok()?;
    let value = report.moves.iter().find(|m| m.mv == mv)?.value;
    Some(match (report.value, value) {
        (AnyValue::Margin(a), AnyValue::Margin(b)) => a == b,
        // Exact or, from Qubic's strategy, a bound on the plies: the
        // result is what counts.
        (a, b) => a.outcome()?.wdl == b.outcome()?.wdl,
    })
}

/// What the test expects of each player's record.
#[derive(Default, Debug, Clone, Copy, PartialEq)]
struct Tally {
    games: u64,
    wins: u64,
    draws: u64,
    losses: u64,
    rated: u64,
    kept: u64,
}

/// Plays one game in a fresh room between `names` with random moves
/// (some of them the best move), sending refused messages along the way;
/// checks every state against the library and adds to `tallies`.
async fn play_game(
    server: &Server,
    oracle: &Oracle,
    game: GameId,
    names: [&str; 2],
    rng: &mut Rng,
    tallies: &mut HashMap<String, Tally>,
    refusals: bool,
) -> Value {
    let made = match start_of(game) {
        None => server.create(&game.to_string(), false).await,
        Some(start) => {
            let body = json!({"game": game.to_string(), "position": start});
            let (status, made) = server.post("/api/v1/rooms", &body).await;
            assert_eq!(status, 201, "{made}");
            made
        }
    };
    let room = made["room"].as_str().unwrap().to_owned();
    let tokens = server.tokens(&made).await;
    assert_eq!(room.len(), 32, "128 bits in hex");
    assert_ne!(tokens[0], tokens[1]);
    let mut players = Vec::new();
    for seat in 0..2 {
        let p = Player::connect(server.addr, &room, Some(&tokens[seat]), Some(names[seat]))
            .await
            .unwrap();
        players.push(p);
    }
    let mut position = with_game!(game, g => match start_of(game) {
        Some(text) => g.parse(text).map(|p| g.notation(p)).map_err(Error::from),
        None => Ok::<_, Error>(g.notation(g.start())),
    })
    .unwrap();
    let mut to_move = 0usize;
    let mut points = [0i32; 2];
    // Per move: its mover, the position before it, the move, and whether
    // it kept the value by the tables alone.
    let mut kepts: Vec<(usize, String, String, Option<bool>)> = Vec::new();
    let mut history: Vec<String> = Vec::new();
    let mut lasts = [Value::Null, Value::Null];
    loop {
        let moves = legal(game, &position);
        if moves.is_empty() {
            break;
        }
        if refusals && rng.below(4) == 0 {
            let (mover, other) = (to_move, 1 - to_move);
            // Out of turn.
            players[other].send_move(&moves[0]).await;
            let e = players[other].error().await;
            assert_eq!(e["kind"], "request", "{e}");
            assert!(
                e["error"].as_str().unwrap().contains("not your turn"),
                "{e}"
            );
            // Illegal: a move of the notation that is not legal here, or garbage.
            let taken = history.first().cloned().unwrap_or_else(|| "99".into());
            players[mover].send_move(&taken).await;
            let e = players[mover].error().await;
            assert_eq!(e["kind"], "position", "{e}");
            // Malformed and oversized.
            players[mover].send("{\"type\": \"move\", \"move\": ").await;
            assert_eq!(players[mover].error().await["kind"], "request");
            players[mover]
                .send(json!({"type": "chat"}).to_string())
                .await;
            assert_eq!(players[mover].error().await["kind"], "request");
            // A legal move and another under one name: which one is meant
            // depends on the parser, so neither is played.
            players[mover]
                .send(format!(
                    "{{\"type\":\"move\",\"move\":\"{}\",\"move\":\"{}\"}}",
                    moves[0],
                    moves[moves.len() - 1]
                ))
                .await;
            let e = players[mover].error().await;
            assert!(e["error"].as_str().unwrap().contains("given twice"), "{e}");
            let big = format!("{{\"type\":\"move\",\"move\":\"{}\"}}", "0".repeat(2000));
            players[mover].send(big).await;
            let e = players[mover].error().await;
            assert!(
                e["error"]
                    .as_str()
                    .unwrap()
                    .contains("longer than the limit"),
                "{e}"
            );
        }
        let report = oracle.moves(game, &position).ok();
        let mv = match &report {
            Some(r) if rng.below(2) == 0 => r.moves[0].mv.clone(),
            _ => rng.pick(&moves).clone(),
        };
        kepts.push((
            to_move,
            position.clone(),
            mv.clone(),
            kept(oracle, game, &position, &mv),
        ));
        players[to_move].send_move(&mv).await;
        history.push(mv.clone());
        let (next, same, gain) = after(game, &position, &mv);
        points[to_move] += gain;
        position = next;
        if !same {
            to_move = 1 - to_move;
        }
        for (p, last) in players.iter_mut().zip(&mut lasts) {
            let state = p.state_with(history.len()).await;
            *last = state.clone();
            assert_eq!(state["position"], position.as_str());
            assert_eq!(state["history"], json!(history));
            assert!(
                state.get("values").is_none(),
                "no values for players without hints"
            );
            if legal(game, &position).is_empty() {
                assert!(state["to_move"].is_null());
            } else {
                assert_eq!(state["to_move"], ["first", "second"][to_move]);
                assert!(state["result"].is_null());
            }
        }
    }
    // The end: the winner by the library's own scores.
    let terminal = with_game!(game, g => Ok::<_, Error>(g.terminal_score(g.parse(&position).unwrap()).unwrap())).unwrap();
    let net = terminal + points[to_move] - points[1 - to_move];
    let winner = match net.signum() {
        1 => Some(to_move),
        -1 => Some(1 - to_move),
        _ => None,
    };
    // The server's verdicts: the tables' where they value the move; where
    // they do not, the server's search may have valued it (within its
    // time), and then a search of the test's own agrees where it settles.
    let mut judged: Vec<(usize, Option<bool>)> = Vec::new();
    for (i, last) in lasts.iter().enumerate() {
        let expected = winner.map(|s| ["first", "second"][s]);
        assert_eq!(last["result"]["winner"], json!(expected), "{last}");
        assert_eq!(last["recorded"], true);
        let verdicts = last["verdicts"].as_array().unwrap();
        assert_eq!(verdicts.len(), history.len());
        for (j, (v, (seat, position, mv, k))) in verdicts.iter().zip(&kepts).enumerate() {
            let verdict = match (k, v["kept"].as_bool()) {
                (Some(_), _) => {
                    assert_eq!(v["kept"], json!(k), "{v}");
                    *k
                }
                (None, None) => None,
                (None, Some(server)) => {
                    let stop = Stop::new(Some(Duration::from_secs(10)), None);
                    if let Some(searched) = kept_within(oracle, game, position, mv, &stop) {
                        assert_eq!(server, searched, "{position} {mv}: {v}");
                    }
                    Some(server)
                }
            };
            if i == 0 {
                judged.push((*seat, verdict));
            } else {
                assert_eq!(judged[j].1, verdict, "both players see one verdict: {v}");
            }
        }
    }
    // Moves after the end are refused.
    players[0].send_move(&history[0]).await;
    let refused = players[0].error().await;
    assert_eq!(refused["kind"], "position", "{game}: {refused}");
    let [last, _] = lasts;
    // Only a game that ranks counts: every move judged, and each person
    // made the game family's minimum of moves.
    let min = min_moves(&game.to_string());
    let ranks = judged.iter().all(|(_, k)| k.is_some())
        && (0..2).all(|seat| judged.iter().filter(|(s, _)| *s == seat).count() >= min);
    if !ranks {
        return last;
    }
    for (seat, name) in names.iter().enumerate() {
        let t = tallies.entry((*name).to_owned()).or_default();
        t.games += 1;
        match winner {
            None => t.draws += 1,
            Some(w) if w == seat => t.wins += 1,
            Some(_) => t.losses += 1,
        }
        for (s, k) in &judged {
            if *s == seat
                && let Some(k) = k
            {
                t.rated += 1;
                t.kept += u64::from(*k);
            }
        }
    }
    last
}

/// The leaderboard of `game` as the server gives it.
async fn leaderboard(server: &Server, game: &str) -> HashMap<String, Tally> {
    let (status, board) = server
        .get(&format!("/api/v1/leaderboard?game={game}&per_page=100"))
        .await;
    assert_eq!(status, 200, "{board}");
    assert_eq!(board["pages"], 1);
    board["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            let t = Tally {
                games: e["games"].as_u64().unwrap(),
                wins: e["wins"].as_u64().unwrap(),
                draws: e["draws"].as_u64().unwrap(),
                losses: e["losses"].as_u64().unwrap(),
                rated: e["moves"].as_u64().unwrap(),
                kept: 0,
            };
            let kept = e["accuracy"]
                .as_f64()
                .map_or(0, |a| (a * t.rated as f64).round() as u64);
            (e["name"].as_str().unwrap().to_owned(), Tally { kept, ..t })
        })
        .collect()
}

/// Where a game's rooms start when not from the empty board: Qubic from 40
/// stones of careful play (X to move, a fork to make), where every position
/// is answered by live search at once; from the empty board its search runs
/// to the server's time limit on each move.
fn start_of(game: GameId) -> Option<&'static str> {
    (game == GameId::Qubic).then_some(
        "XX../.O../...O/OX..//XOOO/O.XX/OXOX/X.O.//XX../XXO./X.OO/O.XX//OO../OO.X/.OXO/XX..",
    )
}

/// The games a room can host in this build, among those tested.
fn games() -> Vec<GameId> {
    [
        "tictactoe",
        "tictactoe:4x4",
        "cube",
        "qubic",
        "dots:2x2",
        "dots:1x3",
    ]
    .iter()
    .map(|g| g.parse().unwrap())
    .filter(|&g| with_game!(g, g => Ok::<_, Error>(g.start() == g.start())).is_ok())
    .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn whole_games_of_every_game_refereed_and_recorded_across_a_restart() {
    let data = tempfile::tempdir().unwrap();
    let oracle = Oracle::open(&committed_tables()).unwrap();
    let mut rng = Rng::new(11);
    let mut expected: HashMap<GameId, HashMap<String, Tally>> = HashMap::new();
    // Players here send as fast as the loop runs, refused probes included
    // (a 4x4 game is 16 moves): the rate limit has its own test, so this one
    // lifts it to test the referee alone.
    let unhurried = RoomLimits {
        burst: 1000,
        ..roomkit::limits()
    };
    let server = Server::start(Some(data.path()), unhurried).await;
    let list = games();
    assert!(list.len() >= 4, "{list:?}");
    for &game in &list {
        let tallies = expected.entry(game).or_default();
        for round in 0..3 {
            let names = if round % 2 == 0 {
                ["ann", "bob"]
            } else {
                ["bob", "ann"]
            };
            play_game(&server, &oracle, game, names, &mut rng, tallies, round < 2).await;
        }
    }
    // Concurrent rooms write the database at once.
    let dots: GameId = "dots:2x2".parse().unwrap();
    let tallies = expected.entry(dots).or_default();
    let mut handles = Vec::new();
    for k in 0..4u64 {
        let addr = server.addr;
        handles.push(tokio::spawn(async move {
            let server = Server::at(addr);
            let oracle = Oracle::open(&committed_tables()).unwrap();
            let mut rng = Rng::new(100 + k);
            let mut tallies = HashMap::new();
            play_game(
                &server,
                &oracle,
                dots,
                ["cy", "dee"],
                &mut rng,
                &mut tallies,
                false,
            )
            .await;
            tallies
        }));
    }
    for h in handles {
        for (name, t) in h.await.unwrap() {
            let sum = tallies.entry(name).or_default();
            sum.games += t.games;
            sum.wins += t.wins;
            sum.draws += t.draws;
            sum.losses += t.losses;
            sum.rated += t.rated;
            sum.kept += t.kept;
        }
    }
    for (&game, tallies) in &expected {
        assert_eq!(
            &leaderboard(&server, &game.to_string()).await,
            tallies,
            "{game}"
        );
    }
    server.stop().await;

    // A new server on the same data directory: everything is still there.
    let server = Server::start(Some(data.path()), roomkit::limits()).await;
    for (&game, tallies) in &expected {
        assert_eq!(
            &leaderboard(&server, &game.to_string()).await,
            tallies,
            "{game} after a restart"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_limit_is_refused() {
    let server = Server::start(None, roomkit::limits()).await;
    let (status, e) = server.post_raw("/api/v1/rooms", &vec![b' '; 10_000]).await;
    assert_eq!(
        (status, e["kind"].as_str()),
        (400, Some("request")),
        "a body over the limit"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn seats_reconnects_spectators_hints_and_limits() {
    let limits = RoomLimits {
        rooms: 3,
        // One address makes every room here: none is kept for others.
        reserve: 0,
        connections: 4,
        burst: 5,
        per_second: 1.0,
        ..roomkit::limits()
    };
    let server = Server::start(None, limits).await;
    let made = server.create("tictactoe", false).await;
    let room = made["room"].as_str().unwrap();
    let tokens = server.tokens(&made).await;
    let (first, second) = (tokens[0].as_str(), tokens[1].as_str());

    // Unknown room, wrong token, not a WebSocket.
    assert_eq!(
        Player::connect(server.addr, "00", Some(first), None)
            .await
            .err(),
        Some(400)
    );
    let forged = "0".repeat(32);
    assert_eq!(
        Player::connect(server.addr, room, Some(&forged), None)
            .await
            .err(),
        Some(400)
    );
    let (status, e) = server.get(&format!("/api/v1/rooms/{room}/ws")).await;
    assert_eq!((status, e["kind"].as_str()), (400, Some("request")));

    let mut x = Player::connect(server.addr, room, Some(first), Some("xena"))
        .await
        .unwrap();
    let state = x.state_with(0).await;
    assert_eq!(state["you"], "first");
    assert_eq!(state["to_move"], "first");
    assert_eq!(state["players"]["first"]["name"], "xena");
    x.send_move("4").await;
    x.state_with(1).await;
    // The first player leaves and comes back: the seat and the game resume.
    drop(x);
    let mut o = Player::connect(server.addr, room, Some(second), Some("otto"))
        .await
        .unwrap();
    let state = o.state_with(1).await;
    assert_eq!(state["you"], "second");
    let mut x = Player::connect(server.addr, room, Some(first), None)
        .await
        .unwrap();
    let state = x.state_with(1).await;
    assert_eq!(
        (state["you"].as_str(), state["history"].clone()),
        (Some("first"), json!(["4"]))
    );
    assert_eq!(
        state["players"]["first"]["name"], "xena",
        "the name is kept"
    );
    // A spectator sees the values; the players of a room without hints do not.
    let mut watcher = Player::connect(server.addr, room, None, None)
        .await
        .unwrap();
    let state = watcher.state_with(1).await;
    assert_eq!(state["you"], "spectator");
    assert_eq!(state["values"]["position"], state["position"]);
    assert_eq!(state["values"]["moves"].as_array().unwrap().len(), 8);
    watcher.send_move("0").await;
    assert!(
        watcher.error().await["error"]
            .as_str()
            .unwrap()
            .contains("spectators")
    );
    o.send_move("0").await;
    let state = x.state_with(2).await;
    assert!(state.get("values").is_none());

    // Connections per room: 4 (x, o, watcher and one more spectator: one
    // place is kept for each seat).
    let _fourth = Player::connect(server.addr, room, None, None)
        .await
        .unwrap();
    assert_eq!(
        Player::connect(server.addr, room, None, None).await.err(),
        Some(503)
    );

    // The rate: a burst of 5, then 1 a second; the game goes on.
    for _ in 0..8 {
        x.send("[]").await;
    }
    let mut kinds = Vec::new();
    for _ in 0..8 {
        kinds.push(x.error().await["kind"].as_str().unwrap().to_owned());
    }
    assert_eq!(
        kinds.iter().filter(|k| *k == "request").count(),
        5,
        "{kinds:?}"
    );
    assert_eq!(
        kinds.iter().filter(|k| *k == "budget").count(),
        3,
        "{kinds:?}"
    );
    tokio::time::sleep(Duration::from_millis(1100)).await;
    x.send_move("8").await;
    assert_eq!(o.state_with(3).await["to_move"], "second");

    // A frame over the protocol's limit closes that connection only.
    drop(_fourth);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut big = Player::connect(server.addr, room, None, None)
        .await
        .unwrap();
    big.send("x".repeat(limits.frame_bytes + 1)).await;
    // Closed with 1009 (message too big), the others go on.
    let close = loop {
        match tokio::time::timeout(roomkit::WAIT, big.ws.next())
            .await
            .unwrap()
        {
            Some(Ok(Message::Close(frame))) => break frame.expect("a close frame says why"),
            Some(Ok(_)) => {}
            other => panic!("the socket ended without a Close frame: {other:?}"),
        }
    };
    assert_eq!(u16::from(close.code), 1009, "{close:?}");
    o.send_move("2").await;
    assert_eq!(x.state_with(4).await["position"], "O.O/.X./..X");

    // A room with hints shows the players its values.
    let hinted = server.create("tictactoe", true).await;
    let mut h = Player::connect(
        server.addr,
        hinted["room"].as_str().unwrap(),
        hinted["seats"]["first"].as_str(),
        None,
    )
    .await
    .unwrap();
    assert_eq!(
        h.state_with(0).await["values"]["moves"]
            .as_array()
            .unwrap()
            .len(),
        9
    );

    // Rooms: at most 3 open.
    server.create("cube", false).await;
    let (status, e) = server.post("/api/v1/rooms", &json!({"game": "cube"})).await;
    assert_eq!((status, e["kind"].as_str()), (503, Some("budget")));
    // Bad creations.
    for body in [
        json!({"game": "chess"}),
        json!({"game": "tictactoe", "position": "XXX/OO./..."}),
        json!({"game": "tictactoe", "position": "XX"}),
        json!({"game": "tictactoe", "hints": "yes"}),
        json!({"game": "tictactoe", "colour": "red"}),
        json!([1, 2]),
    ] {
        let (status, e) = server.post("/api/v1/rooms", &body).await;
        assert_eq!(status, 400, "{body}: {e}");
    }
    drop((x, o, watcher, h));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_room_expires() {
    let limits = RoomLimits {
        idle: Duration::from_millis(300),
        ..roomkit::limits()
    };
    let server = Server::start(None, limits).await;
    let made = server.create("tictactoe", false).await;
    let room = made["room"].as_str().unwrap();
    let mut x = Player::connect(server.addr, room, made["seats"]["first"].as_str(), None)
        .await
        .unwrap();
    x.state_with(0).await;
    // No message in time: the server closes the socket and the room.
    while x.next().await.is_some() {}
    assert_eq!(
        Player::connect(server.addr, room, None, None).await.err(),
        Some(400)
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_room_nobody_watches_makes_way_for_a_new_one() {
    let limits = RoomLimits {
        rooms: 1,
        reserve: 0,
        ..roomkit::limits()
    };
    let server = Server::start(None, limits).await;
    let (status, made) = server
        .post(
            "/api/v1/rooms",
            &json!({"game": "tictactoe", "position": "XX./OO./..."}),
        )
        .await;
    assert_eq!(status, 201, "{made}");
    let another = json!({"game": "tictactoe"});
    let full = || server.post("/api/v1/rooms", &another);
    assert_eq!(full().await.0, 503, "one room is the limit");
    let room = made["room"].as_str().unwrap();
    let mut x = Player::connect(server.addr, room, made["seats"]["first"].as_str(), None)
        .await
        .unwrap();
    x.state_with(0).await;
    x.send_move("2").await;
    let over = x.state_with(1).await;
    assert_eq!(over["result"]["winner"], "first", "{over}");
    // Finished, but still watched: it stays.
    assert_eq!(full().await.0, 503);
    drop(x);
    // Once its last connection has ended, the finished room gives way.
    let deadline = std::time::Instant::now() + roomkit::WAIT;
    loop {
        let (status, answer) = full().await;
        if status == 201 {
            break;
        }
        assert_eq!(status, 503, "{answer}");
        assert!(
            std::time::Instant::now() < deadline,
            "the finished room never gave way"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(full().await.0, 503, "the new room is open: one room again");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_server_closes_every_socket_with_going_away() {
    let server = Server::start(None, roomkit::limits()).await;
    let mut sockets = Vec::new();
    for _ in 0..2 {
        let made = server.create("tictactoe", false).await;
        let room = made["room"].as_str().unwrap();
        let tokens = server.tokens(&made).await;
        for token in [Some(tokens[0].as_str()), Some(tokens[1].as_str()), None] {
            let mut p = Player::connect(server.addr, room, token, None)
                .await
                .unwrap();
            p.state_with(0).await;
            sockets.push(p);
        }
    }
    // The server waits for its sockets while they read their Close frames.
    let stopping = tokio::spawn(server.stop());
    for p in &mut sockets {
        let close = loop {
            match tokio::time::timeout(roomkit::WAIT, p.ws.next())
                .await
                .unwrap()
            {
                Some(Ok(Message::Close(frame))) => break frame.expect("a close frame says why"),
                Some(Ok(_)) => {}
                other => panic!("the socket ended without a Close frame: {other:?}"),
            }
        };
        assert_eq!(u16::from(close.code), 1001);
        assert_eq!(close.reason.as_str(), "the server is shutting down");
    }
    stopping.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_without_a_table_is_refereed_while_its_values_are_searched() {
    // dots:3x4 has no committed table: every position's values are a
    // live search (3 s at most), which must not hold up the move itself.
    let game: GameId = "dots:3x4".parse().unwrap();
    assert!(!committed_tables().join(game.table_file_name()).exists());
    let server = Server::start(None, roomkit::limits()).await;
    let made = server.create("dots:3x4", true).await;
    let room = made["room"].as_str().unwrap();
    let tokens = server.tokens(&made).await;
    let mut a = Player::connect(server.addr, room, Some(&tokens[0]), None)
        .await
        .unwrap();
    let mut b = Player::connect(server.addr, room, Some(&tokens[1]), None)
        .await
        .unwrap();
    a.send_move("h0,0").await;
    let first = b.state_with(1).await;
    assert_eq!(first["to_move"], "second");
    assert!(
        first["values"].is_null(),
        "the move comes before its values: {first}"
    );
    b.send_move("h3,3").await;
    assert_eq!(a.state_with(2).await["history"], json!(["h0,0", "h3,3"]));
    b.send_move("v0,0").await;
    assert_eq!(b.error().await["kind"], "request", "not b's turn");
    drop((a, b));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_off_the_tables_is_valued_after_the_room_is_made_and_before_its_first_move() {
    // A dots:3x4 position with 8 undrawn edges: no table, so the room's
    // start is valued by a search the server runs once the room is made
    // (a short one here). The first move, sent at once, must wait for it:
    // everyone sees the start's values first, and the move is judged.
    let game: GameId = "dots:3x4".parse().unwrap();
    assert!(!committed_tables().join(game.table_file_name()).exists());
    let mut rng = Rng::new(3408);
    let mut start = with_game!(game, g => Ok::<_, Error>(g.notation(g.start()))).unwrap();
    while legal(game, &start).len() > 8 {
        let moves = legal(game, &start);
        let mv = &moves[rng.below(moves.len() as u64) as usize];
        start = after(game, &start, mv).0;
    }
    let server = Server::start(None, roomkit::limits()).await;
    let (status, made) = server
        .post(
            "/api/v1/rooms",
            &json!({"game": "dots:3x4", "position": start, "hints": true}),
        )
        .await;
    assert_eq!(status, 201, "{made}");
    let room = made["room"].as_str().unwrap();
    let tokens = server.tokens(&made).await;
    let mut players = [
        Player::connect(server.addr, room, Some(&tokens[0]), None)
            .await
            .unwrap(),
        Player::connect(server.addr, room, Some(&tokens[1]), None)
            .await
            .unwrap(),
    ];
    let mut seen = players[0].next().await.unwrap();
    let to_move = usize::from(seen["to_move"] == "second");
    let first = legal(game, &start)[0].clone();
    players[to_move].send_move(&first).await;
    // What the first seat saw up to the first move: the start's values
    // among them (on connecting, or sent when the search ended).
    let mut start_values = Value::Null;
    while seen["history"].as_array().unwrap().is_empty() {
        if !seen["values"].is_null() {
            start_values = seen["values"].clone();
        }
        seen = players[0].next().await.unwrap();
    }
    let oracle = Oracle::open(&committed_tables()).unwrap();
    let report = oracle
        .answer_within(game, &start, Want::Moves, &Stop::default())
        .unwrap();
    assert_eq!(start_values, report.to_json(), "{start}");
    // The game to its end, each mover taking the first legal move.
    let mut state = seen;
    while state["result"].is_null() {
        let position = state["position"].as_str().unwrap().to_owned();
        let seat = usize::from(state["to_move"] == "second");
        let moves = state["history"].as_array().unwrap().len();
        players[seat].send_move(&legal(game, &position)[0]).await;
        state = players[0].state_with(moves + 1).await;
    }
    let verdict = &state["verdicts"][0];
    assert_eq!(
        verdict["kept"],
        json!(kept(&oracle, game, &start, &first)),
        "{start} {first}: {verdict}"
    );
    drop(players);
    server.stop().await;
}
