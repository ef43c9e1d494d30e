//! A prover's state as bytes ([`Prover::save_state`],
//! [`Prover::load_state`], with [`StateError`]): its proof table and its
//! counters, so that a proof of many hours (the research runs on the other
//! first move: `qubic_prove --checkpoint`) goes on after its process ends.
//!
//! df-pn keeps what it has learned in its table alone (Nagai 2002): a
//! search started again at the root over the table it left reads the same
//! numbers and goes on where they lead. What a stop loses is the path being
//! searched: a node writes its entry as it returns, so the nodes on the
//! path keep their numbers from their last return and are taken up again
//! from their children's. A resumed proof is a proof like any other (every
//! entry is a fact about its position within the search's limits), but it
//! need not visit the nodes an unbroken run would: the figures of a resumed
//! run are its own. The pass-line cache is not kept (it changes the time
//! only).
//!
//! The bytes, all little-endian 64-bit words: `MAGIC`, `FORMAT`, the
//! search the state belongs to (the prover's [`REVISION`], the attacker,
//! the root, every setting of [`ProverLimits`] but the node and time
//! budgets, the table's bucket count), the counters, the entries in use,
//! the table's words bucket by bucket, and last the XXH3-64 of every byte
//! before it.

use std::io::{self, Read, Write};

use xxhash_rust::xxh3::Xxh3;

use crate::games::qubic::board::QubicBoard;

use super::super::Attacker;
use super::super::limits::{ProverLimits, REVISION};
use super::super::stats::ProverStats;
use super::Prover;

/// The first word of a saved state: `SDBQPST` and a zero byte.
const MAGIC: u64 = u64::from_le_bytes(*b"SDBQPST\0");

/// The version of the layout described above.
const FORMAT: u64 = 1;

/// Words converted to bytes at a time.
const CHUNK_WORDS: usize = 1 << 16;

/// Why a saved state was not taken.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StateError {
    /// The bytes could not be read or written.
    #[error("cannot read or write the prover's state: {0}")]
    Io(#[from] io::Error),
    /// The bytes end before the state does.
    #[error("the prover's state is cut short")]
    CutShort,
    /// The bytes are not a saved state of this format.
    #[error("not a saved Qubic prover state of format {FORMAT}")]
    NotAState,
    /// A state of another search: another root, attacker, prover revision
    /// or setting.
    #[error("the state belongs to another search: its {what} is {saved}, this search's {ours}")]
    OtherSearch {
        /// What differs.
        what: &'static str,
        /// The state's value.
        saved: u64,
        /// This search's value.
        ours: u64,
    },
    /// The checksum does not match the bytes.
    #[error("the prover's state is damaged: its checksum does not match")]
    Damaged,
}

