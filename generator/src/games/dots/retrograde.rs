//! Dots-and-boxes tables by retrograde analysis over the dense array of all
//! `2^E` edge sets.
//!
//! Every set of edges is a reachable position, and a child (one more edge)
//! is always a larger number than its parent, so one pass from the full
//! board down to the empty one solves everything:
//! `v(S) = max over undrawn e of (k + v(S∪e) if e completes k > 0 boxes,
//! else −v(S∪e))`.
//!
//! The pass is organised so that every memory access is a stream. The mask
//! is split into `HIGH_BITS` high bits, which choose a *chunk*, and low bits,
//! the offset inside it. A child that adds a low edge lies in the same chunk
//! at a higher offset (already solved, since each chunk is solved from its
//! top down); a child that adds a high edge lies at the *same offset* in the
//! chunk with that high bit set. So chunks whose high parts have the same
//! number of bits are independent and are solved in parallel, layer by layer
//! from the most high bits to the fewest, and every read of another chunk is
//! a sequential stream (descending offsets) that hardware prefetchers
//! follow. Reads inside the chunk are `E_low` more streams at fixed
//! distances `2^e` behind the write position.
//!
//! Inside a chunk, [`Kernel`] takes 64 consecutive masks (a *run*) at a
//! time: their children along every edge above the run are 64 consecutive
//! bytes, folded with byte-wise vector code; the moves inside the run form
//! a 6-cube folded in butterfly order. With the streams, the pass is bound
//! by those instructions, not by memory: `solvedb bench dots:MxN` prints
//! the bytes it streams per second against this machine's read bandwidth.

use rayon::prelude::*;
use solvedb_lookup::format::{MARGIN_BIAS, encode_boxes_won};
use solvedb_lookup::{BoxSides, Dots, EdgeSymmetries};

use crate::build::{LayerCount, Solution};

/// High bits that choose a chunk: 2^8 chunks give both cores plenty of
/// independent work per layer, and a chunk of a 31-edge board is 8 MiB.
const HIGH_BITS: u32 = 8;

/// A box edge mask that no position contains (bit 63 is never an edge),
/// standing for "no box on this side".
const NO_BOX: u64 = 1 << 63;

/// Values are kept as the table's entry bytes during the solve
/// (`MARGIN_BIAS + margin`, the format's codec), so the array is the table
/// already.
const BIAS: i32 = MARGIN_BIAS;

/// `entry ^ SIGN`, read as an `i8`, is the margin itself: the vectorised
/// lanes work on signed bytes.
const SIGN: u8 = MARGIN_BIAS as u8;

/// For each edge, the other three edges of each box it borders
/// (`NO_BOX` for a side without one): drawing edge `e` into `S`
/// completes one box per mask `m` with `S & m == m`.
#[derive(Clone, Debug)]
pub struct Captures {
    sides: Vec<[u64; 2]>,
}

impl Captures {
    /// The capture masks of a board.
    pub fn new(board: Dots) -> Captures {
        let sides = (0..board.edges())
            .map(|e| {
                let mut sides = [NO_BOX; 2];
                for (slot, (r, c)) in sides.iter_mut().zip(board.boxes_of(e)) {
                    *slot = board.box_mask(r, c) & !(1 << e);
                }
                sides
            })
            .collect();
        Captures { sides }
    }

    /// Boxes edge `e` completes when drawn into `mask`.
    #[inline(always)]
    pub fn gain(&self, mask: u64, e: u32) -> i32 {
        let [a, b] = self.sides[e as usize];
        i32::from(mask & a == a) + i32::from(mask & b == b)
    }
}

/// The mover's margin for a move that completes `gain` boxes and leads to a
/// position worth `child` (from its mover's side).
#[inline(always)]
fn backup(gain: i32, child: i32) -> i32 {
    if gain > 0 { gain + child } else { -child }
}

