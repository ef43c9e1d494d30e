//! [`Readers`]: the reading connections, handed out first come, first
//! served.
//!
//! Reads are short (a page is about twenty index seeks), so what decides
//! their tail is how long a reader waits for a connection. With a lock per
//! connection a waiter queues behind one connection and may lose it again
//! and again to newcomers (a mutex is not fair); with more connections
//! than cores, reads preempt each other mid-page. Here there are as many
//! connections as the machine has cores ([`Readers::count`]) and one queue
//! in arrival order: a connection given back goes straight to the oldest
//! waiter. `cargo test -p solvedb-server --lib store::read_bench --
//! --ignored --nocapture` measures it (30 threads against 100,000
//! players; docs/server.md has the figures).

use std::collections::VecDeque;
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use rusqlite::Connection;

/// The reading connections and the queue for them.
#[derive(Debug)]
pub(super) struct Readers {
    connections: Vec<Mutex<Connection>>,
    turns: Mutex<Turns>,
}

/// Connections free to take, and the readers waiting in arrival order.
#[derive(Debug, Default)]
struct Turns {
    free: usize,
    waiting: VecDeque<Arc<Waiter>>,
}

/// One waiting reader: told when a connection is its.
#[derive(Debug, Default)]
struct Waiter {
    given: Mutex<bool>,
    wake: Condvar,
}

/// A reading connection, given back (to the oldest waiter) when dropped;
/// or the writer's, where a database in memory has no readers of its own.
pub(super) struct Reader<'a> {
    connection: Option<MutexGuard<'a, Connection>>,
    readers: Option<&'a Readers>,
}

impl<'a> Reader<'a> {
    /// The writer's connection, read with.
    pub(super) fn writer(connection: MutexGuard<'a, Connection>) -> Reader<'a> {
        Reader {
            connection: Some(connection),
            readers: None,
        }
    }
}

fn unpoisoned<T>(guard: Result<T, PoisonError<T>>) -> T {
    guard.unwrap_or_else(PoisonError::into_inner)
}

impl Readers {
    /// Connections to read a database in a file with: one per core, at
    /// least two.
    pub(super) fn count() -> usize {
        std::thread::available_parallelism().map_or(2, |n| n.get().max(2))
    }

    pub(super) fn new(connections: Vec<Connection>) -> Readers {
        Readers {
            turns: Mutex::new(Turns {
                free: connections.len(),
                waiting: VecDeque::new(),
            }),
            connections: connections.into_iter().map(Mutex::new).collect(),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.connections.is_empty()
    }

    /// Every connection, locked in turn (settings, tests).
    pub(super) fn each(&self) -> impl Iterator<Item = MutexGuard<'_, Connection>> {
        self.connections.iter().map(|c| unpoisoned(c.lock()))
    }

    /// A connection: at once if one is free and nobody waits, else after
    /// every reader that came earlier.
    pub(super) fn take(&self) -> Reader<'_> {
        let waiter = {
            let mut turns = unpoisoned(self.turns.lock());
            if turns.free > 0 && turns.waiting.is_empty() {
                turns.free -= 1;
                None
            } else {
                let waiter = Arc::new(Waiter::default());
                turns.waiting.push_back(Arc::clone(&waiter));
                Some(waiter)
            }
        };
        if let Some(waiter) = waiter {
            let mut given = unpoisoned(waiter.given.lock());
            while !*given {
                given = unpoisoned(waiter.wake.wait(given));
            }
        }
        // This reader holds one of `connections.len()` turns, so one
        // connection is unlocked (or being unlocked by a reader that has
        // just given its turn back).
        let connection = loop {
            if let Some(guard) = self.connections.iter().find_map(|c| c.try_lock().ok()) {
                break guard;
            }
            std::thread::yield_now();
        };
        Reader {
            connection: Some(connection),
            readers: Some(self),
        }
    }

    fn give_back(&self) {
        let mut turns = unpoisoned(self.turns.lock());
        match turns.waiting.pop_front() {
            Some(waiter) => {
                *unpoisoned(waiter.given.lock()) = true;
                waiter.wake.notify_one();
            }
            None => turns.free += 1,
        }
    }
}

impl Deref for Reader<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.connection.as_ref().expect("held until dropped")
    }
}

impl DerefMut for Reader<'_> {
    fn deref_mut(&mut self) -> &mut Connection {
        self.connection.as_mut().expect("held until dropped")
    }
}

impl Drop for Reader<'_> {
    fn drop(&mut self) {
        // The connection first, then the turn: the next reader finds it
        // unlocked.
        drop(self.connection.take());
        if let Some(readers) = self.readers {
            readers.give_back();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    fn readers(n: usize) -> Readers {
        Readers::new(
            (0..n)
                .map(|_| Connection::open_in_memory().unwrap())
                .collect(),
        )
    }

    #[test]
    fn waiters_are_served_in_arrival_order() {
        let readers = Arc::new(readers(1));
        let held = readers.take();
        let (served, order) = mpsc::channel();
        let mut threads = Vec::new();
        for i in 0..4 {
            let mine = Arc::clone(&readers);
            let served = served.clone();
            threads.push(std::thread::spawn(move || {
                let _reader = mine.take();
                served.send(i).unwrap();
            }));
            // Each waiter queued before the next arrives.
            while unpoisoned(readers.turns.lock()).waiting.len() < i + 1 {
                std::thread::sleep(Duration::from_millis(1));
            }
        }
        drop(held);
        for thread in threads {
            thread.join().unwrap();
        }
        let order: Vec<_> = order.try_iter().collect();
        assert_eq!(order, vec![0, 1, 2, 3]);
    }

    #[test]
    fn every_connection_is_used_and_turns_are_given_back() {
        let readers = readers(2);
        let a = readers.take();
        let b = readers.take();
        // Two different connections at once.
        assert!(!std::ptr::eq(&*a, &*b));
        drop(a);
        drop(b);
        let turns = unpoisoned(readers.turns.lock());
        assert_eq!((turns.free, turns.waiting.len()), (2, 0));
    }
}
