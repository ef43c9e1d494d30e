//! Board pictures: each game's picture, read back by a reader written here
//! from the layout alone, gives the position it was drawn from, on random
//! positions; and `probe` shows it.

use solvedb_lookup::testkit::{Rng, random_game};
use solvedb_lookup::{Cube, Dots, Game, TicTacToe, TicTacToe4x4};
use solvedb_tests::{committed_tables, solvedb};

/// Tic-tac-toe grids (3×3 and 4×4): `side` rows of cells split by `|`,
/// between rules of dashes joined by `+`; an empty cell shows its number.
fn read_grid(picture: &str, side: usize) -> String {
    let rows: Vec<&str> = picture.lines().collect();
    assert_eq!(rows.len(), 2 * side - 1, "{picture}");
    let mut cells = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        if i % 2 == 1 {
            let dashes: Vec<&str> = row.split('+').collect();
            assert_eq!(dashes.len(), side, "{picture}");
            assert!(
                dashes
                    .iter()
                    .all(|d| !d.is_empty() && d.chars().all(|c| c == '-'))
            );
            continue;
        }
        let row_cells: Vec<&str> = row.split('|').collect();
        assert_eq!(row_cells.len(), side, "{picture}");
        for cell in row_cells {
            let cell = cell.trim();
            cells.push(match cell {
                "X" | "O" => cell.to_owned(),
                number => {
                    assert_eq!(number.parse::<usize>().unwrap(), cells.len(), "{picture}");
                    ".".to_owned()
                }
            });
        }
    }
    cells
        .chunks(side)
        .map(|r| r.concat())
        .collect::<Vec<_>>()
        .join("/")
}

/// The cube: a heading, then three rows of three layers separated by `|`.
fn read_cube(picture: &str) -> String {
    let rows: Vec<&str> = picture.lines().collect();
    assert_eq!(rows.len(), 4, "{picture}");
    assert!(
        rows[0].contains("z=0") && rows[0].contains("z=2"),
        "{picture}"
    );
    let mut layers = [Vec::new(), Vec::new(), Vec::new()];
    for (y, row) in rows[1..].iter().enumerate() {
        let parts: Vec<&str> = row.split('|').collect();
        assert_eq!(parts.len(), 3, "{picture}");
        for (z, part) in parts.iter().enumerate() {
            let cells: Vec<&str> = part.split_whitespace().collect();
            assert_eq!(cells.len(), 3, "{picture}");
            let row: String = cells
                .iter()
                .enumerate()
                .map(|(x, cell)| match *cell {
                    "X" | "O" => cell.to_string(),
                    number => {
                        assert_eq!(number.parse::<usize>().unwrap(), x + 3 * y + 9 * z);
                        ".".to_owned()
                    }
                })
                .collect();
            layers[z].push(row);
        }
    }
    layers
        .iter()
        .map(|l| l.join("/"))
        .collect::<Vec<_>>()
        .join("//")
}

/// Dots: rows of dots `+` with `---` for a drawn horizontal edge, and rows
/// between with `|` for a drawn vertical edge and `###` in a completed box.
/// Returns the edge string (horizontal edges row by row, then vertical).
fn read_dots(picture: &str, rows: usize, cols: usize) -> String {
    let lines: Vec<&str> = picture.lines().collect();
    assert_eq!(lines.len(), 2 * rows + 1, "{picture}");
    let at = |line: &str, i: usize| line.as_bytes().get(i).copied().unwrap_or(b' ');
    let mut horizontal = String::new();
    let mut vertical = String::new();
    for r in 0..=rows {
        let dots = lines[2 * r];
        for c in 0..cols {
            assert_eq!(at(dots, 4 * c), b'+', "{picture}");
            horizontal.push(if at(dots, 4 * c + 1) == b'-' {
                '1'
            } else {
                '0'
            });
        }
        if r < rows {
            let boxes = lines[2 * r + 1];
            for c in 0..=cols {
                vertical.push(if at(boxes, 4 * c) == b'|' { '1' } else { '0' });
            }
        }
    }
    // A box is filled exactly when its four sides are drawn.
    for r in 0..rows {
        for c in 0..cols {
            let h = |r: usize| horizontal.as_bytes()[r * cols + c] == b'1';
            let v = |c: usize| vertical.as_bytes()[r * (cols + 1) + c] == b'1';
            let complete = h(r) && h(r + 1) && v(c) && v(c + 1);
            assert_eq!(
                at(lines[2 * r + 1], 4 * c + 2) == b'#',
                complete,
                "{picture}"
            );
        }
    }
    horizontal + &vertical
}

#[test]
fn pictures_read_back_to_their_positions() {
    let mut rng = Rng::new(15);
    for _ in 0..50 {
        for position in random_game(&TicTacToe, &mut rng) {
            let picture = TicTacToe.picture(position);
            assert_eq!(read_grid(&picture, 3), TicTacToe.notation(position));
        }
        for position in random_game(&TicTacToe4x4, &mut rng) {
            let picture = TicTacToe4x4.picture(position);
            assert_eq!(read_grid(&picture, 4), TicTacToe4x4.notation(position));
        }
        for position in random_game(&Cube, &mut rng) {
            let picture = Cube.picture(position);
            assert_eq!(read_cube(&picture), Cube.notation(position));
        }
    }
    for (rows, cols) in [(1, 1), (2, 2), (2, 3), (3, 2), (3, 3), (4, 5)] {
        let board = Dots::new(rows, cols).unwrap();
        for _ in 0..10 {
            for position in random_game(&board, &mut rng) {
                let picture = board.picture(position);
                let edges = read_dots(&picture, rows.into(), cols.into());
                assert_eq!(format!("{rows}x{cols}:{edges}"), board.notation(position));
            }
        }
    }
}

#[test]
fn probe_draws_the_board_of_every_game() {
    let tables = committed_tables();
    let tables = tables.to_str().unwrap();
    for (game, position) in [
        ("tictactoe", "X../.O./..."),
        ("tictactoe:4x4", "5 0 10"),
        ("cube", "13 0"),
        ("dots:2x2", "2x2:h0,0 v0,0 h1,0 v0,1"),
    ] {
        let (code, stdout, stderr) = solvedb(&["probe", game, position, "--tables", tables]);
        assert_eq!(code, 0, "{stderr}");
        let picture = solvedb_lookup::with_game!(game.parse().unwrap(), g => g
            .parse(position)
            .map(|p| g.picture(p))
            .map_err(solvedb_lookup::Error::from))
        .unwrap();
        assert!(stdout.starts_with(&picture), "{stdout}");
        // No colour when the output is not a terminal.
        assert!(!stdout.contains('\x1b'), "{stdout:?}");
    }
}
