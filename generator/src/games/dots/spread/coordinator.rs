//! The coordinator of a spread search: MTD(f) at the root (Plaat et al.
//! 1996) over the split tree, each null-window test of the root answered by
//! jobs on the workers.
//!
//! For the test at `t`, the jobs are the open leaf questions it depends on
//! ([`SplitTree::needed`]), most promising first, then those of the test
//! MTD(f) would run beside it (as the single-process driver pairs its
//! first two tests) for workers left idle. A worker gets the first
//! question no other has; a question the bounds have answered meanwhile is
//! cancelled on its worker, which then takes the next. This is job-level
//! parallelism with speculation at the top of the tree, in the manner of
//! Feldmann's distributed Young Brothers Wait (the first move of an OR
//! node is not waited for: MTD(f)'s null windows make the order of the
//! leaves the only speculation). Every answer is a proved bound on a leaf,
//! so answers that arrive late still count.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use solvedb_lookup::Dots;
use solvedb_lookup::games::dots::Fact;

use super::checkpoint::Checkpoint;
use super::messages::{Hub, Message, WorkerStats};
use super::split::{Question, SplitTree};

/// How often at most the checkpoint is rewritten (and a line of progress
/// printed) while jobs finish.
const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

/// What the coordinator is asked to do.
#[derive(Debug)]
pub struct Plan<'a> {
    /// The board.
    pub board: Dots,
    /// The split tree of the root, with whatever facts are known.
    pub tree: SplitTree,
    /// The checkpoint to keep, if any.
    pub checkpoint: Option<&'a Checkpoint>,
    /// Facts read from the checkpoint (counted in the report).
    pub resumed: usize,
    /// Stop (abort the process) after this many answers are recorded and
    /// written: the tests of a search killed midway.
    pub stop_after: Option<u64>,
}

/// What a spread search found and did.
#[derive(Debug)]
pub struct Report {
    /// The root's margin.
    pub value: i32,
    /// The plies split and the leaves.
    pub depth: u32,
    /// Distinct leaves.
    pub leaves: usize,
    /// Leaves whose margin the search knows exactly.
    pub exact_leaves: usize,
    /// Null-window tests of the root.
    pub tests: u32,
    /// Jobs sent, and of them cancelled.
    pub jobs: u64,
    /// Jobs cancelled (their positions are in the workers' `cancelled_nodes`).
    pub cancelled: u64,
    /// Facts read from the checkpoint.
    pub resumed: usize,
    /// Bytes the coordinator sent and received (the payloads).
    pub bytes: u64,
    /// Proved bounds relayed from one worker to the others.
    pub facts: u64,
    /// Each worker's figures, by rank.
    pub workers: Vec<WorkerStats>,
    /// Wall time.
    pub wall: Duration,
}

/// A job on its worker.
#[derive(Clone, Copy, Debug)]
struct Busy {
    id: u64,
    question: Question,
    cancelled: bool,
}

/// The coordinator's state between messages.
struct Run<'h> {
    hub: &'h dyn Hub,
    busy: Vec<Option<Busy>>,
    next_id: u64,
    jobs: u64,
    cancelled: u64,
    bytes: u64,
    answers: u64,
    /// Facts relayed between workers.
    relayed: u64,
    /// Workers that have not yet sent their figures.
    listening: Vec<bool>,
}

impl Run<'_> {
    fn send(&mut self, worker: usize, message: Message) -> Result<()> {
        let bytes = message.encode();
        self.bytes += bytes.len() as u64;
        self.hub.send(worker, &bytes)
    }

    /// The next message from any worker, waiting for it.
    fn receive(&mut self) -> Result<(usize, Message)> {
        let mut nap = Duration::from_micros(5);
        loop {
            if let Some((worker, bytes)) = self.hub.try_receive(&self.listening)? {
                self.bytes += bytes.len() as u64;
                return Ok((worker, Message::decode(&bytes)?));
            }
            std::thread::sleep(nap);
            nap = (nap * 2).min(Duration::from_millis(1));
        }
    }

    /// Sends the facts `from` proved to every other worker.
    fn relay(&mut self, from: usize, facts: Vec<Fact>) -> Result<()> {
        self.relayed += facts.len() as u64;
        let message = Message::Facts(facts);
        for w in (0..self.busy.len()).filter(|&w| w != from) {
            self.send(w, message.clone())?;
        }
        Ok(())
    }

    /// Cancels the jobs not `wanted`, gives idle workers the first wanted
    /// questions no worker has.
    fn dispatch(&mut self, wanted: &[Question]) -> Result<()> {
        for w in 0..self.busy.len() {
            if let Some(busy) = self.busy[w] {
                if !busy.cancelled && !wanted.contains(&busy.question) {
                    self.send(w, Message::Cancel { id: busy.id })?;
                    self.busy[w] = Some(Busy {
                        cancelled: true,
                        ..busy
                    });
                    self.cancelled += 1;
                }
            }
        }
        let in_flight: Vec<Question> = self.busy.iter().flatten().map(|b| b.question).collect();
        let mut open = wanted.iter().filter(|q| !in_flight.contains(q));
        for w in 0..self.busy.len() {
            if self.busy[w].is_some() {
                continue;
            }
            let Some(&question) = open.next() else { break };
            self.next_id += 1;
            self.busy[w] = Some(Busy {
                id: self.next_id,
                question,
                cancelled: false,
            });
            self.jobs += 1;
            let message = Message::Job {
                id: self.next_id,
                mask: question.mask,
                threshold: question.threshold,
            };
            self.send(w, message)?;
        }
        Ok(())
    }
}

