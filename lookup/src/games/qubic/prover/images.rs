//! A board's images under Qubic's 192 symmetries ([`Images`]), from which
//! the canonical form of each child follows without mapping its masks: the
//! proof search keys every node by its canonical board.

use crate::games::qubic::board::QubicBoard;
use crate::games::qubic::symmetry::{SYMMETRIES, SYMMETRY_COUNT, mask_image};

/// A board's images under the 192 symmetries (index 0 the board itself):
/// the children's images follow by adding the image of one cell to each,
/// so a child's canonical form costs 192 ORs and compares, not 192 mask
/// maps through lookup tables.
pub(super) type Images = [(u64, u64); SYMMETRY_COUNT];

/// The images of a board, by the lookup tables (once per search).
pub(super) fn images_of(board: QubicBoard) -> Box<Images> {
    let mut images = Box::new([(0, 0); SYMMETRY_COUNT]);
    for (s, image) in images.iter_mut().enumerate() {
        *image = (mask_image(s, board.x()), mask_image(s, board.o()));
    }
    images
}

/// The images of the board after a move on `cell` by X (`x_moves`) or O.
pub(super) fn child_images(images: &Images, cell: u8, x_moves: bool, out: &mut Images) {
    for (s, (image, parent)) in out.iter_mut().zip(images).enumerate() {
        let bit = 1u64 << SYMMETRIES[s][usize::from(cell)];
        *image = if x_moves {
            (parent.0 | bit, parent.1)
        } else {
            (parent.0, parent.1 | bit)
        };
    }
}

/// The least image (X's mask first) and a symmetry giving it.
pub(super) fn least(images: &Images) -> (QubicBoard, usize) {
    least_by(images, |_, image| image)
}

/// The symmetries [`least_after`] visits, in its order. After X's move
/// every image's X mask gains a bit, so all 192 are visited by the image of
/// X's mask (then by number) and the walk stops once an image's X mask
/// alone is at least the best found; after O's move X's masks do not
/// change, so only the symmetries giving the least X mask are kept.
pub(super) struct Order {
    symmetries: [u8; SYMMETRY_COUNT],
    len: usize,
}

impl Order {
    /// The order for the children of the board whose images are `images`,
    /// X moving (`x_moves`) or O.
    pub(super) fn new(images: &Images, x_moves: bool) -> Order {
        let mut symmetries = [0u8; SYMMETRY_COUNT];
        if x_moves {
            // Plain integers (X's image above the symmetry's number) sort
            // faster than numbers compared through `images`, and this sort
            // runs at every node.
            let mut keys: [u128; SYMMETRY_COUNT] =
                std::array::from_fn(|s| u128::from(images[s].0) << 8 | s as u128);
            keys.sort_unstable();
            for (slot, key) in symmetries.iter_mut().zip(keys) {
                *slot = key as u8;
            }
            Order {
                symmetries,
                len: SYMMETRY_COUNT,
            }
        } else {
            let least = images.iter().map(|&(x, _)| x).min().unwrap_or(0);
            let mut len = 0;
            for (s, &(x, _)) in images.iter().enumerate() {
                if x == least {
                    symmetries[len] = s as u8;
                    len += 1;
                }
            }
            Order { symmetries, len }
        }
    }

    fn symmetries(&self) -> &[u8] {
        &self.symmetries[..self.len]
    }
}

/// The least image of the board after a move (X's mask first) and the
/// first symmetry giving it, without building its images: the same answer
/// as `least_after_all` (the tests' reference), which looks at all 192,
/// from the few the [`Order`] allows. `order` must be the board's for the
/// same mover.
pub(super) fn least_after(
    images: &Images,
    order: &Order,
    cell: u8,
    x_moves: bool,
) -> (QubicBoard, usize) {
    let cell = usize::from(cell);
    let mut best = (u64::MAX, u64::MAX, usize::MAX);
    for &s in order.symmetries() {
        let s = usize::from(s);
        let (x, o) = images[s];
        let candidate = if x_moves {
            if x >= best.0 {
                break;
            }
            (x | 1u64 << SYMMETRIES[s][cell], o, s)
        } else {
            (x, o | 1u64 << SYMMETRIES[s][cell], s)
        };
        if candidate < best {
            best = candidate;
        }
    }
    (QubicBoard::from_masks(best.0, best.1), best.2)
}

/// [`least_after`] by every image (the definition it is tested against).
#[cfg(test)]
pub(super) fn least_after_all(images: &Images, cell: u8, x_moves: bool) -> (QubicBoard, usize) {
    least_by(images, |s, (x, o)| {
        let bit = 1u64 << SYMMETRIES[s][usize::from(cell)];
        if x_moves { (x | bit, o) } else { (x, o | bit) }
    })
}

/// The least of `image(s, images[s])` over the symmetries `s` (X's mask
/// first), and the first symmetry giving it.
fn least_by(
    images: &Images,
    image: impl Fn(usize, (u64, u64)) -> (u64, u64),
) -> (QubicBoard, usize) {
    let mut best = (u64::MAX, u64::MAX, 0);
    for (s, &pair) in images.iter().enumerate() {
        let (x, o) = image(s, pair);
        if (x, o) < (best.0, best.1) {
            best = (x, o, s);
        }
    }
    (QubicBoard::from_masks(best.0, best.1), best.2)
}

#[cfg(test)]
mod frames {
    use super::*;
    use crate::games::qubic::board::QubicCell;
    use crate::testkit::Rng;

    #[test]
    fn least_after_by_the_order_is_least_after_by_every_image() {
        // Boards with symmetries of their own (few stones) and without.
        let mut rng = Rng::new(192);
        let mut checked = 0;
        for stones in [0u32, 1, 2, 3, 4, 6, 9, 14, 20, 31] {
            for _ in 0..20 {
                let mut board = QubicBoard::from_masks(0, 0);
                while board.stones() < stones {
                    let cell = (rng.next_u64() % 64) as u8;
                    if board.empty() >> cell & 1 != 0 {
                        board = board.with_move(QubicCell::new(cell).expect("a cell"));
                    }
                }
                let images = images_of(board);
                let x_moves = board.x_to_move();
                let order = Order::new(&images, x_moves);
                let mut empty = board.empty();
                while empty != 0 {
                    let cell = empty.trailing_zeros() as u8;
                    empty &= empty - 1;
                    assert_eq!(
                        least_after(&images, &order, cell, x_moves),
                        least_after_all(&images, cell, x_moves),
                        "{board:?} + {cell}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 5000);
    }
}