/// Solves every position of a board: `128 + margin` for every edge mask, in
/// mask order.
///
/// # Panics
///
/// If the board's `2^E` bytes do not fit the address space.
pub fn solve_values(board: Dots) -> Vec<u8> {
    solve_values_with(board, InRun::Unrolled)
}

/// How the pass folds the moves inside a run of 64 masks: the two orders
/// give the same bytes; `solvedb bench` measures one against the other.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InRun {
    /// One recursive call per fold, the boxes beside each edge looked up
    /// again in every call: the simpler order, kept so that the bench shows
    /// what unrolling gains.
    Recursive,
    /// Every fold unrolled at a fixed width, the boxes beside the run's
    /// edges found once per run.
    Unrolled,
}

/// [`solve_values`] with a chosen order inside runs.
///
/// # Panics
///
/// If the board's `2^E` bytes do not fit the address space.
pub fn solve_values_with(board: Dots, in_run: InRun) -> Vec<u8> {
    let edges = board.edges();
    let high = HIGH_BITS.min(edges);
    let low = edges - high;
    let chunk_len = 1usize << low;
    let total = usize::try_from(1u64 << edges).expect("table fits memory");
    let kernel = Kernel::new(board, in_run);

    let mut values = vec![0u8; total];
    let mut chunks: Vec<&mut [u8]> = values.chunks_mut(chunk_len).collect();
    for layer in (0..=high).rev() {
        // Take this layer's chunks out to write them, and read the others.
        let mut work: Vec<(u64, &mut [u8])> = (0..chunks.len() as u64)
            .filter(|h| h.count_ones() == layer)
            .map(|h| (h, std::mem::take(&mut chunks[h as usize])))
            .collect();
        {
            let readers: Vec<&[u8]> = chunks.iter().map(|c| &**c).collect();
            work.par_iter_mut().for_each(|(h, chunk)| {
                let parents: Vec<(u32, &[u8])> = (0..high)
                    .filter(|&j| *h & 1 << j == 0)
                    .map(|j| (low + j, readers[(*h | 1 << j) as usize]))
                    .collect();
                kernel.solve_chunk(*h << low, chunk, &parents, Seed::Empty);
            });
        }
        for (h, chunk) in work {
            chunks[h as usize] = chunk;
        }
    }
    drop(chunks);
    values
}

/// The bytes the chunked pass must move at least: each chunk written once
/// and read once by every chunk one high bit below it.
pub fn streamed_bytes(board: Dots) -> u64 {
    let high = HIGH_BITS.min(board.edges());
    let chunk_len = 1u64 << (board.edges() - high);
    (0..1u64 << high)
        .map(|h| chunk_len * (1 + u64::from(h.count_ones())))
        .sum()
}

/// What a chunk holds when [`Kernel::solve_chunk`] starts on it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Seed {
    /// Nothing yet: every move is folded in by the kernel.
    Empty,
    /// The partial maxima of the moves along edges that are neither the
    /// chunk's own nor its parents' (the distributed pass's rank edges,
    /// folded in by [`Kernel::fold_into`]), as signed bytes, `i8::MIN`
    /// where none.
    Partial,
}

/// The pass's inner loop, one chunk at a time: the single-process pass and
/// the distributed one ([`super::distributed`]) both solve their chunks
/// with it. A chunk is the `2^low` masks `base | offset`; a child along one
/// of its own edges lies in it at a higher offset, a child along an edge
/// above it at the same offset in a *parent* chunk, solved before.
#[derive(Debug)]
pub struct Kernel {
    captures: Captures,
    tables: RunTables,
    full: u64,
    in_run: InRun,
}

impl Kernel {
    /// The kernel for a board, folding inside runs in the order `in_run`.
    pub fn new(board: Dots, in_run: InRun) -> Kernel {
        let captures = Captures::new(board);
        Kernel {
            tables: RunTables::new(&captures),
            captures,
            full: board.full(),
            in_run,
        }
    }

