//! The dots-and-boxes retrograde pass spread over `K = 2^k` processes
//! (*ranks*) that share nothing but messages, and the table assembled from
//! their shares byte for byte as the single-process build writes it.
//!
//! # Ownership
//!
//! An edge mask of `E` bits reads, from the top: `k` *rank bits*, `m`
//! *middle bits* (the chunk), `E - k - m` *chunk bits* (the offset in the
//! chunk). Rank `r` owns the `2^(E-k)` masks whose rank bits are `r`: one
//! contiguous share of the table, cut into `2^m` chunks. A child adds one
//! edge. An edge among the chunk bits leads to a higher offset in the same
//! chunk, a middle edge to the same offset in another chunk of the same
//! rank, a rank edge `b` (not in `r`) to the same offset of the same chunk
//! in the share of rank `r | b`.
//!
//! # Layers and the pipeline
//!
//! Layer `j` is every chunk whose rank and middle bits together have `j`
//! ones; all its children lie in the same chunk or in layer `j + 1`. Each
//! rank solves its chunks by descending number of middle ones (so a chunk's
//! middle children come first), in batches of up to [`BATCH_CHUNKS`]
//! chunks, every rank in the same order. Before a batch, rank `r` receives
//! the same chunks from each rank `r | b` (`b` a rank bit not in `r`), which
//! that rank solved one layer higher, and folds them into the partial maxima
//! of its own chunks in place; it then solves the batch's chunks, in
//! parallel, each from the top offset down with the single-process pass's
//! kernel ([`Kernel::solve_chunk`]: every read a sequential stream), and sends
//! the batch to each rank `r & !b` (`b` a rank bit of `r`). A rank only waits
//! on ranks above it, and a blocked send only on a numerically lower sender,
//! so blocking messages cannot deadlock; rank `r` runs about `popcount` of the
//! missing bits batches behind the top rank, a pipeline whose fill is
//! `k` batches of `2^m / 64`. Lock-step layers instead would idle ranks:
//! the layers of rank `r` are those of rank 0 shifted by `popcount(r)`, so
//! with 4 ranks and `m = 12` only 69% of the time would be work.
//!
//! A rank holds its share and one message (at most [`MESSAGE_BYTES`]):
//! memory per rank is `2^E / K` bytes and change. Each chunk of rank `s` is
//! sent once to each of its `popcount(s)` lower neighbours: `popcount(s) ·
//! 2^E / K` bytes over the whole pass, `k/2 · 2^E` in all.
//!
//! # The table
//!
//! Values are the table's entry bytes (`128 + margin`), as in
//! [`super::retrograde`], whose [`Kernel`] folds the rank edges' children
//! into the partial maxima ([`Kernel::fold_into`]) and solves the chunks. When a share is a whole
//! number of table blocks each rank clears its non-canonical entries with
//! [`retrograde::keep_canonical_from`] and compresses its own blocks with
//! [`compress_blocks`] — the very functions of the single-process build —
//! and rank 0 gathers only the compressed blocks and the counts, and
//! assembles the file with [`assemble_table`]. Shares smaller than a block
//! (tiny boards on many ranks) are gathered whole to rank 0, which encodes
//! them as the single-process build does.

use std::time::{Duration, Instant};

use anyhow::{Result, ensure};
use rayon::prelude::*;
use solvedb_lookup::format::{StoredBlock, assemble_table, compress_blocks};
use solvedb_lookup::{Dots, Game};

use crate::build::{Buildable, LayerCount, table_header};
use crate::games::dots::retrograde::{self, InRun, Kernel, Seed};

/// How the ranks talk: blocking point-to-point messages of bytes, in order
/// between each pair. MPI in the `mpi` feature (`crate::mpi`); threads and
/// channels in the tests.
pub trait Transport {
    /// This process's rank, `0 .. size`.
    fn rank(&self) -> usize;
    /// The number of ranks.
    fn size(&self) -> usize;
    /// Sends `bytes` to rank `to` (may wait until it is received).
    ///
    /// # Errors
    ///
    /// If the message cannot be sent.
    fn send(&self, to: usize, bytes: &[u8]) -> Result<()>;
    /// The next message from rank `from`, waiting for it.
    ///
    /// # Errors
    ///
    /// If no message can be received.
    fn receive(&self, from: usize) -> Result<Vec<u8>>;
}

