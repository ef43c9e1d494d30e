//! The chain rules against the plain recursion on every 3x3 position.

use rayon::prelude::*;

use super::super::chains::Component;
use super::super::geometry::{Geometry, NO_BOX};
use super::super::sides::{MAX_BOXES, any_capturable};
use super::super::step::NO_CAP;
use super::{plain_move_value, plain_values_3x3};
use crate::game::Game;
use crate::games::dots::endgame::Rules;
use crate::games::dots::{Dots, Edges};

/// [`Rules::chain_ends`] on every 3x3 position without a capturable
/// box, against the plain recursion: the test finds each chain of
/// two-sided boxes itself, checks that its two ends are worth the same
/// and its inner edges (in a chain of three or more) no more, and that
/// the rule drops exactly the rest of each chain that is not isolated.
#[test]
fn a_chains_two_ends_are_worth_the_same_and_its_inner_edges_no_more() {
    let board = Dots::new(3, 3).unwrap();
    let values = plain_values_3x3();
    let geo = Geometry::new(
        board,
        Rules {
            chain_ends: true,
            ..Rules::NONE
        },
    );
    let bits = |mut set: u64| {
        std::iter::from_fn(move || {
            (set != 0).then(|| {
                let e = set.trailing_zeros();
                set &= set - 1;
                e
            })
        })
    };
    // Chains seen, by length (1, 2, 3 or more), that the rule cut down.
    let seen = (0..board.full())
        .into_par_iter()
        .map(|mask| {
            let mut seen = [0u64; 3];
            let sides = geo.sides_of(mask);
            if any_capturable(&sides) {
                return seen;
            }
            let mut components = [Component::default(); MAX_BOXES];
            let count = geo.two_sided_components(mask, &sides, &mut components);
            // What the rule leaves out: the edges of each chain but
            // those it searches.
            let unsearched = components[..count].iter().fold(0, |acc, c| {
                acc | c.edges & !(1 << c.opening) & !c.handout.map_or(0, |e| 1 << e)
            });
            let free = geo.full & !mask;
            let value = |e| plain_move_value(board, values, mask, e);
            let (mut expected, mut visited) = (0u64, 0u64);
            for start in 0..geo.boxes() {
                if sides.count(start as u8) != 2 || visited & 1 << start != 0 {
                    continue;
                }
                let (mut chain, mut frontier) = (1u64 << start, 1u64 << start);
                while frontier != 0 {
                    let b = frontier.trailing_zeros() as u8;
                    frontier &= frontier - 1;
                    for e in bits(free & geo.box_masks[b as usize]) {
                        let other = geo.across(e, b);
                        if other != NO_BOX && sides.count(other) == 2 && chain & 1 << other == 0 {
                            chain |= 1 << other;
                            frontier |= 1 << other;
                        }
                    }
                }
                visited |= chain;
                let edges = bits(chain).fold(0, |acc, b| acc | free & geo.box_masks[b as usize]);
                let inner = bits(edges)
                    .filter(|&e| {
                        geo.edge_boxes[e as usize]
                            .iter()
                            .all(|&b| b != NO_BOX && chain & 1 << b != 0)
                    })
                    .fold(0u64, |acc, e| acc | 1 << e);
                let ends = edges & !inner;
                let isolated = bits(ends).all(|e| geo.edge_boxes[e as usize].contains(&NO_BOX));
                if isolated {
                    continue;
                }
                let name = board.notation(Edges(mask));
                let [a, b] = [ends.trailing_zeros(), 63 - ends.leading_zeros()];
                assert_eq!(ends.count_ones(), 2, "{name}: a chain has two ends");
                assert_eq!(value(a), value(b), "{name}: ends {a} and {b}");
                let boxes = chain.count_ones();
                if boxes >= 3 {
                    for e in bits(inner) {
                        assert!(value(e) <= value(a), "{name}: inner edge {e}");
                    }
                }
                let kept = if boxes == 2 { 1 << a | inner } else { 1 << a };
                expected |= edges & !kept;
                seen[boxes.min(3) as usize - 1] += 1;
            }
            assert_eq!(unsearched, expected, "{}", board.notation(Edges(mask)));
            seen
        })
        .reduce(|| [0; 3], |x, y| [x[0] + y[0], x[1] + y[1], x[2] + y[2]]);
    assert!(seen.iter().all(|&n| n > 10_000), "{seen:?}");
}

/// [`Rules::sacrifice_caps`] on every 3x3 position without a
/// capturable box: each capped opening is worth at most its cap and at
/// most the cap rounded down to the margins' parity
/// ([`Rules::margin_parity`]), and each kind of cap (a chain opened at
/// an end, a loop), rounded or not, is reached somewhere, so neither
/// is looser than it need be.
#[test]
fn a_sacrifices_cap_bounds_its_value_and_is_reached() {
    let board = Dots::new(3, 3).unwrap();
    let values = plain_values_3x3();
    let geo = Geometry::new(
        board,
        Rules {
            chain_ends: true,
            isolated_components: true,
            sacrifice_caps: true,
            ..Rules::NONE
        },
    );
    // Openings capped, caps reached and caps rounded to the margins'
    // parity reached: chains, then loops.
    let counts = (0..board.full())
        .into_par_iter()
        .map(|mask| {
            let mut counts = [[0u64; 3]; 2];
            let sides = geo.sides_of(mask);
            if any_capturable(&sides) {
                return counts;
            }
            let parity = (board.remaining_boxes(mask) % 2) as i8;
            let mut components = [Component::default(); MAX_BOXES];
            let count = geo.two_sided_components(mask, &sides, &mut components);
            for c in &components[..count] {
                let (cap, rounded) = (c.sacrifice_cap(None), c.sacrifice_cap(Some(parity)));
                if cap == NO_CAP {
                    assert_eq!(rounded, NO_CAP);
                    continue;
                }
                let value = plain_move_value(board, values, mask, c.opening);
                let name = board.notation(Edges(mask));
                assert!(value <= i32::from(rounded), "{name}: {c:?} worth {value}");
                assert!(rounded <= cap && cap - rounded <= 1, "{name}: {c:?}");
                let kind = &mut counts[usize::from(c.is_loop)];
                kind[0] += 1;
                kind[1] += u64::from(value == i32::from(cap));
                kind[2] += u64::from(value == i32::from(rounded));
            }
            counts
        })
        .reduce(
            || [[0; 3]; 2],
            |x, y| [0, 1].map(|k| [0, 1, 2].map(|i| x[k][i] + y[k][i])),
        );
    assert!(counts.iter().flatten().all(|&n| n > 0), "{counts:?}");
}
