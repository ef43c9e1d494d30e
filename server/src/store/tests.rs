//! The leaderboard's database, on disk and in memory: totals, names,
//! migrations and concurrency.

use std::time::Duration;

use rusqlite::{Connection, params};

use super::database::lock;
use super::migrations::to_version_1;

use super::*;

pub(super) fn person(identity: &str, name: &str) -> Seat {
    Seat::Person {
        identity: Some(identity.to_owned()),
        name: name.to_owned(),
    }
}

pub(super) fn record(players: [Seat; 2], winner: Option<u8>, kept: &[Option<bool>]) -> GameRecord {
    GameRecord {
        game: "tictactoe".into(),
        kind: "room",
        start: "...".into(),
        players,
        winner,
        moves: kept
            .iter()
            .enumerate()
            .map(|(i, &k)| MoveRecord {
                seat: (i % 2) as u8,
                mv: i.to_string(),
                kept: k,
                cost: k.map(|k| i64::from(!k)),
            })
            .collect(),
        addresses: [None, None],
    }
}

/// Six judged moves, three a seat: enough for a tic-tac-toe game to rank.
pub(super) const SIX_KEPT: &[Option<bool>] = &[Some(true); 6];

pub(super) fn entry<'a>(board: &'a Board, name: &str) -> &'a Entry {
    board
        .people
        .iter()
        .chain(&board.computer)
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no {name} in {board:?}"))
}

#[test]
fn records_count_per_player_and_survive_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    // ann: moves 0, 2, 4 (kept, kept, missed); bob: 1, 3, 5 (kept).
    let id = store
        .record(&record(
            [person("a", "ann"), person("b", "bob")],
            Some(0),
            &[
                Some(true),
                Some(true),
                Some(true),
                Some(true),
                Some(false),
                Some(true),
            ],
        ))
        .unwrap();
    store
        .record(&record(
            [person("b", "bob"), person("a", "ann")],
            None,
            SIX_KEPT,
        ))
        .unwrap();
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.count(Some("tictactoe")).unwrap(), 2);
    assert_eq!(store.count(Some("cube")).unwrap(), 0);
    let back = store.game(id).unwrap().unwrap();
    assert_eq!(back.moves[4].kept, Some(false));
    assert_eq!(back.players[0].shown_name(), "ann");
    let board = store.leaderboard(Some("tictactoe"), 1, 10).unwrap();
    assert_eq!(board.pages, 1);
    let (ann, bob) = (entry(&board, "ann"), entry(&board, "bob"));
    assert_eq!((ann.games, ann.wins, ann.draws, ann.losses), (2, 1, 1, 0));
    assert_eq!((bob.games, bob.wins, bob.draws, bob.losses), (2, 0, 1, 1));
    // ann: 2 of 3 in the first game, 3 of 3 in the second.
    assert_eq!((ann.kept_moves, ann.rated_moves), (5, 6));
    assert_eq!((bob.kept_moves, bob.rated_moves), (6, 6));
    // Two games each: not ranked yet; the one with more games first,
    // then by number.
    assert_eq!((ann.rank, bob.rank), (None, None));
    // Pages of one.
    let first = store.leaderboard(None, 1, 1).unwrap();
    let second = store.leaderboard(None, 2, 1).unwrap();
    let beyond = store.leaderboard(None, 3, 1).unwrap();
    assert_eq!(first.pages, 2);
    assert_eq!(
        (
            first.people[0].name.as_str(),
            second.people[0].name.as_str()
        ),
        ("ann", "bob")
    );
    assert!(beyond.people.is_empty());
}

#[test]
fn players_who_only_drew_only_lost_or_only_won_are_listed() {
    let store = Store::in_memory().unwrap();
    // dee only draws, los only loses, win only wins: every total but
    // one of theirs is zero (the sums of version 1 were NULL there).
    for _ in 0..3 {
        store
            .record(&record(
                [person("d", "dee"), person("e", "eve")],
                None,
                SIX_KEPT,
            ))
            .unwrap();
        store
            .record(&record(
                [person("w", "win"), person("l", "los")],
                Some(0),
                &[Some(true), Some(false)].repeat(3),
            ))
            .unwrap();
    }
    let board = store.leaderboard(Some("tictactoe"), 1, 20).unwrap();
    let dee = entry(&board, "dee");
    assert_eq!((dee.games, dee.wins, dee.draws, dee.losses), (3, 0, 3, 0));
    let los = entry(&board, "los");
    assert_eq!((los.games, los.wins, los.draws, los.losses), (3, 0, 0, 3));
    assert_eq!((los.kept_moves, los.rated_moves), (0, 9));
    assert_eq!(los.accuracy(), Some(0.0));
    let win = entry(&board, "win");
    assert_eq!((win.games, win.wins, win.draws, win.losses), (3, 3, 0, 0));
    // Ranked: three games each; 100% first, los (0%) last.
    assert_eq!(board.people.len(), 4);
    assert_eq!(board.people[3].name, "los");
    assert_eq!(board.people[3].rank, Some(4));
    assert!(board.people[..3].iter().all(|e| e.accuracy() == Some(1.0)));
    // All games together reads the same.
    let all = store.leaderboard(None, 1, 20).unwrap();
    assert_eq!(entry(&all, "dee").draws, 3);
}