/// Middle bits at least: `2^12` chunks per rank keep the layers of
/// different ranks close in size (see `docs/scale.md`).
const MIDDLE_BITS: u32 = 12;

/// Chunks are at most `2^20` bytes, so a message holds many.
const MAX_CHUNK_BITS: u32 = 20;

/// The most bytes one message carries (a whole number of chunks): bounds
/// the buffer a rank needs beyond its share, and stays far below MPI's
/// `i32` element count.
pub const MESSAGE_BYTES: usize = 1 << 25;

/// Chunks solved and sent together: a rank waits for the ranks above it by
/// at most a batch per rank bit (a pipeline), so batches are small next to
/// a rank's `2^m` chunks, and big enough for every core of a node.
pub const BATCH_CHUNKS: usize = 64;

/// A partial maximum not yet set, as a signed byte: below every margin.
const NONE: i8 = i8::MIN;

/// How a board's masks are cut into ranks, chunks and offsets.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    board: Dots,
    rank_bits: u32,
    middle_bits: u32,
    chunk_bits: u32,
}

impl Plan {
    /// The plan for `board` on `ranks` ranks.
    ///
    /// # Errors
    ///
    /// If `ranks` is not a power of two, exceeds the board's `2^E` masks, or
    /// a share does not fit this machine's address space.
    pub fn new(board: Dots, ranks: usize) -> Result<Plan> {
        ensure!(
            ranks.is_power_of_two(),
            "the distributed build needs a power of two of ranks, not {ranks}"
        );
        let edges = board.edges();
        let rank_bits = ranks.trailing_zeros();
        ensure!(
            rank_bits <= edges,
            "{ranks} ranks for {} masks of {}",
            1u64 << edges,
            board.id()
        );
        let share_bits = edges - rank_bits;
        ensure!(
            share_bits < usize::BITS,
            "a share of {} does not fit this machine",
            board.id()
        );
        let middle_bits = MIDDLE_BITS
            .max(share_bits.saturating_sub(MAX_CHUNK_BITS))
            .min(share_bits);
        Ok(Plan {
            board,
            rank_bits,
            middle_bits,
            chunk_bits: share_bits - middle_bits,
        })
    }

    /// The board.
    pub fn board(&self) -> Dots {
        self.board
    }

    /// The number of ranks.
    pub fn ranks(&self) -> usize {
        1 << self.rank_bits
    }

    /// Masks per rank, `2^(E-k)`.
    pub fn share_len(&self) -> usize {
        1 << (self.middle_bits + self.chunk_bits)
    }

    /// The first mask of `rank`'s share.
    pub fn first_mask(&self, rank: usize) -> u64 {
        (rank as u64) << (self.middle_bits + self.chunk_bits)
    }

    /// The highest layer: `k + m`.
    pub fn top_layer(&self) -> u32 {
        self.rank_bits + self.middle_bits
    }

    /// Bytes per chunk.
    pub fn chunk_len(&self) -> usize {
        1 << self.chunk_bits
    }

    /// The chunks `rank` solves in `layer`, ascending.
    fn chunks(&self, rank: usize, layer: u32) -> Vec<u64> {
        let Some(ones) = layer.checked_sub(rank.count_ones()) else {
            return Vec::new();
        };
        (0..1u64 << self.middle_bits)
            .filter(|c| c.count_ones() == ones)
            .collect()
    }
}

/// What one rank did in the pass: its values, and the bytes it sent and
/// received before each layer.
#[derive(Debug)]
pub struct Share {
    /// The entry bytes of the rank's masks, in mask order.
    pub values: Vec<u8>,
    /// Bytes of the rank's layer-`j` chunks sent, at index `j`.
    pub sent: Vec<u64>,
    /// Bytes received for the rank's layer-`j` chunks, at index `j`.
    pub received: Vec<u64>,
}

