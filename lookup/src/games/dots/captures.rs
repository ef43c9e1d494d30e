//! The free-capture rule: a box taken without giving another box a third
//! side, found bit-parallel over all boxes.

use std::sync::OnceLock;

use super::board::{Dots, SIDES};
use crate::value::Score;

impl Dots {
    /// This board's capture masks, built once per board size in the
    /// process and shared, like [`Dots::shared_symmetries`].
    pub fn shared_captures(self) -> &'static CaptureMasks {
        static MASKS: [OnceLock<CaptureMasks>; SIDES * SIDES] =
            [const { OnceLock::new() }; SIDES * SIDES];
        let at = usize::from(self.rows) * SIDES + usize::from(self.cols);
        MASKS[at].get_or_init(|| CaptureMasks::new(self))
    }

    /// A *free capture* in `mask`, if there is one: an edge that completes a
    /// box without giving a third side to any other box (the box across it
    /// is absent, has at most one side drawn, or is completed too), and the
    /// boxes it completes. Taking it is an optimal move, so the position is
    /// worth `gain` plus the value of the position after it — the rule the
    /// [`EndgameSolver`](super::EndgameSolver) plays without branching (Berlekamp, *The Dots and
    /// Boxes Game*, 2000, ch. 1-2; Barker & Korf, "Solving Dots-And-Boxes",
    /// AAAI 2012), and the reason a table need not store such a position
    /// ([`ValueEncoding::MarginResolved`](crate::format::ValueEncoding::MarginResolved)). The first such box in box order
    /// (row by row) is taken, its one undrawn edge returned.
    #[inline]
    pub fn free_capture(self, mask: u64) -> Option<(u32, Score)> {
        self.shared_captures().free_capture(mask)
    }

    /// `mask` after every free capture ([`Dots::free_capture`]) in turn,
    /// and the boxes they took: the position a table entry is read from.
    #[inline]
    pub fn take_free_captures(self, mask: u64) -> (u64, Score) {
        let captures = self.shared_captures();
        let (mut mask, mut gained) = (mask, 0);
        while let Some((edge, gain)) = captures.free_capture(mask) {
            mask |= 1 << edge;
            gained += gain;
        }
        (mask, gained)
    }
}

/// Which boxes have their top, bottom, left and right side drawn, one bit
/// vector (bit `r·cols + c`) per side: [`CaptureMasks::sides`]. Each bit is
/// one edge's, so the sides of `a | b` are the sides of `a` or'd with those
/// of `b`, which lets a pass over many masks that share most of their edges
/// compute the shared part once.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct BoxSides(pub [u64; 4]);

