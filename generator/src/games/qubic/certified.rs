//! Roots proved beforehand: strategies for positions after X's other
//! first move that a research run proved, beyond the build's time, kept in
//! the repository as the proved task's file and taken by `solvedb build
//! qubic` without proving them again.
//!
//! A proof within 18 stones is minutes to hours of one core, and the
//! disproofs within smaller limits the build's schedule would try first
//! are an hour more: more than the build's 30 minutes allow. So such a
//! root is proved once, by `qubic_first_move 1 --survey --replies C
//! --stones-ahead 16 --out DIR` (the build's task pipeline: the prover,
//! then the strategy read off its proof), and its task file
//! (`DIR/qubic-tasks/task-X-O.json`, the [`parts`](super::parts) format,
//! checksummed) is compressed into `generator/certificates/`
//! (`zstd -19`). The build reads it from the binary, checks that it names
//! the root it is listed for, merges its moves after the proved roots'
//! and walks it with the rest ([`prove_with_roots`]): the walk answers
//! every defence from the root with the file's moves and the rules, so a
//! file that does not win fails the build, whatever it claims; `solvedb
//! verify` walks the table again with rules of its own.
//!
//! The files are inputs, so the table's bytes stay a function of the
//! repository. Each is our own prover's proof (no published strategy).
//!
//! [`prove_with_roots`]: super::other_first_move::prove_with_roots

use anyhow::{Context, Result, bail};
use solvedb_lookup::{Game, Qubic, QubicCell};

use super::parts::{Settings, TaskMoves, TaskReport, read_proved};

/// A root proved beforehand.
#[derive(Clone, Debug)]
pub struct Certificate {
    /// The cell of X's first move.
    pub first: u8,
    /// The cell of O's reply (with `first`, the root, up to symmetry).
    pub cell: u8,
    /// The strategy: canonical key → move, at the positions the rules do
    /// not settle.
    pub moves: TaskMoves,
    /// The proof's figures (its position the root's canonical board).
    pub report: TaskReport,
    /// What it was proved with.
    pub settings: Settings,
}

/// The certificates the build takes: X's first move, O's reply and the
/// compressed task file.
///
/// - X on 1, O on 26: proved within 18 stones, 3,791,706,504 nodes,
///   780.5 s of one core; 37,907 moves; walked against every defence, X
///   wins within 53 plies (docs/qubic.md, "The other first move").
const FILES: [(u8, u8, &[u8]); 1] = [(
    1,
    26,
    include_bytes!("../../../certificates/qubic-x1-o26.json.zst"),
)];

/// The most bytes a certificate's file may decompress to.
const MAX_FILE_BYTES: usize = 64 << 20;

/// The build's certificates, in the order listed.
///
/// # Errors
///
/// If a file does not read as [`read_certificate`] says (a bug of the
/// repository, which a test catches).
pub fn certificates() -> Result<Vec<Certificate>> {
    FILES
        .iter()
        .map(|&(first, cell, bytes)| {
            read_certificate(first, cell, bytes)
                .with_context(|| format!("the certificate of X on {first} and O on {cell}"))
        })
        .collect()
}

/// The certificate of X on `first` and O on `cell` from its
/// zstd-compressed task file.
///
/// # Errors
///
/// If the cells are no root, the bytes do not decompress, the file is not
/// a proved task's ([`read_proved`]), or it names a position other than
/// the root's canonical board.
pub fn read_certificate(first: u8, cell: u8, compressed: &[u8]) -> Result<Certificate> {
    let x = QubicCell::new(first).with_context(|| format!("no cell {first}"))?;
    let o = QubicCell::new(cell).with_context(|| format!("no cell {cell}"))?;
    if cell == first {
        bail!("O cannot reply on X's cell {cell}");
    }
    let root = Qubic.canonical(Qubic.start().with_move(x).with_move(o));
    let text = zstd::bulk::decompress(compressed, MAX_FILE_BYTES).context("not zstd")?;
    let text = std::str::from_utf8(&text).context("not UTF-8")?;
    let (moves, report, settings) = read_proved(text)?;
    if report.position != root {
        bail!(
            "it proves {}, not X on {first} and O on {cell} ({})",
            Qubic.notation(report.position),
            Qubic.notation(root)
        );
    }
    Ok(Certificate {
        first,
        cell,
        moves,
        report,
        settings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_certificates_read_and_name_their_roots() {
        let certificates = certificates().expect("the committed certificates read");
        assert_eq!(certificates.len(), FILES.len());
        for c in &certificates {
            assert_eq!(c.moves.len(), c.report.moves);
            assert!(!c.moves.is_empty(), "O on {}", c.cell);
            assert!(c.report.stone_limit.is_some(), "O on {}", c.cell);
        }
    }

    #[test]
    fn a_certificate_for_another_root_or_damaged_is_refused_with_its_reason() {
        let (first, cell, bytes) = FILES[0];
        assert_eq!((first, cell), (1, 26));
        let refusal = |cell: u8, bytes: &[u8]| {
            format!(
                "{:#}",
                read_certificate(first, cell, bytes).expect_err("refused")
            )
        };
        // O on 0 is no image of O on 26 after X on 1 (it is one of the
        // replies not yet proved).
        assert!(refusal(0, bytes).contains("not X on 1 and O on 0"));
        assert!(refusal(first, bytes).contains("cannot reply"));
        assert!(refusal(64, bytes).contains("no cell 64"));
        assert!(refusal(cell, &bytes[..bytes.len() / 2]).contains("not zstd"));
        // One figure changed: the checksum no longer holds.
        let text = zstd::bulk::decompress(bytes, MAX_FILE_BYTES).expect("zstd");
        let mut part: serde_json::Value = serde_json::from_slice(&text).expect("JSON");
        let nodes = part["report"]["nodes"].as_u64().expect("nodes");
        part["report"]["nodes"] = (nodes + 1).into();
        let changed =
            zstd::bulk::compress(&serde_json::to_vec(&part).expect("JSON"), 1).expect("zstd");
        assert!(
            refusal(cell, &changed).contains("checksum does not hold"),
            "{}",
            refusal(cell, &changed)
        );
    }
}