/// Solves this rank's share of the plan's board, exchanging child values
/// with the other ranks through `net`. `on_layer(j)` is called as the rank
/// starts its chunks of layer `j` (the fault-injection hook of the tests).
///
/// # Errors
///
/// If the transport fails or a peer sends a message of the wrong size.
pub fn solve_share(
    plan: &Plan,
    net: &dyn Transport,
    on_layer: &mut dyn FnMut(u32),
) -> Result<Share> {
    ensure!(
        net.size() == plan.ranks(),
        "plan for {} ranks, run on {}",
        plan.ranks(),
        net.size()
    );
    let rank = net.rank();
    let kernel = Kernel::new(plan.board, InRun::Unrolled);
    let chunk_len = plan.chunk_len();
    let per_message = (MESSAGE_BYTES / chunk_len).clamp(1, BATCH_CHUNKS);
    let share_bits = plan.middle_bits + plan.chunk_bits;
    let layers = plan.top_layer() as usize + 1;
    let (mut sent, mut received) = (vec![0u64; layers], vec![0u64; layers]);

    let mut values = vec![0u8; plan.share_len()];
    let mut chunks: Vec<&mut [u8]> = values.chunks_mut(chunk_len).collect();
    for ones in (0..=plan.middle_bits).rev() {
        let layer = rank.count_ones() + ones;
        on_layer(layer);
        let group = plan.chunks(rank, layer);
        for batch in group.chunks(per_message) {
            let mut work: Vec<(u64, &mut [u8])> = batch
                .iter()
                .map(|&c| (c, std::mem::take(&mut chunks[c as usize])))
                .collect();
            for (_, chunk) in &mut work {
                chunk.fill(NONE as u8);
            }
            // The same chunks of the ranks one rank bit above, solved there.
            for bit in (0..plan.rank_bits).filter(|b| rank & 1 << b == 0) {
                let from = rank | 1 << bit;
                let edge = share_bits + bit;
                let message = net.receive(from)?;
                ensure!(
                    message.len() == work.len() * chunk_len,
                    "rank {from} sent {} bytes for layer {}, expected {}",
                    message.len(),
                    layer + 1,
                    work.len() * chunk_len
                );
                received[layer as usize] += message.len() as u64;
                work.par_iter_mut()
                    .zip(message.par_chunks(chunk_len))
                    .for_each(|((c, chunk), children)| {
                        let base = plan.first_mask(rank) | *c << plan.chunk_bits;
                        kernel.fold_into(chunk, children, base, edge);
                    });
            }
            {
                let readers: Vec<&[u8]> = chunks.iter().map(|c| &**c).collect();
                work.par_iter_mut().for_each(|(c, chunk)| {
                    let base = plan.first_mask(rank) | *c << plan.chunk_bits;
                    let parents: Vec<(u32, &[u8])> = (0..plan.middle_bits)
                        .filter(|&t| *c & 1 << t == 0)
                        .map(|t| (plan.chunk_bits + t, readers[(*c | 1 << t) as usize]))
                        .collect();
                    kernel.solve_chunk(base, chunk, &parents, Seed::Partial);
                });
            }
            // The ranks one rank bit below need these chunks next.
            let mut message = Vec::new();
            for bit in (0..plan.rank_bits).filter(|b| rank & 1 << b != 0) {
                if message.is_empty() {
                    message.reserve(work.len() * chunk_len);
                    for (_, chunk) in &work {
                        message.extend_from_slice(chunk);
                    }
                }
                net.send(rank ^ 1 << bit, &message)?;
                sent[layer as usize] += message.len() as u64;
            }
            for (c, chunk) in work {
                chunks[c as usize] = chunk;
            }
        }
    }
    drop(chunks);
    Ok(Share {
        values,
        sent,
        received,
    })
}

/// What rank 0 has after a distributed build.
#[derive(Debug)]
pub struct Assembled {
    /// The table file's bytes.
    pub bytes: Vec<u8>,
    /// Positions by edges drawn, raw and canonical.
    pub layers: Vec<LayerCount>,
    /// Entries that hold a position.
    pub stored: u64,
    /// Each rank's figures, by rank.
    pub ranks: Vec<RankStats>,
}

/// One rank's figures.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RankStats {
    /// Time in the pass.
    pub solve: Duration,
    /// Time to filter and compress its blocks (or to send its share).
    pub encode: Duration,
    /// Peak resident memory, KiB (0 where `/proc` does not say).
    pub peak_rss_kib: u64,
    /// CPU time of the whole rank (every thread, user and system), in
    /// hundredths of a second (0 where `/proc` does not say): on a shared,
    /// loaded machine a better measure of work than wall time.
    pub cpu_centis: u64,
    /// The part of `cpu_centis` spent up to the end of the pass.
    pub solve_cpu_centis: u64,
    /// Bytes of each layer's chunks sent, by layer.
    pub sent: Vec<u64>,
    /// Bytes received for each layer's chunks, by layer.
    pub received: Vec<u64>,
}

