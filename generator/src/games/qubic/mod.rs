//! Qubic's generator side: the proof of the first player's win and its
//! table ([`prove`]: `solvedb build qubic`, its [`task`]s proved by the
//! library's df-pn [`prover`] sized for a build: gigabytes of proof table
//! on huge pages; the table's [`records`]), the tasks a build keeps
//! ([`parts`]), the roots it adds after the other
//! first move ([`other_first_move`]), the walk of a table's strategy
//! against every defence with rules of its own ([`walk`]: `solvedb verify`
//! and `solvedb export qubic`), the opening table ([`opening`],
//! [`opening_walk`]), and `solvedb bench qubic` ([`bench`]) on positions
//! from seeded random play ([`samples`]).

mod bench;
pub mod certified;
pub mod dictionary;
pub mod opening;
pub mod opening_walk;
pub mod other_first_move;
pub mod parts;
pub mod prove;
pub mod records;
mod replies;
pub mod samples;
pub mod smaller;
pub mod task;
/// The df-pn prover, which the library's probe also runs (on requests).
pub use solvedb_lookup::games::qubic::prover;
pub mod walk;

use std::io::Write;
use std::ops::RangeInclusive;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use solvedb_lookup::format::{ValueEncoding, wide_entries};
use solvedb_lookup::games::qubic::opening::OPENING_FILE;
use solvedb_lookup::games::qubic::strategy;
use solvedb_lookup::{Error, Game, GameId, Oracle, Qubic, QubicBoard, Table};

use crate::bench::BenchOptions;
use crate::build::{Buildable, LayerCount, Solution, human_bytes, physical_memory};
use crate::export::{Destination, ExportOptions, ExportSummary, Format};
use crate::games::GeneratorGame;
use crate::text::{count, seconds};
use parts::TaskStore;
use prove::ProvedStrategy;
use task::{ProofOptions, TASK_TABLE_BYTES, TaskSetup};

/// Memory besides the tasks' proof tables: the merged strategy and the
/// walks' maps.
const OTHER_BYTES: u64 = 1 << 30;

/// How many tasks to prove at once: one per core, as many as the memory
/// holds (each task's proof table is [`TASK_TABLE_BYTES`]).
fn proof_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let memory = physical_memory().unwrap_or(0).saturating_sub(OTHER_BYTES);
    let fit = (memory / (TASK_TABLE_BYTES + (256 << 20))).max(1) as usize;
    cores.min(fit)
}

/// The options of `solvedb build qubic`: the defaults on
/// [`proof_threads`] threads.
fn build_options() -> ProofOptions {
    ProofOptions {
        threads: proof_threads(),
        ..ProofOptions::default()
    }
}

/// The proof of the empty board, keeping tasks in `out`'s
/// [`parts::DIR`] if given.
fn prove_table(options: ProofOptions, out: Option<&Path>) -> Result<Solution> {
    let root_options = other_first_move::root_options(options);
    let stores = out.map(|out| {
        (
            TaskStore::new(out, options.settings()),
            TaskStore::new(out, root_options.settings()),
        )
    });
    let setup = TaskSetup {
        options,
        store: stores.as_ref().map(|s| &s.0),
    };
    let roots_setup = TaskSetup {
        options: root_options,
        store: stores.as_ref().map(|s| &s.1),
    };
    let store = setup.store;
    eprintln!(
        "qubic: proving the first player's win on {} threads ({} of proof table each)",
        options.threads,
        human_bytes(options.task_table_bytes)
    );
    if let Some(store) = store {
        eprintln!("qubic: proved tasks are kept in {}", store.dir().display());
    }
    let progress = |line: &str| eprintln!("qubic: {line}");
    let roots = other_first_move::other_roots();
    eprintln!(
        "qubic: with {} roots after X's other first move, on cell {}, as tasks beside the first move's",
        roots.len(),
        other_first_move::OTHER_FIRST_MOVE
    );
    let certificates = certified::certificates()?;
    for c in &certificates {
        if c.first != other_first_move::OTHER_FIRST_MOVE {
            bail!(
                "the certificate of X on {} and O on {} is not after the other first move, X on {}",
                c.first,
                c.cell,
                other_first_move::OTHER_FIRST_MOVE
            );
        }
        eprintln!(
            "qubic: O on {} after the other first move taken from its certificate ({} moves, proved beforehand {})",
            c.cell,
            c.moves.len(),
            within_stones(c.report.stone_limit)
        );
    }
    let (proved, added) = other_first_move::prove_with_roots(
        Qubic.start(),
        setup,
        &roots,
        roots_setup,
        &certificates,
        &progress,
    )?;
    if let Some((store, roots_store)) = &stores {
        store.remove()?;
        roots_store.remove()?;
    }
    let mut solution = strategy_solution(&proved);
    solution.notes.extend(added_roots_notes(&added));
    Ok(solution)
}

