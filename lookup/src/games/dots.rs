//! Dots-and-boxes on a board of `rows` × `cols` boxes.
//!
//! # Edges
//!
//! A board of `m` × `n` boxes has `(m+1)·n` horizontal and `m·(n+1)` vertical
//! edges. Dots are at `(r, c)`, `0 ≤ r ≤ m`, `0 ≤ c ≤ n`, row 0 at the top.
//!
//! - `h r,c` (`0 ≤ r ≤ m`, `0 ≤ c < n`) joins dots `(r, c)` and `(r, c+1)`:
//!   the top of box `(r, c)` and the bottom of box `(r-1, c)`.
//! - `v r,c` (`0 ≤ r < m`, `0 ≤ c ≤ n`) joins dots `(r, c)` and `(r+1, c)`:
//!   the left of box `(r, c)` and the right of box `(r, c-1)`.
//!
//! Edges are numbered horizontal first, row by row from the top and left to
//! right within a row (`h r,c` is number `r·n + c`), then vertical, row by
//! row (`v r,c` is number `(m+1)·n + r·(n+1) + c`). A position is the set of
//! drawn edges, bit `i` of an [`Edges`] mask for edge `i`.
//!
//! # Notation
//!
//! A position is written `MxN:` followed by either one `0`/`1` per edge in
//! edge-number order (`1x1:1010` has the top and left edge of the one box
//! drawn), or a list of moves separated by spaces or `;` (`1x1:h0,0 v0,0`; an
//! empty list is the empty board). A move is written `h2,1` or `v0,3`, as in
//! the list above. [`Game::notation`](crate::Game::notation) writes the `0`/`1` form.
//!
//! # Values
//!
//! Whose turn it is does not matter: the value of a set of edges for the
//! player to move is the net number of the still unclaimed boxes that player
//! wins under perfect play (a [`Margin`](crate::Margin)), whatever the score so far. A move
//! that completes `k > 0` boxes scores `k` and the same player moves again
//! ([`Transition`](crate::Transition) with `same_mover`); any other move passes the turn.
//!
//! ```
//! use solvedb_lookup::{Dots, Game};
//!
//! let board = Dots::new(1, 1)?;
//! let p = board.parse("1x1:h0,0 v0,0 h1,0")?;
//! assert_eq!(board.notation(p), "1x1:1110");
//! let (_, transition) = board.play(p, board.parse_move("v0,1")?);
//! assert_eq!(transition.gain, 1);
//! # Ok::<(), solvedb_lookup::PositionError>(())
//! ```

mod board;
mod captures;
mod endgame;
mod game;
mod notation;
mod picture;
mod symmetry;
mod table;

pub use self::board::{Dots, Edge, Edges, MAX_EDGES};
pub use self::captures::{BoxSides, CaptureMasks};
pub use self::endgame::{Analysis, EndgameSolver, Fact, MoveBounds, NodeCounts, Rules};
pub use self::symmetry::EdgeSymmetries;

/// Every board up to 5x5, for the tests.
#[cfg(test)]
fn boards() -> Vec<Dots> {
    let mut all = Vec::new();
    for rows in 1..=5 {
        for cols in 1..=5 {
            all.push(Dots::new(rows, cols).unwrap());
        }
    }
    all
}