impl RankStats {
    fn to_words(&self) -> Vec<u64> {
        let mut words = vec![
            self.solve.as_nanos() as u64,
            self.encode.as_nanos() as u64,
            self.peak_rss_kib,
            self.cpu_centis,
            self.solve_cpu_centis,
            self.sent.len() as u64,
        ];
        words.extend(&self.sent);
        words.extend(&self.received);
        words
    }

    fn from_words(words: &[u64]) -> Result<RankStats> {
        ensure!(words.len() >= 6, "short statistics");
        let layers = usize::try_from(words[5])?;
        ensure!(
            layers.checked_mul(2).and_then(|n| n.checked_add(6)) == Some(words.len()),
            "statistics of the wrong size"
        );
        Ok(RankStats {
            solve: Duration::from_nanos(words[0]),
            encode: Duration::from_nanos(words[1]),
            peak_rss_kib: words[2],
            cpu_centis: words[3],
            solve_cpu_centis: words[4],
            sent: words[6..6 + layers].to_vec(),
            received: words[6 + layers..].to_vec(),
        })
    }
}

/// This process's peak resident memory in KiB (`VmHWM`), 0 where `/proc`
/// does not say.
pub fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

/// This process's CPU time so far, user and system, every thread, in
/// hundredths of a second (`/proc/self/stat` fields 14 and 15, in the
/// kernel's fixed `USER_HZ` of 100 ticks a second; proc(5)), 0 where `/proc`
/// does not say.
pub fn cpu_centis() -> u64 {
    std::fs::read_to_string("/proc/self/stat")
        .ok()
        .and_then(|s| {
            // Fields after the command name, which may hold spaces: the
            // state is field 3, so utime (14) and stime (15) are 11 and 12.
            let rest = s.rsplit_once(") ")?.1;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let utime: u64 = fields.get(11)?.parse().ok()?;
            let stime: u64 = fields.get(12)?.parse().ok()?;
            Some(utime + stime)
        })
        .unwrap_or(0)
}

