//! One module per game: rules, symmetries, notation and table index.

pub mod cube;
pub mod dots;
pub mod tictactoe;

use crate::error::PositionError;

/// Whether a board of the tic-tac-toe family, X's and O's stones as cell
/// masks, could have arisen in play: the counts fit (X moves first), and if
/// someone owns a line (`has_line`), the game ended with their last stone.
pub(crate) fn check_reachable(
    x: u32,
    o: u32,
    has_line: impl Fn(u32) -> bool,
) -> Result<(), PositionError> {
    let (xs, os) = (x.count_ones(), o.count_ones());
    if xs != os && xs != os + 1 {
        return Err(PositionError::Counts { x: xs, o: os });
    }
    let (x_line, o_line) = (has_line(x), has_line(o));
    if x_line && o_line {
        return Err(PositionError::BothWin);
    }
    let (winner, mark, moved_last) = if x_line {
        (x, 'X', xs == os + 1)
    } else if o_line {
        (o, 'O', xs == os)
    } else {
        return Ok(());
    };
    // The winner moved last, and some stone of theirs completed every line
    // they own: without it they had none, so the game was still going.
    let last_stone_won = (0..u32::BITS)
        .map(|c| 1u32 << c)
        .any(|bit| winner & bit != 0 && !has_line(winner & !bit));
    if moved_last && last_stone_won {
        Ok(())
    } else {
        Err(PositionError::PlayAfterWin { winner: mark })
    }
}
