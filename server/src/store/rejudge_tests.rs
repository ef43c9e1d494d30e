//! A database of schema version 3 (games recorded before the ranking
//! rules, counted in the totals whatever they were) opened by this
//! program: each game is judged again by the ranking rules, and the
//! totals are counted from the games that rank.

use rusqlite::{Connection, params};

use super::migrations::{to_version_1, to_version_2, to_version_3};
use super::tests::{entry, unranked_of};
use super::*;

/// An old game: id, kind, first and second player, winner, each move's
/// `kept`.
type OldGame = (
    i64,
    &'static str,
    Option<i64>,
    Option<i64>,
    Option<u8>,
    Vec<Option<bool>>,
);

/// Version 3's database in `dir`: ann and bob, the random computer, and
/// games of every kind, all counted in the totals as version 3 did.
fn version_3(dir: &std::path::Path) {
    let mut conn = Connection::open(dir.join(FILE_NAME)).unwrap();
    let tx = conn.transaction().unwrap();
    for step in [to_version_1, to_version_2, to_version_3] {
        step(&tx).unwrap();
    }
    tx.pragma_update(None, "user_version", 3).unwrap();
    tx.execute_batch(
        "INSERT INTO players (id, identity, computer, name) VALUES
             (1, 'ann-identity-0001', NULL, 'ann'),
             (2, 'bob-identity-0001', NULL, 'bob'),
             (3, NULL, 'random', 'computer (random)');",
    )
    .unwrap();
    // (id, kind, first, second, winner, moves' kept)
    let t = Some(true);
    let games: [OldGame; 6] = [
        (
            1,
            "room",
            Some(1),
            Some(2),
            Some(0),
            vec![t, t, t, Some(false), t, t],
        ),
        (
            2,
            "room",
            Some(1),
            Some(2),
            Some(1),
            vec![t, t, None, t, t, t],
        ),
        (3, "computer", Some(1), Some(3), Some(0), vec![t; 6]),
        (4, "room", Some(1), Some(2), Some(0), vec![t; 4]),
        (5, "room", Some(1), Some(1), None, vec![t; 6]),
        (6, "posted", None, None, Some(0), vec![t; 6]),
    ];
    for (id, kind, first, second, winner, kept) in games {
        tx.execute(
            "INSERT INTO games (id, game, kind, start, first, second, winner, finished,
                                first_player, second_player)
             VALUES (?1, 'tictactoe', ?2, '.........', 'a', 'b', ?3, 0, ?4, ?5)",
            params![id, kind, winner, first, second],
        )
        .unwrap();
        for (ply, k) in kept.iter().enumerate() {
            tx.execute(
                "INSERT INTO moves (game_id, ply, seat, mv, kept, cost) VALUES (?1, ?2, ?3, ?4, ?5, 0)",
                params![id, ply as i64, (ply % 2) as i64, ply.to_string(), k],
            )
            .unwrap();
        }
    }
    // Version 3 counted them all (ann: 5 games, 4 won; bob: 3 games).
    tx.execute_batch(
        "INSERT INTO totals (player, game, person, games, wins, draws, losses, rated, kept) VALUES
             (1, 'tictactoe', 1, 5, 4, 1, 0, 14, 14), (1, '*', 1, 5, 4, 1, 0, 14, 14),
             (2, 'tictactoe', 1, 3, 1, 0, 2, 8, 7), (2, '*', 1, 3, 1, 0, 2, 8, 7),
             (3, 'tictactoe', 0, 1, 0, 0, 1, 3, 3), (3, '*', 0, 1, 0, 0, 1, 3, 3);
         DELETE FROM listed;
         INSERT INTO listed (game, people) VALUES ('tictactoe', 2), ('*', 2);",
    )
    .unwrap();
    tx.commit().unwrap();
}

#[test]
fn games_of_before_the_ranking_rules_are_judged_by_them() {
    let dir = tempfile::tempdir().unwrap();
    version_3(dir.path());
    let store = Store::open(dir.path()).unwrap();
    let reasons: Vec<Option<String>> = (1..=6).map(|id| unranked_of(&store, id)).collect();
    let expected = [
        None,
        Some("unjudged"),
        Some("random"),
        Some("short"),
        Some("oneself"),
        Some("posted"),
    ];
    assert_eq!(reasons, expected.map(|r| r.map(str::to_owned)));
    assert_eq!(store.count(None).unwrap(), 6, "every game kept");
    // The totals are game 1's alone: ann won it, three moves kept; bob
    // lost it, one of his three moves missed.
    for game in [Some("tictactoe"), None] {
        let board = store.leaderboard(game, 1, 20).unwrap();
        assert_eq!(board.people.len(), 2, "{board:?}");
        assert_eq!(board.pages, 1);
        let ann = entry(&board, "ann");
        assert_eq!(
            (
                ann.games,
                ann.wins,
                ann.draws,
                ann.losses,
                ann.rated_moves,
                ann.kept_moves
            ),
            (1, 1, 0, 0, 3, 3)
        );
        let bob = entry(&board, "bob");
        assert_eq!(
            (
                bob.games,
                bob.wins,
                bob.draws,
                bob.losses,
                bob.rated_moves,
                bob.kept_moves
            ),
            (1, 0, 0, 1, 3, 2)
        );
        assert!(
            board.computer.is_empty(),
            "the random computer's game does not rank"
        );
    }
    // Opened again: nothing judged twice, nothing changed.
    drop(store);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(
        entry(&store.leaderboard(None, 1, 20).unwrap(), "ann").games,
        1
    );
}