/// A proof's stone limit as the report words it: "within N stones", or
/// "without a stone limit".
fn within_stones(limit: Option<u32>) -> String {
    limit.map_or_else(
        || "without a stone limit".to_string(),
        |s| format!("within {s} stones"),
    )
}

/// The report lines of the roots added after the other first move.
fn added_roots_notes(added: &other_first_move::AddedRoots) -> Vec<String> {
    let nodes: u64 = added.proved.iter().map(|(_, t, _)| t.nodes).sum();
    let task_time: Duration = added
        .proved
        .iter()
        .map(|(_, t, _)| t.prove + t.extract)
        .sum();
    let plies = added.proved.iter().map(|&(_, _, d)| d);
    let mut notes = vec![format!(
        "other first move {}: {} of {} roots proved (O on {}), {} nodes, task time {}, wall {} (smaller strategies {}, records {}); X wins within {}..{} plies of them; {} records and {} positions with X to move added",
        other_first_move::OTHER_FIRST_MOVE,
        added.proved.len(),
        added.proved.len() + added.not_proved.len(),
        added
            .proved
            .iter()
            .map(|(cell, _, _)| cell.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        nodes,
        seconds(task_time),
        seconds(added.prove_time),
        seconds(added.smaller_time),
        seconds(added.records_time),
        plies.clone().min().unwrap_or(0),
        plies.max().unwrap_or(0),
        added.records,
        added.positions
    )];
    for (cell, report, plies) in &added.certified {
        notes.push(format!(
            "other first move: O on {cell} taken from its certificate (proved beforehand {}, {} nodes, {}; {} moves); X wins within {plies} plies of it",
            within_stones(report.stone_limit),
            report.nodes,
            seconds(report.prove),
            report.moves,
        ));
    }
    for (cell, root) in &added.not_proved {
        notes.push(format!(
            "other first move: O on {cell} not proved ({})",
            Qubic.notation(*root)
        ));
    }
    notes
}

/// The peak resident memory of this process so far, in bytes (`VmHWM`).
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The table of a proved strategy: its records as the build writes them,
/// the counts by stones, and the proof's figures as report lines.
pub fn strategy_solution(proved: &ProvedStrategy) -> Solution {
    let entries = wide_entries(&proved.records, <Qubic as Buildable>::BLOCK_ENTRIES);
    let layers = proved
        .by_stones
        .iter()
        .map(|&(stones, positions, stored)| LayerCount {
            ply: stones as usize,
            reachable: positions,
            canonical: stored,
        })
        .collect();
    let mids: u64 = proved.tasks.iter().map(|t| t.stats.mid_calls).sum();
    let threat_nodes: u64 = proved.tasks.iter().map(|t| t.stats.threat_nodes).sum();
    let cpu: Duration = proved.tasks.iter().map(|t| t.prove + t.extract).sum();
    let hardest = proved.tasks.iter().max_by_key(|t| t.prove);
    let mut notes = vec![
        format!(
            "proved: X wins, first move {} ({} tasks: the O replies up to symmetry)",
            proved.first,
            proved.tasks.len()
        ),
        format!(
            "proof: {} nodes ({} proof-number nodes, {} threat-search nodes), task time {} over the threads, wall {} (merge and the smaller strategy {}, bounds {})",
            proved.nodes(),
            mids,
            threat_nodes,
            seconds(cpu),
            seconds(proved.prove_time),
            seconds(proved.smaller_time),
            seconds(proved.merge_time)
        ),
        format!(
            "smaller strategy: {} strategic positions walked; {} kept their move (it settles every reply), {} given one that does, {} kept the proof's move",
            proved.smaller.strategic,
            proved.smaller.kept_settled,
            proved.smaller.changed,
            proved.smaller.kept_proved
        ),
        format!(
            "strategy: {} with X to move up to symmetry (X not winning at once), {} stored (the rest settled by threat lines at probe time); X wins within {} plies against the longest defence",
            count(proved.positions(), "position", "positions"),
            proved.records.len(),
            proved.depth
        ),
    ];
    if let Some(task) = hardest {
        notes.push(format!(
            "hardest task {}: {} nodes, {}{}",
            Qubic.notation(task.position),
            task.nodes,
            seconds(task.prove),
            task::within(task.stone_limit)
        ));
    }
    for (first, failed) in &proved.failed_moves {
        notes.push(format!(
            "first move {first} given up: not proved {}",
            Qubic.notation(*failed)
        ));
    }
    if let Some(peak) = peak_memory() {
        notes.push(format!("peak memory: {}", human_bytes(peak)));
    }
    Solution {
        layers,
        entries,
        stored: proved.records.len() as u64,
        notes,
    }
}

impl Buildable for Qubic {
    const BLOCK_ENTRIES: u32 = strategy::BLOCK_ENTRIES;

    const LAYERS: &'static str = "the strategy's positions with X to move, up to symmetry (but those X wins at once), by stones on the board, and the records stored";

    const COLUMNS: [&'static str; 3] = ["stones", "positions", "stored"];

    /// # Panics
    ///
    /// If the proof fails, which [`try_solve_table`](Buildable::try_solve_table)
    /// reports as an error instead (the pipeline calls that).
    fn solve_table(&self) -> Solution {
        prove_table(build_options(), None).expect("the proof of Qubic")
    }

    /// The proof ([`prove::prove_strategy`], with the roots of
    /// [`other_first_move`] beside it) from the empty board, tasks on
    /// `proof_threads` threads, progress on standard error, each proved
    /// task kept in `out`'s [`parts::DIR`] until the proof is done (a
    /// build into the same directory resumes from them).
    fn try_solve_table(&self, out: &Path) -> Result<Solution> {
        prove_table(build_options(), Some(out))
    }

    fn build_memory(&self) -> u64 {
        TASK_TABLE_BYTES + OTHER_BYTES
    }

    /// The opening table ([`opening`]), within [`opening::BUILD_BUDGET`].
    fn build_companion(&self, dir: &Path, table: &[u8]) -> Result<Vec<String>> {
        let table = Table::new(table.to_vec())?;
        opening::install_opening(&table, dir, opening::BUILD_BUDGET)
    }
}

impl GeneratorGame for Qubic {
    /// Walks the strategy from the empty board against every defence with
    /// rules of its own ([`walk`]), after the checksums.
    fn verify_table(
        &self,
        table: &Table<Vec<u8>>,
        exhaustive: Option<RangeInclusive<u32>>,
        out: &mut dyn Write,
    ) -> Result<()> {
        if exhaustive.is_some() {
            bail!("--exhaustive is for cube tables; the walk of a qubic table is complete");
        }
        if table.header().values == ValueEncoding::OpeningValues {
            bail!(
                "an opening table is walked with its strategy: verify its file, beside qubic.sdb"
            );
        }
        verify_strategy(table, out)?;
        Ok(())
    }

    /// The strategy's walk ([`verify_table`](GeneratorGame::verify_table)),
    /// then the opening table beside it if there is one
    /// ([`opening_walk`]); given the opening table's file, the strategy
    /// beside it is walked first, then the opening table.
    fn verify_file(
        &self,
        file: &Path,
        table: &Table<Vec<u8>>,
        exhaustive: Option<RangeInclusive<u32>>,
        out: &mut dyn Write,
    ) -> Result<()> {
        if exhaustive.is_some() {
            bail!("--exhaustive is for cube tables; the walk of a qubic table is complete");
        }
        // `table` is `file`, read and its checksums verified by the caller;
        // the other file is read here and its checksums verified first.
        let dir = file.parent().unwrap_or(Path::new("."));
        let read_beside = |path: &Path, what: &'static str| -> Result<Table<Vec<u8>>> {
            let beside = crate::verify::read_whole(path)?;
            beside.verify().context(what)?;
            Ok(beside)
        };
        let beside;
        let (strategy, opening) = if table.header().values == ValueEncoding::OpeningValues {
            let path = dir.join(GameId::Qubic.table_file_name());
            beside = Some(read_beside(&path, "the strategy table beside it")?);
            (beside.as_ref().expect("just read"), Some(table))
        } else {
            let path = dir.join(OPENING_FILE);
            beside = match path.exists() {
                true => Some(read_beside(&path, "the opening table's checksums")?),
                false => None,
            };
            (table, beside.as_ref())
        };
        let walked = verify_strategy(strategy, out)?;
        if let Some(opening) = opening {
            let report = opening_walk::walk_built_opening(opening, &walked)?;
            writeln!(out, "opening ok: {report}")?;
        }
        Ok(())
    }

    /// One line per X-to-move position of the strategy (up to symmetry, X
    /// not winning at once): 64 characters and the move (`docs/qubic.md`).
    fn export(
        &self,
        oracle: &Oracle,
        options: &ExportOptions,
        out: Destination<'_>,
    ) -> Result<ExportSummary> {
        if options.format != Format::Text || options.all_symmetries || options.sample.is_some() {
            bail!("qubic exports its strategy as text, whole (no --all-symmetries or --sample)");
        }
        let path = match oracle.table_path(GameId::Qubic) {
            Some(path) if oracle.has_table(GameId::Qubic) => path,
            _ => Err(Error::Unsupported {
                game: GameId::Qubic,
                reason: "no strategy table in the tables directory (`solvedb build qubic`)".into(),
            })?,
        };
        let table = crate::verify::read_whole(&path)?;
        let (_, moves) = walk::walk(&table, true)?;
        let moves = moves.expect("asked for");
        let mut out: Box<dyn Write + '_> = match out {
            Destination::File(file) => Box::new(std::io::BufWriter::new(file)),
            Destination::Stream(stream) => Box::new(stream),
        };
        for (&position, &cell) in &moves {
            writeln!(out, "{}", walk::export_line(position, cell))?;
        }
        out.flush()?;
        Ok(ExportSummary {
            rows: moves.len() as u64,
        })
    }

    fn export_formats(&self) -> &'static [Format] {
        &[Format::Text]
    }

    fn bench(&self, options: &BenchOptions, out: &mut dyn Write) -> Result<()> {
        bench::bench(options, out)
    }
}

