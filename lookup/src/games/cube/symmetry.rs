//! The cube's 48 symmetries (its rotations and reflections) as cell maps,
//! and the image of a cell mask under one of them.

use super::lines::{CELLS, cell};
use crate::games::stones::AXIS_PERMUTATIONS;

/// Number of symmetries of the cube.
pub const SYMMETRY_COUNT: usize = 48;

/// Cell maps of the 48 symmetries: `SYMMETRIES[s][c]` is where cell `c`
/// goes. Symmetry `s` permutes the axes by `AXIS_PERMUTATIONS[s / 8]`
/// (coordinate `i` of the image is coordinate `perm[i]` of the cell), then
/// mirrors axis `i` where bit `i` of `s % 8` is set. Index 0 is the identity.
pub const SYMMETRIES: [[u8; CELLS]; SYMMETRY_COUNT] = {
    let mut table = [[0u8; CELLS]; SYMMETRY_COUNT];
    let mut s = 0;
    while s < SYMMETRY_COUNT {
        let perm = AXIS_PERMUTATIONS[s / 8];
        let mut c = 0;
        while c < CELLS {
            let coords = [c % 3, (c / 3) % 3, c / 9];
            let mut image = [coords[perm[0]], coords[perm[1]], coords[perm[2]]];
            let mut axis = 0;
            while axis < 3 {
                if (s % 8) >> axis & 1 != 0 {
                    image[axis] = 2 - image[axis];
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

/// `SYMMETRY_BYTES[s][k][v]`: the image under symmetry `s` of the cells in
/// byte `k` of a mask whose byte `k` is `v`. A mask's image is then four
/// lookups and three ORs, which makes canonicalisation (48 images of two
/// masks) cheap: it is the inner loop of building and checking tables.
static SYMMETRY_BYTES: [[[u32; 256]; 4]; SYMMETRY_COUNT] = {
    let mut table = [[[0u32; 256]; 4]; SYMMETRY_COUNT];
    let mut s = 0;
    while s < SYMMETRY_COUNT {
        let mut k = 0;
        while k < 4 {
            let mut v = 0;
            while v < 256 {
                let mut image = 0u32;
                let mut bit = 0;
                while bit < 8 {
                    let c = 8 * k + bit;
                    if v >> bit & 1 != 0 && c < CELLS {
                        image |= 1 << SYMMETRIES[s][c];
                    }
                    bit += 1;
                }
                table[s][k][v] = image;
                v += 1;
            }
            k += 1;
        }
        s += 1;
    }
    table
};

/// The image of a cell mask under symmetry `s`.
#[inline]
pub(crate) fn image(s: usize, mask: u32) -> u32 {
    let t = &SYMMETRY_BYTES[s];
    t[0][(mask & 0xff) as usize]
        | t[1][(mask >> 8 & 0xff) as usize]
        | t[2][(mask >> 16 & 0xff) as usize]
        | t[3][(mask >> 24 & 0xff) as usize]
}
