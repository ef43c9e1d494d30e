//! The HTTP API over loopback, against the other faces of the same oracle:
//! every endpoint, every error status, the limits, concurrent requests.

use std::sync::mpsc::Receiver;
use std::time::Duration;

use serde_json::Value;
use solvedb_lookup::testkit::{Rng, random_positions};
use solvedb_lookup::{AnyValue, Cube, Dots, Error, Game, GameId, Oracle, TicTacToe, with_game};
use solvedb_server::http::bench::encode_query_value;
use solvedb_server::http::client::Client;
use solvedb_server::http::{self, AppState, MAX_QUERY_BYTES, ServerLimits};
use solvedb_tests::{committed_tables, solvedb};
use tokio::sync::oneshot;

/// A server on a free loopback port; stops when dropped.
struct Server {
    base: String,
    _stop: oneshot::Sender<()>,
}

async fn start(limits: ServerLimits) -> Server {
    let state = AppState::new(&committed_tables(), limits).unwrap();
    let listener = http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(http::serve_until(listener, state, async {
        let _ = stopped.await;
    }));
    Server { base, _stop: stop }
}

async fn get(server: &Server, path: &str) -> (u16, Value) {
    let (status, body) = Client::new()
        .get(&format!("{}{path}", server.base))
        .await
        .unwrap();
    let json = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"));
    (status, json)
}