/// A strategy table of `records` alone (canonical key, move, bound; sorted
/// by key), in memory: what the walker reads, for strategies proved apart
/// from a build (a task's, a test's).
pub fn records_table(records: &[(u128, [u8; 2])]) -> Result<Table<Vec<u8>>> {
    let solution = Solution {
        layers: Vec::new(),
        entries: wide_entries(records, <Qubic as Buildable>::BLOCK_ENTRIES),
        stored: records.len() as u64,
        notes: Vec::new(),
    };
    Ok(Table::new(crate::build::encode_solution(
        &Qubic, &solution, 3,
    ))?)
}

/// One proved task's strategy (`moves`, as the task's proof left it)
/// walked from the task's position against every defence by the walker's
/// own rules ([`walk`]), as a build walks the merged strategy: the records
/// a table would store ([`records::strategy_records`]), then the walk.
///
/// # Errors
///
/// Where the strategy misses a position or a defence beats it.
pub fn walk_task(task: QubicBoard, moves: &parts::TaskMoves) -> Result<walk::WalkReport> {
    let records = records::strategy_records(task, moves)?;
    let table = records_table(&records.records)?;
    let (report, _) = walk::walk_from(&table, task, false)?;
    Ok(report)
}

/// The strategy's walk from its roots ([`walk::strategy_roots`]), its
/// report written to `out`; returns the positions it walked.
fn verify_strategy(table: &Table<Vec<u8>>, out: &mut dyn Write) -> Result<walk::Walked> {
    let walk = walk::walk_roots(table, &walk::strategy_roots(table)?)?;
    writeln!(out, "strategy ok: {}", walk.first)?;
    if !walk.others.is_empty() {
        let plies = walk.others.iter().map(|&(_, depth, _)| depth);
        writeln!(
            out,
            "other roots ok: {} positions with two stones, X wins from each against every defence in at most {}..{} plies; {} more positions with X to move ({} from records)",
            walk.others.len(),
            plies.clone().min().unwrap_or(0),
            plies.max().unwrap_or(0),
            walk.all.positions - walk.first.positions,
            walk.all.from_records - walk.first.from_records,
        )?;
    }
    writeln!(
        out,
        "every one of the {} records is a position of the strategy",
        walk.all.records_read
    )?;
    Ok(walk.walked)
}

