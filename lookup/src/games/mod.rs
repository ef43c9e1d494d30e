//! One module per game: rules, symmetries, notation and table index; and
//! [`with_game!`](crate::with_game), the one dispatcher from a
//! [`GameId`](crate::GameId) to its game.

pub mod cube;
pub mod dots;
pub mod qubic;
pub(crate) mod stones;
pub mod tictactoe;
pub mod tictactoe_4x4;

use crate::error::PositionError;

/// Runs a body that is generic over the game with `$game` bound to a
/// reference to the game `$id` names: the one place that lists every game.
/// The body's value is a `Result` whose error takes an
/// [`Error`](crate::Error) by `From`: a board that cannot exist (dots
/// `9x9`) is refused before the body runs, as [`Error::Unsupported`](crate::Error::Unsupported).
///
/// Adding a game is a module in `games/`, its [`GameId`](crate::GameId)
/// variant, and one line here.
///
/// ```
/// use solvedb_lookup::{Error, Game, GameId, with_game};
///
/// let id: GameId = "dots:2x3".parse().unwrap();
/// let symmetries = with_game!(id, game => Ok::<_, Error>(game.symmetry_count()))?;
/// assert_eq!(symmetries, 4);
/// # Ok::<(), Error>(())
/// ```
#[macro_export]
macro_rules! with_game {
    ($id:expr, $game:ident => $body:expr) => {
        match $id {
            $crate::GameId::TicTacToe => {
                let $game = &$crate::TicTacToe;
                $body
            }
            $crate::GameId::TicTacToe4x4 => {
                let $game = &$crate::TicTacToe4x4;
                $body
            }
            $crate::GameId::Cube => {
                let $game = &$crate::Cube;
                $body
            }
            $crate::GameId::Dots { rows, cols } => match $crate::Dots::new(rows, cols) {
                Ok(board) => {
                    let $game = &board;
                    $body
                }
                Err(e) => Err($crate::Error::Unsupported {
                    game: $id,
                    reason: e.to_string(),
                }
                .into()),
            },
            $crate::GameId::Qubic => {
                let $game = &$crate::Qubic;
                $body
            }
        }
    };
}

/// Whether a board of the tic-tac-toe family, X's and O's stones as cell
/// masks, could have arisen in play: the counts fit (X moves first), and if
/// someone owns a line (`has_line`), the game ended with their last stone.
///
/// Masks are `u64` so that every board of the family fits (Qubic has 64
/// cells); smaller boards pass theirs widened.
pub(crate) fn check_reachable(
    x: u64,
    o: u64,
    has_line: impl Fn(u64) -> bool,
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
    let last_stone_won = (0..u64::BITS)
        .map(|c| 1u64 << c)
        .any(|bit| winner & bit != 0 && !has_line(winner & !bit));
    if moved_last && last_stone_won {
        Ok(())
    } else {
        Err(PositionError::PlayAfterWin { winner: mark })
    }
}
