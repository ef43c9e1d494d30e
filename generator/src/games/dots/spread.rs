//! The exact search of one dots position spread over processes (MPI ranks,
//! `mpirun -n K solvedb search dots:MxN POS --mpi`) or threads: job-level
//! parallelism at the top of the tree.
//!
//! The root's first plies are split into leaves ([`split`]); rank 0
//! coordinates MTD(f) at the root ([`coordinator`]), whose every
//! null-window test is answered by null-window tests of leaves — *jobs* —
//! that the workers ([`worker`]), one a rank (rank 0's on a thread of its
//! own), run with the single-process [`EndgameSolver`], each with its own
//! transposition table. Messages are a few words ([`messages`]); finished
//! jobs' bounds are written to a checkpoint directory ([`checkpoint`]) and
//! read back by a rerun.
//!
//! Every job's answer is an exact bound on a leaf's margin, and the root's
//! bounds are the negamax of the leaves', so the value does not depend on
//! the ranks, the split, the order answers arrive in, or which jobs were
//! cancelled. What ranks do not share is their tables: a position below
//! two leaves searched on two ranks is searched twice (the duplicated work
//! transposition-driven scheduling, Romein, Plaat, Bal & Schaeffer 1999,
//! avoids by sending every position to the rank that owns its entry, at
//! the price of a message a node). With [`worker::Sharing`] a rank hands
//! the others, through the coordinator, the bounds its table proved a few
//! plies below each finished job's leaf; they learn them before their
//! next job. Those bounds are proved too, so the value still depends on
//! nothing but the position.
//!
//! [`EndgameSolver`]: solvedb_lookup::games::dots::EndgameSolver

pub mod checkpoint;
pub mod coordinator;
pub mod messages;
pub mod split;
pub mod worker;

use std::path::Path;

use anyhow::Result;
use solvedb_lookup::{Dots, Edges, SearchLimits};

use self::checkpoint::Checkpoint;
use self::coordinator::{Plan, Report};
use self::split::SplitTree;
use self::worker::Sharing;

/// The split tree of `root` for `ranks` with the facts of the checkpoint
/// in `dir` (if given) learnt: `depth` plies if given, else those of the
/// checkpoint, else enough for the ranks ([`SplitTree::for_ranks`]).
///
/// # Errors
///
/// A checkpoint that cannot be read, or whose facts contradict each other.
pub fn prepare(
    board: Dots,
    root: Edges,
    ranks: usize,
    depth: Option<u32>,
    dir: Option<&Path>,
) -> Result<(SplitTree, Option<Checkpoint>, usize)> {
    let least = board.shared_symmetries().canonical(root.0);
    let (checkpoint, saved) = match dir {
        Some(dir) => {
            let (checkpoint, saved) = Checkpoint::open(board, least, dir)?;
            (Some(checkpoint), saved)
        }
        None => (None, None),
    };
    let mut tree = match depth.or(saved.as_ref().map(|s| s.depth)) {
        Some(depth) => SplitTree::new(board, root.0, depth),
        None => SplitTree::for_ranks(board, root.0, ranks),
    };
    let facts = saved.map(|s| s.facts).unwrap_or_default();
    for &(mask, bounds) in &facts {
        tree.learn(mask, bounds)?;
    }
    Ok((tree, checkpoint, facts.len()))
}

/// The spread search with `workers` workers on threads of this process,
/// each with its own solver (`limits`: threads and table of each): the
/// MPI search's code but for the transport, for the tests.
///
/// # Errors
///
/// As [`coordinator::coordinate`] and [`prepare`].
pub fn search_on_threads(
    board: Dots,
    root: Edges,
    workers: usize,
    limits: &SearchLimits,
    depth: Option<u32>,
    dir: Option<&Path>,
    sharing: Sharing,
) -> Result<Report> {
    let (tree, checkpoint, resumed) = prepare(board, root, workers, depth, dir)?;
    let (hub, ends): (Vec<_>, Vec<_>) = (0..workers).map(|_| messages::link()).unzip();
    std::thread::scope(|scope| {
        for (rank, end) in ends.into_iter().enumerate() {
            let limits = limits.clone();
            scope.spawn(move || worker::serve(&end, board, limits, rank, false, sharing));
        }
        let plan = Plan {
            board,
            tree,
            checkpoint: checkpoint.as_ref(),
            resumed,
            stop_after: None,
        };
        coordinator::coordinate(&hub, plan)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use solvedb_lookup::Game;
    use solvedb_lookup::games::dots::EndgameSolver;
    use solvedb_lookup::testkit::Rng;

    fn one_thread() -> SearchLimits {
        SearchLimits {
            threads: Some(1),
            table_bytes: Some(1 << 20),
            ..SearchLimits::default()
        }
    }

    #[test]
    fn spread_searches_agree_with_the_single_process_search() {
        let mut rng = Rng::new(4646);
        for (rows, cols, undrawn) in [(3, 3, 18), (3, 4, 20), (4, 4, 22), (3, 5, 21)] {
            let board = Dots::new(rows, cols).unwrap();
            let p = std::iter::repeat_with(|| board.random_without_third_sides(&mut rng, undrawn))
                .flatten()
                .next()
                .expect("a position");
            let expected = EndgameSolver::new(board, one_thread()).solve(p).unwrap();
            let runs = [(1, Some(0)), (1, None), (2, None), (3, Some(2)), (4, None)];
            for ((workers, depth), plies) in runs.into_iter().zip([0, 2, 1, 2, 2]) {
                let sharing = Sharing { plies, min_work: 1 };
                let report =
                    search_on_threads(board, p, workers, &one_thread(), depth, None, sharing)
                        .unwrap();
                assert_eq!(
                    report.value,
                    expected,
                    "{} on {workers} workers, depth {depth:?}, sharing {plies} plies",
                    board.notation(p)
                );
                assert_eq!(report.workers.len(), workers);
                assert!(report.jobs >= 1 && report.bytes > 0);
            }
        }
    }

    #[test]
    fn a_rerun_from_the_checkpoint_sends_no_job_and_agrees() {
        let board = Dots::new(3, 3).unwrap();
        let p = board.parse("3x3:h0,0 v1,1 h3,2").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let run = |workers| {
            let checkpoint = Some(dir.path());
            search_on_threads(
                board,
                p,
                workers,
                &one_thread(),
                None,
                checkpoint,
                Sharing::default(),
            )
            .unwrap()
        };
        let first = run(2);
        assert_eq!(first.resumed, 0);
        let again = run(3);
        assert_eq!(again.value, first.value);
        assert!(again.resumed > 0);
        assert_eq!(again.jobs, 0, "every fact the root needs was kept");
    }
}