/// The words that name the search a state belongs to, each with its name.
fn search_key(
    attacker: Attacker,
    limits: &ProverLimits,
    root: QubicBoard,
    buckets: u64,
) -> [(&'static str, u64); 15] {
    [
        ("prover revision", u64::from(REVISION)),
        ("attacker (0 X, 1 O)", u64::from(attacker == Attacker::O)),
        ("root's X stones", root.x()),
        ("root's O stones", root.o()),
        ("proof table's bucket count", buckets),
        ("threat budget", limits.threat_budget),
        ("estimate", u64::from(limits.estimate)),
        ("width", limits.width as u64),
        ("widening proof number", u64::from(limits.widen_pn)),
        ("narrowing from", u64::from(limits.narrow_from)),
        ("stone limit", u64::from(limits.max_stones)),
        ("pass cache", limits.pass_cache as u64),
        ("weak proof numbers", u64::from(limits.weak)),
        ("replacement by work", u64::from(limits.replace_by_work)),
        ("epsilon", u64::from(limits.epsilon_percent)),
    ]
}

/// The counters a state keeps, in order.
struct Counters {
    nodes: u64,
    stats: ProverStats,
    threat_failed_nodes: u64,
    threat_exhausted: u64,
    used: u64,
}

impl Counters {
    fn words(&self) -> [u64; 13] {
        let s = &self.stats;
        [
            self.nodes,
            s.mid_calls,
            s.expansions,
            s.threat_searches,
            s.threat_wins,
            s.threat_nodes,
            s.hinted_wins,
            s.zone_wins,
            s.pass_cache_hits,
            s.widenings,
            self.threat_failed_nodes,
            self.threat_exhausted,
            self.used,
        ]
    }

    fn from_words(w: [u64; 13]) -> Counters {
        Counters {
            nodes: w[0],
            stats: ProverStats {
                mid_calls: w[1],
                expansions: w[2],
                threat_searches: w[3],
                threat_wins: w[4],
                threat_nodes: w[5],
                hinted_wins: w[6],
                zone_wins: w[7],
                pass_cache_hits: w[8],
                widenings: w[9],
            },
            threat_failed_nodes: w[10],
            threat_exhausted: w[11],
            used: w[12],
        }
    }
}

/// Words out, hashed as they go.
struct WordWriter<W: Write> {
    out: W,
    hash: Xxh3,
    bytes: Vec<u8>,
}

impl<W: Write> WordWriter<W> {
    fn words(&mut self, words: &[u64]) -> io::Result<()> {
        for chunk in words.chunks(CHUNK_WORDS) {
            self.bytes.clear();
            self.bytes
                .extend(chunk.iter().flat_map(|w| w.to_le_bytes()));
            self.hash.update(&self.bytes);
            self.out.write_all(&self.bytes)?;
        }
        Ok(())
    }
}

/// Words in, hashed as they come.
struct WordReader<R: Read> {
    input: R,
    hash: Xxh3,
    bytes: Vec<u8>,
}

impl<R: Read> WordReader<R> {
    fn words(&mut self, words: &mut [u64]) -> Result<(), StateError> {
        for chunk in words.chunks_mut(CHUNK_WORDS) {
            self.bytes.resize(chunk.len() * 8, 0);
            self.input.read_exact(&mut self.bytes).map_err(cut_short)?;
            self.hash.update(&self.bytes);
            for (word, bytes) in chunk.iter_mut().zip(self.bytes.chunks_exact(8)) {
                *word = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
            }
        }
        Ok(())
    }

    fn word(&mut self) -> Result<u64, StateError> {
        let mut word = [0];
        self.words(&mut word)?;
        Ok(word[0])
    }
}

fn cut_short(e: io::Error) -> StateError {
    if e.kind() == io::ErrorKind::UnexpectedEof {
        StateError::CutShort
    } else {
        StateError::Io(e)
    }
}

impl Prover<'_> {
    fn key(&self, root: QubicBoard) -> [(&'static str, u64); 15] {
        search_key(
            self.attacker,
            &self.limits,
            root,
            self.table.bucket_words().len() as u64,
        )
    }

    /// Writes the prover's state, its search a proof of `root` (the board
    /// given to [`prove`](Prover::prove)), to `out`: the proof table and
    /// the counters, as [`load_state`](Prover::load_state) reads them.
    ///
    /// # Errors
    ///
    /// When `out` fails.
    pub fn save_state(&self, root: QubicBoard, out: impl Write) -> io::Result<()> {
        let mut out = WordWriter {
            out,
            hash: Xxh3::new(),
            bytes: Vec::with_capacity(CHUNK_WORDS * 8),
        };
        out.words(&[MAGIC, FORMAT])?;
        out.words(&self.key(root).map(|(_, word)| word))?;
        let counters = Counters {
            nodes: self.nodes,
            stats: self.stats(),
            threat_failed_nodes: self.threats.failed_nodes,
            threat_exhausted: self.threats.exhausted,
            used: self.table.used as u64,
        };
        out.words(&counters.words())?;
        out.words(self.table.bucket_words())?;
        let checksum = out.hash.digest();
        out.out.write_all(&checksum.to_le_bytes())?;
        out.out.flush()?;
        Ok(())
    }

    /// Takes the state [`save_state`](Prover::save_state) wrote for a proof
    /// of `root` by a prover of the same attacker and settings (its node and
    /// time budgets aside): its proof table and its counters. The next
    /// [`prove`](Prover::prove) of `root` goes on from there.
    ///
    /// # Errors
    ///
    /// [`StateError`]: bytes that are not a state, a state of another
    /// search (the setting that differs named), cut short or damaged. A
    /// refused state leaves the prover's counts as they were, and its
    /// table too unless the refusal came while or after the table was
    /// read, which empties it (a new prover stays new either way).
    pub fn load_state(&mut self, root: QubicBoard, input: impl Read) -> Result<(), StateError> {
        let mut input = WordReader {
            input,
            hash: Xxh3::new(),
            bytes: Vec::with_capacity(CHUNK_WORDS * 8),
        };
        if input.word()? != MAGIC || input.word()? != FORMAT {
            return Err(StateError::NotAState);
        }
        for (what, ours) in self.key(root) {
            let saved = input.word()?;
            if saved != ours {
                return Err(StateError::OtherSearch { what, saved, ours });
            }
        }
        let mut words = [0; 13];
        input.words(&mut words)?;
        let counters = Counters::from_words(words);
        let capacity = self.table.capacity() as u64;
        if counters.used > capacity {
            return Err(StateError::Damaged);
        }
        let table = input
            .words(self.table.bucket_words_mut(counters.used as usize))
            .and_then(|()| {
                let digest = input.hash.digest();
                let mut checksum = [0; 8];
                input.input.read_exact(&mut checksum).map_err(cut_short)?;
                if u64::from_le_bytes(checksum) == digest {
                    Ok(())
                } else {
                    Err(StateError::Damaged)
                }
            });
        if let Err(e) = table {
            self.table.clear();
            return Err(e);
        }
        self.nodes = counters.nodes;
        self.stats = counters.stats;
        self.threats.set_total_nodes(counters.stats.threat_nodes);
        self.threats.failed_nodes = counters.threat_failed_nodes;
        self.threats.exhausted = counters.threat_exhausted;
        // The nodes before are not this prover's stop's to pay for.
        self.charged = self.nodes();
        Ok(())
    }
}