    /// Solves the chunk at `base` from its top offset down: `chunk` becomes
    /// the entry bytes (`128 + margin`) of its masks. `parents` are the
    /// edges above the chunk not in `base` with the solved chunk each leads
    /// to.
    ///
    /// # Panics
    ///
    /// If the chunk's length is not a power of two, or a parent is shorter
    /// than it.
    pub fn solve_chunk(&self, base: u64, chunk: &mut [u8], parents: &[(u32, &[u8])], seed: Seed) {
        assert!(chunk.len().is_power_of_two(), "a chunk of 2^low masks");
        if chunk.len() >= RUN {
            self.solve_in_runs(base, chunk, parents, seed);
        } else {
            self.solve_mask_by_mask(base, chunk, parents, seed);
        }
    }

    /// Folds the moves along `edge`, an edge above the chunk at `base` and
    /// not in it, into the chunk's partial maxima ([`Seed::Partial`]):
    /// `children` are the solved entries of the chunk at `base | 1 << edge`.
    pub fn fold_into(&self, partial: &mut [u8], children: &[u8], base: u64, edge: u32) {
        if partial.len() >= RUN {
            for (start, (run, children)) in partial
                .chunks_exact_mut(RUN)
                .zip(children.chunks_exact(RUN))
                .enumerate()
            {
                let mut best = signed(run);
                let run_base = base | (start * RUN) as u64;
                fold_edge(
                    &mut best,
                    children,
                    run_base,
                    edge,
                    &self.captures,
                    &self.tables,
                );
                for (entry, best) in run.iter_mut().zip(best) {
                    *entry = best as u8;
                }
            }
        } else {
            for (offset, (entry, &child)) in partial.iter_mut().zip(children).enumerate() {
                let mask = base | offset as u64;
                let value = backup(self.captures.gain(mask, edge), i32::from(child) - BIAS);
                *entry = (*entry as i8).max(value as i8) as u8;
            }
        }
    }

    /// The kernel for chunks smaller than a run, one mask at a time.
    fn solve_mask_by_mask(
        &self,
        base: u64,
        chunk: &mut [u8],
        parents: &[(u32, &[u8])],
        seed: Seed,
    ) {
        let low_mask = chunk.len() as u64 - 1;
        for offset in (0..chunk.len()).rev() {
            let mask = base | offset as u64;
            if mask == self.full {
                chunk[offset] = BIAS as u8;
                continue;
            }
            let mut best = match seed {
                Seed::Empty => i32::MIN,
                Seed::Partial => i32::from(chunk[offset] as i8),
            };
            let mut free = !mask & low_mask;
            while free != 0 {
                let e = free.trailing_zeros();
                free &= free - 1;
                let child = i32::from(chunk[offset | 1 << e]) - BIAS;
                best = best.max(backup(self.captures.gain(mask, e), child));
            }
            for &(e, parent) in parents {
                let child = i32::from(parent[offset]) - BIAS;
                best = best.max(backup(self.captures.gain(mask, e), child));
            }
            chunk[offset] = (best + BIAS) as u8;
        }
    }

    /// The kernel for chunks of whole runs: every edge above the run is the
    /// same for its 64 masks, so their children are 64 consecutive bytes
    /// and the run is folded with byte-wise vector code; only the moves
    /// inside the run (its lowest `RUN_BITS` edges) are folded lane by
    /// lane ([`settle_run`]).
    fn solve_in_runs(&self, base: u64, chunk: &mut [u8], parents: &[(u32, &[u8])], seed: Seed) {
        let (captures, tables) = (&self.captures, &self.tables);
        let own_edges = (chunk.len() as u64 - 1) & !((RUN - 1) as u64);
        for start in (0..chunk.len()).step_by(RUN).rev() {
            let run_base = base | start as u64;
            let run = &mut chunk[start..];
            let mut best = match seed {
                Seed::Empty => [i8::MIN; RUN],
                Seed::Partial => signed(&run[..RUN]),
            };
            let mut free = !run_base & own_edges;
            while free != 0 {
                let e = free.trailing_zeros();
                free &= free - 1;
                let at = 1 << e;
                fold_edge(&mut best, &run[at..at + RUN], run_base, e, captures, tables);
            }
            for &(e, parent) in parents {
                let children = &parent[start..start + RUN];
                fold_edge(&mut best, children, run_base, e, captures, tables);
            }
            if run_base | (RUN - 1) as u64 == self.full {
                // The full board has no move; it is worth 0.
                best[RUN - 1] = 0;
            }
            let out: &mut [u8; RUN] = (&mut run[..RUN]).try_into().expect("a whole run");
            match self.in_run {
                InRun::Unrolled => settle_run(&mut best, out, run_base, captures, tables),
                InRun::Recursive => {
                    finish_lanes(&mut best, out, 0, RUN, run_base, captures, tables);
                }
            }
        }
    }
}