#[test]
fn identities_names_and_the_computer() {
    let store = Store::in_memory().unwrap();
    let anonymous = |id: &str| person(id, "");
    // Two anonymous people and two people called ann: four lines.
    for (first, second) in [
        (anonymous("x1"), anonymous("x2")),
        (person("a1", "ann"), person("a2", "ann")),
    ] {
        store
            .record(&record([first, second], None, SIX_KEPT))
            .unwrap();
    }
    // A person against the computer; a seat without an identity; a
    // person playing both seats.
    let computer = Seat::Computer {
        level: "perfect".into(),
    };
    store
        .record(&record(
            [person("a1", "ann b."), computer.clone()],
            Some(1),
            &[Some(false), Some(true)].repeat(3),
        ))
        .unwrap();
    store
        .record(&record(
            [
                Seat::Person {
                    identity: None,
                    name: "ann".into(),
                },
                computer,
            ],
            None,
            SIX_KEPT,
        ))
        .unwrap();
    store
        .record(&record(
            [person("x1", ""), person("x1", "")],
            Some(0),
            SIX_KEPT,
        ))
        .unwrap();
    let board = store.leaderboard(None, 1, 20).unwrap();
    let names: Vec<&str> = board.people.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names.len(), 4, "{names:?}");
    assert_eq!(names.iter().filter(|n| **n == "anonymous").count(), 2);
    // The first ann's name is the last she gave; her games: 2.
    assert!(names.contains(&"ann b.") && names.contains(&"ann"));
    assert_eq!(entry(&board, "ann b.").games, 2);
    // The computer apart: one game counted (the other seat had no
    // identity, but the computer's seat counts).
    assert_eq!(board.computer.len(), 1);
    let perfect = &board.computer[0];
    assert_eq!(
        (perfect.name.as_str(), perfect.games, perfect.rank),
        ("computer (perfect)", 2, None)
    );
    // Playing oneself counted for nobody: x1 still has one game.
    let x1 = board
        .people
        .iter()
        .filter(|e| e.name == "anonymous")
        .map(|e| e.games)
        .collect::<Vec<_>>();
    assert_eq!(x1, [1, 1]);
    assert_eq!(store.count(None).unwrap(), 5);
}

#[test]
fn reserved_names() {
    for name in [
        "computer",
        "Computer (perfect)",
        " computer: classic",
        "SolveDB",
        // Look-alikes: Cyrillic с and о, Greek Ο, full-width letters,
        // "rn" for "m", a zero-width space.
        "\u{441}omputer (perfect)",
        "c\u{43e}mputer",
        "C\u{39f}MPUTER",
        "\u{ff43}\u{ff4f}\u{ff4d}puter",
        "cornputer",
        "com\u{200b}puter",
    ] {
        assert!(is_reserved_name(name), "{name}");
    }
    for name in ["ann", "the computer", "comp", "\u{410}nna", "solve"] {
        assert!(!is_reserved_name(name), "{name}");
    }
}

