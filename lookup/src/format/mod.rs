//! The table file format, version 2: the bytes, the words in the header,
//! the value codecs, and the errors of bad bytes, in one place; reading in
//! `read.rs`, writing in `write.rs`, entry bytes in `codec.rs`.
//!
//! A table is a flat array of one-byte entries, one per *slot*; the game's
//! [`Tabled`](crate::Tabled) implementation maps positions to slots and
//! entries to values. The array is cut into blocks of `block_entries` entries
//! (the last may be shorter), each stored zstd-compressed or raw, whichever is
//! smaller, so that a probe decodes exactly one block.
//!
//! # Byte layout
//!
//! All integers are little-endian. `H` is the header length, `B` the number
//! of blocks, `ceil(entries / block_entries)`.
//!
//! | offset | size | content |
//! |---|---|---|
//! | 0 | 8 | magic `53 4F 4C 56 45 44 42 1A` (`SOLVEDB` and `^Z`) |
//! | 8 | 4 | format version, `u32` (this module writes [`FORMAT_VERSION`]) |
//! | 12 | 4 | `H`, `u32`, at most [`MAX_HEADER_LEN`] |
//! | 16 | `H` | the [`Header`], encoded as below |
//! | 16+H | 8 | XXH3-64 (seed 0) of bytes `0 .. 16+H` |
//! | 24+H | 24·B | the block index: one record per block, below |
//! | 24+H+24·B | 8 | XXH3-64 of the block index |
//! | 32+H+24·B | … | the blocks' stored bytes, in order, back to back |
//! | end−8 | 8 | XXH3-64 of every byte before it |
//!
//! A block record is `offset: u64` (from the start of the file),
//! `stored_len: u32`, `encoding: u8` (0 = raw, 1 = zstd frame), three zero
//! bytes, and `checksum: u64`, the XXH3-64 of the block's stored bytes.
//!
//! The header is the [`Header`] struct in bincode 1.3.3's fixed-int
//! little-endian encoding, fields in declaration order: `game` (a `u32`
//! variant index, 0 tic-tac-toe, 1 cube, 2 dots followed by `rows: u8`,
//! `cols: u8`, 3 tic-tac-toe 4×4, 4 Qubic), `index` (`u32` variant of [`IndexScheme`]), `values` (`u32`
//! variant of [`ValueEncoding`]), `entries: u64`, `stored: u64` (entries that
//! hold a position), `block_entries: u32`, `generator` (a `u64` byte length
//! and UTF-8 bytes). Index schemes: 0 = `Base3Canonical`, 1 =
//! `SortedKeys`, 2 = `EdgeMaskCanonical`, 3 = `SortedWideKeys`; value
//! encodings: 0 = `OutcomePlies`, 1 = `Margin`, 2 = `MarginResolved` (new in
//! version 2), 3 = `StrategyMoves`, 4 = `OpeningValues`
//! (see [`IndexScheme`] and [`ValueEncoding`] for what their slots and bytes
//! mean). A test pins these bytes, so the format never silently
//! depends on a crate's defaults.
//!
//! # Entries
//!
//! With a dense index ([`IndexScheme::Base3Canonical`], variant 0) entry
//! `i` is the byte of slot `i` and `entries` is the number of slots; a 0
//! byte is an empty slot.
//!
//! With [`IndexScheme::SortedKeys`] (variant 1) the entry bytes hold
//! `stored` = `N` records. `block_entries` = `E` must be a multiple of 8; a
//! block then holds `R = E / 8` records, and there are `F = ceil(N / R)`
//! record blocks. The entry bytes are, in order:
//!
//! | entry bytes | content |
//! |---|---|
//! | `0 .. 8F` | the fence: `F` keys, `u64`, the first key of each record block |
//! | `8F .. P·E` | zero padding, up to the next whole block (`P = ceil(8F / E)`) |
//! | `P·E .. P·E+8N` | `N` records, `u64`: `key \| entry << 56` |
//!
//! Keys are below `2^56` and strictly ascending; entry bytes are never 0.
//! `entries` = `P·E + 8N`. A probe reads the fence (its `P` blocks, kept once
//! decoded), then decodes the one record block that can hold the key and
//! searches it.
//!
//! With [`IndexScheme::SortedWideKeys`] (variant 3) the records are wider:
//! a 16-byte key (a `u128`, little-endian) and two entry bytes, 18 bytes a
//! record. `block_entries` = `E` must be a multiple of 18; a block holds
//! `R = E / 18` records, and `F = ceil(N / R)` record blocks follow a fence
//! of 16-byte keys:
//!
//! | entry bytes | content |
//! |---|---|
//! | `0 .. 16F` | the fence: `F` keys, `u128`, the first key of each record block |
//! | `16F .. P·E` | zero padding, up to the next whole block (`P = ceil(16F / E)`) |
//! | `P·E .. P·E+18N` | `N` records: `key: u128`, then the two entry bytes |
//!
//! Keys are strictly ascending; what the entry bytes mean is the value
//! encoding's ([`ValueEncoding::StrategyMoves`]: a move and a bound).
//! `entries` = `P·E + 18N`. A fence key may lie across two blocks.
//!
//! # Checks
//!
//! [`Table::new`] is cheap: it checks the magic, the version (a newer one is
//! refused with [`TableError::NewerVersion`]), the header checksum and
//! contents, the block index checksum, and that the blocks tile the file
//! exactly. A probe checks the checksum of the one block it decodes.
//! [`Table::verify`] checks everything: the whole-file checksum and every
//! block.
//!
//! # Versions
//!
//! Any change to these bytes bumps [`FORMAT_VERSION`], and a reader refuses
//! a newer version with [`TableError::NewerVersion`]. New *variants* of the
//! header words ([`GameId`], [`IndexScheme`], [`ValueEncoding`]) are
//! appended, never inserted, so the bytes of every existing table keep their
//! meaning; a reader that predates a variant refuses it as a malformed header.
//! (Version 1 was first published with every index scheme and value encoding
//! listed here but `MarginResolved`.)
//!
//! Version 2 has the bytes of version 1 and adds
//! [`ValueEncoding::MarginResolved`], which every dots-and-boxes table now
//! uses. A version 1 file is refused with [`TableError::UnsupportedVersion`]
//! rather than read: its dots tables use `Margin`, which no game reads any
//! more, and every table is rebuilt byte for byte from the source by
//! `solvedb build`, so one reading path (the one that is tested) is kept
//! instead of two. A version 1 reader refuses version 2 files as newer
//! ([`TableError::NewerVersion`], "upgrade solvedb"), where without the bump
//! it would have called the new variant a malformed header.
//!
//! # Determinism
//!
//! [`encode_table`] is a pure function of the header and entries (blocks are
//! compressed independently, in parallel, and assembled in order), so the
//! same build writes the same bytes. [`write_atomically`] writes a temporary
//! file, syncs it and renames it over the final name.