#[cfg(test)]
mod tests {
    use super::prove::prove_strategy;
    use super::prover::{Attacker, Prover, ProverLimits, Verdict};
    use super::samples::won_positions;
    use solvedb_lookup::games::qubic::strategy::board_of_key;
    use solvedb_lookup::{ExactSolver, QubicCell, QubicSolver, SearchLimits, WIN_SCORE};

    use super::*;
    use crate::build::encode_solution;

    fn options() -> ProofOptions {
        ProofOptions {
            threads: 2,
            task_table_bytes: 4 << 20,
            task_nodes: Some(20_000_000),
            ..ProofOptions::default()
        }
    }

    fn table_of(proved: &ProvedStrategy) -> Table<Vec<u8>> {
        let bytes = encode_solution(&Qubic, &strategy_solution(proved), 3);
        let table = Table::new(bytes).expect("a table");
        table.verify().expect("checksums");
        table
    }

    /// Asserts, by the exact solver, that X's `cell` wins the position of
    /// `key` (X to move).
    fn assert_move_wins(solver: &mut QubicSolver, key: u128, cell: u8) {
        let board = board_of_key(key);
        let after = board.with_move(QubicCell::new(cell).expect("a cell"));
        assert!(
            solver.score(after).expect("solved") < 0,
            "{}",
            Qubic.notation(board)
        );
    }

