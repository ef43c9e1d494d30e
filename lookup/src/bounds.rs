//! What a live search proved before it ran out of its limits: bounds on a
//! position's value and on every move's ([`Bounds`]), carried by
//! [`Error::Bounded`](crate::Error::Bounded) to every face.

use std::fmt;

use crate::value::AnyValue;

/// Bounds on a value: it lies in `lower..=upper` (exact when they meet).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ValueBounds {
    /// The value is at least this.
    pub lower: AnyValue,
    /// The value is at most this.
    pub upper: AnyValue,
}

/// One legal move and bounds on its value for the player who makes it,
/// counted from before the move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundedMove {
    /// The move in the game's notation.
    pub mv: String,
    /// Bounds on its value.
    pub bounds: ValueBounds,
}

/// What a search that stopped early proved about a position: bounds on
/// its value for the side to move and on every legal move's, in the order
/// of the game's moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Bounds on the position's value.
    pub value: ValueBounds,
    /// Every legal move with bounds on its value.
    pub moves: Vec<BoundedMove>,
}

impl ValueBounds {
    /// Whether the bounds meet: the value is known.
    pub fn is_exact(&self) -> bool {
        self.lower == self.upper
    }
}

impl fmt::Display for ValueBounds {
    /// `+2` when exact, else `-1..+3` (`lower..upper`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_exact() {
            write!(f, "{}", self.lower)
        } else {
            write!(f, "{}..{}", self.lower, self.upper)
        }
    }
}