mod cache;
mod codec;
mod read;
mod wide;
mod write;

use std::fmt;
use std::str::FromStr;

use bincode::Options;
use serde::{Deserialize, Serialize};

pub use cache::{BlockCache, CacheStats};
pub use codec::{
    MARGIN_BIAS, decode_boxes_won, decode_margin, decode_outcome, encode_boxes_won, encode_margin,
    encode_outcome,
};
pub use read::{FileCheck, Table, TableData};
pub use wide::{WIDE_KEY_BYTES, WIDE_RECORD_BYTES, WideRecord, wide_entries};
pub use write::{
    StoredBlock, assemble_table, compress_blocks, encode_table, remove_stale_temporaries, reseal,
    sorted_entries, write_atomically, write_atomically_with,
};

/// Bytes per record of a [`IndexScheme::SortedKeys`] table.
pub const RECORD_BYTES: usize = 8;
/// Keys of a [`IndexScheme::SortedKeys`] table are below this.
pub const KEY_LIMIT: u64 = 1 << 56;

/// The first eight bytes of every table.
pub const MAGIC: [u8; 8] = *b"SOLVEDB\x1a";
/// The format version this library writes and reads.
pub const FORMAT_VERSION: u32 = 2;
/// The longest header a reader accepts, in bytes.
pub const MAX_HEADER_LEN: u32 = 4096;
/// The most entries a block may hold; keeps a corrupt header from asking for
/// a huge allocation.
pub const MAX_BLOCK_ENTRIES: u32 = 1 << 24;