    fn table_with(records: &[(u128, [u8; 2])]) -> Table<Vec<u8>> {
        records_table(records).expect("a table")
    }

    #[test]
    fn small_proofs_give_strategies_the_walk_accepts_and_the_solver_confirms() {
        let mut stored = 0;
        for (root, score) in won_positions(4, 36, 2020, true) {
            let proved = prove_strategy(root, options(), None, &|_| {}).expect("proved");
            let table = table_of(&proved);
            let (report, moves) = walk::walk_from(&table, root, true).expect("the walk");
            assert_eq!(report.from_records, proved.records.len() as u64);
            assert_eq!(report.depth, proved.depth);
            assert_eq!(report.claimed, proved.depth);
            // The strategy's bound is no faster than the fastest win.
            let plies = (WIN_SCORE - score) as u32 - root.stones();
            assert!(u32::from(proved.depth) >= plies, "{}", Qubic.notation(root));
            // Every exported position is one X wins, and its move wins.
            let mut solver = QubicSolver::new(SearchLimits::default());
            for (&position, &cell) in moves.as_ref().expect("asked for") {
                assert_move_wins(&mut solver, position, cell);
            }
            stored += proved.records.len();
            // The same proof writes the same bytes.
            let again = prove_strategy(root, options(), None, &|_| {}).expect("proved");
            assert_eq!(again.records, proved.records);
        }
        assert!(stored > 0, "the roots needed no records");
    }

    #[test]
    fn a_stone_limit_ends_every_line_and_a_larger_one_reaches_calm_wins() {
        // Calm positions X wins without a threat line: not won within a
        // limit of their own stones (every line ends there), won within a
        // few more by a move the solver confirms; and the build's tasks,
        // whose strategies the walk and the solver check above, are proved
        // within its limits.
        let mut solver = QubicSolver::new(SearchLimits::default());
        let mut reached = 0;
        for (root, _) in won_positions(4, 36, 2020, true) {
            let within = |extra: u32| {
                Prover::new(
                    Attacker::X,
                    ProverLimits {
                        table_bytes: 4 << 20,
                        max_stones: root.stones() + extra,
                        nodes: Some(20_000_000),
                        ..ProverLimits::default()
                    },
                )
            };
            assert_eq!(
                within(0).prove(root).expect("within the budget"),
                Verdict::Disproved,
                "{}",
                Qubic.notation(root)
            );
            let mut prover = within(8);
            if prover.prove(root).expect("within the budget") == Verdict::Proved {
                let mv = prover.winning_move(root).expect("proved").expect("a move");
                let after = root.with_move(QubicCell::new(mv).expect("a cell"));
                assert!(solver.score(after).expect("solved") < 0);
                reached += 1;
            }
            let proved = prove_strategy(root, options(), None, &|_| {}).expect("proved");
            assert!(
                proved.tasks.iter().all(|t| t.stone_limit.is_some()),
                "{}",
                Qubic.notation(root)
            );
        }
        assert!(reached >= 1, "no root proved within eight more stones");
    }