/// A run of partial maxima as signed bytes.
fn signed(run: &[u8]) -> [i8; RUN] {
    std::array::from_fn(|i| run[i] as i8)
}

/// Offsets handled together: a run of `2^RUN_BITS` consecutive masks that
/// differ only in their lowest `RUN_BITS` edges.
const RUN_BITS: u32 = 6;
const RUN: usize = 1 << RUN_BITS;

/// For each edge, which offsets inside a run satisfy the low part of each
/// of its two capture masks (1 or 0 per lane), so that the gain of a whole
/// run is two byte-wise ANDs and an add, which the compiler vectorises.
#[derive(Debug)]
struct RunTables {
    lanes: Vec<[[u8; RUN]; 2]>,
}

impl RunTables {
    fn new(captures: &Captures) -> RunTables {
        let low = (RUN - 1) as u64;
        let lanes = captures
            .sides
            .iter()
            .map(|sides| {
                let mut lanes = [[0u8; RUN]; 2];
                for (side, mask) in lanes.iter_mut().zip(sides) {
                    for (i, lane) in side.iter_mut().enumerate() {
                        *lane = u8::from(i as u64 & mask & low == mask & low);
                    }
                }
                lanes
            })
            .collect();
        RunTables { lanes }
    }
}

/// For the two boxes beside edge `e`: `0xff` where the high bits that every
/// mask of the run starting at `base` shares already complete the box's other
/// edges (its low edges are per lane, in the lane tables), else `0`.
#[inline]
fn run_boxes_on(captures: &Captures, e: u32, base: u64) -> (u8, u8) {
    let [a, b] = captures.sides[e as usize];
    let high = !((RUN - 1) as u64);
    let on = |m: u64| {
        if base & m & high == m & high {
            0xffu8
        } else {
            0
        }
    };
    (on(a), on(b))
}

/// Folds the moves along edge `e` (not in any mask of the run at `base`)
/// into `best`: `children` are the 64 solved children, biased bytes.
#[inline(always)]
fn fold_edge(
    best: &mut [i8; RUN],
    children: &[u8],
    base: u64,
    e: u32,
    captures: &Captures,
    tables: &RunTables,
) {
    let children: &[u8; RUN] = children.try_into().expect("a run of children");
    let (on_a, on_b) = run_boxes_on(captures, e, base);
    if on_a | on_b == 0 {
        for (best, &child) in best.iter_mut().zip(children) {
            *best = (*best).max(((child ^ SIGN) as i8).wrapping_neg());
        }
        return;
    }
    let [lanes_a, lanes_b] = &tables.lanes[e as usize];
    for i in 0..RUN {
        let gain = ((lanes_a[i] & on_a) + (lanes_b[i] & on_b)) as i8;
        let child = (children[i] ^ SIGN) as i8;
        let value = if gain > 0 {
            gain.wrapping_add(child)
        } else {
            child.wrapping_neg()
        };
        best[i] = best[i].max(value);
    }
}