const PREFIX_LEN: usize = 16;
const CHECKSUM_LEN: usize = 8;
const RECORD_LEN: usize = 24;
const RAW: u8 = 0;
const ZSTD: u8 = 1;

/// Which game and board a table or an answer is about. Stored in table
/// headers, so its variants and their order are part of the file format.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameId {
    /// 3×3 tic-tac-toe.
    TicTacToe,
    /// 3×3×3 tic-tac-toe.
    Cube,
    /// Dots-and-boxes on a board of `rows` × `cols` boxes.
    Dots {
        /// Rows of boxes.
        rows: u8,
        /// Columns of boxes.
        cols: u8,
    },
    /// 4×4 tic-tac-toe, four in a row.
    TicTacToe4x4,
    /// Qubic, 4×4×4 tic-tac-toe, four in a row.
    Qubic,
}

impl fmt::Display for GameId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameId::TicTacToe => f.write_str("tictactoe"),
            GameId::Cube => f.write_str("cube"),
            GameId::Dots { rows, cols } => write!(f, "dots:{rows}x{cols}"),
            GameId::TicTacToe4x4 => f.write_str("tictactoe:4x4"),
            GameId::Qubic => f.write_str("qubic"),
        }
    }
}

impl GameId {
    /// The file name of this game's table: the name with `-` for `:`
    /// (`tictactoe.sdb`, `tictactoe-4x4.sdb`, `cube.sdb`, `dots-3x4.sdb`,
    /// `qubic.sdb`).
    pub fn table_file_name(&self) -> String {
        format!("{}.sdb", self.to_string().replace(':', "-"))
    }
}

/// The reason a game name was not understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown game {0:?}: expected tictactoe, tictactoe:4x4, cube, qubic or dots:MxN")]
pub struct UnknownGame(pub String);

impl FromStr for GameId {
    type Err = UnknownGame;

    /// Parses `tictactoe`, `tictactoe:4x4`, `cube`, `qubic` or `dots:MxN` (the
    /// [`Display`](fmt::Display) form).
    fn from_str(s: &str) -> Result<GameId, UnknownGame> {
        let unknown = || UnknownGame(s.to_owned());
        match s {
            "tictactoe" => Ok(GameId::TicTacToe),
            "tictactoe:4x4" => Ok(GameId::TicTacToe4x4),
            "cube" => Ok(GameId::Cube),
            "qubic" => Ok(GameId::Qubic),
            _ => {
                let board = s.strip_prefix("dots:").ok_or_else(unknown)?;
                let (rows, cols) = board.split_once('x').ok_or_else(unknown)?;
                let rows = rows.parse().map_err(|_| unknown())?;
                let cols = cols.parse().map_err(|_| unknown())?;
                Ok(GameId::Dots { rows, cols })
            }
        }
    }
}

/// How positions map to table slots. Stored in table headers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum IndexScheme {
    /// One slot per board of a base-3 number (cell `i` is digit `i`: 0 empty,
    /// 1 X, 2 O); only canonical reachable positions are filled.
    Base3Canonical,
    /// Sparse: `stored` records of a 56-bit key and an entry byte, sorted by
    /// key, after a fence of each block's first key (byte layout in
    /// [`crate::format`]). The game defines the keys (the cube: canonical
    /// quiet positions, `x << 27 | o`).
    SortedKeys,
    /// One slot per set of drawn edges of a dots-and-boxes board: the slot is
    /// the edge mask itself (bit `i` for edge `i`, numbered as in
    /// [`crate::games::dots`]), `2^edges` slots; only canonical masks (the
    /// least of their symmetric images) are filled.
    EdgeMaskCanonical,
    /// Sparse with wide keys: `stored` records of a 128-bit key and two
    /// entry bytes, sorted by key, after a fence of each block's first key
    /// (byte layout in [`crate::format`]). The game defines the keys (Qubic:
    /// canonical positions, X's mask in the high 64 bits, O's in the low).
    SortedWideKeys,
}