    #[test]
    fn a_proof_resumes_from_the_tasks_it_kept_and_proves_again_those_it_cannot_take() {
        let (root, _) = won_positions(1, 36, 2022, true)[0];
        let dir = tempfile::tempdir().expect("a directory");
        // One thread: the tasks run before a failed one stops the move are
        // the same every time.
        let options = || ProofOptions {
            threads: 1,
            ..options()
        };
        let store = TaskStore::new(dir.path(), options().settings());
        let lines = std::sync::Mutex::new(Vec::<String>::new());
        let log = |line: &str| lines.lock().expect("a log").push(line.to_string());
        let taken = |lines: &std::sync::Mutex<Vec<String>>, what: &str| {
            let lines = lines.lock().expect("a log");
            lines.iter().filter(|l| l.contains(what)).count()
        };
        let first = prove_strategy(root, options(), Some(&store), &log).expect("proved");
        let files = || -> Vec<std::path::PathBuf> {
            let mut files: Vec<_> = std::fs::read_dir(store.dir())
                .expect("the tasks' directory")
                .map(|e| e.expect("an entry").path())
                .collect();
            files.sort();
            files
        };
        let kept = files();
        assert!(
            kept.len() >= first.tasks.len() && !kept.is_empty(),
            "{kept:?}"
        );
        assert_eq!(taken(&lines, "taken from its file"), 0);

        // Again: every task from its file, the same strategy.
        lines.lock().expect("a log").clear();
        let again = prove_strategy(root, options(), Some(&store), &log).expect("proved");
        assert_eq!(again.records, first.records);
        assert_eq!(taken(&lines, "taken from its file"), kept.len());
        assert_eq!(taken(&lines, "started"), 0);

        // A file cut short is set aside with its reason, its task proved
        // again and kept anew.
        let text = std::fs::read(&kept[0]).expect("a file");
        std::fs::write(&kept[0], &text[..text.len() / 2]).expect("written");
        lines.lock().expect("a log").clear();
        let again = prove_strategy(root, options(), Some(&store), &log).expect("proved");
        assert_eq!(again.records, first.records);
        assert_eq!(taken(&lines, "not a task file"), 1);
        assert_eq!(taken(&lines, "started"), 1);
        // Kept anew: all taken once more.
        lines.lock().expect("a log").clear();
        prove_strategy(root, options(), Some(&store), &log).expect("proved");
        assert_eq!(taken(&lines, "taken from its file"), kept.len());

        // Other settings take nothing.
        let other = ProofOptions {
            task_nodes: Some(19_999_999),
            ..options()
        };
        let elsewhere = TaskStore::new(dir.path(), other.settings());
        lines.lock().expect("a log").clear();
        prove_strategy(root, other, Some(&elsewhere), &log).expect("proved");
        assert_eq!(taken(&lines, "proved with other settings"), kept.len());

        store.remove().expect("removed");
        assert!(!store.dir().exists());
        store.remove().expect("nothing to remove is no error");
    }

    #[test]
    fn a_survey_tries_every_task_of_a_first_move_and_agrees_with_the_proof() {
        let (root, _) = won_positions(1, 36, 2023, true)[0];
        let mut solver = QubicSolver::new(SearchLimits::default());
        let mut outcome = |first: u8| {
            let after = root.with_move(QubicCell::new(first).expect("a cell"));
            solver.score(after).expect("solved")
        };
        let empty: Vec<u8> = (0..64).filter(|&c| root.empty() >> c & 1 != 0).collect();
        let winning = *empty.iter().find(|&&c| outcome(c) < 0).expect("X wins");
        // A move that neither wins nor lets O complete a line at once.
        let other = *empty
            .iter()
            .find(|&&c| {
                let after = root.with_move(QubicCell::new(c).expect("a cell"));
                outcome(c) >= 0
                    && (0..64).all(|o| {
                        after.empty() >> o & 1 == 0
                            || !solvedb_lookup::games::qubic::has_line(
                                after.with_move(QubicCell::new(o).expect("a cell")).o(),
                            )
                    })
            })
            .expect("a move that does not win");
        let dir = tempfile::tempdir().expect("a directory");
        let store = TaskStore::new(dir.path(), options().settings());
        let survey = prove::survey_first_move(root, winning, &[], options(), Some(&store), &|_| {})
            .expect("surveyed");
        let proof = prove::prove_first_move(root, winning, options(), None, &|_| {})
            .expect("proved")
            .expect("X wins");
        assert!(survey.iter().all(|t| t.2.is_some()));
        assert_eq!(survey.len(), proof.len());
        // Each task's strategy, as kept, stands the walk (a task the rules
        // settle has no moves); without its first move it does not.
        let (mut walked, mut broken) = (0, 0);
        for (_, task, _) in &survey {
            let Ok(Some(parts::Kept::Proved(mut moves, _))) = store.load(*task) else {
                panic!("{}: not kept", Qubic.notation(*task));
            };
            walked += walk_task(*task, &moves)
                .expect("the strategy stands")
                .positions;
            if moves.remove(&strategy::key(*task)).is_some() {
                assert!(
                    walk_task(*task, &moves).is_err(),
                    "{}",
                    Qubic.notation(*task)
                );
                broken += 1;
            }
        }
        assert!(
            walked > 0 && broken > 0,
            "{walked} positions walked, {broken} broken"
        );
        // Where X does not win, some task is not proved, and every other
        // task is still tried.
        let survey =
            prove::survey_first_move(root, other, &[], options(), None, &|_| {}).expect("surveyed");
        let after = root.with_move(QubicCell::new(other).expect("a cell"));
        let replies: std::collections::HashSet<_> = (0..64u8)
            .filter(|&o| after.empty() >> o & 1 != 0)
            .map(|o| {
                solvedb_lookup::games::qubic::canonical_with_symmetry(
                    after.with_move(QubicCell::new(o).expect("a cell")),
                )
                .0
            })
            .collect();
        assert_eq!(survey.len(), replies.len());
        assert!(survey.iter().any(|t| t.2.is_none()));
        for (cell, task, _) in &survey {
            let reply = after.with_move(QubicCell::new(*cell).expect("a cell"));
            assert_eq!(
                solvedb_lookup::games::qubic::canonical_with_symmetry(reply).0,
                *task
            );
        }
    }