/// Folds the moves inside a run into lanes `first .. first + width` and
/// writes them out, butterfly fashion: the upper half (bit `e` set, `width
/// = 2^(e+1)`) is finished first, then it is the children of the lower half
/// along edge `e`, 32, 16, ... consecutive bytes at a time.
fn finish_lanes(
    best: &mut [i8; RUN],
    out: &mut [u8; RUN],
    first: usize,
    width: usize,
    base: u64,
    captures: &Captures,
    tables: &RunTables,
) {
    if width == 1 {
        out[first] = (best[first] as u8) ^ SIGN;
        return;
    }
    let half = width / 2;
    let e = half.trailing_zeros();
    finish_lanes(best, out, first + half, half, base, captures, tables);
    let (on_a, on_b) = run_boxes_on(captures, e, base);
    let [lanes_a, lanes_b] = &tables.lanes[e as usize];
    for i in first..first + half {
        let gain = ((lanes_a[i] & on_a) + (lanes_b[i] & on_b)) as i8;
        let child = (out[i + half] ^ SIGN) as i8;
        let value = if gain > 0 {
            gain.wrapping_add(child)
        } else {
            child.wrapping_neg()
        };
        best[i] = best[i].max(value);
    }
    finish_lanes(best, out, first, half, base, captures, tables);
}

/// Folds the moves inside a run (its lowest `RUN_BITS` edges) into `best`
/// and writes the run out. The run's lanes form a 6-cube whose upper half
/// along its top edge must be settled before it serves as the children of
/// the lower half, so the order is a butterfly's: settle the upper half,
/// fold it into the lower half, settle the lower half. Written as nested
/// functions of fixed widths, all 63 folds are unrolled and the wide ones
/// vectorised, and the boxes beside the run's edges are found once per run.
#[inline(always)]
fn settle_run(
    best: &mut [i8; RUN],
    out: &mut [u8; RUN],
    base: u64,
    captures: &Captures,
    tables: &RunTables,
) {
    let on = std::array::from_fn(|e| run_boxes_on(captures, e as u32, base));
    let run = RunFolds { on, tables };
    run.settle32(best, 32);
    run.fold::<32>(best, 0);
    run.settle32(best, 0);
    for (out, &best) in out.iter_mut().zip(best.iter()) {
        *out = (best as u8) ^ SIGN;
    }
}

/// The boxes beside a run's own edges ([`run_boxes_on`]) and the lane
/// tables: what folding inside the run needs. `settleN(best, first)`
/// settles lanes `first .. first + N`, given that every move leaving them
/// is already folded in.
struct RunFolds<'a> {
    on: [(u8, u8); RUN_BITS as usize],
    tables: &'a RunTables,
}

impl RunFolds<'_> {
    #[inline(always)]
    fn settle32(&self, best: &mut [i8; RUN], first: usize) {
        self.settle16(best, first + 16);
        self.fold::<16>(best, first);
        self.settle16(best, first);
    }

    #[inline(always)]
    fn settle16(&self, best: &mut [i8; RUN], first: usize) {
        self.settle8(best, first + 8);
        self.fold::<8>(best, first);
        self.settle8(best, first);
    }

    #[inline(always)]
    fn settle8(&self, best: &mut [i8; RUN], first: usize) {
        self.settle4(best, first + 4);
        self.fold::<4>(best, first);
        self.settle4(best, first);
    }

    #[inline(always)]
    fn settle4(&self, best: &mut [i8; RUN], first: usize) {
        self.fold::<1>(best, first + 2);
        self.fold::<2>(best, first);
        self.fold::<1>(best, first);
    }

    /// Folds the settled lanes `first + HALF .. first + 2 HALF` into lanes
    /// `first ..` along the edge between them (bit `log2 HALF` of the
    /// offset).
    #[inline(always)]
    fn fold<const HALF: usize>(&self, best: &mut [i8; RUN], first: usize) {
        let e = HALF.trailing_zeros() as usize;
        let (on_a, on_b) = self.on[e];
        let [lanes_a, lanes_b] = &self.tables.lanes[e];
        let (lower, upper) = best[first..first + 2 * HALF].split_at_mut(HALF);
        let lanes = lanes_a[first..first + HALF]
            .iter()
            .zip(&lanes_b[first..first + HALF]);
        for ((lower, &child), (&a, &b)) in lower.iter_mut().zip(upper.iter()).zip(lanes) {
            let gain = ((a & on_a) + (b & on_b)) as i8;
            let value = if gain > 0 {
                gain.wrapping_add(child)
            } else {
                child.wrapping_neg()
            };
            *lower = (*lower).max(value);
        }
    }
}