impl fmt::Display for IndexScheme {
    /// In words, for people: `dense base-3 board, canonical positions`, ...
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            IndexScheme::Base3Canonical => "dense: one slot per base-3 board, canonical positions",
            IndexScheme::SortedKeys => "sparse: records of a key and an entry, sorted by key",
            IndexScheme::EdgeMaskCanonical => "dense: one slot per edge set, canonical positions",
            IndexScheme::SortedWideKeys => {
                "sparse: records of a 128-bit key and two entry bytes, sorted by key"
            }
        })
    }
}

impl fmt::Display for ValueEncoding {
    /// In words, for people: `win/draw/loss and plies`, `box margin`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ValueEncoding::OutcomePlies => "win/draw/loss and plies to the end",
            ValueEncoding::Margin => "net boxes won by the side to move",
            ValueEncoding::MarginResolved => {
                "boxes won by the side to move; positions with a free capture resolved by rule"
            }
            ValueEncoding::StrategyMoves => {
                "the first player's winning strategy: a move and a bound on the plies to the win"
            }
            ValueEncoding::OpeningValues => {
                "values of the moves beside a strategy: how each is settled and a bound on the plies"
            }
        })
    }
}

impl IndexScheme {
    /// Whether the table has one entry byte per slot (else: sorted records).
    pub fn is_dense(self) -> bool {
        matches!(
            self,
            IndexScheme::Base3Canonical | IndexScheme::EdgeMaskCanonical
        )
    }
}

/// How one entry byte encodes a value. Stored in table headers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ValueEncoding {
    /// `0` = no position stored; otherwise `wdl << 5 | plies`, with `wdl`
    /// 1 = loss, 2 = draw, 3 = win for the side to move and `plies < 32`.
    OutcomePlies,
    /// `0` = no position stored; otherwise `128 + margin`, the net number of
    /// unclaimed boxes the side to move wins (`-127 ..= 127`, so never 0).
    Margin,
    /// A margin, stored only for positions the game cannot resolve by one
    /// exact rule: `0` = no position stored, or a *don't-care* entry, a
    /// position the rule resolves (dots-and-boxes: one with a free capture,
    /// worth the boxes taken plus the value after them), which a probe
    /// resolves before it reads the table; otherwise `1 +` the number of
    /// the unclaimed boxes the side to move wins (`(margin + unclaimed) /
    /// 2`, [`encode_boxes_won`]). Such tables hold long runs of 0 that
    /// compress to almost nothing.
    MarginResolved,
    /// A winning strategy of the first player, with
    /// [`IndexScheme::SortedWideKeys`]: the two entry bytes of a record are
    /// the strategy's move in the stored (canonical) position, a cell
    /// `0..64`, and an upper bound on the plies to the win if the first
    /// player follows the strategy, whatever the defence (odd, at least
    /// 3). Positions the rules and a threat search settle are not stored;
    /// the game resolves them at probe time (Qubic: see
    /// `lookup/src/games/qubic/strategy.rs`), and a position the strategy
    /// never reaches is not in the table at all.
    StrategyMoves,
    /// Values of the first moves beside a strategy, with
    /// [`IndexScheme::SortedWideKeys`]: each record's key is a canonical
    /// position reached by one move from a position of the strategy, and
    /// its two entry bytes say how it is settled (not within the build's
    /// budget, by the strategy, by a proof, for the other side) and a
    /// bound on the plies to the win (Qubic's opening table: see
    /// `lookup/src/games/qubic/opening.rs`).
    OpeningValues,
}

