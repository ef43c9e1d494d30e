//! Every face offers every game of the catalogue, and each derives its list
//! from it: the command line's help and `build all`, `probe`/`search` and
//! `serve --stdio`, the fuzzer, `/api/v1/games` and rooms. (The page builds
//! its menu from `/api/v1/games`, tested in the browser tests; C programs
//! read `solvedb_games()` and the Python package `games()`, each checked
//! against the catalogue in their own tests.) A game
//! added to the catalogue but missed by a face fails here.

use serde_json::Value;
use solvedb_generator::build::default_set;
use solvedb_generator::fuzz::{Budget, fuzz};
use solvedb_lookup::{
    BoardShape, Error, ErrorKind, Game, GameInfo, TablePlan, catalogue, game_names, with_game,
};
use solvedb_server::http::client::Client;
use solvedb_server::http::{self, AppState};
use solvedb_tests::{committed_tables, solvedb, solvedb_with_input};
use tokio::sync::oneshot;

fn start_of(game: &GameInfo) -> String {
    with_game!(game.id, g => Ok::<_, Error>(g.notation(g.start()))).unwrap()
}

#[test]
fn the_command_line_names_every_game_and_builds_the_shipped_ones() {
    for command in ["probe", "search", "build", "bench"] {
        let (code, help, _) = solvedb(&[command, "--help"]);
        assert_eq!(code, 0);
        assert!(help.contains(&game_names()), "{command} --help:\n{help}");
    }
    let (_, probe, _) = solvedb(&["probe", "--help"]);
    for game in catalogue() {
        if !matches!(game.board, BoardShape::Dots { .. }) {
            // Each single board's notation is explained under its name.
            assert!(
                probe.contains(&format!("{}: ", game.name())),
                "{}",
                game.name()
            );
        }
    }
    assert!(probe.contains("dots:MxN (for example dots:2x3)"));
    let shipped: Vec<_> = catalogue()
        .iter()
        .filter(|g| g.table == TablePlan::Default)
        .map(|g| g.id)
        .collect();
    assert_eq!(default_set(), shipped);
    // And every shipped table is in the repository, under its file name.
    for id in shipped {
        assert!(
            committed_tables().join(id.table_file_name()).is_file(),
            "{id}"
        );
    }
}

#[test]
fn probe_search_and_serve_know_every_game() {
    let mut requests = String::new();
    for game in catalogue() {
        let start = start_of(game);
        // A tiny budget: the answer is a value or "unknown within the
        // budget", never an unknown game.
        let tables = committed_tables();
        let args = [
            "probe",
            &game.name(),
            &start,
            "--json",
            "--nodes",
            "2000",
            "--tables",
            tables.to_str().unwrap(),
        ];
        let (code, out, _) = solvedb(&args);
        let json: Value = serde_json::from_str(&out).unwrap();
        match game.table {
            TablePlan::Default => {
                assert_eq!(code, 0, "{out}");
                assert_eq!(
                    json["moves"].as_array().unwrap().len() as u32,
                    game.board.moves()
                );
            }
            _ => assert!(
                code == 0 || json["kind"] == ErrorKind::Budget.as_str(),
                "{out}"
            ),
        }
        let (code, out, _) =
            solvedb(&["search", &game.name(), &start, "--json", "--nodes", "2000"]);
        assert!(
            code == 0 || out.contains("\"budget\""),
            "{}: {out}",
            game.name()
        );
        requests.push_str(&format!(
            "{{\"game\":\"{}\",\"position\":\"{start}\",\"want\":\"value\"}}\n",
            game.name()
        ));
    }
    let (code, out, _) = solvedb_with_input(&["serve", "--stdio", "--budget", "2000"], &requests);
    assert_eq!(code, 0);
    let answers: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), catalogue().len());
    for (game, answer) in catalogue().iter().zip(&answers) {
        assert!(
            answer["game"] == game.name().as_str() || answer["kind"] == "budget",
            "{answer}"
        );
    }
}

#[test]
fn the_fuzzer_covers_every_fuzz_target() {
    let report = fuzz(Budget::Executions(400), 5);
    assert!(report.failures.is_empty(), "{:?}", report.failures);
    for game in catalogue().iter().filter(|g| g.fuzz) {
        assert!(
            report
                .executions
                .iter()
                .any(|(id, _, n)| *id == game.id && *n > 0),
            "{} is not fuzzed",
            game.name()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_lists_every_explorer_game_and_rooms_take_each() {
    // A room for every game from one address: its write and room rates
    // lifted. A room's start position off the complete tables is searched
    // for its hints: within 0.2 s, as the values are not what this checks.
    let limits = http::ServerLimits {
        search_time: std::time::Duration::from_millis(200),
        ..http::load::load_server_limits(1)
    };
    let state = AppState::new(&committed_tables(), limits)
        .unwrap()
        .with_room_limits(http::load::load_limits(1, 1));
    let listener = http::bind("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let (_stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(http::serve_until(listener, state, async {
        let _ = stopped.await;
    }));
    let client = Client::new();
    let (status, body) = client.get(&format!("{base}/api/v1/games")).await.unwrap();
    assert_eq!(status, 200);
    let json: Value = serde_json::from_str(&body).unwrap();
    let listed = json["games"].as_array().unwrap();
    let offered: Vec<&GameInfo> = catalogue().iter().filter(|g| g.explorer).collect();
    assert_eq!(listed.len(), offered.len());
    for (entry, game) in listed.iter().zip(offered) {
        assert_eq!(entry["game"], game.name().as_str());
        assert_eq!(entry["title"], game.title.as_str());
        assert_eq!(entry["kind"], game.board.kind().as_str());
        assert_eq!(entry["board"]["kind"], game.board.kind().as_str());
        let sides: Vec<String> = game.board.sides().iter().map(char::to_string).collect();
        assert_eq!(entry["sides"], serde_json::json!(sides));
        assert_eq!(entry["start"], start_of(game).as_str());
        let table = committed_tables().join(game.id.table_file_name()).is_file();
        assert_eq!(entry["table"], table, "{}", game.name());
        let complete = table && game.id.table_covers_every_position();
        assert_eq!(
            entry["table_covers_every_position"],
            complete,
            "{}",
            game.name()
        );
        let body = format!("{{\"game\":\"{}\"}}", game.name());
        let (status, made) = client
            .post_json(&format!("{base}/api/v1/rooms"), &body)
            .await
            .unwrap();
        assert_eq!(status, 201, "{}: {made}", game.name());
    }
    // A game the explorer does not offer gets no room: the page could not
    // draw it.
    let (status, made) = client
        .post_json(&format!("{base}/api/v1/rooms"), r#"{"game":"dots:2x1"}"#)
        .await
        .unwrap();
    assert_eq!(status, 400, "{made}");
    assert!(made.contains("unsupported"), "{made}");
}