/// Clears every entry whose mask is not canonical (the least of its
/// symmetric images: those probe through their canonical image) and every
/// don't-care entry (a canonical position with a free capture, which a
/// probe resolves: [`Dots::free_capture`]), recodes the entries kept from
/// the pass's margin bytes to the table's ([`encode_boxes_won`]), and
/// counts the positions by edges drawn, raw and canonical, and the entries
/// kept.
pub fn keep_canonical(board: Dots, values: &mut [u8]) -> (Vec<LayerCount>, u64) {
    let counts = keep_canonical_from(board, 0, values);
    let edges = board.edges() as usize;
    (layer_counts(board, &counts[..=edges]), counts[edges + 1])
}

/// The counts of a whole board's positions by edges drawn, raw and with
/// `canonical[ply]` canonical ones.
pub fn layer_counts(board: Dots, canonical: &[u64]) -> Vec<LayerCount> {
    let edges = u64::from(board.edges());
    canonical
        .iter()
        .enumerate()
        .map(|(ply, &canonical)| LayerCount {
            ply,
            reachable: binomial(edges, ply as u64),
            canonical,
        })
        .collect()
}

/// [`keep_canonical`] for the share of the entries that starts at mask
/// `first` (a multiple of 256): clears the entries of masks that are not
/// canonical and the don't-care ones, recodes the rest, and returns
/// `edges + 2` counts: the share's canonical masks with each number of edges
/// drawn, then the entries it keeps.
///
/// # Panics
///
/// If `first` is not a multiple of 256.
pub fn keep_canonical_from(board: Dots, first: u64, values: &mut [u8]) -> Vec<u64> {
    assert!(first % 256 == 0, "a share starts on a run of 256 masks");
    let symmetries: EdgeSymmetries = board.symmetries();
    let others = symmetries.count() - 1;
    let captures = board.shared_captures();
    let boxes = board.boxes();
    let edges = board.edges() as usize;
    const BLOCK: usize = 1 << 16;
    // The images of each lowest byte, per symmetry but the identity, and
    // the sides each lowest byte draws.
    let low_images: Vec<[u64; 256]> = (1..=others)
        .map(|s| std::array::from_fn(|i| symmetries.image(s, i as u64)))
        .collect();
    let low_sides: Vec<BoxSides> = (0..256).map(|i| captures.sides(i)).collect();
    values
        .par_chunks_mut(BLOCK)
        .enumerate()
        .fold(
            || vec![0u64; edges + 2],
            |mut counts, (block, entries)| {
                for (run, entries) in entries.chunks_mut(256).enumerate() {
                    let base = first + (block * BLOCK + run * 256) as u64;
                    // Masks that share all but their lowest byte share the
                    // rest of each image, so most runs are settled whole: an
                    // image whose shared part is above every mask of the run
                    // never makes one of them non-canonical, one below them
                    // all makes them all non-canonical. Only the symmetries
                    // left undecided are looked at mask by mask.
                    let mut undecided = [(0u64, 0usize); 8];
                    let mut count = 0;
                    let mut below = false;
                    for (s, low) in low_images.iter().enumerate() {
                        let shared = symmetries.image(s + 1, base);
                        if shared > base | 0xff {
                            continue;
                        }
                        if shared | low[0xff] < base {
                            below = true;
                            break;
                        }
                        undecided[count] = (shared, s);
                        count += 1;
                    }
                    if below {
                        entries.fill(0);
                        continue;
                    }
                    let undecided = &undecided[..count];
                    let run_sides = captures.sides(base);
                    for (i, entry) in entries.iter_mut().enumerate() {
                        let mask = base | i as u64;
                        let canonical = undecided
                            .iter()
                            .all(|&(shared, s)| shared | low_images[s][i] >= mask);
                        if !canonical {
                            *entry = 0;
                            continue;
                        }
                        counts[mask.count_ones() as usize] += 1;
                        let sides = run_sides.or(low_sides[i]);
                        if captures.free_boxes_of(sides) == 0 {
                            counts[edges + 1] += 1;
                            let margin = i32::from(*entry) - BIAS;
                            *entry = encode_boxes_won(margin, boxes - sides.completed());
                        } else {
                            *entry = 0;
                        }
                    }
                }
                counts
            },
        )
        .reduce(
            || vec![0u64; edges + 2],
            |a, b| a.iter().zip(&b).map(|(x, y)| x + y).collect(),
        )
}

