//! Bit-sliced side counts: how many sides of each box are drawn, held as
//! three bit sets of boxes.

/// More boxes than any board of at most 63 edges has (5x5 has 25).
pub(super) const MAX_BOXES: usize = 32;

/// Drawn sides of every box, bit-sliced: bit `b` of `bits[i]` is bit `i`
/// of the count of box `b` (`r * cols + c`, below [`MAX_BOXES`]), 0 to 4.
/// What the search asks of the counts is which boxes have two sides,
/// three or four: one or two operations on the words, where an array of
/// counts would take a pass over every box.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Sides {
    bits: [u32; 3],
}

impl Sides {
    /// The drawn sides of every box of a board of `rows` by `cols` boxes
    /// in position `mask`: each box's top, bottom, left and right edge
    /// gathered into a bit set of boxes (the horizontal edges are numbered
    /// as the boxes are, a row of vertical edges is a row of boxes and one
    /// more), then added bit by bit.
    #[inline]
    pub(super) fn of(mask: u64, rows: u32, cols: u32) -> Sides {
        let boxes = (1u64 << (rows * cols)) - 1;
        let top = (mask & boxes) as u32;
        let bottom = (mask >> cols & boxes) as u32;
        let (mut left, mut right) = (0u32, 0u32);
        let row = (1u64 << cols) - 1;
        let mut vertical = mask >> ((rows + 1) * cols);
        for r in 0..rows {
            left |= ((vertical & row) as u32) << (r * cols);
            right |= ((vertical >> 1 & row) as u32) << (r * cols);
            vertical >>= cols + 1;
        }
        // Two half adders and the carries: count = (a + 2 ab) + (c + 2 cd).
        let (a, ab) = (top ^ bottom, top & bottom);
        let (c, cd) = (left ^ right, left & right);
        Sides {
            bits: [a ^ c, ab ^ cd ^ (a & c), ab & cd],
        }
    }

    /// The drawn sides of box `b` (the search asks only for sets).
    #[cfg(test)]
    pub(super) fn count(&self, b: u8) -> u8 {
        let bit = |i: usize| (self.bits[i] >> b & 1) as u8;
        bit(0) | bit(1) << 1 | bit(2) << 2
    }

    /// The boxes with two sides drawn.
    #[inline]
    pub(super) fn two(&self) -> u32 {
        self.bits[1] & !self.bits[0]
    }

    /// The boxes with three sides drawn: those that can be captured.
    #[inline]
    pub(super) fn three(&self) -> u32 {
        self.bits[1] & self.bits[0]
    }

    /// The boxes with all four sides drawn: claimed.
    #[inline]
    pub(super) fn four(&self) -> u32 {
        self.bits[2]
    }

    /// The boxes with at least two sides drawn.
    #[inline]
    pub(super) fn two_or_more(&self) -> u32 {
        self.bits[1] | self.bits[2]
    }

    /// One more side for box `b` (which has at most three): a binary
    /// increment of its bits.
    #[inline]
    pub(super) fn add(&mut self, b: u8) {
        let carry = self.bits[0] & 1 << b;
        self.bits[0] ^= 1 << b;
        self.bits[2] |= self.bits[1] & carry;
        self.bits[1] ^= carry;
    }
}

/// Whether some box has three sides drawn (can be captured).
#[inline]
pub(super) fn any_capturable(sides: &Sides) -> bool {
    sides.three() != 0
}

/// The members of a bit set of boxes, lowest first.
#[inline]
pub(super) fn members(set: u32) -> impl Iterator<Item = u8> {
    let mut rest = set;
    std::iter::from_fn(move || {
        (rest != 0).then(|| {
            let b = rest.trailing_zeros() as u8;
            rest &= rest - 1;
            b
        })
    })
}