/// What a table holds; see the [module documentation](self) for its bytes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The game and board.
    pub game: GameId,
    /// How positions map to slots.
    pub index: IndexScheme,
    /// How entry bytes encode values.
    pub values: ValueEncoding,
    /// Slots in the table.
    pub entries: u64,
    /// Slots that hold a position (the rest are 0).
    pub stored: u64,
    /// Entries per block.
    pub block_entries: u32,
    /// The program and version that wrote the table.
    pub generator: String,
}

impl Header {
    /// The number of blocks.
    pub fn blocks(&self) -> u64 {
        self.entries.div_ceil(u64::from(self.block_entries.max(1)))
    }

    /// Sorted-keys layout: records per block, record blocks, fence blocks.
    pub(crate) fn sorted_layout(&self) -> Option<(u64, u64, u64)> {
        let records_per_block = u64::from(self.block_entries) / RECORD_BYTES as u64;
        if self.block_entries as usize % RECORD_BYTES != 0 || records_per_block == 0 {
            return None;
        }
        // Checked: the header may come from a corrupt file.
        let record_blocks = self.stored.div_ceil(records_per_block);
        let fence_blocks = record_blocks
            .checked_mul(RECORD_BYTES as u64)?
            .div_ceil(u64::from(self.block_entries));
        Some((records_per_block, record_blocks, fence_blocks))
    }

    /// Entries in block `block` (the last block may be short).
    pub(crate) fn block_len(&self, block: u64) -> usize {
        let start = block * u64::from(self.block_entries);
        (self.entries - start).min(u64::from(self.block_entries)) as usize
    }
}

fn header_options() -> impl Options {
    bincode::options()
        .with_fixint_encoding()
        .with_little_endian()
        .with_limit(u64::from(MAX_HEADER_LEN))
        .reject_trailing_bytes()
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"))
}

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// One block's place and encoding, from the block index.
#[derive(Copy, Clone, Debug)]
struct BlockRecord {
    offset: u64,
    stored_len: u32,
    encoding: u8,
    checksum: u64,
}

impl BlockRecord {
    fn parse(bytes: &[u8]) -> BlockRecord {
        BlockRecord {
            offset: read_u64(bytes, 0),
            stored_len: read_u32(bytes, 8),
            encoding: bytes[12],
            checksum: read_u64(bytes, 16),
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.offset.to_le_bytes());
        out.extend_from_slice(&self.stored_len.to_le_bytes());
        out.extend_from_slice(&[self.encoding, 0, 0, 0]);
        out.extend_from_slice(&self.checksum.to_le_bytes());
    }
}

/// A table file that cannot be used: truncated, corrupted, foreign, or made
/// for another game or by a newer format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TableError {
    /// Fewer bytes than the fixed-size parts of the format need.
    #[error("table is truncated: {len} bytes, at least {needed} needed")]
    Truncated {
        /// Bytes present.
        len: u64,
        /// Bytes the format needs at this point.
        needed: u64,
    },
    /// The file does not start with the solvedb magic bytes.
    #[error("not a solvedb table (bad magic bytes)")]
    BadMagic,
    /// Written by a newer solvedb than this one.
    #[error(
        "table format version {found} is newer than the supported version {supported}: upgrade solvedb"
    )]
    NewerVersion {
        /// Version in the file.
        found: u32,
        /// Newest version this library reads.
        supported: u32,
    },
    /// An old format version this library no longer reads.
    #[error(
        "table format version {found} is not supported (this solvedb reads version {supported})"
    )]
    UnsupportedVersion {
        /// Version in the file.
        found: u32,
        /// Version this library reads.
        supported: u32,
    },
    /// A stored checksum does not match the bytes it covers.
    #[error("checksum mismatch in {part}: the table is corrupted")]
    Checksum {
        /// Which part: `header`, `block index`, `block N`, `file`.
        part: String,
    },
    /// The header checksummed correctly but does not decode or is inconsistent.
    #[error("malformed table header: {0}")]
    Header(String),
    /// The table is for another game or board.
    #[error("table is for {found}, not {expected}")]
    WrongGame {
        /// The game asked for.
        expected: GameId,
        /// The game in the file.
        found: GameId,
    },
    /// A size in the header disagrees with the game or with the file length.
    #[error("table size mismatch: {0}")]
    Size(String),
    /// A block's bytes are not valid compressed data of the expected length.
    #[error("block {block} cannot be decoded: {reason}")]
    Block {
        /// The block number.
        block: u64,
        /// What went wrong.
        reason: String,
    },
    /// The bytes could not be read (an I/O error from the file under a
    /// [`TableFile`](crate::TableFile)).
    #[error("cannot read the table at byte {offset}: {reason}")]
    Read {
        /// Where the read started.
        offset: u64,
        /// What the operating system said.
        reason: String,
    },
    /// An entry holds a byte that the value encoding does not allow, or a
    /// position the table should hold is missing.
    #[error("bad entry at slot {slot}: {reason}")]
    Entry {
        /// The slot.
        slot: u64,
        /// What is wrong with it.
        reason: String,
    },
}

