//! Values of positions, always seen from the side to move.

use std::cmp::Ordering;
use std::fmt;
use std::ops::Neg;

/// A search score, from the side to move: larger is better for that side.
///
/// Games convert their [`Value`](crate::Game::Value) to and from scores so
/// one search and one backup rule ([`Transition`]) serve every game. For the
/// tic-tac-toe family a score counts from the *start of the game*: a win that
/// ends the game with `n` stones on the board scores `WIN_SCORE - n`, the
/// matching loss `-(WIN_SCORE - n)`, a draw `0`. Counting from the start makes
/// the backup a plain negation, and the plies from any position follow from
/// its stone count (see [`Outcome::from_score`]).
pub type Score = i32;

/// The score base of a win in the tic-tac-toe family (see [`Score`]).
pub const WIN_SCORE: Score = 1000;

/// How the mover's score after a move follows from the score of the position
/// the move leads to.
///
/// `parent = gain + child` when the same player moves again (a box completed
/// in dots-and-boxes), `parent = gain - child` when the turn passes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Transition {
    /// Whether the player who moved also moves next.
    pub same_mover: bool,
    /// What the move itself earns the mover (boxes completed), in score units.
    pub gain: Score,
}

impl Transition {
    /// The turn passes and the move earns nothing by itself.
    pub const PASS: Transition = Transition {
        same_mover: false,
        gain: 0,
    };

    /// The mover's score for the move, given the score of the child position.
    #[inline]
    pub fn backup(self, child: Score) -> Score {
        if self.same_mover {
            self.gain + child
        } else {
            self.gain - child
        }
    }

    /// The window `(alpha, beta)` on the child's score that corresponds to
    /// the window on the parent's score, for alpha-beta search.
    #[inline]
    pub fn child_window(self, alpha: Score, beta: Score) -> (Score, Score) {
        if self.same_mover {
            (alpha - self.gain, beta - self.gain)
        } else {
            (self.gain - beta, self.gain - alpha)
        }
    }
}

/// The value of a dots-and-boxes position for the player to move: the net
/// number of the still unclaimed boxes that player wins under perfect play
/// (boxes won minus boxes lost from here on). It is also its [`Score`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Margin(pub i32);

impl fmt::Display for Margin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            f.write_str("0")
        } else {
            write!(f, "{:+}", self.0)
        }
    }
}

/// Win, draw or loss, from the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Wdl {
    /// The side to move loses under perfect play.
    Loss = 0,
    /// Neither side can force a win.
    Draw = 1,
    /// The side to move wins under perfect play.
    Win = 2,
}

impl Neg for Wdl {
    type Output = Wdl;
    fn neg(self) -> Wdl {
        match self {
            Wdl::Loss => Wdl::Win,
            Wdl::Draw => Wdl::Draw,
            Wdl::Win => Wdl::Loss,
        }
    }
}

impl Wdl {
    /// The lower-case word used in notation and JSON: `win`, `draw`, `loss`.
    pub fn as_str(self) -> &'static str {
        match self {
            Wdl::Loss => "loss",
            Wdl::Draw => "draw",
            Wdl::Win => "win",
        }
    }
}

impl fmt::Display for Wdl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The value of a tic-tac-toe-family position for the side to move: the result
/// under perfect play and the plies until the game ends, the winner winning as
/// fast as possible and the loser losing as slowly as possible.
///
/// Ordered from the mover's point of view: a faster win is greater than a
/// slower one, a slower loss greater than a faster one.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// Win, draw or loss.
    pub wdl: Wdl,
    /// Plies (single moves) from this position to the end of the game.
    pub plies: u8,
}

impl Outcome {
    /// The outcome whose [`Score`] is `score` at a position with `stones`
    /// stones on the board.
    ///
    /// Returns `None` if the score does not describe a game end at or after
    /// `stones` stones.
    pub fn from_score(score: Score, stones: u32) -> Option<Outcome> {
        let stones = Score::try_from(stones).ok()?;
        let (wdl, end) = match score.cmp(&0) {
            Ordering::Greater => (Wdl::Win, WIN_SCORE - score),
            Ordering::Less => (Wdl::Loss, WIN_SCORE + score),
            // A draw in this family always fills the board; callers who know
            // the board size use `Outcome::draw`.
            Ordering::Equal => return None,
        };
        let plies = u8::try_from(end - stones).ok()?;
        Some(Outcome { wdl, plies })
    }

