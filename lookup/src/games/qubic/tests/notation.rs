//! Notation, moves and the picture.

use super::*;

#[test]
fn notation_round_trips() {
    for board in random_positions(100, 12) {
        let text = Q.notation(board);
        assert_eq!(text.len(), 64 + 3 * 4 + 3 * 2, "{text}");
        assert_eq!(Q.parse(&text), Ok(board), "{text}");
        let single = text.replace("//", "/");
        assert_eq!(Q.parse(&single), Ok(board), "{single}");
        let bare = text.replace('/', "");
        assert_eq!(Q.parse(&bare), Ok(board), "{bare}");
    }
    for c in 0..64u8 {
        let cell = Q.parse_move(&c.to_string()).unwrap();
        assert_eq!(cell.index(), c);
        assert_eq!(cell.to_string(), c.to_string());
        assert_eq!(QubicCell::new(c), Some(cell));
    }
    assert_eq!(QubicCell::new(64), None);
}

#[test]
fn notation_errors_name_the_problem() {
    let empty = ".".repeat(64);
    assert_eq!(Q.parse(&empty), Ok(Q.start()));
    assert!(matches!(
        Q.parse("X.."),
        Err(PositionError::Length {
            found: 3,
            expected: 64,
            ..
        })
    ));
    assert!(matches!(
        Q.parse(&".".repeat(65)),
        Err(PositionError::Length { found: 65, .. })
    ));
    assert!(matches!(
        Q.parse(&format!("{}Z{}", ".".repeat(5), ".".repeat(58))),
        Err(PositionError::Character {
            found: 'Z',
            at: 5,
            ..
        })
    ));
    assert!(matches!(
        Q.parse(&format!("XX{}", ".".repeat(62))),
        Err(PositionError::Counts { x: 2, o: 0 })
    ));
    assert!(matches!(
        Q.parse(&format!("O{}", ".".repeat(63))),
        Err(PositionError::Counts { x: 0, o: 1 })
    ));
    // X owns the row 0-3 and O the row 4-7.
    assert!(matches!(
        Q.parse(&format!("XXXXOOOO{}", ".".repeat(56))),
        Err(PositionError::BothWin)
    ));
    // X owns a row, but O moved after it.
    assert!(matches!(
        Q.parse(&format!("XXXXOOO.O{}", ".".repeat(55))),
        Err(PositionError::PlayAfterWin { winner: 'X' })
    ));
    // O owns a row, but X moved after it.
    assert!(matches!(
        Q.parse(&format!("OOOOXXX.X.X{}", ".".repeat(53))),
        Err(PositionError::PlayAfterWin { winner: 'O' })
    ));
    // A win with the last stone is a finished game, not an error.
    let won = Q.parse(&format!("XXXXOOO{}", ".".repeat(57))).unwrap();
    assert_eq!(Q.terminal_score(won), Some(-(WIN_SCORE - 7)));
    assert!(Q.moves(won).is_empty());
    // Slashes: only between rows, one between rows, at most two between layers.
    let layer = "..../..../..../....";
    let good = [layer; 4].join("//");
    assert_eq!(Q.parse(&good), Ok(Q.start()));
    for bad in [
        format!("/{good}"),
        format!("{good}/"),
        good.replacen("..../", ".../.", 1),
        good.replacen("....//", "....///", 1),
        good.replacen("..../", "....//", 1),
    ] {
        assert!(
            matches!(
                Q.parse(&bad),
                Err(PositionError::Character { found: '/', .. })
            ),
            "{bad}"
        );
    }
    for bad in ["64", "-1", "x", "", "1000"] {
        assert!(
            matches!(Q.parse_move(bad), Err(PositionError::BadMove { .. })),
            "{bad}"
        );
    }
    let p = Q.play_notation(Q.start(), "21").unwrap();
    assert!(matches!(
        Q.play_notation(p, "21"),
        Err(PositionError::IllegalMove { .. })
    ));
    assert!(matches!(
        Q.parse("0 1 64"),
        Err(PositionError::BadMove { .. })
    ));
    assert!(matches!(
        Q.parse("0 1 0"),
        Err(PositionError::IllegalMove { .. })
    ));
    assert!(matches!(Q.board(1, 1), Err(PositionError::BadMove { .. })));
    assert_eq!(Q.board(1, 2).map(|b| (b.x(), b.o())), Ok((1, 2)));
}

#[test]
fn arbitrary_text_is_parsed_or_refused_never_a_panic() {
    let mut rng = Rng::new(17);
    let alphabet = ['X', 'O', '.', '.', '.', '.', '/', 'Z', ' ', 'é', '1'];
    for _ in 0..20_000 {
        let len = rng.below(90) as usize;
        let text: String = (0..len).map(|_| *rng.pick(&alphabet)).collect();
        if let Ok(board) = Q.parse(&text) {
            assert_eq!(Q.parse(&Q.notation(board)), Ok(board));
        }
    }
}

#[test]
fn the_picture_shows_the_layers_side_by_side() {
    let p = Q.parse("0 21").unwrap();
    let expected = "    z=0             z=1             z=2             z=3\n \
                    X  1  2  3  |  16 17 18 19  |  32 33 34 35  |  48 49 50 51\n \
                    4  5  6  7  |  20  O 22 23  |  36 37 38 39  |  52 53 54 55\n \
                    8  9 10 11  |  24 25 26 27  |  40 41 42 43  |  56 57 58 59\n\
                    12 13 14 15  |  28 29 30 31  |  44 45 46 47  |  60 61 62 63";
    assert_eq!(Q.picture(p), expected);
}
