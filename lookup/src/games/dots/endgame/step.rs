//! A step: one branch of the search, the edges drawn in one turn or part
//! of one, and the buffer of a node's steps.

/// One branch of the search: edges drawn in one turn or part of one.
#[derive(Copy, Clone, Debug)]
pub(super) struct Step {
    pub(super) edges: u64,
    /// Boxes the step completes.
    pub(super) gain: i32,
    /// Whether the same player moves after it.
    pub(super) keeps_turn: bool,
    /// The edge that names the step in the table's best-move field.
    pub(super) hint: u8,
    /// An upper bound on the step's value for the player making it, known
    /// before its search ([`Rules::sacrifice_caps`](super::Rules::sacrifice_caps)), or [`NO_CAP`].
    pub(super) cap: i8,
}

/// [`Step::cap`] of a step without one.
pub(super) const NO_CAP: i8 = i8::MAX;

impl Default for Step {
    fn default() -> Step {
        Step {
            edges: 0,
            gain: 0,
            keeps_turn: false,
            hint: 0,
            cap: NO_CAP,
        }
    }
}

/// Room for the moves of one position, best first: a search node's own
/// (one of its thread's [`Worker::frames`](super::worker::Worker::frames)),
/// filled in place by
/// [`Geometry::chain_steps`](super::geometry::Geometry::chain_steps) or
/// [`Geometry::ordered_moves`](super::geometry::Geometry::ordered_moves)
/// (returned by value, the kilobyte would be copied twice a node).
pub(super) type Steps = [Step; 64];