#[test]
fn a_version_1_database_is_migrated_with_its_data() {
    let dir = tempfile::tempdir().unwrap();
    {
        let mut conn = Connection::open(dir.path().join(FILE_NAME)).unwrap();
        let tx = conn.transaction().unwrap();
        to_version_1(&tx).unwrap();
        tx.pragma_update(None, "user_version", 1).unwrap();
        // Room games: dee only drew (the leaderboard of version 1
        // failed on her), los only lost; anonymous and a player named
        // like the computer; a posted game against the computer.
        let games = [
            (1, "room", "dee", "los", Some(0)),
            (2, "room", "dee", "anonymous", None),
            (3, "room", "win", "los", Some(0)),
            (4, "room", "computer (perfect)", "win", Some(1)),
            (5, "computer", "win", "computer (perfect)", Some(0)),
        ];
        for (id, kind, first, second, winner) in games {
            // dee only drew: her first game she won is made a draw.
            let winner = if id == 1 { None } else { winner };
            tx.execute(
                "INSERT INTO games (id, game, kind, start, first, second, winner, finished)
                 VALUES (?1, 'tictactoe', ?2, '...', ?3, ?4, ?5, 0)",
                params![id, kind, first, second, winner],
            )
            .unwrap();
            for ply in 0..4 {
                tx.execute(
                    "INSERT INTO moves (game_id, ply, seat, mv, kept, cost)
                     VALUES (?1, ?2, ?3, '0', ?4, 0)",
                    params![id, ply, ply % 2, (ply != 3).then_some(ply != 1)],
                )
                .unwrap();
            }
        }
        tx.commit().unwrap();
    }
    let store = Store::open(dir.path()).unwrap();
    // Every game of version 1 is kept, read back as it was; judged by the
    // ranking rules (version 4), none ranks: each room game has a move
    // of unknown value (ply 3) and two moves a seat, the posted one was
    // not refereed.
    assert_eq!(store.count(None).unwrap(), 5);
    assert_eq!(store.game(5).unwrap().unwrap().kind, "posted");
    assert_eq!(
        store.game(1).unwrap().unwrap().players[0].shown_name(),
        "dee"
    );
    for id in 1..=4 {
        assert_eq!(
            unranked_of(&store, id).as_deref(),
            Some("unjudged"),
            "game {id}"
        );
    }
    assert_eq!(unranked_of(&store, 5).as_deref(), Some("posted"));
    let board = store.leaderboard(Some("tictactoe"), 1, 20).unwrap();
    assert!(board.people.is_empty(), "{board:?}");
    assert!(board.computer.is_empty());
    // New games go on from there.
    store
        .record(&record(
            [person("d", "dee"), person("l", "los")],
            None,
            SIX_KEPT,
        ))
        .unwrap();
    let board = store.leaderboard(Some("tictactoe"), 1, 20).unwrap();
    // An identity is a new player: the dee of version 1 stays apart.
    assert_eq!(board.people.len(), 2);
    assert_eq!(entry(&board, "dee").games, 1);
}

#[test]
fn a_write_does_not_wait_for_reads() {
    let dir = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(Store::open(dir.path()).unwrap());
    // Every reading connection busy inside a read transaction.
    let guards: Vec<_> = store.readers.each().collect();
    for conn in &guards {
        conn.execute_batch("BEGIN; SELECT COUNT(*) FROM totals;")
            .unwrap();
    }
    let (done, finished) = std::sync::mpsc::channel();
    let writer = std::sync::Arc::clone(&store);
    std::thread::spawn(move || {
        let game = record([person("a", "ann"), person("b", "bob")], Some(0), &[]);
        done.send(writer.record(&game).is_ok()).unwrap();
    });
    // The write goes through while the reads are open.
    assert_eq!(
        finished.recv_timeout(Duration::from_secs(30)),
        Ok(true),
        "the write waited for the readers"
    );
    for conn in &guards {
        conn.execute_batch("COMMIT").unwrap();
    }
    drop(guards);
    assert_eq!(store.count(None).unwrap(), 1);
}

#[test]
fn a_newer_schema_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    drop(Store::open(dir.path()).unwrap());
    let conn = Connection::open(dir.path().join(FILE_NAME)).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    let error = format!("{:#}", Store::open(dir.path()).unwrap_err());
    assert!(error.contains("newer"), "{error}");
}

#[test]
fn not_a_database_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(FILE_NAME),
        b"not a database at all, just text",
    )
    .unwrap();
    assert!(Store::open(dir.path()).is_err());
}