/// A table of `entries` (already laid out for `index`) with a header that
/// says so, encoded at zstd level 3: for tests that build tables of record
/// layouts by hand.
#[cfg(test)]
pub(crate) fn test_table(
    game: GameId,
    index: IndexScheme,
    values: ValueEncoding,
    entries: &[u8],
    stored: usize,
    block_entries: u32,
) -> (Header, Vec<u8>) {
    let header = Header {
        game,
        index,
        values,
        entries: entries.len() as u64,
        stored: stored as u64,
        block_entries,
        generator: "test".into(),
    };
    let bytes = encode_table(&header, entries, 3);
    (header, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample_header(entries: u64, block_entries: u32) -> Header {
        Header {
            game: GameId::Dots { rows: 2, cols: 3 },
            index: IndexScheme::Base3Canonical,
            values: ValueEncoding::OutcomePlies,
            entries,
            stored: 0,
            block_entries,
            generator: "test".into(),
        }
    }

    #[test]
    fn header_bytes_are_pinned() {
        let bytes = header_options()
            .serialize(&sample_header(0x0102, 7))
            .unwrap();
        let mut expected = vec![2, 0, 0, 0, 2, 3]; // Dots { rows: 2, cols: 3 }
        expected.extend([0, 0, 0, 0]); // Base3Canonical
        expected.extend([0, 0, 0, 0]); // OutcomePlies
        expected.extend(0x0102u64.to_le_bytes());
        expected.extend(0u64.to_le_bytes());
        expected.extend(7u32.to_le_bytes());
        expected.extend(4u64.to_le_bytes());
        expected.extend(b"test");
        assert_eq!(bytes, expected);
    }

    #[test]
    fn later_variants_are_pinned() {
        let mut header = sample_header(0, 7);
        header.index = IndexScheme::SortedKeys;
        let bytes = header_options().serialize(&header).unwrap();
        assert_eq!(&bytes[6..10], &[1, 0, 0, 0]);
        header.index = IndexScheme::EdgeMaskCanonical;
        header.values = ValueEncoding::Margin;
        let bytes = header_options().serialize(&header).unwrap();
        assert_eq!(&bytes[6..14], &[2, 0, 0, 0, 1, 0, 0, 0]);
        header.values = ValueEncoding::MarginResolved;
        let bytes = header_options().serialize(&header).unwrap();
        assert_eq!(&bytes[10..14], &[2, 0, 0, 0]);
        header.index = IndexScheme::SortedWideKeys;
        header.values = ValueEncoding::StrategyMoves;
        let bytes = header_options().serialize(&header).unwrap();
        assert_eq!(&bytes[6..14], &[3, 0, 0, 0, 3, 0, 0, 0]);
        header.values = ValueEncoding::OpeningValues;
        let bytes = header_options().serialize(&header).unwrap();
        assert_eq!(&bytes[10..14], &[4, 0, 0, 0]);
        header.index = IndexScheme::EdgeMaskCanonical;
        // Games without fields are their variant index alone.
        for (game, index) in [(GameId::TicTacToe4x4, 3u8), (GameId::Qubic, 4)] {
            header.game = game;
            let bytes = header_options().serialize(&header).unwrap();
            assert_eq!(&bytes[..8], &[index, 0, 0, 0, 2, 0, 0, 0], "{game}");
        }
    }

    #[test]
    fn round_trip_with_raw_and_compressed_blocks() {
        // A compressible run, then bytes zstd cannot shrink.
        let mut entries = vec![7u8; 1000];
        let mut state = 1u32;
        entries.extend((0..1000).map(|_| {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (state >> 16) as u8
        }));
        let mut header = sample_header(entries.len() as u64, 300);
        header.stored = entries.iter().filter(|&&e| e != 0).count() as u64;
        let bytes = encode_table(&header, &entries, 19);
        assert_eq!(bytes, encode_table(&header, &entries, 19));
        let table = Table::new(bytes).unwrap();
        table.verify().unwrap();
        assert_eq!(table.header(), &header);
        for (slot, &e) in entries.iter().enumerate() {
            assert_eq!(table.entry(slot as u64).unwrap(), e);
        }
        assert!(table.entry(entries.len() as u64).is_err());
        let encodings: Vec<u8> = (0..header.blocks())
            .map(|b| table.record(b).encoding)
            .collect();
        assert!(
            encodings.contains(&RAW) && encodings.contains(&ZSTD),
            "{encodings:?}"
        );
    }

    fn sorted_table(records: &[(u64, u8)], block_entries: u32) -> (Header, Vec<u8>) {
        test_table(
            GameId::Cube,
            IndexScheme::SortedKeys,
            ValueEncoding::OutcomePlies,
            &sorted_entries(records, block_entries),
            records.len(),
            block_entries,
        )
    }

    #[test]
    fn sorted_keys_find_every_record_and_nothing_else() {
        // 1000 records, 4 per block: 250 record blocks behind a fence of
        // 250 keys (63 blocks of 32 bytes, the last one padded).
        let records: Vec<(u64, u8)> = (0..1000u64)
            .map(|i| (i * 7 + 3, (i % 200 + 1) as u8))
            .collect();
        let (header, bytes) = sorted_table(&records, 32);
        let table = Table::new(bytes).unwrap();
        table.verify().unwrap();
        assert_eq!(table.header(), &header);
        for (i, &(key, entry)) in records.iter().enumerate() {
            assert_eq!(table.sorted_entry(key).unwrap(), Some(entry));
            assert_eq!(table.sorted_record(i as u64).unwrap(), (key, entry));
            assert_eq!(table.sorted_entry(key + 1).unwrap(), None);
        }
        assert_eq!(table.sorted_entry(0).unwrap(), None);
        assert_eq!(table.sorted_entry(KEY_LIMIT - 1).unwrap(), None);
        assert!(table.sorted_record(1000).is_err());
        assert!(table.entry(0).is_ok());
        // An empty table answers "absent".
        let (_, bytes) = sorted_table(&[], 32);
        let empty = Table::new(bytes).unwrap();
        empty.verify().unwrap();
        assert_eq!(empty.sorted_entry(5).unwrap(), None);
    }

    #[test]
    fn sorted_keys_out_of_order_or_mislabelled_fail_verify() {
        let records: Vec<(u64, u8)> = (0..64u64).map(|i| (i * 2, 1)).collect();
        let (mut header, _) = sorted_table(&records, 32);
        let mut entries = sorted_entries(&records, 32);
        // Swap two records inside a block: keys no longer ascend.
        let first = entries.len() - 64 * 8;
        let (a, b) = (first + 8, first + 16);
        for i in 0..8 {
            entries.swap(a + i, b + i);
        }
        header.entries = entries.len() as u64;
        let table = Table::new(encode_table(&header, &entries, 3)).unwrap();
        assert!(matches!(table.verify(), Err(TableError::Block { .. })));
        // A header whose sizes do not fit the layout is refused at open,
        // also when they overflow.
        for stored in [header.stored + 1, u64::MAX / 3, u64::MAX] {
            header.stored = stored;
            assert!(matches!(
                Table::new(encode_table(&header, &entries, 3)),
                Err(TableError::Header(_))
            ));
        }
    }
}