    #[test]
    fn roots_added_to_a_strategy_walk_from_each_and_leave_its_records_alone() {
        let mut won = won_positions(3, 36, 2024, true).into_iter().map(|(r, _)| r);
        let (root, a, b) = (
            won.next().expect("a root"),
            won.next().expect("a root"),
            won.next().expect("a root"),
        );
        let alone = prove_strategy(root, options(), None, &|_| {}).expect("proved");
        let (records, depth) = (alone.records.clone(), alone.depth);
        // A calm position X does not win (by the solver) is tried and
        // left out.
        let mut rng = solvedb_lookup::testkit::Rng::new(2025);
        let mut solver = QubicSolver::new(SearchLimits::default());
        let not_won = std::iter::from_fn(|| Some(samples::random_position(&mut rng, 36, true)))
            .flatten()
            .find(|&board| board.x_to_move() && solver.score(board).expect("solved") <= 0)
            .expect("a position X does not win");
        let roots = [(0, a), (1, b), (2, not_won)];
        let setup = TaskSetup {
            options: options(),
            store: None,
        };
        let (proved, added) =
            other_first_move::prove_with_roots(root, setup, &roots, setup, &[], &|_| {})
                .expect("proved");
        assert_eq!(added.proved.len(), 2);
        assert_eq!(added.not_proved, vec![(2, Qubic.canonical(not_won))]);
        assert_eq!(proved.depth, depth);
        // The first strategy's records are all there, unchanged.
        for record in &records {
            assert!(proved.records.binary_search(record).is_ok(), "{record:?}");
        }
        assert_eq!(added.records as usize, proved.records.len() - records.len());
        let table = table_of(&proved);
        // From every root, every record read; from the first alone, not.
        let walked = walk::walk_roots(&table, &[root, a, b]).expect("the walk");
        assert_eq!(walked.first.depth, depth);
        assert_eq!(walked.others.len(), 2);
        for ((_, _, plies), (_, depth, claimed)) in added.proved.iter().zip(&walked.others) {
            assert_eq!(plies, depth);
            assert!(depth <= claimed);
        }
        assert!(added.records > 0);
        assert!(walk::walk_from(&table, root, false).is_err());
        // Every move from the added roots wins, by exact search.
        for (&position, &(_, cell)) in &walked.walked {
            if !walked.from_first.contains(&position) {
                assert_move_wins(&mut solver, position, cell);
            }
        }
        assert!(walked.walked.len() > walked.from_first.len());
    }

