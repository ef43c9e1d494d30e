//! The MPI side of the distributed dots build (cargo feature `mpi`):
//! `mpirun -n K solvedb build dots:MxN --mpi`. The pass itself and the
//! table's assembly are [`distributed`](crate::games::dots::distributed),
//! which only needs a [`Transport`]; this module is that transport over
//! MPI (the `mpi` crate, rsmpi, over the machine's MPI library) and the
//! writing of the file by rank 0.
//!
//! Failure: any error on any rank calls `MPI_Abort`, which makes `mpirun`
//! end every rank and exit non-zero; a rank that dies is noticed by
//! `mpirun` the same way. Only rank 0 writes, once every share has arrived,
//! through [`install_table`] (temporary file, fsync, rename), so a failed
//! run leaves no table under the final name.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, ensure};
use mpi::Threading;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, Destination, Source};
use solvedb_lookup::{Dots, Game};

use crate::build::install_table;
use crate::games::dots::distributed::{Assembled, Plan, Transport, build_table};

/// MPI's world communicator as a [`Transport`].
pub struct World {
    world: SimpleCommunicator,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "World(rank {} of {})", self.rank(), self.size())
    }
}

impl Transport for World {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn size(&self) -> usize {
        self.world.size() as usize
    }

    fn send(&self, to: usize, bytes: &[u8]) -> Result<()> {
        // MPI counts elements in an `i32`; messages are cut far below it.
        ensure!(
            i32::try_from(bytes.len()).is_ok(),
            "message too long for MPI"
        );
        self.world.process_at_rank(to as i32).send(bytes);
        Ok(())
    }

    fn receive(&self, from: usize) -> Result<Vec<u8>> {
        let (bytes, _status) = self.world.process_at_rank(from as i32).receive_vec::<u8>();
        Ok(bytes)
    }
}

/// What rank 0 reports of a distributed build.
#[derive(Debug)]
pub struct MpiBuilt {
    /// The table's counts, bytes and the ranks' figures.
    pub table: Assembled,
    /// Where the table was written.
    pub path: PathBuf,
    /// Blocks in the file.
    pub blocks: u64,
    /// Wall time from MPI's start to the file's rename, on rank 0.
    pub wall: Duration,
}

/// Runs this process's rank of the distributed build of `board` and, on
/// rank 0, writes the table into `dir`. `fail_rank` makes that rank abort
/// halfway through the pass (for the tests of a dying rank). Returns the
/// report on rank 0, `None` on the others.
///
/// # Errors
///
/// If MPI was already started. Every other failure aborts the whole job
/// through `MPI_Abort` after printing it, so that no rank waits forever.
pub fn build(
    board: Dots,
    dir: &Path,
    level: i32,
    fail_rank: Option<usize>,
) -> Result<Option<MpiBuilt>> {
    let started = Instant::now();
    // Only the main thread calls MPI; rayon's threads only compute.
    let (universe, _) = mpi::initialize_with_threading(Threading::Funneled)
        .context("MPI was already initialised in this process")?;
    let net = World {
        world: universe.world(),
    };
    let rank = net.rank();
    let result: Result<Option<MpiBuilt>> = (|| {
        let plan = Plan::new(board, net.size())?;
        let halfway = plan.top_layer() / 2;
        let mut on_layer = |layer: u32| {
            if fail_rank == Some(rank) && layer == halfway {
                eprintln!("solvedb: rank {rank} aborts at layer {layer}, as --mpi-fail-rank asks");
                std::process::abort();
            }
        };
        let Some(table) = build_table(&plan, &net, level, &mut on_layer)? else {
            return Ok(None);
        };
        let (path, blocks) = install_table(board.id(), dir, &table.bytes)?;
        Ok(Some(MpiBuilt {
            table,
            path,
            blocks,
            wall: started.elapsed(),
        }))
    })();
    match result {
        Ok(built) => Ok(built),
        Err(error) => {
            eprintln!("solvedb: rank {rank}: {error:#}");
            net.world.abort(1)
        }
    }
}