/// Why game `id` does not rank, as stored (`None`: it ranks).
pub(super) fn unranked_of(store: &Store, id: i64) -> Option<String> {
    lock(&store.writer)
        .query_row("SELECT unranked FROM games WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .unwrap()
}

#[test]
fn a_game_not_wholly_judged_against_the_random_level_short_or_against_oneself_does_not_rank() {
    let store = Store::in_memory().unwrap();
    let (ann, bob) = (person("a", "ann"), person("b", "bob"));
    // One ranked game each, for totals to compare with.
    let ranked = store
        .record(&record([ann.clone(), bob.clone()], None, SIX_KEPT))
        .unwrap();
    assert_eq!(unranked_of(&store, ranked), None);
    // ann's missed move unjudged (the search gave up): not accurate by
    // default, the whole game unranked.
    let mut unjudged = SIX_KEPT.to_vec();
    unjudged[4] = None;
    let random = Seat::Computer {
        level: "random".into(),
    };
    let perfect = Seat::Computer {
        level: "perfect".into(),
    };
    let cases = [
        (
            record([ann.clone(), bob.clone()], Some(0), &unjudged),
            "unjudged",
        ),
        (record([ann.clone(), random], Some(0), SIX_KEPT), "random"),
        // bob made two moves: short (ann's three do not help).
        (
            record([ann.clone(), bob.clone()], Some(0), &SIX_KEPT[..5]),
            "short",
        ),
        (
            record([perfect.clone(), ann.clone()], Some(0), &SIX_KEPT[..5]),
            "short",
        ),
        (
            record([ann.clone(), ann.clone()], Some(0), SIX_KEPT),
            "oneself",
        ),
    ];
    for (game, why) in cases {
        let id = store.record(&game).unwrap();
        assert_eq!(unranked_of(&store, id).as_deref(), Some(why), "{game:?}");
        assert_eq!(store.game(id).unwrap().unwrap().moves, game.moves);
    }
    assert_eq!(store.count(None).unwrap(), 6, "every game recorded");
    let board = store.leaderboard(None, 1, 20).unwrap();
    for name in ["ann", "bob"] {
        let e = entry(&board, name);
        assert_eq!(
            (e.games, e.wins, e.draws, e.rated_moves, e.kept_moves),
            (1, 0, 1, 3, 3),
            "{name}: only the ranked game counts"
        );
    }
    assert!(board.computer.is_empty(), "{board:?}");
    // The computer's seats are not held to the minimum: its two moves
    // before the person's third are enough.
    let id = store
        .record(&record([perfect, ann], Some(1), &SIX_KEPT[..6]))
        .unwrap();
    assert_eq!(unranked_of(&store, id), None);
}

#[test]
fn the_minimum_of_moves_is_the_game_familys() {
    let store = Store::in_memory().unwrap();
    for (game, min) in [
        ("tictactoe", 3),
        ("cube", 3),
        ("tictactoe:4x4", 4),
        ("qubic", 4),
        ("dots:2x2", 3),
    ] {
        assert_eq!(min_moves(game), min);
        for (moves, ranks) in [(2 * min - 1, false), (2 * min, true)] {
            let mut game_record = record(
                [person("a", "ann"), person("b", "bob")],
                None,
                &vec![Some(true); moves],
            );
            game_record.game = game.into();
            let id = store.record(&game_record).unwrap();
            assert_eq!(unranked_of(&store, id).is_none(), ranks, "{game}, {moves}");
        }
    }
}

#[test]
fn an_address_makes_a_few_new_identities_an_hour() {
    let store = Store::in_memory().unwrap();
    let here: std::net::IpAddr = "192.0.2.7".parse().unwrap();
    let there: std::net::IpAddr = "198.51.100.9".parse().unwrap();
    let perfect = Seat::Computer {
        level: "perfect".into(),
    };
    let game = |id: &str, address| {
        let mut r = record([person(id, id), perfect.clone()], Some(1), SIX_KEPT);
        r.addresses[0] = Some(address);
        r
    };
    // An unranked game makes no identity (and takes none of the quota).
    let mut short = game("short1234", here);
    short.moves.truncate(3);
    store.record(&short).unwrap();
    let limit = NEW_IDENTITIES_PER_HOUR as usize;
    let names: Vec<String> = (0..=limit).map(|i| format!("id{i}")).collect();
    for name in &names {
        store.record(&game(name, here)).unwrap();
    }
    // Known identities still count, from any address; a new one from
    // another address too.
    store.record(&game("id0", here)).unwrap();
    store.record(&game("else", there)).unwrap();
    let board = store.leaderboard(None, 1, 100).unwrap();
    let listed: Vec<&str> = board.people.iter().map(|e| e.name.as_str()).collect();
    let mut expected: Vec<&str> = names[..limit].iter().map(String::as_str).collect();
    expected.push("else");
    let mut sorted = listed.clone();
    sorted.sort_unstable();
    expected.sort_unstable();
    assert_eq!(sorted, expected, "the sixth new identity counts for nobody");
    assert_eq!(entry(&board, "id0").games, 2);
    // The games all recorded; the computer's seat counted in each ranked one.
    assert_eq!(store.count(None).unwrap(), limit as u64 + 4);
    assert_eq!(entry(&board, "computer (perfect)").games, limit as u64 + 3);
}
