//! What the coordinator and the workers of a spread search say to each
//! other, as little-endian 64-bit words, and the links that carry it.
//!
//! A job is 32 bytes and its answer 40: a search moves 72 bytes a job
//! (and MPI's envelope). Proved bounds relayed between workers are 16
//! bytes a position.

use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};

use anyhow::{Result, anyhow, bail, ensure};
use solvedb_lookup::games::dots::Fact;

/// One message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// Coordinator to worker: test whether `mask`'s margin is above
    /// `threshold`.
    Job { id: u64, mask: u64, threshold: i32 },
    /// Coordinator to worker: job `id` is no longer needed.
    Cancel { id: u64 },
    /// Worker to coordinator: job `id`'s fail-soft answer, or `None` if it
    /// was cancelled; the positions it visited.
    Answer {
        id: u64,
        answer: Option<i32>,
        nodes: u64,
    },
    /// Coordinator to worker: no more jobs; answer with [`Message::Stats`].
    Quit,
    /// Worker to coordinator, its last word: what it did.
    Stats(WorkerStats),
    /// Worker to coordinator, and coordinator to the other workers: bounds
    /// a worker's table proved below a job's leaf.
    Facts(Vec<Fact>),
}

/// What one worker did over the search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorkerStats {
    /// Positions visited, cancelled jobs included.
    pub nodes: u64,
    /// Jobs answered.
    pub jobs: u64,
    /// Positions visited by jobs that were cancelled.
    pub cancelled_nodes: u64,
    /// CPU time of the worker's process, in hundredths of a second (the
    /// coordinator's rank counts its own coordinating too).
    pub cpu_centis: u64,
    /// Peak resident memory of the worker's process, KiB.
    pub peak_kib: u64,
}

impl Message {
    /// The message's bytes.
    pub fn encode(&self) -> Vec<u8> {
        let words: Vec<u64> = match self {
            Message::Job {
                id,
                mask,
                threshold,
            } => vec![1, *id, *mask, i64::from(*threshold) as u64],
            Message::Cancel { id } => vec![2, *id],
            Message::Answer { id, answer, nodes } => match answer {
                Some(a) => vec![3, *id, 1, i64::from(*a) as u64, *nodes],
                None => vec![3, *id, 0, 0, *nodes],
            },
            Message::Quit => vec![4],
            Message::Stats(s) => vec![
                5,
                s.nodes,
                s.jobs,
                s.cancelled_nodes,
                s.cpu_centis,
                s.peak_kib,
            ],
            Message::Facts(facts) => std::iter::once(6)
                .chain(facts.iter().flat_map(|f| [f.mask, pack_fact(f)]))
                .collect(),
        };
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// The message `bytes` hold.
    ///
    /// # Errors
    ///
    /// Bytes that are no message.
    pub fn decode(bytes: &[u8]) -> Result<Message> {
        if bytes.len() % 8 != 0 {
            bail!("a message of {} bytes", bytes.len());
        }
        let words: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        let small =
            |w: u64| i32::try_from(w as i64).map_err(|_| anyhow!("margin {w} out of range"));
        Ok(match words[..] {
            [1, id, mask, threshold] => Message::Job {
                id,
                mask,
                threshold: small(threshold)?,
            },
            [2, id] => Message::Cancel { id },
            [3, id, done, answer, nodes] => Message::Answer {
                id,
                answer: if done == 1 {
                    Some(small(answer)?)
                } else {
                    None
                },
                nodes,
            },
            [4] => Message::Quit,
            [5, nodes, jobs, cancelled_nodes, cpu_centis, peak_kib] => {
                Message::Stats(WorkerStats {
                    nodes,
                    jobs,
                    cancelled_nodes,
                    cpu_centis,
                    peak_kib,
                })
            }
            [6, ref rest @ ..] if rest.len() % 2 == 0 => Message::Facts(
                rest.chunks_exact(2)
                    .map(|w| unpack_fact(w[0], w[1]))
                    .collect::<Result<_>>()?,
            ),
            _ => bail!("an unknown message of {} words", words.len()),
        })
    }
}

/// A fact's bounds and work in one word: `lower + 64`, `upper + 64` and
/// the work, a byte each.
fn pack_fact(fact: &Fact) -> u64 {
    let byte = |v: i32| u64::from((v + 64).clamp(0, 255) as u8);
    byte(fact.lower) | byte(fact.upper) << 8 | u64::from(fact.work.min(255)) << 16
}

fn unpack_fact(mask: u64, word: u64) -> Result<Fact> {
    let fact = Fact {
        mask,
        lower: (word & 255) as i32 - 64,
        upper: (word >> 8 & 255) as i32 - 64,
        work: (word >> 16 & 255) as u32,
    };
    ensure!(
        word >> 24 == 0 && fact.lower <= fact.upper,
        "a malformed fact {word:#x}"
    );
    Ok(fact)
}

/// A worker's side: messages to and from the coordinator.
pub trait Endpoint {
    /// Sends `bytes` to the coordinator.
    ///
    /// # Errors
    ///
    /// If the coordinator is gone.
    fn send(&self, bytes: &[u8]) -> Result<()>;
    /// The coordinator's next message, if one has come.
    ///
    /// # Errors
    ///
    /// If the coordinator is gone.
    fn try_receive(&self) -> Result<Option<Vec<u8>>>;
}

/// The coordinator's side: messages to and from each worker.
pub trait Hub {
    /// The number of workers, `0 .. workers()`.
    fn workers(&self) -> usize;
    /// Sends `bytes` to `worker`.
    ///
    /// # Errors
    ///
    /// If the worker is gone.
    fn send(&self, worker: usize, bytes: &[u8]) -> Result<()>;
    /// The next message from any worker `w` with `listening[w]`, with its
    /// sender, if one has come. (A worker that sent its last word may be
    /// gone: it is not listened to.)
    ///
    /// # Errors
    ///
    /// If a worker listened to is gone.
    fn try_receive(&self, listening: &[bool]) -> Result<Option<(usize, Vec<u8>)>>;
}

/// One end of a two-way channel between threads of one process: the
/// coordinator's rank runs a worker on a thread of its own behind one.
#[derive(Debug)]
pub struct Link {
    to: Sender<Vec<u8>>,
    from: Receiver<Vec<u8>>,
}

/// Two ends of a two-way channel.
pub fn link() -> (Link, Link) {
    let (a_to, b_from) = channel();
    let (b_to, a_from) = channel();
    (
        Link {
            to: a_to,
            from: a_from,
        },
        Link {
            to: b_to,
            from: b_from,
        },
    )
}

impl Link {
    /// Sends `bytes` to the other end.
    ///
    /// # Errors
    ///
    /// If the other end is gone.
    pub fn send(&self, bytes: &[u8]) -> Result<()> {
        self.to
            .send(bytes.to_vec())
            .map_err(|_| anyhow!("the other end of a link is gone"))
    }

