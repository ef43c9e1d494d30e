//! The exact dots-and-boxes solver for boards without a table: alpha-beta on
//! the box margin with a transposition table keyed by canonical position,
//! move ordering, the theory of chains and loops, and every core.
//!
//! A position is searched by MTD(f) (Plaat, Schaeffer, Pijls and de Bruin
//! 1996): null-window tests of a fail-soft alpha-beta ([`search`]) until
//! the bounds on its margin meet. Each node takes its free captures without
//! branching ([`captures`]), values simple loony endgames without search
//! ([`loony`]), takes capturable chains as whole turns and opens chains and
//! loops at one edge ([`chains`]), asks the transposition table
//! ([`transposition`]) under the position's least symmetric image
//! ([`keys`]), looks its children up there before searching any
//! ([`cutoffs`]), and searches its moves ([`step`]s) best first
//! ([`ordering`]). Side counts are bit-sliced ([`sides`]) and margins keep
//! the parity of the boxes left ([`parity`]); the board's fixed facts are
//! worked out once ([`geometry`]). Which prunings run is [`Rules`]; its
//! documentation says what each relies on, with the papers followed
//! (Berlekamp, *The Dots and Boxes Game*; Barker & Korf, "Solving
//! Dots-And-Boxes", AAAI 2012; Buzzard & Ciere, "Playing simple loony dots
//! and boxes endgames optimally").
//!
//! The [`driver`] runs the tests on every core (Lazy SMP over the one
//! shared table, [`worker`] being one thread's search), and [`analysis`]
//! goes on to every move's value. Each thread tallies how its nodes end
//! ([`counts`]). Solvers of one board can hand each other what their
//! tables proved ([`facts`]).

mod analysis;
mod captures;
mod chains;
mod counts;
mod cutoffs;
mod driver;
mod facts;
mod geometry;
mod keys;
mod loony;
mod ordering;
mod parity;
mod rules;
mod search;
mod sides;
mod step;
#[cfg(test)]
mod tests;
mod transposition;
mod worker;

pub use self::analysis::{Analysis, MoveBounds};
pub use self::counts::NodeCounts;
pub use self::driver::EndgameSolver;
pub use self::facts::Fact;
pub use self::rules::Rules;
