//! Proved tasks kept on disk while `solvedb build qubic` runs, so that a
//! build that stops (a crash, a reboot, Ctrl-C after two hours) resumes
//! where it stopped: each task's strategy is written, atomically, into
//! `OUT/qubic-tasks/` as soon as it is proved, and a build into the same
//! directory takes the tasks it finds there instead of proving them again.
//! The files go once the whole proof is done.
//!
//! A task's result is a pure function of its position and the proof's
//! settings ([`Settings`]), so a file is taken only if its settings are the
//! build's; its checksum must hold and every move must be an empty cell of
//! its position, else it is set aside with a reason and the task is proved
//! again. Whatever a file says, the build's final walk through the merged
//! strategy checks that it answers every defence and wins, and `solvedb
//! verify` walks the table with rules of its own.
//!
//! The format, one JSON object per file (`task-X-O.json`, the canonical
//! position's masks in hex): `format` (1), `settings`, `position` (the
//! notation), `report` (the task's figures), `moves` (`[key, cell]` pairs:
//! the canonical position's masks as 32 hex digits, X's above O's, and the
//! cell the strategy plays there) and `checksum`, the XXH3-64 of the
//! object's JSON without it, in hex.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use solvedb_lookup::format::write_atomically;
use solvedb_lookup::games::qubic::strategy::board_of_key;
use solvedb_lookup::{Game, Qubic, QubicBoard};

use super::prover::ProverStats;

/// A task's strategy: the prover's move at each position it needed one
/// (canonical key, move on the canonical board).
pub type TaskMoves = HashMap<u128, u8>;

/// One task's figures.
#[derive(Clone, Debug)]
pub struct TaskReport {
    /// The task's position (canonical, X to move).
    pub position: QubicBoard,
    /// What the prover that proved it counted.
    pub stats: ProverStats,
    /// Nodes (proof and threat search) of every attempt, those within
    /// smaller stone limits too.
    pub nodes: u64,
    /// Time to prove it and to extract its strategy.
    pub prove: Duration,
    /// Time to extract its strategy.
    pub extract: Duration,
    /// Positions of its strategy that took the prover's move.
    pub moves: usize,
    /// The stone limit ([`ProverLimits::max_stones`]) within which it was
    /// proved, `None` for none.
    ///
    /// [`ProverLimits::max_stones`]: crate::games::qubic::prover::ProverLimits::max_stones
    pub stone_limit: Option<u32>,
}

/// The directory under the build's output directory.
pub const DIR: &str = "qubic-tasks";

/// The version of the files' format.
const FORMAT: u32 = 1;

/// Everything a task's result depends on besides its position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    /// The prover's revision
    /// ([`REVISION`](crate::games::qubic::prover::REVISION)): its
    /// code decides which nodes a proof visits. A file without the field
    /// is of the first.
    #[serde(default = "first_revision")]
    pub prover: u32,
    /// Bytes of the task's proof table.
    pub table_bytes: u64,
    /// The task's node budget, if any.
    pub nodes: Option<u64>,
    /// The prover's width, narrowing, threat budget, replacement and pass
    /// cache ([`crate::games::qubic::prover::ProverLimits`]).
    pub width: usize,
    pub narrow_from: u32,
    pub threat_budget: u64,
    pub replace_by_work: bool,
    pub pass_cache: usize,
    /// The stone limits tried in turn, as stones beyond the task's
    /// position, before a proof without one ([`ProverLimits::max_stones`]);
    /// a file without the field tried none.
    ///
    /// [`ProverLimits::max_stones`]: crate::games::qubic::prover::ProverLimits::max_stones
    #[serde(default)]
    pub stone_limits: Vec<u32>,
}

fn first_revision() -> u32 {
    1
}

/// A task's figures as a file keeps them.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Report {
    nodes: u64,
    prove_millis: u64,
    extract_millis: u64,
    stats: ProverStats,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    stone_limit: Option<u32>,
}

#[derive(Serialize, Deserialize)]
struct Part {
    format: u32,
    settings: Settings,
    position: String,
    /// `None` for a task that was not proved (disproved, or out of its
    /// budget): with the same settings it would fail again.
    report: Option<Report>,
    moves: Vec<(String, u8)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    checksum: Option<String>,
}

/// What a file says of its task.
#[derive(Clone, Debug)]
pub enum Kept {
    /// Proved: its strategy and figures.
    Proved(TaskMoves, TaskReport),
    /// Not proved with these settings.
    NotProved,
}

/// The proved tasks of one build directory.
#[derive(Clone, Debug)]
pub struct TaskStore {
    dir: PathBuf,
    settings: Settings,
}

impl TaskStore {
    /// The store in `out`'s [`DIR`] for tasks proved with `settings`.
    pub fn new(out: &Path, settings: Settings) -> TaskStore {
        TaskStore {
            dir: out.join(DIR),
            settings,
        }
    }