fn words_to_bytes(words: &[u64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn bytes_to_words(bytes: &[u8]) -> Result<Vec<u64>> {
    ensure!(
        bytes.len() % 8 == 0,
        "a message of words has {} bytes",
        bytes.len()
    );
    Ok(bytes
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
        .collect())
}

/// Sends `bytes` in messages of at most [`MESSAGE_BYTES`], after their
/// total length.
fn send_long(net: &dyn Transport, to: usize, bytes: &[u8]) -> Result<()> {
    net.send(to, &(bytes.len() as u64).to_le_bytes())?;
    for piece in bytes.chunks(MESSAGE_BYTES) {
        net.send(to, piece)?;
    }
    Ok(())
}

/// Receives what [`send_long`] sent.
fn receive_long(net: &dyn Transport, from: usize) -> Result<Vec<u8>> {
    let len = bytes_to_words(&net.receive(from)?)?;
    ensure!(len.len() == 1, "a length message of the wrong size");
    let len = usize::try_from(len[0])?;
    // The length is a peer's word: grow as pieces arrive past one message.
    let mut bytes = Vec::with_capacity(len.min(MESSAGE_BYTES));
    while bytes.len() < len {
        let piece = net.receive(from)?;
        ensure!(
            !piece.is_empty() && bytes.len() + piece.len() <= len,
            "rank {from} sent more than it announced"
        );
        bytes.extend_from_slice(&piece);
    }
    Ok(bytes)
}

/// Builds the plan's table across the ranks of `net`: every rank solves
/// its share ([`solve_share`]) and, where shares are whole table blocks,
/// filters and compresses its own blocks; rank 0 gathers and assembles the
/// file. Returns the table on rank 0, `None` on the others. Every rank must
/// call this with the same plan and level.
///
/// # Errors
///
/// If the transport fails or a peer's messages are malformed.
pub fn build_table(
    plan: &Plan,
    net: &dyn Transport,
    level: i32,
    on_layer: &mut dyn FnMut(u32),
) -> Result<Option<Assembled>> {
    let board = plan.board;
    let rank = net.rank();
    let started = Instant::now();
    let share = solve_share(plan, net, on_layer)?;
    let solve = started.elapsed();
    let solve_cpu_centis = cpu_centis();
    let block = Dots::BLOCK_ENTRIES as usize;
    let whole_blocks = plan.share_len() % block == 0;

    let started = Instant::now();
    // Either this rank's canonical counts and blocks, or its raw share.
    let (counts, blocks, raw) = if whole_blocks {
        let mut values = share.values;
        let counts = retrograde::keep_canonical_from(board, plan.first_mask(rank), &mut values);
        let blocks = compress_blocks(&values, Dots::BLOCK_ENTRIES, level);
        (counts, blocks, Vec::new())
    } else {
        (Vec::new(), Vec::new(), share.values)
    };
    let mut stats = RankStats {
        solve,
        encode: Duration::ZERO,
        peak_rss_kib: 0,
        cpu_centis: 0,
        solve_cpu_centis,
        sent: share.sent,
        received: share.received,
    };
    if rank != 0 {
        if whole_blocks {
            send_long(net, 0, &words_to_bytes(&counts))?;
            let directory: Vec<u64> = blocks
                .iter()
                .map(|b| u64::from(b.encoding) << 56 | b.bytes.len() as u64)
                .collect();
            send_long(net, 0, &words_to_bytes(&directory))?;
            send_long(net, 0, &blocks.concat_bytes())?;
        } else {
            send_long(net, 0, &raw)?;
        }
        stats.encode = started.elapsed();
        stats.peak_rss_kib = peak_rss_kib();
        stats.cpu_centis = cpu_centis();
        send_long(net, 0, &words_to_bytes(&stats.to_words()))?;
        return Ok(None);
    }

    let (canonical, blocks) = if whole_blocks {
        let mut canonical = counts;
        let mut all_blocks = blocks;
        for from in 1..plan.ranks() {
            let counts = bytes_to_words(&receive_long(net, from)?)?;
            ensure!(counts.len() == canonical.len(), "rank {from}: counts");
            canonical.iter_mut().zip(&counts).for_each(|(a, b)| *a += b);
            let directory = bytes_to_words(&receive_long(net, from)?)?;
            ensure!(
                directory.len() == plan.share_len() / block,
                "rank {from}: block count"
            );
            let stored = receive_long(net, from)?;
            let mut at = 0usize;
            for word in directory {
                let len = (word & ((1 << 56) - 1)) as usize;
                let bytes = stored
                    .get(at..at + len)
                    .ok_or_else(|| anyhow::anyhow!("rank {from}: blocks shorter than listed"))?;
                all_blocks.push(StoredBlock {
                    encoding: (word >> 56) as u8,
                    bytes: bytes.to_vec(),
                });
                at += len;
            }
            ensure!(at == stored.len(), "rank {from}: blocks longer than listed");
        }
        (canonical, all_blocks)
    } else {
        // Shares smaller than a block: the whole table, as one process
        // would have it, encoded as one process encodes it.
        let mut values = raw;
        for from in 1..plan.ranks() {
            let share = receive_long(net, from)?;
            ensure!(share.len() == plan.share_len(), "rank {from}: share size");
            values.extend_from_slice(&share);
        }
        let canonical = retrograde::keep_canonical_from(board, 0, &mut values);
        (
            canonical,
            compress_blocks(&values, Dots::BLOCK_ENTRIES, level),
        )
    };
    stats.encode = started.elapsed();
    stats.peak_rss_kib = peak_rss_kib();
    stats.cpu_centis = cpu_centis();
    let mut ranks = vec![stats];
    for from in 1..plan.ranks() {
        ranks.push(RankStats::from_words(&bytes_to_words(&receive_long(
            net, from,
        )?)?)?);
    }
    // The counts per number of edges drawn, then the entries kept.
    let edges = board.edges() as usize;
    let stored = canonical[edges + 1];
    let header = table_header(&board, 1u64 << board.edges(), stored);
    Ok(Some(Assembled {
        bytes: assemble_table(&header, &blocks),
        layers: retrograde::layer_counts(board, &canonical[..=edges]),
        stored,
        ranks,
    }))
}

/// The stored bytes of blocks, back to back.
trait ConcatBytes {
    fn concat_bytes(&self) -> Vec<u8>;
}

impl ConcatBytes for Vec<StoredBlock> {
    fn concat_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.iter().map(|b| b.bytes.len()).sum());
        for block in self {
            out.extend_from_slice(&block.bytes);
        }
        out
    }
}

