//! How Qubic is written: the 64 cells layer by layer (see the [module
//! documentation](super)), a move as its cell number, and the picture of a
//! board.

use super::board::{QubicBoard, QubicCell};
use super::lines::{CELLS, SIDE, cell, has_line};
use crate::error::PositionError;
use crate::games::check_reachable;
use crate::games::stones::Layout;

/// How Qubic is written.
const LAYOUT: Layout = Layout {
    game: "qubic",
    cells: CELLS,
    row: SIDE,
    layer: SIDE * SIDE,
    expected: "'X', 'O', '.' (one '/' between rows, one or two between layers)",
    moves: "qubic moves are cells 0-63, 16z + 4y + x",
};

/// The board written in `text` (trimmed, not a list of moves), if it could
/// arise in play.
pub(super) fn parse_cells(text: &str) -> Result<QubicBoard, PositionError> {
    let (x, o) = LAYOUT.parse_cells(text)?;
    check_reachable(x, o, has_line)?;
    Ok(QubicBoard { x, o })
}

/// The notation of a board.
pub(super) fn write(board: QubicBoard) -> String {
    LAYOUT.write_cells(board.x, board.o)
}

/// The cell a move names.
pub(super) fn parse_cell(text: &str) -> Result<QubicCell, PositionError> {
    Ok(QubicCell(LAYOUT.parse_cell(text)?))
}

/// The four layers side by side, as [`Game::picture`](crate::Game::picture)
/// shows them.
pub(super) fn picture(board: QubicBoard) -> String {
    let mark = |c: usize| {
        let bit = 1u64 << c;
        if board.x & bit != 0 {
            " X".to_owned()
        } else if board.o & bit != 0 {
            " O".to_owned()
        } else {
            format!("{c:>2}")
        }
    };
    let heads: Vec<String> = (0..SIDE)
        .map(|z| format!("{:^11}", format!("z={z}")))
        .collect();
    let mut lines = vec![heads.join("     ").trim_end().to_owned()];
    for y in 0..SIDE {
        let layers: Vec<String> = (0..SIDE)
            .map(|z| {
                (0..SIDE)
                    .map(|x| mark(cell(x, y, z)))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        lines.push(layers.join("  |  "));
    }
    lines.join("\n")
}
