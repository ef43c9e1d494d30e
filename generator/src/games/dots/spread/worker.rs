//! A worker of a spread search: one solver with its own transposition
//! table, answering the coordinator's jobs (null-window tests) one at a
//! time until told to quit.
//!
//! With [`Sharing`], after each job the worker sends the bounds its table
//! holds on the positions a few plies below the job's leaf (those it has
//! not sent, or has narrowed since), and learns those the coordinator
//! relays from the other workers before its next job: positions below two
//! leaves are where ranks with tables of their own duplicate work.
//!
//! The test runs on a thread of its own while this thread watches the
//! coordinator for a cancellation, which stops the test through its
//! [`Stop`]. Only this thread talks to the coordinator (MPI's `Funneled`
//! level).

use std::collections::HashMap;
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Result, bail};
use solvedb_lookup::games::dots::{EndgameSolver, Fact};
use solvedb_lookup::{Dots, Edges, Error, SearchLimits, Stop};

use super::messages::{Endpoint, Message, WorkerStats};
use crate::games::dots::distributed::{cpu_centis, peak_rss_kib};

/// The longest a waiting worker sleeps between looks at its messages.
const MAX_NAP: Duration = Duration::from_millis(1);

/// Facts a message carries at most: 2 KB, well within MPI's eager
/// limits, so that a worker and the coordinator sending each other facts
/// at once never both wait for the other to receive.
const FACTS_A_MESSAGE: usize = 128;

/// Which proved bounds a worker hands on after each job: those of the
/// positions 1 to `plies` moves below the job's leaf whose search visited
/// at least `2^(min_work - 1)` positions. No plies: none.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Sharing {
    /// Plies below the leaf.
    pub plies: u32,
    /// The least work (`log2` of the positions visited, plus one).
    pub min_work: u32,
}

/// The coordinator's next message, waiting for it with naps that grow
/// from 20 µs to a millisecond.
pub fn receive(endpoint: &dyn Endpoint) -> Result<Message> {
    let mut nap = Duration::from_micros(20);
    loop {
        if let Some(bytes) = endpoint.try_receive()? {
            return Message::decode(&bytes);
        }
        std::thread::sleep(nap);
        nap = (nap * 2).min(MAX_NAP);
    }
}

/// Answers jobs for `board` until the coordinator says quit, then sends
/// it this worker's figures. `fail` (the tests of a rank that dies) makes
/// the process abort when the first job comes, after saying so as
/// `rank {rank} aborts` on standard error.
///
/// # Errors
///
/// A broken link, a message out of place, or a solver that fails other
/// than by cancellation (no memory for its table).
pub fn serve(
    endpoint: &dyn Endpoint,
    board: Dots,
    limits: SearchLimits,
    rank: usize,
    fail: bool,
    sharing: Sharing,
) -> Result<()> {
    let mut solver = EndgameSolver::new(board, limits);
    let mut stats = WorkerStats::default();
    let mut sent: HashMap<u64, (i32, i32)> = HashMap::new();
    let mut learnt = Vec::new();
    loop {
        match receive(endpoint)? {
            Message::Job {
                id,
                mask,
                threshold,
            } => {
                if fail {
                    eprintln!(
                        "solvedb: rank {rank} aborts at its first job, as --mpi-fail-rank asks"
                    );
                    std::process::abort();
                }
                solver.learn(&learnt)?;
                learnt.clear();
                let before = solver.nodes();
                let answer = run_job(endpoint, &mut solver, id, mask, threshold, &mut learnt)?;
                let nodes = solver.nodes() - before;
                stats.nodes += nodes;
                stats.jobs += 1;
                if answer.is_none() {
                    stats.cancelled_nodes += nodes;
                }
                if sharing.plies > 0 {
                    share(endpoint, &solver, Edges(mask), sharing, &mut sent)?;
                }
                endpoint.send(&Message::Answer { id, answer, nodes }.encode())?;
            }
            // A cancellation that crossed the job's answer.
            Message::Cancel { .. } => {}
            Message::Facts(facts) => learnt.extend(facts),
            Message::Quit => {
                stats.cpu_centis = cpu_centis();
                stats.peak_kib = peak_rss_kib();
                return endpoint.send(&Message::Stats(stats).encode());
            }
            other => bail!("a worker was sent {other:?}"),
        }
    }
}

/// Sends the coordinator the facts below `leaf` not sent before with these
/// bounds.
fn share(
    endpoint: &dyn Endpoint,
    solver: &EndgameSolver,
    leaf: Edges,
    sharing: Sharing,
    sent: &mut HashMap<u64, (i32, i32)>,
) -> Result<()> {
    let fresh: Vec<Fact> = solver
        .proved_below(leaf, sharing.plies, sharing.min_work)
        .into_iter()
        .filter(|f| sent.insert(f.mask, (f.lower, f.upper)) != Some((f.lower, f.upper)))
        .collect();
    for chunk in fresh.chunks(FACTS_A_MESSAGE) {
        endpoint.send(&Message::Facts(chunk.to_vec()).encode())?;
    }
    Ok(())
}

/// One job: the test on its own thread, cancelled if the coordinator asks.
/// `None` if cancelled.
fn run_job(
    endpoint: &dyn Endpoint,
    solver: &mut EndgameSolver,
    id: u64,
    mask: u64,
    threshold: i32,
    learnt: &mut Vec<Fact>,
) -> Result<Option<i32>> {
    let stop = Stop::new(None, None);
    let (done_tx, done_rx) = mpsc::channel();
    let result = std::thread::scope(|scope| -> Result<Result<i32, Error>> {
        let test_stop = stop.clone();
        scope.spawn(move || {
            let answer = solver.test(Edges(mask), threshold, test_stop);
            let _ = done_tx.send(answer);
        });
        loop {
            match done_rx.recv_timeout(MAX_NAP) {
                Ok(answer) => return Ok(answer),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => bail!("a job's thread died"),
            }
            while let Some(bytes) = endpoint.try_receive()? {
                match Message::decode(&bytes)? {
                    Message::Cancel { id: cancelled } if cancelled == id => stop.cancel(),
                    Message::Cancel { .. } => {}
                    Message::Facts(facts) => learnt.extend(facts),
                    other => bail!("a worker busy with a job was sent {other:?}"),
                }
            }
        }
    })?;
    match result {
        Ok(answer) => Ok(Some(answer)),
        Err(Error::Cancelled) => Ok(None),
        Err(e) => Err(e.into()),
    }
}