fn binomial(n: u64, k: u64) -> u64 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

/// The table solution of a board: every position solved, canonical ones
/// kept.
pub fn solve(board: Dots) -> Solution {
    let mut entries = solve_values(board);
    let (layers, stored) = keep_canonical(board, &mut entries);
    Solution {
        layers,
        entries,
        stored,
        notes: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use solvedb_lookup::{Game, Tabled};

    use super::*;

    /// The plain recursion over `Game`, memoised in a map.
    fn plain(board: Dots, mask: u64, memo: &mut Vec<Option<i32>>) -> i32 {
        if let Some(v) = memo[mask as usize] {
            return v;
        }
        let position = solvedb_lookup::Edges(mask);
        let v = match board.terminal_score(position) {
            Some(s) => s,
            None => board
                .moves(position)
                .into_iter()
                .map(|mv| {
                    let (child, tr) = board.play(position, mv);
                    tr.backup(plain(board, child.0, memo))
                })
                .max()
                .unwrap(),
        };
        memo[mask as usize] = Some(v);
        v
    }

    #[test]
    fn chunked_pass_equals_plain_recursion() {
        // 2x2 and 1x3 have fewer edges than HIGH_BITS + 4; 2x3 splits 8 + 9.
        for (rows, cols) in [(1, 1), (1, 3), (2, 2), (3, 1), (2, 3), (3, 2), (1, 5)] {
            let board = Dots::new(rows, cols).unwrap();
            let values = solve_values(board);
            let mut memo = vec![None; values.len()];
            for mask in 0..values.len() as u64 {
                let expected = plain(board, mask, &mut memo);
                assert_eq!(i32::from(values[mask as usize]) - BIAS, expected);
            }
            assert!(values == solve_values_with(board, InRun::Recursive));
        }
    }

    #[test]
    fn canonical_entries_are_kept_and_counted() {
        let board = Dots::new(2, 2).unwrap();
        let mut values = solve_values(board);
        let (layers, stored) = keep_canonical(board, &mut values);
        let mut counts = vec![0u64; 13];
        let mut kept = 0;
        for mask in 0..values.len() as u64 {
            let p = solvedb_lookup::Edges(mask);
            let canonical = board.canonical(p) == p;
            let resolved = board.free_capture(mask).is_some();
            assert_eq!(values[mask as usize] != 0, canonical && !resolved);
            counts[mask.count_ones() as usize] += u64::from(canonical);
            kept += u64::from(canonical && !resolved);
            if canonical && !resolved {
                let score = board.decode(p, mask, values[mask as usize]).unwrap();
                assert!(score.abs() <= 4);
            }
        }
        assert_eq!(
            layers.iter().map(|l| l.canonical).collect::<Vec<_>>(),
            counts
        );
        assert_eq!(layers.iter().map(|l| l.reachable).sum::<u64>(), 1 << 12);
        assert_eq!(kept, stored);
        assert!(stored < layers.iter().map(|l| l.canonical).sum::<u64>());
    }
}