    /// The other end's next message, if one has come.
    ///
    /// # Errors
    ///
    /// If the other end is gone.
    pub fn try_receive(&self) -> Result<Option<Vec<u8>>> {
        match self.from.try_recv() {
            Ok(bytes) => Ok(Some(bytes)),
            Err(TryRecvError::Empty) => Ok(None),
            Err(TryRecvError::Disconnected) => bail!("the other end of a link is gone"),
        }
    }
}

impl Endpoint for Link {
    fn send(&self, bytes: &[u8]) -> Result<()> {
        Link::send(self, bytes)
    }

    fn try_receive(&self) -> Result<Option<Vec<u8>>> {
        Link::try_receive(self)
    }
}

/// Workers on threads of this process, each behind a link.
impl Hub for Vec<Link> {
    fn workers(&self) -> usize {
        self.len()
    }

    fn send(&self, worker: usize, bytes: &[u8]) -> Result<()> {
        self[worker].send(bytes)
    }

    fn try_receive(&self, listening: &[bool]) -> Result<Option<(usize, Vec<u8>)>> {
        for (worker, link) in self.iter().enumerate().filter(|(w, _)| listening[*w]) {
            if let Some(bytes) = link.try_receive()? {
                return Ok(Some((worker, bytes)));
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_survive_their_bytes() {
        let stats = WorkerStats {
            nodes: 1 << 40,
            jobs: 7,
            cancelled_nodes: 3,
            cpu_centis: 12,
            peak_kib: 99,
        };
        for m in [
            Message::Job {
                id: 3,
                mask: u64::MAX >> 1,
                threshold: -7,
            },
            Message::Cancel { id: 9 },
            Message::Answer {
                id: 1,
                answer: Some(-25),
                nodes: 5,
            },
            Message::Answer {
                id: 2,
                answer: None,
                nodes: 0,
            },
            Message::Quit,
            Message::Stats(stats),
            Message::Facts(vec![]),
            Message::Facts(vec![
                Fact {
                    mask: 1 << 59 | 5,
                    lower: -25,
                    upper: 3,
                    work: 31,
                },
                Fact {
                    mask: 0,
                    lower: 7,
                    upper: 7,
                    work: 1,
                },
            ]),
        ] {
            assert_eq!(Message::decode(&m.encode()).unwrap(), m);
        }
        assert!(Message::decode(&[1, 2, 3]).is_err());
        assert!(Message::decode(&[0; 8]).is_err());
        let crossed = [6u64, 1, 70 | 60 << 8].map(u64::to_le_bytes).concat();
        assert!(Message::decode(&crossed).is_err());
    }
}