impl BoxSides {
    /// The sides drawn in either.
    #[inline]
    pub fn or(self, other: BoxSides) -> BoxSides {
        BoxSides(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }

    /// The boxes with all four sides drawn.
    #[inline]
    pub fn completed(self) -> u32 {
        let [top, bottom, left, right] = self.0;
        (top & bottom & left & right).count_ones()
    }
}

/// The four-edge mask of every box and the boxes beside every edge, for
/// the free-capture rule ([`Dots::free_capture`]). Built by
/// [`Dots::shared_captures`].
#[derive(Clone, Debug)]
pub struct CaptureMasks {
    cols: u32,
    /// Bit `r·cols + c` for every box.
    all_boxes: u64,
    /// The boxes of the first and of the last column.
    first_col: u64,
    last_col: u64,
    /// The first edge of each row's vertical edges.
    vertical_rows: Vec<u32>,
    /// Each box's four edges, in box order.
    boxes: Vec<u64>,
    /// For each edge, the masks of the boxes on its two sides (0 for none).
    beside: Vec<[u64; 2]>,
}

impl CaptureMasks {
    fn new(board: Dots) -> CaptureMasks {
        let (rows, cols) = (board.rows(), board.cols());
        let boxes = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| board.box_mask(r, c)))
            .collect();
        let beside = (0..board.edges())
            .map(|e| {
                let mut sides = [0u64; 2];
                for (side, (r, c)) in sides.iter_mut().zip(board.boxes_of(e)) {
                    *side = board.box_mask(r, c);
                }
                sides
            })
            .collect();
        let column = |c: u32| (0..rows).fold(0u64, |acc, r| acc | 1 << (r * cols + c));
        CaptureMasks {
            cols,
            all_boxes: (1u64 << board.boxes()) - 1,
            first_col: column(0),
            last_col: column(cols - 1),
            vertical_rows: (0..rows).map(|r| board.v(r, 0)).collect(),
            boxes,
            beside,
        }
    }

    /// The boxes (bit `r·cols + c`) that can be taken by a free capture in
    /// `mask`: three sides drawn, and the box across the fourth side absent
    /// or without exactly two sides.
    #[inline]
    pub fn free_boxes(&self, mask: u64) -> u64 {
        self.free_boxes_of(self.sides(mask))
    }

    /// [`CaptureMasks::free_boxes`] from the position's [`BoxSides`].
    /// Bit-parallel over all boxes: each box's top, bottom, left and right
    /// side is one bit vector in box order, and their sum is counted
    /// bit-sliced.
    #[inline]
    pub fn free_boxes_of(&self, sides: BoxSides) -> u64 {
        let (cols, all) = (self.cols, self.all_boxes);
        let BoxSides([top, bottom, left, right]) = sides;
        // Bit-sliced count of four sides: `odd` is its low bit, and exactly
        // one of the three carries is set when the count is 2 or 3 (never
        // two of them: `top & bottom` and `(top ^ bottom) & ...` exclude
        // each other).
        let (sum_a, carry_a) = (top ^ bottom, top & bottom);
        let (sum_b, carry_b) = (left ^ right, left & right);
        let odd = sum_a ^ sum_b;
        let pairs = carry_a ^ carry_b ^ (sum_a & sum_b);
        let three = odd & pairs;
        let two = !odd & pairs & all;
        let blocked = (!top & two << cols)
            | (!bottom & two >> cols)
            | (!left & two << 1 & !self.first_col)
            | (!right & two >> 1 & !self.last_col);
        three & !blocked & all
    }

    /// Which boxes (bit `r·cols + c`) have their top, bottom, left and
    /// right side drawn in `mask`.
    #[inline]
    pub fn sides(&self, mask: u64) -> BoxSides {
        let (cols, all) = (self.cols, self.all_boxes);
        // Top sides are edges 0..boxes in box order, bottoms one row on.
        let top = mask & all;
        let bottom = mask >> cols & all;
        let (mut left, mut right) = (0u64, 0u64);
        let row_mask = (1u64 << cols) - 1;
        for (r, &first) in self.vertical_rows.iter().enumerate() {
            let row = mask >> first;
            left |= (row & row_mask) << (r as u32 * cols);
            right |= (row >> 1 & row_mask) << (r as u32 * cols);
        }
        BoxSides([top, bottom, left, right])
    }

    /// The number of boxes with all four sides drawn in `mask`.
    #[inline]
    pub fn completed_boxes(&self, mask: u64) -> u32 {
        self.sides(mask).completed()
    }

    /// [`Dots::free_capture`] with these masks.
    #[inline]
    pub fn free_capture(&self, mask: u64) -> Option<(u32, Score)> {
        let free = self.free_boxes(mask);
        if free == 0 {
            return None;
        }
        let b = self.boxes[free.trailing_zeros() as usize];
        let edge = (b & !mask).trailing_zeros();
        let [x, y] = self.beside[edge as usize];
        let other = if x == b { y } else { x };
        let both = other != 0 && (mask & other).count_ones() == 3;
        Some((edge, 1 + Score::from(both)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::games::dots::{Edges, boards};

    /// Free boxes the slow way: each box on its own.
    fn free_boxes_one_by_one(board: Dots, mask: u64) -> u64 {
        let mut free = 0;
        for r in 0..board.rows() {
            for c in 0..board.cols() {
                let b = board.box_mask(r, c);
                if (mask & b).count_ones() != 3 {
                    continue;
                }
                let edge = (b & !mask).trailing_zeros();
                let blocked = board
                    .boxes_of(edge)
                    .filter(|&other| other != (r, c))
                    .any(|(r2, c2)| (mask & board.box_mask(r2, c2)).count_ones() == 2);
                if !blocked {
                    free |= 1 << (r * board.cols() + c);
                }
            }
        }
        free
    }

    #[test]
    fn free_boxes_and_completed_boxes_agree_with_box_by_box_counts() {
        let mut rng = crate::testkit::Rng::new(12);
        for board in boards() {
            let captures = board.shared_captures();
            let masks: Vec<u64> = if board.edges() <= 17 {
                (0..=board.full()).collect()
            } else {
                (0..20_000).map(|_| rng.next_u64() & board.full()).collect()
            };
            for mask in masks {
                assert_eq!(
                    captures.free_boxes(mask),
                    free_boxes_one_by_one(board, mask),
                    "{}",
                    board.notation(Edges(mask))
                );
                let complete = (0..board.rows())
                    .flat_map(|r| (0..board.cols()).map(move |c| board.box_mask(r, c)))
                    .filter(|&b| mask & b == b)
                    .count() as u32;
                assert_eq!(board.completed_boxes(mask), complete);
                if let Some((edge, gain)) = board.free_capture(mask) {
                    assert_eq!(board.draw(mask, edge).1 as Score, gain);
                }
            }
        }
    }

    /// The plain recursion over the rules, memoised by mask.
    fn plain_value(board: Dots, mask: u64, memo: &mut Vec<Option<Score>>) -> Score {
        if let Some(v) = memo[mask as usize] {
            return v;
        }
        let position = Edges(mask);
        let v = board.terminal_score(position).unwrap_or_else(|| {
            board
                .moves(position)
                .into_iter()
                .map(|mv| {
                    let (child, tr) = board.play(position, mv);
                    tr.backup(plain_value(board, child.0, memo))
                })
                .max()
                .expect("moves")
        });
        memo[mask as usize] = Some(v);
        v
    }

    #[test]
    fn a_free_capture_is_worth_its_boxes_plus_the_rest_on_every_small_position() {
        for (rows, cols) in [
            (1, 1),
            (1, 2),
            (2, 1),
            (1, 4),
            (2, 2),
            (2, 3),
            (3, 2),
            (1, 6),
        ] {
            let board = Dots::new(rows, cols).unwrap();
            let mut memo = vec![None; 1 << board.edges()];
            let mut resolved = 0;
            for mask in 0..=board.full() {
                if let Some((edge, gain)) = board.free_capture(mask) {
                    let after = plain_value(board, mask | 1 << edge, &mut memo);
                    assert_eq!(
                        plain_value(board, mask, &mut memo),
                        gain + after,
                        "{}",
                        board.notation(Edges(mask))
                    );
                    resolved += 1;
                }
                let (after, gained) = board.take_free_captures(mask);
                assert_eq!(board.free_capture(after), None);
                assert_eq!(
                    plain_value(board, mask, &mut memo),
                    gained + plain_value(board, after, &mut memo)
                );
            }
            // The rule must have something to say on every board with boxes
            // next to each other or at least one box.
            assert!(resolved > 0, "{rows}x{cols}");
        }
    }
}
