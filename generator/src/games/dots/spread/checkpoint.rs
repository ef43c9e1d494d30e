//! A spread search's checkpoint: the bounds its finished jobs proved on
//! the leaves, in a directory, so a search that is stopped (killed, its
//! machines taken) starts again from them with the same answer. Every
//! bound is a proved fact about a position, whatever the ranks or the
//! split that proved it, so a rerun may use any of them.
//!
//! The file `facts` is text: a line naming the format, a line with the
//! root, one with the plies split (a rerun splits alike, so the facts are
//! about its leaves), then one leaf a line (`MxN:edges lower upper`). It is replaced
//! whole and atomically (a temporary file, synced, renamed over it), so a
//! search killed while writing leaves the previous one.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail, ensure};
use solvedb_lookup::{Dots, Edges, Game};

use super::split::Bounds;

const FORMAT_LINE: &str = "solvedb spread search checkpoint 1";

/// What a checkpoint holds: the plies split, and the leaves' bounds.
#[derive(Debug, PartialEq, Eq)]
pub struct Saved {
    /// The plies split.
    pub depth: u32,
    /// Leaves (least images) and their bounds.
    pub facts: Vec<(u64, Bounds)>,
}

/// A checkpoint directory for one root position.
#[derive(Debug)]
pub struct Checkpoint {
    board: Dots,
    dir: PathBuf,
    root_line: String,
}

impl Checkpoint {
    /// The checkpoint of `root` (as its least image) in `dir`, made if
    /// missing, with the plies it split and the facts it holds, if any.
    ///
    /// # Errors
    ///
    /// A directory that cannot be made or read, a file of another root, or
    /// a line that is no fact.
    pub fn open(board: Dots, root: u64, dir: &Path) -> Result<(Checkpoint, Option<Saved>)> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("making the checkpoint directory {}", dir.display()))?;
        let checkpoint = Checkpoint {
            board,
            dir: dir.to_path_buf(),
            root_line: format!("root {}", board.notation(Edges(root))),
        };
        let path = checkpoint.path();
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((checkpoint, None)),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        let saved = checkpoint
            .parse(&text)
            .with_context(|| format!("the checkpoint {}", path.display()))?;
        Ok((checkpoint, Some(saved)))
    }

    fn path(&self) -> PathBuf {
        self.dir.join("facts")
    }

    fn parse(&self, text: &str) -> Result<Saved> {
        let mut lines = text.lines();
        ensure!(
            lines.next() == Some(FORMAT_LINE),
            "not a checkpoint of this format"
        );
        let root = lines.next().unwrap_or_default();
        if root != self.root_line {
            bail!("it holds another search ({root}), not {}", self.root_line);
        }
        let depth = lines
            .next()
            .and_then(|l| l.strip_prefix("depth "))
            .and_then(|d| d.parse().ok())
            .context("line 3: want `depth D`")?;
        let mut facts = Vec::new();
        for (n, line) in lines.enumerate() {
            let fact = (|| -> Result<(u64, Bounds)> {
                let mut words = line.split_whitespace();
                let (Some(position), Some(lower), Some(upper), None) =
                    (words.next(), words.next(), words.next(), words.next())
                else {
                    bail!("want `position lower upper`");
                };
                let mask = self.board.parse(position)?.0;
                let (lower, upper): (i32, i32) = (lower.parse()?, upper.parse()?);
                let boxes = self.board.remaining_boxes(mask) as i32;
                ensure!(
                    -boxes <= lower && lower <= upper && upper <= boxes,
                    "bounds {lower}..{upper} on {boxes} boxes left"
                );
                Ok((mask, (lower, upper)))
            })()
            .with_context(|| format!("line {}", n + 4))?;
            facts.push(fact);
        }
        Ok(Saved { depth, facts })
    }

    /// Replaces the checkpoint's facts with `facts`, atomically.
    ///
    /// # Errors
    ///
    /// If the file cannot be written.
    pub fn write(&self, depth: u32, facts: &[(u64, Bounds)]) -> Result<()> {
        let mut text = format!("{FORMAT_LINE}\n{}\ndepth {depth}\n", self.root_line);
        for &(mask, (lower, upper)) in facts {
            text.push_str(&format!(
                "{} {lower} {upper}\n",
                self.board.notation(Edges(mask))
            ));
        }
        let path = self.path();
        let temporary = self.dir.join("facts.partial");
        let mut file =
            File::create(&temporary).with_context(|| format!("writing {}", temporary.display()))?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&temporary, &path)
            .with_context(|| format!("renaming over {}", path.display()))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_come_back_and_another_root_is_refused() {
        let board = Dots::new(3, 3).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (checkpoint, saved) = Checkpoint::open(board, 0, dir.path()).unwrap();
        assert!(saved.is_none());
        let written = vec![(0b1011, (-3, 1)), (1 << 20 | 1, (-1, -1))];
        checkpoint.write(2, &written).unwrap();
        let (_, read) = Checkpoint::open(board, 0, dir.path()).unwrap();
        let expected = Saved {
            depth: 2,
            facts: written,
        };
        assert_eq!(read, Some(expected));
        let other = Checkpoint::open(board, 1, dir.path()).unwrap_err();
        assert!(format!("{other:#}").contains("another search"), "{other:#}");
        std::fs::write(dir.path().join("facts"), format!("{FORMAT_LINE}\nroot 3x3:000000000000000000000000\ndepth 1\n3x3:100000000000000000000000 5 -5\n")).unwrap();
        let bad = Checkpoint::open(board, 0, dir.path()).unwrap_err();
        assert!(format!("{bad:#}").contains("line 4"), "{bad:#}");
    }
}