fn probe_path(game: &str, position: &str, extra: &str) -> String {
    format!(
        "/api/v1/probe?game={game}&position={}{extra}",
        encode_query_value(position)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn probe_answers_as_probe_json_does() {
    let server = start(ServerLimits::default()).await;
    for (game, position) in [
        ("tictactoe", "X../.O./..."),
        ("cube", ".../.../...//.../.X./...//.../.../..."),
        ("dots:2x2", "2x2:h0,0 v1,2"),
        ("dots:1x2", "1x2:0000000"),
    ] {
        let (code, stdout, stderr) = solvedb(&[
            "probe",
            game,
            position,
            "--json",
            "--tables",
            committed_tables().to_str().unwrap(),
        ]);
        assert_eq!(code, 0, "{stderr}");
        let expected: Value = serde_json::from_str(&stdout).unwrap();
        let (status, json) = get(&server, &probe_path(game, position, "")).await;
        assert_eq!(status, 200, "{json}");
        assert_eq!(json, expected);
        let (status, json) = get(&server, &probe_path(game, position, "&want=moves")).await;
        assert_eq!((status, &json), (200, &expected));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn want_value_and_best_answer_as_serve_stdio_does() {
    let server = start(ServerLimits::default()).await;
    let oracle = Oracle::open(&committed_tables()).unwrap();
    for want in ["value", "best"] {
        for position in ["XX./OO./...", "XOX/XOO/OX.", "XOX/OXO/XOX"] {
            let line = format!(r#"{{"game":"tictactoe","position":"{position}","want":"{want}"}}"#);
            let mut out = Vec::new();
            solvedb_server::stdio::serve(&oracle, line.as_bytes(), &mut out).unwrap();
            let expected: Value = serde_json::from_slice(&out).unwrap();
            let (status, json) = get(
                &server,
                &probe_path("tictactoe", position, &format!("&want={want}")),
            )
            .await;
            assert_eq!((status, json), (200, expected), "{want} {position}");
        }
    }
}

/// Plays `moves` from `position` by the game's own rules.
fn play_line(game: GameId, position: &str, moves: &[&str]) -> Vec<String> {
    fn line<G: Game>(g: &G, position: &str, moves: &[&str]) -> Result<Vec<String>, Error> {
        let mut p = g.parse(position)?;
        let mut seen = vec![g.notation(p)];
        for mv in moves {
            p = g.play_notation(p, mv)?;
            seen.push(g.notation(p));
        }
        Ok(seen)
    }
    with_game!(game, g => line(g, position, moves)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mainline_is_the_best_move_at_every_step_to_the_end() {
    let server = start(ServerLimits::default()).await;
    let oracle = Oracle::open(&committed_tables()).unwrap();
    for (name, position) in [
        ("tictactoe", "........."),
        ("cube", "..........................."),
        ("dots:2x2", "2x2:000000000000"),
    ] {
        let game: GameId = name.parse().unwrap();
        let path = format!(
            "/api/v1/mainline?game={name}&position={}",
            encode_query_value(position)
        );
        let (status, json) = get(&server, &path).await;
        assert_eq!(status, 200, "{json}");
        let moves: Vec<&str> = json["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        let positions = play_line(game, position, &moves);
        for (step, mv) in moves.iter().enumerate() {
            let best = oracle.best_move(game, &positions[step]).unwrap().unwrap();
            let report = oracle.moves(game, &positions[step]).unwrap();
            let played = report.moves.iter().find(|m| m.mv == *mv).unwrap();
            assert_eq!(played.value, best.value, "{name} step {step}: {mv}");
        }
        let last = positions.last().unwrap();
        assert_eq!(json["final"], *last);
        assert!(
            oracle.best_move(game, last).unwrap().is_none(),
            "{name}: not over"
        );
        if let Some(plies) = json["plies"].as_u64() {
            assert_eq!(plies as usize, moves.len(), "{name}");
        }
        let start = oracle.probe(game, position).unwrap().to_json();
        for field in ["result", "plies", "value", "source", "position"] {
            assert_eq!(json.get(field), start.get(field), "{name} {field}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_have_their_kind_and_status() {
    let server = start(ServerLimits::default()).await;
    let long = "X".repeat(MAX_QUERY_BYTES);
    let cases: Vec<(String, u16, &str)> = vec![
        (probe_path("tictactoe", "XXX/OOO/...", ""), 400, "position"),
        (probe_path("tictactoe", "XX", ""), 400, "position"),
        (probe_path("chess", "XX", ""), 400, "unsupported"),
        (probe_path("dots:9x9", "9x9:", ""), 400, "unsupported"),
        ("/api/v1/probe?game=tictactoe".into(), 400, "request"),
        ("/api/v1/probe?position=.........".into(), 400, "request"),
        (
            probe_path("tictactoe", ".........", "&want=all"),
            400,
            "request",
        ),
        (
            probe_path("tictactoe", ".........", "&colour=red"),
            400,
            "request",
        ),
        (
            probe_path("tictactoe", ".........", "&game=cube"),
            400,
            "request",
        ),
        (
            format!("/api/v1/probe?game=tictactoe&position={long}"),
            400,
            "request",
        ),
        (
            "/api/v1/mainline?game=tictactoe&position=XXX/OOO/...".into(),
            400,
            "position",
        ),
        (
            "/api/v1/check?game=tictactoe&position=XXXO".into(),
            400,
            "position",
        ),
        ("/api/v1/nothing".into(), 404, "request"),
        ("/assets/nothing.js".into(), 404, "request"),
    ];
    for (path, status, kind) in cases {
        let (got, json) = get(&server, &path).await;
        assert_eq!(got, status, "{path}: {json}");
        assert_eq!(json["kind"], kind, "{path}: {json}");
        assert!(json["error"].as_str().is_some_and(|e| !e.is_empty()));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_past_its_budget_is_503_budget() {
    let server = start(ServerLimits {
        search_nodes: Some(1000),
        ..ServerLimits::default()
    })
    .await;
    let empty = format!("4x4:{}", "0".repeat(40));
    let (status, json) = get(&server, &probe_path("dots:4x4", &empty, "")).await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    // A table answer needs no search.
    let (status, _) = get(&server, &probe_path("dots:3x3", "3x3:", "")).await;
    assert_eq!(status, 200);
}

/// A margin's lower and upper bound.
type Range = (i64, i64);

/// The margins of a `bounds` object's value and moves, by move.
fn bound_ranges(bounds: &Value) -> (Range, Vec<(String, Range)>) {
    let range = |b: &Value| (b["lower"].as_i64().unwrap(), b["upper"].as_i64().unwrap());
    let moves = bounds["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["move"].as_str().unwrap().to_owned(), range(m)))
        .collect();
    (range(bounds), moves)
}

/// Checks that `bounds` hold the exact values of `exact`, for every move.
fn assert_bounds_hold(bounds: &Value, exact: &solvedb_lookup::Report, what: &str) {
    let margin = |v: AnyValue| match v {
        AnyValue::Margin(m) => i64::from(m),
        AnyValue::Outcome(o) | AnyValue::AtMost(o) => panic!("a dots value {o:?}"),
    };
    let ((lower, upper), moves) = bound_ranges(bounds);
    let value = margin(exact.value);
    assert!(
        lower <= value && value <= upper,
        "{what}: {value} outside {bounds}"
    );
    assert_eq!(moves.len(), exact.moves.len(), "{what}: {bounds}");
    for (mv, (lower, upper)) in moves {
        let value = margin(exact.moves.iter().find(|m| m.mv == mv).unwrap().value);
        assert!(
            lower <= value && value <= upper,
            "{what} move {mv}: {value} outside {lower}..{upper}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_past_its_budget_says_what_it_proved() {
    // Only the node budget may stop these searches: on a loaded machine
    // the default 3 s could run out first (or before the search starts),
    // and a stop before any search has proved nothing to report.
    let server = start(ServerLimits {
        search_nodes: Some(3000),
        search_time: Duration::from_secs(120),
        request_time: Duration::from_secs(120),
        ..ServerLimits::default()
    })
    .await;
    let board = Dots::new(4, 4).unwrap();
    let mut rng = Rng::new(2122);
    let position = loop {
        if let Some(p) = board.random_without_third_sides(&mut rng, 26) {
            break board.notation(p);
        }
    };
    let oracle = Oracle::open(&committed_tables()).unwrap();
    let exact = oracle.moves(board.id(), &position).unwrap();
    let (status, json) = get(&server, &probe_path("dots:4x4", &position, "")).await;
    assert_eq!(
        (status, json["kind"].as_str()),
        (503, Some("budget")),
        "{json}"
    );
    assert!(
        json["error"].as_str().unwrap().contains("unknown"),
        "{json}"
    );
    assert_bounds_hold(&json["bounds"], &exact, "http");
    // The same through `serve --stdio`, under a budget of its own.
    let budgeted = Oracle::open(&committed_tables())
        .unwrap()
        .with_search_budget(3000);
    let request = format!("{{\"game\":\"dots:4x4\",\"position\":\"{position}\",\"id\":7}}\n");
    let mut output = Vec::new();
    solvedb_server::stdio::serve(&budgeted, request.as_bytes(), &mut output).unwrap();
    let reply: Value = serde_json::from_slice(&output).unwrap();
    assert_eq!(
        (reply["kind"].as_str(), &reply["id"]),
        (Some("budget"), &Value::from(7))
    );
    assert_bounds_hold(&reply["bounds"], &exact, "stdio");
    // Only the value asked for: no bounds (that search proves none).
    let (status, json) = get(&server, &probe_path("dots:4x4", &position, "&want=value")).await;
    assert_eq!(status, 503, "{json}");
    assert!(json.get("bounds").is_none(), "{json}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn searches_beyond_the_slots_are_refused_not_queued_forever() {
    let server = start(ServerLimits {
        searches: 1,
        queue_wait: Duration::from_millis(100),
        search_time: Duration::from_secs(2),
        ..ServerLimits::default()
    })
    .await;
    let empty = format!("5x5:{}", "0".repeat(60));
    let path = probe_path("dots:5x5", &empty, "");
    let (a, b) = tokio::join!(get(&server, &path), async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        get(&server, &path).await
    });
    // The first search runs out of time, the second finds no free slot.
    for (status, json) in [&a, &b] {
        assert_eq!(
            (*status, json["kind"].as_str()),
            (503, Some("budget")),
            "{json}"
        );
    }
    assert!(b.1["error"].as_str().unwrap().contains("slot"), "{}", b.1);
    // Table answers do not wait for search slots.
    let (status, _) = get(&server, &probe_path("tictactoe", ".........", "")).await;
    assert_eq!(status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_all_get_their_own_answer() {
    let server = std::sync::Arc::new(start(ServerLimits::default()).await);
    let oracle = std::sync::Arc::new(Oracle::open(&committed_tables()).unwrap());
    let mut rng = Rng::new(11);
    let mut positions: Vec<(GameId, String)> = random_positions(&TicTacToe, &mut rng, 100)
        .into_iter()
        .map(|p| (GameId::TicTacToe, TicTacToe.notation(p)))
        .collect();
    positions.extend(
        random_positions(&Cube, &mut rng, 100)
            .into_iter()
            .map(|p| (GameId::Cube, Cube.notation(p))),
    );
    let mut tasks = Vec::new();
    for chunk in positions.chunks(200 / 32 + 1) {
        let chunk = chunk.to_vec();
        let (server, oracle) = (server.clone(), oracle.clone());
        tasks.push(tokio::spawn(async move {
            for (game, position) in chunk {
                let (status, json) =
                    get(&server, &probe_path(&game.to_string(), &position, "")).await;
                assert_eq!(status, 200);
                assert_eq!(json, oracle.moves(game, &position).unwrap().to_json());
            }
        }));
    }
    assert!(tasks.len() >= 16);
    for task in tasks {
        task.await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_games_and_the_page() {
    let server = start(ServerLimits::default()).await;
    let (status, json) = get(&server, "/api/v1/check?game=tictactoe&position=X........").await;
    assert_eq!(status, 200);
    assert_eq!(json["position"], "X../.../...");
    let (status, json) = get(&server, "/api/v1/games").await;
    assert_eq!(status, 200);
    let games = json["games"].as_array().unwrap();
    let find = |name: &str| games.iter().find(|g| g["game"] == name).cloned();
    for name in ["tictactoe", "cube", "dots:2x2", "dots:3x3"] {
        let entry = find(name).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(entry["table"], true, "{name}");
        assert_eq!(entry["table_covers_every_position"], true, "{name}");
        let game: GameId = name.parse().unwrap();
        let start = with_game!(game, g => Ok::<_, Error>(g.notation(g.start()))).unwrap();
        assert_eq!(entry["start"], start);
    }
    assert_eq!(find("dots:4x4").unwrap()["table"], false);
    assert_eq!(find("dots:5x5").unwrap()["table"], false);

    let client = Client::new();
    let (status, html) = client.get(&format!("{}/", server.base)).await.unwrap();
    assert_eq!(status, 200);
    assert!(html.contains(r#"<script type="module" src="/assets/app.js">"#));
    for (name, _, text) in http::page::ASSETS {
        let (status, body) = client
            .get(&format!("{}/assets/{name}", server.base))
            .await
            .unwrap();
        assert_eq!((status, body.as_str()), (200, *text), "{name}");
        // Nothing is fetched from anywhere else (the SVG namespace is a name).
        let body = body.replace("http://www.w3.org/2000/svg", "");
        assert!(
            !body.contains("http://") && !body.contains("https://"),
            "{name}"
        );
    }
}

/// Bytes written by the command, sent to the test as they come.
struct Pipe(std::sync::mpsc::Sender<Vec<u8>>);

impl std::io::Write for Pipe {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let _ = self.0.send(bytes.to_vec());
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn serve_http_prints_its_address_first_and_serves_there() {
    let (receive, heard) = serve_http(&committed_tables());
    let mut out = Vec::new();
    while !out.contains(&b'\n') {
        out.extend(receive.recv_timeout(Duration::from_secs(30)).unwrap());
    }
    // The games the tables answer are named, Qubic's among them.
    let err = lines_until(&heard, "live searches (");
    let named = err
        .lines()
        .find(|l| l.starts_with("solvedb serve: tables from "))
        .unwrap_or_else(|| panic!("{err}"));
    assert!(
        named.contains(", qubic,") && named.contains("tictactoe"),
        "{named}"
    );
    let first = String::from_utf8(out).unwrap();
    let first = first.lines().next().unwrap();
    let base = first
        .strip_prefix("listening on ")
        .and_then(|url| url.strip_suffix('/'))
        .unwrap_or_else(|| panic!("first line {first:?}"));
    assert!(base.starts_with("http://127.0.0.1:"), "{first}");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (status, body) = runtime
        .block_on(Client::new().get(&format!(
            "{base}/api/v1/probe?game=tictactoe&position=XX./OO./...&want=best"
        )))
        .unwrap();
    assert_eq!(status, 200, "{body}");
    let json: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(json["best_move"]["move"], "2");
}

/// `solvedb serve --http` on a free loopback port over `tables`, in a
/// thread that runs until the test binary exits: what it writes to its
/// output and to its error stream, as it comes.
fn serve_http(tables: &std::path::Path) -> (Receiver<Vec<u8>>, Receiver<Vec<u8>>) {
    let (send, receive) = std::sync::mpsc::channel();
    let (said, heard) = std::sync::mpsc::channel();
    let tables = tables.to_str().unwrap().to_owned();
    std::thread::spawn(move || {
        let args = [
            "solvedb",
            "serve",
            "--http",
            "--addr",
            "127.0.0.1:0",
            "--tables",
            &tables,
        ];
        solvedb_generator::cli::main_with(args, &mut Pipe(send), &mut Pipe(said))
    });
    (receive, heard)
}

/// What a server wrote to its error stream up to the line holding `last`.
fn lines_until(heard: &Receiver<Vec<u8>>, last: &str) -> String {
    let mut err = Vec::new();
    while !String::from_utf8_lossy(&err).contains(last) {
        err.extend(heard.recv_timeout(Duration::from_secs(30)).unwrap());
    }
    String::from_utf8(err).unwrap()
}

#[test]
fn a_server_without_tables_says_so() {
    let empty = tempfile::tempdir().unwrap();
    let (_, heard) = serve_http(&empty.path().join("tables"));
    let err = lines_until(&heard, "live searches (");
    assert!(
        err.contains("warning: no tables in ") && err.contains("every answer is a live search"),
        "{err}"
    );
}

#[test]
fn serve_takes_exactly_one_transport() {
    for args in [
        &["serve"][..],
        &["serve", "--stdio", "--http"],
        &["serve", "--stdio", "--addr", "127.0.0.1:0"],
    ] {
        let (code, _, stderr) = solvedb(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
    }
}