/// Runs the spread search of `plan` on the workers behind `hub`, then
/// tells them to quit and gathers their figures.
///
/// # Errors
///
/// A broken link, a malformed or unexpected message, contradictory
/// bounds, or a checkpoint that cannot be written.
pub fn coordinate(hub: &dyn Hub, plan: Plan<'_>) -> Result<Report> {
    let started = Instant::now();
    let Plan {
        board,
        mut tree,
        checkpoint,
        resumed,
        stop_after,
    } = plan;
    let mut run = Run {
        hub,
        busy: vec![None; hub.workers()],
        next_id: 0,
        jobs: 0,
        cancelled: 0,
        bytes: 0,
        answers: 0,
        relayed: 0,
        listening: vec![true; hub.workers()],
    };
    let parity = (board.remaining_boxes(tree.root()) % 2) as i32;
    let mut guess = -parity;
    let mut tests = 0;
    let mut written = Instant::now();
    let value = loop {
        let (lower, upper) = tree.root_bounds();
        if lower >= upper {
            break lower;
        }
        let t = guess.clamp(lower, upper - 2);
        tests += 1;
        loop {
            let (lower, upper) = tree.root_bounds();
            if lower > t || upper <= t {
                guess = if lower > t { lower } else { upper - 2 };
                break;
            }
            let mut wanted = tree.needed(t);
            let beside = if parity == 0 { t - 2 } else { t + 2 };
            if lower <= beside && beside <= upper - 2 {
                for q in tree.needed(beside) {
                    if !wanted.contains(&q) {
                        wanted.push(q);
                    }
                }
            }
            run.dispatch(&wanted)?;
            let (worker, message) = run.receive()?;
            if let Message::Facts(facts) = message {
                run.relay(worker, facts)?;
                continue;
            }
            let Message::Answer { id, answer, .. } = message else {
                bail!("worker {worker} sent {message:?} during the search");
            };
            let Some(busy) = run.busy[worker].filter(|b| b.id == id) else {
                bail!("worker {worker} answered job {id}, which it does not have");
            };
            run.busy[worker] = None;
            let Some(answer) = answer else { continue };
            tree.record(busy.question, answer)?;
            run.answers += 1;
            let stopping = stop_after == Some(run.answers);
            if let Some(checkpoint) = checkpoint {
                if stopping || written.elapsed() >= CHECKPOINT_EVERY {
                    checkpoint.write(tree.depth(), &tree.facts())?;
                    written = Instant::now();
                    let (lower, upper) = tree.root_bounds();
                    eprintln!(
                        "solvedb: {:.0} s: {} answers, root {lower}..{upper}, testing above {t}, \
                         {} of {} leaves open for it, {} leaves known exactly",
                        started.elapsed().as_secs_f64(),
                        run.answers,
                        tree.needed(t).len(),
                        tree.leaves(),
                        tree.exact_leaves()
                    );
                }
            }
            if stopping {
                eprintln!(
                    "solvedb: the coordinator stops after {} answers, as --mpi-stop-after asks",
                    run.answers
                );
                std::process::abort();
            }
        }
    };
    if let Some(checkpoint) = checkpoint {
        checkpoint.write(tree.depth(), &tree.facts())?;
    }
    let workers = finish(&mut run)?;
    Ok(Report {
        value,
        depth: tree.depth(),
        leaves: tree.leaves(),
        exact_leaves: tree.exact_leaves(),
        tests,
        jobs: run.jobs,
        cancelled: run.cancelled,
        resumed,
        bytes: run.bytes,
        facts: run.relayed,
        workers,
        wall: started.elapsed(),
    })
}

/// Waits out the jobs still running (cancelled), tells every worker to
/// quit and gathers their figures.
fn finish(run: &mut Run<'_>) -> Result<Vec<WorkerStats>> {
    run.dispatch(&[])?;
    let mut stats: HashMap<usize, WorkerStats> = HashMap::new();
    for w in 0..run.busy.len() {
        if run.busy[w].is_none() {
            run.send(w, Message::Quit)?;
        }
    }
    while stats.len() < run.busy.len() {
        match run.receive()? {
            (w, Message::Answer { .. }) => {
                run.busy[w] = None;
                run.send(w, Message::Quit)?;
            }
            // Facts from a cancelled job, with no search left to use them.
            (_, Message::Facts(_)) => {}
            (w, Message::Stats(s)) => {
                run.listening[w] = false;
                stats.insert(w, s);
            }
            (w, other) => bail!("worker {w} sent {other:?} at the end"),
        }
    }
    Ok((0..run.busy.len()).map(|w| stats[&w]).collect())
}