/// Ranks as threads of one process, talking over channels: the distributed
/// pass without MPI, for tests.
#[derive(Debug)]
pub struct ThreadTransport {
    rank: usize,
    to: Vec<std::sync::mpsc::Sender<Vec<u8>>>,
    from: Vec<std::sync::mpsc::Receiver<Vec<u8>>>,
}

impl ThreadTransport {
    /// One transport per rank, connected to each other.
    pub fn group(size: usize) -> Vec<ThreadTransport> {
        let mut to: Vec<Vec<_>> = (0..size).map(|_| Vec::new()).collect();
        let mut from: Vec<Vec<_>> = (0..size).map(|_| Vec::new()).collect();
        for sender in to.iter_mut() {
            for receiver in from.iter_mut() {
                let (tx, rx) = std::sync::mpsc::channel();
                sender.push(tx);
                receiver.push(rx);
            }
        }
        to.into_iter()
            .zip(from)
            .enumerate()
            .map(|(rank, (to, from))| ThreadTransport { rank, to, from })
            .collect()
    }
}

impl Transport for ThreadTransport {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.to.len()
    }

    fn send(&self, to: usize, bytes: &[u8]) -> Result<()> {
        self.to[to]
            .send(bytes.to_vec())
            .map_err(|_| anyhow::anyhow!("rank {to} is gone"))
    }

    fn receive(&self, from: usize) -> Result<Vec<u8>> {
        self.from[from]
            .recv()
            .map_err(|_| anyhow::anyhow!("rank {from} is gone"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build;

    fn on_threads<T: Send>(ranks: usize, work: impl Fn(&ThreadTransport) -> T + Sync) -> Vec<T> {
        let group = ThreadTransport::group(ranks);
        std::thread::scope(|s| {
            let work = &work;
            let handles: Vec<_> = group
                .into_iter()
                .map(|net| s.spawn(move || work(&net)))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        })
    }

    #[test]
    fn shares_equal_the_single_process_pass() {
        // Chunks of fewer masks than a run (solved mask by mask) up to 2x3;
        // 2x4's are whole runs.
        for (rows, cols) in [(1, 1), (1, 3), (2, 2), (2, 3), (1, 5), (2, 4)] {
            let board = Dots::new(rows, cols).unwrap();
            let expected = retrograde::solve_values(board);
            for ranks in [1, 2, 4, 8] {
                let plan = Plan::new(board, ranks).unwrap();
                let shares = on_threads(ranks, |net| solve_share(&plan, net, &mut |_| {}).unwrap());
                let values: Vec<u8> = shares.iter().flat_map(|s| s.values.clone()).collect();
                assert!(values == expected, "{rows}x{cols} on {ranks} ranks");
                // Each rank sends each share chunk once to each lower neighbour.
                for (rank, share) in shares.iter().enumerate() {
                    let sent: u64 = share.sent.iter().sum();
                    assert_eq!(sent, u64::from(rank.count_ones()) * plan.share_len() as u64);
                }
            }
        }
    }

    #[test]
    fn tables_equal_the_single_process_build() {
        // 2x3 has 17 edges: shares of 2^16 (one block) on 2 ranks, smaller
        // than a block on 4; 2x4 has 22 edges, several blocks per share.
        for (rows, cols, ranks) in [(2, 3, 2), (2, 3, 4), (2, 4, 4)] {
            let board = Dots::new(rows, cols).unwrap();
            let expected = build::build_table(&board, 3);
            let plan = Plan::new(board, ranks).unwrap();
            let mut tables = on_threads(ranks, |net| {
                build_table(&plan, net, 3, &mut |_| {}).unwrap()
            });
            let table = tables.remove(0).expect("rank 0 assembles");
            assert!(tables.iter().all(Option::is_none));
            assert!(table.bytes == expected.1, "{rows}x{cols} on {ranks} ranks");
            assert_eq!(table.layers, expected.0.layers);
            assert_eq!(table.stored, expected.0.stored);
            assert_eq!(table.ranks.len(), ranks);
        }
    }

    #[test]
    fn plans_refuse_what_cannot_be_split() {
        let board = Dots::new(1, 1).unwrap();
        assert!(Plan::new(board, 3).is_err());
        assert!(Plan::new(board, 32).is_err());
        assert!(Plan::new(board, 16).is_ok());
    }
}
