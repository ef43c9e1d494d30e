//! Reading the leaderboard a page at a time: by number near the top, by
//! cursor anywhere; the cursor's walk lists everyone once, in the order
//! of the pages by number; a cursor not signed for the game is refused.

use super::cursor::{Cursor, CursorError};
use super::tests::{SIX_KEPT, person, record};
use super::*;

/// A store where `n` people each played one ranked game against one
/// opponent, with accuracies and results that tie in places.
fn filled(n: usize) -> Store {
    let store = Store::in_memory().unwrap();
    for i in 0..n {
        let mut kept = SIX_KEPT.to_vec();
        // Some first seats miss a move (accuracy 2/3), some games are won.
        if i % 3 == 0 {
            kept[2] = Some(false);
        }
        let winner = (i % 4 == 0).then_some(0);
        let game = record(
            [
                person(&format!("first-{i:04}"), &format!("f{i}")),
                person(&format!("second-{i:04}"), &format!("s{i}")),
            ],
            winner,
            &kept,
        );
        store.record(&game).unwrap();
    }
    store
}

/// The players of every page, read by cursor from the first page.
fn walk(store: &Store, per_page: u64) -> (Vec<i64>, Vec<Option<u64>>) {
    let mut board = store.leaderboard(None, 1, per_page).unwrap();
    let (mut players, mut ranks) = (Vec::new(), Vec::new());
    let mut page = 1;
    loop {
        assert_eq!(board.page, page);
        players.extend(board.people.iter().map(|e| e.player));
        ranks.extend(board.people.iter().map(|e| e.rank));
        let Some(next) = board.next.clone() else {
            break;
        };
        board = store.leaderboard_after(None, &next, per_page).unwrap();
        page += 1;
    }
    (players, ranks)
}

#[test]
fn a_walk_by_cursor_lists_everyone_once_in_the_order_of_the_pages_by_number() {
    let store = filled(23);
    // Every person is listed (46), none ranked yet (one game each).
    let whole = store.leaderboard(None, 1, 100).unwrap();
    assert_eq!(whole.people.len(), 46);
    assert!(whole.next.is_none());
    for per_page in [1, 7, 46] {
        let (players, ranks) = walk(&store, per_page);
        let expected: Vec<i64> = whole.people.iter().map(|e| e.player).collect();
        assert_eq!(players, expected, "per_page {per_page}");
        assert_eq!(ranks, vec![None; 46]);
    }
    // Two more games each for the first 5 pairs: ranked, at the top, their
    // ranks the same by cursor as by number.
    for round in 0..2 {
        for i in 0..5 {
            let mut kept = SIX_KEPT.to_vec();
            kept[0] = Some(i % 2 == 0 || round == 0);
            let game = record(
                [
                    person(&format!("first-{i:04}"), "f"),
                    person(&format!("second-{i:04}"), "s"),
                ],
                Some(0),
                &kept,
            );
            store.record(&game).unwrap();
        }
    }
    let whole = store.leaderboard(None, 1, 100).unwrap();
    let (players, ranks) = walk(&store, 3);
    assert_eq!(
        players,
        whole.people.iter().map(|e| e.player).collect::<Vec<_>>()
    );
    assert_eq!(
        ranks,
        whole.people.iter().map(|e| e.rank).collect::<Vec<_>>()
    );
    assert_eq!(ranks.iter().flatten().count(), 10);
    assert_eq!(ranks[..10], (1..=10).map(Some).collect::<Vec<_>>()[..]);
}

#[test]
fn a_page_by_number_past_the_cap_and_a_cursor_not_signed_for_the_game_are_refused() {
    let store = filled(3);
    let deepest = MAX_OFFSET / 20 + 1;
    assert!(store.leaderboard(None, deepest, 20).is_ok());
    let error = store.leaderboard(None, deepest + 1, 20).unwrap_err();
    assert!(error.is::<TooDeep>(), "{error}");
    let next = store.leaderboard(None, 1, 2).unwrap().next.unwrap();
    assert!(store.leaderboard_after(None, &next, 2).is_ok());
    // Another game's, edited, made up, not a cursor.
    let refused = |text: &str, game: Option<&str>| {
        let e = store.leaderboard_after(game, text, 2).unwrap_err();
        *e.downcast_ref::<CursorError>()
            .unwrap_or_else(|| panic!("{e}"))
    };
    assert_eq!(refused(&next, Some("tictactoe")), CursorError::Forged);
    let edited = next.replacen('2', "0", 1);
    assert_ne!(edited, next);
    assert_eq!(refused(&edited, None), CursorError::Forged);
    let decoded = Cursor::decode(&next, ALL_GAMES, &store.cursor_key).unwrap();
    assert_eq!(decoded.position, 2);
    let other_key = Cursor {
        position: 0,
        ..decoded
    }
    .encode(ALL_GAMES, b"not the key");
    assert_eq!(refused(&other_key, None), CursorError::Forged);
    for text in [
        "",
        "1.2.3",
        "x.n.0.1.1.00112233445566778899aabbccddeeff",
        "é",
    ] {
        assert_eq!(refused(text, None), CursorError::Malformed, "{text:?}");
    }
}