    /// Where the tasks are kept.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, position: QubicBoard) -> PathBuf {
        self.dir.join(format!(
            "task-{:016x}-{:016x}.json",
            position.x(),
            position.o()
        ))
    }

    /// What the task's file says, if there is one; `Err` with the reason a
    /// file there is not taken.
    pub fn load(&self, position: QubicBoard) -> Result<Option<Kept>> {
        let path = self.path(position);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        self.parse(position, &text)
            .with_context(|| format!("{} is not taken", path.display()))
            .map(Some)
    }

    fn parse(&self, position: QubicBoard, text: &str) -> Result<Kept> {
        let (part, moves) = read_part(text)?;
        if part.settings != self.settings {
            bail!("proved with other settings: {:?}", part.settings);
        }
        if part.position != Qubic.notation(position) {
            bail!("it names another position: {}", part.position);
        }
        let Some(r) = &part.report else {
            return Ok(Kept::NotProved);
        };
        let report = task_report(r, position, &moves);
        Ok(Kept::Proved(moves, report))
    }

    /// Writes the file of a task that was not proved, atomically.
    pub fn save_not_proved(&self, position: QubicBoard) -> Result<()> {
        self.write(position, None, Vec::new())
    }

    /// Writes a proved task's file, atomically.
    pub fn save(&self, moves: &TaskMoves, report: &TaskReport) -> Result<()> {
        let mut sorted: Vec<(u128, u8)> = moves.iter().map(|(&k, &m)| (k, m)).collect();
        sorted.sort_unstable();
        let figures = Report {
            nodes: report.nodes,
            prove_millis: report.prove.as_millis() as u64,
            extract_millis: report.extract.as_millis() as u64,
            stats: report.stats,
            stone_limit: report.stone_limit,
        };
        let moves = sorted
            .into_iter()
            .map(|(k, m)| (format!("{k:032x}"), m))
            .collect();
        self.write(report.position, Some(figures), moves)
    }

    fn write(
        &self,
        position: QubicBoard,
        report: Option<Report>,
        moves: Vec<(String, u8)>,
    ) -> Result<()> {
        let mut part = Part {
            format: FORMAT,
            settings: self.settings.clone(),
            position: Qubic.notation(position),
            report,
            moves,
            checksum: None,
        };
        part.checksum = Some(checksum(&part)?);
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("creating {}", self.dir.display()))?;
        let path = self.path(position);
        write_atomically(&path, serde_json::to_string(&part)?.as_bytes())
            .with_context(|| format!("writing {}", path.display()))
    }

    /// Removes the directory and every task in it (once the proof is
    /// done).
    pub fn remove(&self) -> Result<()> {
        match std::fs::remove_dir_all(&self.dir) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(e).with_context(|| format!("removing {}", self.dir.display()))
            }
            _ => Ok(()),
        }
    }
}

/// A proved task's file taken whatever the settings it was proved with
/// (a certificate: [`certified`](super::certified)): its position, its
/// strategy, its figures and those settings.
///
/// # Errors
///
/// As a kept task's file is refused (not a task file, another format, a
/// checksum that does not hold, a move that is no empty cell), or if the
/// file names no position or a task that was not proved.
pub fn read_proved(text: &str) -> Result<(TaskMoves, TaskReport, Settings)> {
    let (part, moves) = read_part(text)?;
    let position = Qubic
        .parse(&part.position)
        .with_context(|| format!("a position that does not read: {:?}", part.position))?;
    let Some(r) = &part.report else {
        bail!("a task that was not proved");
    };
    let report = task_report(r, position, &moves);
    Ok((moves, report, part.settings))
}

/// A task file's part and its moves, the format, checksum and moves
/// checked (not whose build it is for).
fn read_part(text: &str) -> Result<(Part, TaskMoves)> {
    let mut part: Part = serde_json::from_str(text).context("not a task file")?;
    if part.format != FORMAT {
        bail!("format {} (this build writes {FORMAT})", part.format);
    }
    let checksum = part.checksum.take().context("no checksum")?;
    if checksum != self::checksum(&part)? {
        bail!("its checksum does not hold");
    }
    let mut moves = TaskMoves::with_capacity(part.moves.len());
    for (key, cell) in &part.moves {
        let key = u128::from_str_radix(key, 16)
            .ok()
            .filter(|_| key.len() == 32)
            .with_context(|| format!("a key that is not 32 hex digits: {key:?}"))?;
        let board = board_of_key(key);
        if *cell >= 64 || board.x() & board.o() != 0 || board.empty() >> cell & 1 == 0 {
            bail!("a move that is no empty cell: {cell} in {key:032x}");
        }
        moves.insert(key, *cell);
    }
    if part.report.is_none() && !moves.is_empty() {
        bail!("a task not proved with moves");
    }
    Ok((part, moves))
}

