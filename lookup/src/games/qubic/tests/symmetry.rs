//! The 192 symmetries: that they are the whole group, their mask images and the canonical image.

use std::collections::{BTreeSet, HashSet};

use super::*;

#[test]
fn symmetries_are_192_distinct_permutations_that_map_lines_onto_lines() {
    let lines: HashSet<u64> = LINES.iter().copied().collect();
    assert_eq!(SYMMETRIES[0], std::array::from_fn(|c| c as u8));
    let mut seen = HashSet::new();
    for map in &SYMMETRIES {
        assert!(seen.insert(*map), "duplicate symmetry");
        let cells: HashSet<u8> = map.iter().copied().collect();
        assert_eq!(cells.len(), 64, "not a permutation");
        let images: HashSet<u64> = LINES.iter().map(|&l| map_mask(map, l)).collect();
        assert_eq!(images, lines);
    }
    assert_eq!(seen.len(), SYMMETRY_COUNT);
    // The group is closed under composition.
    let all: HashSet<[u8; 64]> = SYMMETRIES.iter().copied().collect();
    for a in SYMMETRIES.iter().step_by(7) {
        for b in &SYMMETRIES {
            let ab: [u8; 64] = std::array::from_fn(|c| a[usize::from(b[c])]);
            assert!(all.contains(&ab));
        }
    }
    // The first 48 are the cube's: no renumbering of coordinates.
    for map in &SYMMETRIES[..48] {
        for (c, &to) in map.iter().enumerate() {
            let (mut p, mut q) = (at(c), at(usize::from(to)));
            p.sort_unstable_by_key(|&i| i.min(3 - i));
            q.sort_unstable_by_key(|&i| i.min(3 - i));
            let outer = |v: [i32; 3]| v.map(|i| i.min(3 - i));
            assert_eq!(outer(p), outer(q));
        }
    }
}

#[test]
fn mask_images_follow_the_cell_maps() {
    let mut rng = Rng::new(7);
    for (s, map) in SYMMETRIES.iter().enumerate() {
        for (c, &to) in map.iter().enumerate() {
            assert_eq!(mask_image(s, 1 << c), 1 << to);
        }
        for _ in 0..200 {
            let mask = rng.next_u64();
            assert_eq!(mask_image(s, mask), map_mask(map, mask));
        }
    }
}

/// Every permutation of the 64 cells that maps lines onto lines, by an
/// exhaustive backtracking search. Cells get their images one at a time,
/// in an order where each next cell shares lines with as many earlier
/// ones as possible, and a partial map is abandoned as soon as it breaks
/// a necessary condition of a line-keeping permutation: a cell's image
/// must lie on as many lines as the cell (7 or 4); two cells share a line
/// exactly when their images do (a bijection that maps lines onto lines
/// maps the 76 lines onto all 76, so it keeps both sharing and not
/// sharing); and a line whose four cells all have images must map onto a
/// line. Every permutation that passes all of these to the end is
/// line-keeping (the last check covers every line), and no line-keeping
/// one is cut, so the search finds exactly the group. The conditions bite
/// so early that the search tries about 800,000 candidate images in all
/// (12,500 partial maps).
fn line_keeping_permutations() -> BTreeSet<[u8; 64]> {
    let collinear: [u64; 64] = std::array::from_fn(|c| {
        LINES
            .iter()
            .filter(|&&l| l >> c & 1 != 0)
            .fold(0, |a, &l| a | l)
            & !(1 << c)
    });
    let degree: [u32; 64] =
        std::array::from_fn(|c| LINES.iter().filter(|&&l| l >> c & 1 != 0).count() as u32);
    let mut order = vec![0usize];
    let mut placed = 1u64;
    while order.len() < 64 {
        let next = (0..64)
            .filter(|&c| placed >> c & 1 == 0)
            .max_by_key(|&c| ((collinear[c] & placed).count_ones(), std::cmp::Reverse(c)))
            .expect("cells remain");
        order.push(next);
        placed |= 1 << next;
    }
    let mut rank = [0usize; 64];
    for (i, &c) in order.iter().enumerate() {
        rank[c] = i;
    }
    // The lines whose last cell in `order` is `order[d]`.
    let mut completed_at = vec![Vec::new(); 64];
    for &line in &LINES {
        let last = cells_of(line).into_iter().map(|c| rank[c]).max().unwrap();
        completed_at[last].push(line);
    }
    let lines: HashSet<u64> = LINES.iter().copied().collect();

    struct Search<'a> {
        order: &'a [usize],
        collinear: &'a [u64; 64],
        degree: &'a [u32; 64],
        completed_at: &'a [Vec<u64>],
        lines: &'a HashSet<u64>,
        map: [u8; 64],
        found: BTreeSet<[u8; 64]>,
    }
    impl Search<'_> {
        fn extend(&mut self, depth: usize, assigned: u64, used: u64) {
            if depth == 64 {
                self.found.insert(self.map);
                return;
            }
            let cell = self.order[depth];
            // The images of the assigned cells that share a line with `cell`:
            // exactly the used cells that share a line with its image.
            let wanted = map_mask(&self.map, self.collinear[cell] & assigned);
            for target in 0..64usize {
                if used >> target & 1 != 0
                    || self.degree[target] != self.degree[cell]
                    || self.collinear[target] & used != wanted
                {
                    continue;
                }
                self.map[cell] = target as u8;
                let keeps = self.completed_at[depth]
                    .iter()
                    .all(|&l| self.lines.contains(&map_mask(&self.map, l)));
                if keeps {
                    self.extend(depth + 1, assigned | 1 << cell, used | 1 << target);
                }
            }
            self.map[cell] = 0;
        }
    }
    let mut search = Search {
        order: &order,
        collinear: &collinear,
        degree: &degree,
        completed_at: &completed_at,
        lines: &lines,
        map: [0; 64],
        found: BTreeSet::new(),
    };
    search.extend(0, 0, 0);
    search.found
}

#[test]
fn the_symmetries_are_exactly_the_permutations_that_keep_lines() {
    let found = line_keeping_permutations();
    let ours: BTreeSet<[u8; 64]> = SYMMETRIES.iter().copied().collect();
    assert_eq!(ours.len(), SYMMETRY_COUNT);
    assert_eq!(found.len(), 192);
    assert_eq!(found, ours);
}

#[test]
fn canonical_is_the_least_image_and_the_same_for_every_image() {
    for board in random_positions(40, 11) {
        let canonical = Q.canonical(board);
        let images: Vec<QubicBoard> = (0..192).map(|s| Q.image(board, s)).collect();
        assert_eq!(Some(&canonical), images.iter().min());
        for image in images.iter().step_by(5) {
            assert_eq!(Q.canonical(*image), canonical);
            assert_eq!(Q.terminal_score(*image), Q.terminal_score(board));
        }
    }
}
