//! Qubic's 192 symmetries ([`SYMMETRIES`]): how the group is built, the
//! images of cell masks under it, and the canonical (least) image of a board.

use std::sync::LazyLock;

use super::board::QubicBoard;
use super::lines::{CELLS, SIDE, cell, coords};
use crate::games::stones::{AXIS_PERMUTATIONS, renumbering};

/// Number of symmetries (see [`SYMMETRIES`]).
pub const SYMMETRY_COUNT: usize = 192;

/// The renumbering of coordinates (`0..4`) that symmetry `s` applies to all
/// three axes first: [`renumbering`] `s / 48` (which turns the board inside
/// out for `s / 48 ≥ 2`: corners to centre cells).
const fn inner(s: usize, i: usize) -> usize {
    renumbering(s / 48, i)
}

/// Cell maps of the 192 symmetries: `SYMMETRIES[s][c]` is where cell `c`
/// goes. Symmetry `s` renumbers the coordinates of all three axes by
/// `inner(s)` (one of four maps, by `s / 48`), then applies the cube
/// symmetry `s % 48`: it permutes the axes by `AXIS_PERMUTATIONS[s % 48 /
/// 8]` (coordinate `i` of the image is coordinate `perm[i]` of the cell) and
/// mirrors axis `i` (`i ↦ 3 − i`) where bit `i` of `s % 8` is set. Index 0
/// is the identity.
///
/// # How the group was found
///
/// A map that renumbers all three coordinates by one permutation `p` of
/// `0..4` sends the line `(a, t, 3 − t)` (a fixed, a rising and a falling
/// coordinate, `t = 0..3`) to `(p(a), p(t), p(3 − t))`; if `p` commutes with
/// `r: i ↦ 3 − i` that is `(p(a), u, 3 − u)` for `u = p(t)`, a line again,
/// and likewise for every other kind of line. The permutations of `0..4`
/// that commute with `r` are the 8 symmetries of a square with corners
/// `0 1 3 2` in order; two of them, the identity and `r` itself, are also
/// cube symmetries (`r` on all axes at once is the point reflection), so
/// with the cube's 48 they make 48 · 8 / 2 = 192 maps, one for each of four
/// cosets, represented by `inner` above. That these are *all* the line
/// preserving permutations of the 64 cells, and no fewer, is not argued
/// but proved by a unit test, an exhaustive backtracking search over every
/// permutation of the cells
/// (`the_symmetries_are_exactly_the_permutations_that_keep_lines`): it
/// finds exactly these 192.
pub const SYMMETRIES: [[u8; CELLS]; SYMMETRY_COUNT] = {
    let mut table = [[0u8; CELLS]; SYMMETRY_COUNT];
    let mut s = 0;
    while s < SYMMETRY_COUNT {
        let cube = s % 48;
        let perm = AXIS_PERMUTATIONS[cube / 8];
        let mut c = 0;
        while c < CELLS {
            let [x, y, z] = coords(c);
            let renumbered = [inner(s, x), inner(s, y), inner(s, z)];
            let mut image = [
                renumbered[perm[0]],
                renumbered[perm[1]],
                renumbered[perm[2]],
            ];
            let mut axis = 0;
            while axis < 3 {
                if (cube % 8) >> axis & 1 != 0 {
                    image[axis] = SIDE - 1 - image[axis];
                }
                axis += 1;
            }
            table[s][c] = cell(image[0], image[1], image[2]) as u8;
            c += 1;
        }
        s += 1;
    }
    table
};

/// The mask images of one symmetry: `bytes[k][v]` is the image of the cells
/// in byte `k` of a mask whose byte `k` is `v`. A mask's image is then eight
/// lookups and seven ORs.
pub(super) type MaskImages = [[u64; 256]; 8];

/// [`MaskImages`] of every symmetry, 3 MiB. Built on first use rather than
/// at compile time: as a constant it would add 3 MiB to every binary that
/// links the library (the C library and the Python module too), while
/// building it takes about a millisecond.
pub(super) static SYMMETRY_BYTES: LazyLock<Box<[MaskImages]>> = LazyLock::new(|| {
    SYMMETRIES
        .iter()
        .map(|map| {
            let mut bytes = [[0u64; 256]; 8];
            for (k, table) in bytes.iter_mut().enumerate() {
                // Each value adds its lowest cell to the value without it.
                for v in 1..256 {
                    let low = (v as u32).trailing_zeros() as usize;
                    table[v] = table[v & (v - 1)] | 1 << map[8 * k + low];
                }
            }
            bytes
        })
        .collect()
});

/// The image of a cell mask under one symmetry's [`MaskImages`].
#[inline]
pub(super) fn image_with(bytes: &MaskImages, mask: u64) -> u64 {
    let b = mask.to_le_bytes();
    bytes[0][usize::from(b[0])]
        | bytes[1][usize::from(b[1])]
        | bytes[2][usize::from(b[2])]
        | bytes[3][usize::from(b[3])]
        | bytes[4][usize::from(b[4])]
        | bytes[5][usize::from(b[5])]
        | bytes[6][usize::from(b[6])]
        | bytes[7][usize::from(b[7])]
}

/// The image of a cell mask under symmetry `s`.
///
/// # Panics
///
/// If `s >= 192`.
pub fn mask_image(s: usize, mask: u64) -> u64 {
    image_with(&SYMMETRY_BYTES[s], mask)
}

/// `INVERSES[s]`: the cell map of the inverse of symmetry `s`
/// (`INVERSES[s][SYMMETRIES[s][c]] == c`).
pub static INVERSES: LazyLock<Box<[[u8; CELLS]]>> = LazyLock::new(|| {
    SYMMETRIES
        .iter()
        .map(|map| {
            let mut inverse = [0u8; CELLS];
            for (c, &image) in map.iter().enumerate() {
                inverse[usize::from(image)] = c as u8;
            }
            inverse
        })
        .collect()
});

/// The least image of a board (X's mask first, then O's) and a symmetry
/// that maps the board onto it: [`Game::canonical`](crate::Game::canonical) with its witness, so
/// that a move found on the canonical board maps back
/// ([`INVERSES`]`[s]`).
pub fn canonical_with_symmetry(board: QubicBoard) -> (QubicBoard, usize) {
    let bytes = &*SYMMETRY_BYTES;
    let mut best = (board.x, board.o, 0);
    for (s, images) in bytes.iter().enumerate().skip(1) {
        let ix = image_with(images, board.x);
        if ix > best.0 {
            continue;
        }
        let io = image_with(images, board.o);
        if ix < best.0 || io < best.1 {
            best = (ix, io, s);
        }
    }
    (
        QubicBoard {
            x: best.0,
            o: best.1,
        },
        best.2,
    )
}