/// A task's figures from its file's.
fn task_report(r: &Report, position: QubicBoard, moves: &TaskMoves) -> TaskReport {
    TaskReport {
        position,
        stats: r.stats,
        nodes: r.nodes,
        prove: Duration::from_millis(r.prove_millis),
        extract: Duration::from_millis(r.extract_millis),
        moves: moves.len(),
        stone_limit: r.stone_limit,
    }
}

/// The XXH3-64 of a part's JSON without its checksum.
fn checksum(part: &Part) -> Result<String> {
    debug_assert!(part.checksum.is_none());
    let json = serde_json::to_string(part)?;
    Ok(format!(
        "{:016x}",
        xxhash_rust::xxh3::xxh3_64(json.as_bytes())
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings {
            prover: crate::games::qubic::prover::REVISION,
            table_bytes: 1 << 20,
            nodes: Some(1000),
            width: 4,
            narrow_from: 6,
            threat_budget: 2000,
            replace_by_work: true,
            pass_cache: 256,
            stone_limits: vec![10, 12],
        }
    }

    /// X on 0 and 1, O on 16 and 17: a board with X to move.
    fn position() -> QubicBoard {
        board_of_key(0b11 << 64 | 0b11 << 16)
    }

    fn saved(dir: &Path) -> (TaskStore, TaskMoves, PathBuf) {
        let store = TaskStore::new(dir, settings());
        let board = position();
        let mut moves = TaskMoves::new();
        moves.insert(strategy::key(board), 2);
        let report = TaskReport {
            position: board,
            stats: ProverStats::default(),
            nodes: 7,
            prove: Duration::from_millis(12),
            extract: Duration::from_millis(3),
            moves: 1,
            stone_limit: Some(12),
        };
        store.save(&moves, &report).expect("saved");
        let path = store.path(board);
        (store, moves, path)
    }

    /// Rewrites a file's part with `change`, its checksum made to hold.
    fn forge(path: &Path, change: impl FnOnce(&mut Part)) {
        let mut part: Part =
            serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("a part");
        part.checksum = None;
        change(&mut part);
        part.checksum = Some(checksum(&part).expect("a checksum"));
        std::fs::write(path, serde_json::to_string(&part).expect("json")).expect("written");
    }

    fn refusal(store: &TaskStore) -> String {
        format!("{:#}", store.load(position()).expect_err("refused"))
    }

    use solvedb_lookup::games::qubic::strategy;

    #[test]
    fn a_saved_task_loads_as_it_was_and_a_damaged_one_is_refused_with_its_reason() {
        let dir = tempfile::tempdir().expect("a directory");
        let (store, moves, path) = saved(dir.path());
        let Some(Kept::Proved(loaded, report)) = store.load(position()).expect("read") else {
            panic!("not kept as proved");
        };
        assert_eq!(loaded, moves);
        assert_eq!((report.nodes, report.moves), (7, 1));
        assert_eq!(report.prove, Duration::from_millis(12));
        assert_eq!(report.stone_limit, Some(12));
        assert!(
            store
                .load(board_of_key(1 << 64 | 2))
                .expect("read")
                .is_none()
        );

        // A flipped digit: the checksum.
        let text = std::fs::read_to_string(&path).expect("read");
        std::fs::write(&path, text.replace("\"nodes\":7", "\"nodes\":8")).expect("written");
        assert!(
            refusal(&store).contains("checksum does not hold"),
            "{}",
            refusal(&store)
        );

        // Forged with a checksum that holds: other settings, another
        // position, a move on a stone, a key too short, another format.
        let (store, _, path) = saved(dir.path());
        forge(&path, |p| p.settings.width = 8);
        assert!(
            refusal(&store).contains("other settings"),
            "{}",
            refusal(&store)
        );
        let (store, _, path) = saved(dir.path());
        forge(&path, |p| p.position = Qubic.notation(Qubic.start()));
        assert!(
            refusal(&store).contains("another position"),
            "{}",
            refusal(&store)
        );
        let (store, _, path) = saved(dir.path());
        forge(&path, |p| p.moves[0].1 = 16);
        assert!(
            refusal(&store).contains("no empty cell"),
            "{}",
            refusal(&store)
        );
        let (store, _, path) = saved(dir.path());
        forge(&path, |p| {
            p.moves[0].0.pop();
        });
        assert!(
            refusal(&store).contains("32 hex digits"),
            "{}",
            refusal(&store)
        );
        let (store, _, path) = saved(dir.path());
        forge(&path, |p| p.format = 2);
        assert!(refusal(&store).contains("format 2"), "{}", refusal(&store));
        std::fs::write(&path, "{}").expect("written");
        assert!(
            refusal(&store).contains("not a task file"),
            "{}",
            refusal(&store)
        );
    }
}