    /// A draw reached after `plies` more plies.
    pub fn draw(plies: u8) -> Outcome {
        Outcome {
            wdl: Wdl::Draw,
            plies,
        }
    }

    /// The score of this outcome at a position with `stones` stones.
    pub fn score(self, stones: u32) -> Score {
        let end = stones as Score + Score::from(self.plies);
        match self.wdl {
            Wdl::Win => WIN_SCORE - end,
            Wdl::Draw => 0,
            Wdl::Loss => -(WIN_SCORE - end),
        }
    }

    fn rank(self) -> i32 {
        let plies = i32::from(self.plies);
        match self.wdl {
            Wdl::Win => 1000 - plies,
            Wdl::Draw => 0,
            Wdl::Loss => -1000 + plies,
        }
    }
}

impl PartialOrd for Outcome {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Outcome {
    fn cmp(&self, other: &Self) -> Ordering {
        self.rank()
            .cmp(&other.rank())
            .then(self.plies.cmp(&other.plies))
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} in {}", self.wdl, self.plies)
    }
}

/// A value in a form that does not depend on the game: what the
/// [`Oracle`](crate::Oracle) and the faces built on it report.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AnyValue {
    /// Tic-tac-toe family: win, draw or loss and the plies to the end.
    Outcome(Outcome),
    /// Dots-and-boxes: the net number of unclaimed boxes the player wins.
    Margin(i32),
    /// Tic-tac-toe family, from a winning strategy (Qubic's table): the
    /// result is exact, the plies an upper bound. A win "in at most N":
    /// following the strategy wins within N plies whatever the defence (a
    /// faster win may exist); a loss "in at most N": the winner's strategy
    /// ends the game within N plies whatever the loser plays.
    AtMost(Outcome),
}

impl AnyValue {
    /// The value with its plies made an upper bound: an
    /// [`Outcome`](AnyValue::Outcome) becomes [`AtMost`](AnyValue::AtMost),
    /// other values are unchanged.
    pub fn at_most(self) -> AnyValue {
        match self {
            AnyValue::Outcome(o) => AnyValue::AtMost(o),
            other => other,
        }
    }

    /// The outcome of a tic-tac-toe-family value, exact or bounded.
    pub fn outcome(self) -> Option<Outcome> {
        match self {
            AnyValue::Outcome(o) | AnyValue::AtMost(o) => Some(o),
            AnyValue::Margin(_) => None,
        }
    }
}

impl From<Outcome> for AnyValue {
    fn from(outcome: Outcome) -> AnyValue {
        AnyValue::Outcome(outcome)
    }
}

impl From<Margin> for AnyValue {
    fn from(margin: Margin) -> AnyValue {
        AnyValue::Margin(margin.0)
    }
}

impl fmt::Display for AnyValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AnyValue::Outcome(o) => o.fmt(f),
            AnyValue::Margin(m) => write!(f, "{m:+}"),
            AnyValue::AtMost(o) => write!(f, "{} in at most {}", o.wdl, o.plies),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_round_trip_and_order_like_outcomes() {
        for stones in 0..=9u32 {
            let mut all = Vec::new();
            for plies in 0..=(9 - stones) as u8 {
                for wdl in [Wdl::Win, Wdl::Loss] {
                    let o = Outcome { wdl, plies };
                    assert_eq!(Outcome::from_score(o.score(stones), stones), Some(o));
                    all.push((o, o.score(stones)));
                }
            }
            all.push((Outcome::draw(9 - stones as u8), 0));
            // At a fixed position, the order of outcomes is the order of scores.
            for &(a, sa) in &all {
                for &(b, sb) in &all {
                    assert_eq!(a.cmp(&b), sa.cmp(&sb), "{a} vs {b}");
                }
            }
        }
    }

    #[test]
    fn backup_and_window_agree() {
        for tr in [
            Transition::PASS,
            Transition {
                same_mover: true,
                gain: 2,
            },
        ] {
            let (lo, hi) = tr.child_window(-5, 7);
            for child in -20..20 {
                let inside = child > lo && child < hi;
                let parent = tr.backup(child);
                assert_eq!(inside, parent > -5 && parent < 7, "{tr:?} {child}");
            }
        }
    }
}
