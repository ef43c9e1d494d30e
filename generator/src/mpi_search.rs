//! The MPI side of the spread dots search (cargo feature `mpi`):
//! `mpirun -n K solvedb search dots:MxN POS --mpi`. The search itself is
//! [`spread`](crate::games::dots::spread), which only needs a
//! [`Hub`] on rank 0 and an [`Endpoint`] on every worker; this module is
//! those two over MPI (rsmpi). Rank 0 coordinates on its main thread and
//! runs its own worker on a thread behind a [`Link`]; ranks 1 .. K are
//! workers. Only main threads call MPI (`Funneled`).
//!
//! Failure: any error on any rank calls `MPI_Abort`, which makes `mpirun`
//! end every rank and exit non-zero; a rank that dies is noticed by
//! `mpirun` the same way. The checkpoint keeps what finished jobs proved.

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use mpi::Threading;
use mpi::point_to_point::MatchedReceiveVec;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, Destination, Source};
use solvedb_lookup::{Dots, Edges, SearchLimits};

use crate::games::dots::spread::coordinator::{Plan, Report, coordinate};
use crate::games::dots::spread::messages::{Endpoint, Hub, Link, link};
use crate::games::dots::spread::worker::Sharing;
use crate::games::dots::spread::{prepare, worker};

/// A worker rank's line to rank 0.
struct ToCoordinator<'a> {
    world: &'a SimpleCommunicator,
}

impl Endpoint for ToCoordinator<'_> {
    fn send(&self, bytes: &[u8]) -> Result<()> {
        self.world.process_at_rank(0).send(bytes);
        Ok(())
    }

    fn try_receive(&self) -> Result<Option<Vec<u8>>> {
        Ok(self
            .world
            .process_at_rank(0)
            .immediate_matched_probe()
            .map(|matched| matched.matched_receive_vec::<u8>().0))
    }
}

/// Rank 0's lines to every worker: its own thread's behind a link, the
/// others' over MPI.
struct ToWorkers<'a> {
    world: &'a SimpleCommunicator,
    own: Link,
}

impl Hub for ToWorkers<'_> {
    fn workers(&self) -> usize {
        self.world.size() as usize
    }

    fn send(&self, worker: usize, bytes: &[u8]) -> Result<()> {
        if worker == 0 {
            self.own.send(bytes)
        } else {
            self.world.process_at_rank(worker as i32).send(bytes);
            Ok(())
        }
    }

    fn try_receive(&self, listening: &[bool]) -> Result<Option<(usize, Vec<u8>)>> {
        if listening[0] {
            if let Some(bytes) = self.own.try_receive()? {
                return Ok(Some((0, bytes)));
            }
        }
        Ok(self
            .world
            .any_process()
            .immediate_matched_probe()
            .map(|matched| {
                let (bytes, status) = matched.matched_receive_vec::<u8>();
                (status.source_rank() as usize, bytes)
            }))
    }
}

/// What the CLI asks of a spread search.
#[derive(Debug)]
pub struct SearchArgs<'a> {
    /// Each rank's solver: threads and table.
    pub limits: SearchLimits,
    /// Plies split (else the checkpoint's, else enough for the ranks).
    pub depth: Option<u32>,
    /// The checkpoint directory.
    pub checkpoint: Option<&'a Path>,
    /// This rank aborts at its first job (tests).
    pub fail_rank: Option<usize>,
    /// The coordinator aborts after this many answers (tests).
    pub stop_after: Option<u64>,
    /// Which proved bounds ranks hand each other.
    pub sharing: Sharing,
}

/// Runs this process's rank of the spread search of `root`. Returns the
/// report and the number of ranks on rank 0, `None` on the others.
///
/// # Errors
///
/// If MPI was already started. Every other failure aborts the whole job
/// through `MPI_Abort` after printing it, so that no rank waits forever.
pub fn search(board: Dots, root: Edges, args: SearchArgs<'_>) -> Result<Option<Report>> {
    let (universe, _) = mpi::initialize_with_threading(Threading::Funneled)
        .context("MPI was already initialised in this process")?;
    let world = universe.world();
    let rank = world.rank() as usize;
    let result = if rank == 0 {
        coordinate_on_rank_0(board, root, &world, &args).map(Some)
    } else {
        let fail = args.fail_rank == Some(rank);
        let endpoint = ToCoordinator { world: &world };
        worker::serve(
            &endpoint,
            board,
            args.limits.clone(),
            rank,
            fail,
            args.sharing,
        )
        .map(|()| None)
    };
    match result {
        Ok(report) => Ok(report),
        Err(error) => {
            eprintln!("solvedb: rank {rank}: {error:#}");
            world.abort(1)
        }
    }
}

fn coordinate_on_rank_0(
    board: Dots,
    root: Edges,
    world: &SimpleCommunicator,
    args: &SearchArgs<'_>,
) -> Result<Report> {
    let ranks = world.size() as usize;
    let (tree, checkpoint, resumed) = prepare(board, root, ranks, args.depth, args.checkpoint)?;
    let (own, worker_end) = link();
    let hub = ToWorkers { world, own };
    let fail = args.fail_rank == Some(0);
    std::thread::scope(|scope| {
        let limits = args.limits.clone();
        let sharing = args.sharing;
        let own_worker =
            scope.spawn(move || worker::serve(&worker_end, board, limits, 0, fail, sharing));
        let plan = Plan {
            board,
            tree,
            checkpoint: checkpoint.as_ref(),
            resumed,
            stop_after: args.stop_after,
        };
        let report = match coordinate(&hub, plan) {
            Ok(report) => report,
            Err(error) => {
                // The thread would wait for jobs forever: end the job here.
                eprintln!("solvedb: rank 0: {error:#}");
                world.abort(1)
            }
        };
        own_worker
            .join()
            .map_err(|_| anyhow!("rank 0's worker panicked"))??;
        Ok(report)
    })
}