    #[test]
    fn certified_roots_are_walked_with_the_proved_ones_and_a_broken_one_fails_the_build() {
        let mut won = won_positions(3, 36, 2026, true).into_iter().map(|(r, _)| r);
        let (root, a, b) = (
            won.next().expect("a root"),
            won.next().expect("a root"),
            won.next().expect("a root"),
        );
        let setup = TaskSetup {
            options: options(),
            store: None,
        };
        // `b` proved beforehand: its strategy as a certificate.
        let beforehand = prove_strategy(b, options(), None, &|_| {}).expect("proved");
        let certificate = |moves: parts::TaskMoves, position: QubicBoard| certified::Certificate {
            first: 8,
            cell: 9,
            report: parts::TaskReport {
                position,
                stats: Default::default(),
                nodes: 1,
                prove: Duration::ZERO,
                extract: Duration::ZERO,
                moves: moves.len(),
                stone_limit: Some(40),
            },
            moves,
            settings: options().settings(),
        };
        let b = Qubic.canonical(b);
        let good = certificate(beforehand.moves.clone(), b);
        let roots = [(0, a)];
        let with = |certified: &[certified::Certificate]| {
            other_first_move::prove_with_roots(root, setup, &roots, setup, certified, &|_| {})
        };
        let (alone, _) = with(&[]).expect("proved");
        let (proved, added) = with(std::slice::from_ref(&good)).expect("proved");
        assert_eq!(added.proved.len(), 1);
        assert_eq!(added.certified.len(), 1);
        assert_eq!(added.certified[0].0, 9);
        for record in &alone.records {
            assert!(proved.records.binary_search(record).is_ok(), "{record:?}");
        }
        assert!(proved.records.len() > alone.records.len());
        let table = table_of(&proved);
        let walked = walk::walk_roots(&table, &[root, a, b]).expect("the walk");
        assert_eq!(walked.others.len(), 2);
        assert_eq!(walked.others[1].1, added.certified[0].2);

        // Without the move at its root the certificate answers nothing
        // there: the build fails.
        let mut moves = beforehand.moves.clone();
        assert!(moves.remove(&strategy::key(b)).is_some());
        assert!(with(&[certificate(moves, b)]).is_err());
        // A certificate for a root the build proves is refused.
        let twice = certificate(beforehand.moves.clone(), Qubic.canonical(a));
        let refusal = format!("{:#}", with(&[twice]).expect_err("refused"));
        assert!(refusal.contains("a root the build proves"), "{refusal}");
    }

    #[test]
    fn the_walk_refuses_broken_strategies() {
        let (root, _) = won_positions(1, 36, 2021, true)[0];
        let proved = prove_strategy(root, options(), None, &|_| {}).expect("proved");
        let records = proved.records.clone();
        assert!(walk::walk_from(&table_with(&records), root, false).is_ok());
        let (canonical, _) = solvedb_lookup::games::qubic::canonical_with_symmetry(root);
        let at = records
            .iter()
            .position(|r| r.0 == strategy::key(canonical))
            .expect("the root is stored");

        // The root's record left out: no move there.
        let mut missing = records.clone();
        missing.remove(at);
        assert!(walk::walk_from(&table_with(&missing), root, false).is_err());

        // A bound two plies too short.
        let mut short = records.clone();
        short[at].1[1] -= 2;
        if short[at].1[1] >= 3 {
            assert!(walk::walk_from(&table_with(&short), root, false).is_err());
        }

        // A move on a taken cell: a corrupt record.
        let taken = (canonical.x() | canonical.o()).trailing_zeros() as u8;
        let mut taken_move = records.clone();
        taken_move[at].1[0] = taken;
        assert!(walk::walk_from(&table_with(&taken_move), root, false).is_err());

        // A move that does not win (by the live solver): the walk finds a
        // defence.
        let mut solver = QubicSolver::new(SearchLimits::default());
        let losing = (0..64u8)
            .filter(|&c| canonical.empty() >> c & 1 != 0)
            .find(|&c| {
                let after = canonical.with_move(QubicCell::new(c).expect("a cell"));
                solver.score(after).expect("solved") >= 0
            })
            .expect("a move that does not win");
        let mut wrong = records.clone();
        wrong[at].1[0] = losing;
        assert!(walk::walk_from(&table_with(&wrong), root, false).is_err());

        // A record the strategy never reaches: bytes nobody checked.
        let mut extra = records.clone();
        let stray = board_of_key(1 << 64 | 2);
        extra.push((strategy::key(stray), [5, 3]));
        extra.sort();
        assert!(walk::walk_from(&table_with(&extra), root, false).is_err());

        // A table's roots: the empty board, then its two-stone records.
        let two = Qubic.canonical(stray);
        let mut rooted = records.clone();
        rooted.push((strategy::key(two), [5, 3]));
        rooted.sort();
        let roots = walk::strategy_roots(&table_with(&rooted)).expect("roots");
        assert_eq!(roots, vec![Qubic.start(), two]);
        let roots = walk::strategy_roots(&table_with(&records)).expect("roots");
        assert_eq!(roots, vec![Qubic.start()]);
    }
}
