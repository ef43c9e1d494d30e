//! [`Rooms`]: every open room, and the quotas on making them.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::limits::RoomLimits;
use super::room::{IDLE, Room};
use crate::http::error::ApiError;
use crate::http::rate::Buckets;

/// Every open room.
#[derive(Debug)]
pub struct Rooms {
    open: Mutex<HashMap<String, Arc<Room>>>,
    /// The bounds.
    pub limits: RoomLimits,
    /// Room creations per address.
    creations: Buckets,
    /// Set by [`close_all`](Rooms::close_all): no room is made or joined
    /// any more.
    pub(crate) closing: AtomicBool,
    /// WebSocket connections running (or accepted and upgrading), in every
    /// room.
    pub(crate) live: AtomicUsize,
    /// Each connection's number, to tell a seat's newest from its older.
    pub(crate) connection_ids: AtomicU64,
}

/// Why every room closes when the server stops.
pub(crate) const SHUTTING_DOWN: &str = "the server is shutting down";

impl Rooms {
    /// No rooms yet.
    pub fn new(limits: RoomLimits) -> Rooms {
        Rooms {
            open: Mutex::new(HashMap::new()),
            limits,
            creations: Buckets::new(limits.create_burst, limits.creates_per_second),
            closing: AtomicBool::new(false),
            live: AtomicUsize::new(0),
            connection_ids: AtomicU64::new(1),
        }
    }

    /// Closes every room for a server that stops: each connection is sent
    /// a Close frame (1001, "the server is shutting down") and ends, and
    /// rooms are neither made nor joined any more.
    pub fn close_all(&self) {
        self.closing.store(true, Ordering::SeqCst);
        let rooms: Vec<Arc<Room>> = self.map().drain().map(|(_, room)| room).collect();
        for room in rooms {
            room.close(SHUTTING_DOWN);
        }
    }

    /// Waits until every connection has ended, at most `bound`; returns
    /// how many are still open then.
    pub async fn drained(&self, bound: Duration) -> usize {
        let deadline = Instant::now() + bound;
        loop {
            let live = self.live.load(Ordering::SeqCst);
            if live == 0 || Instant::now() >= deadline {
                return live;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// WebSocket connections open now, in every room.
    pub fn websockets(&self) -> usize {
        self.live.load(Ordering::SeqCst)
    }

    pub(crate) fn refuse_if_closing(&self) -> Result<(), ApiError> {
        if self.closing.load(Ordering::SeqCst) {
            return Err(ApiError::budget(SHUTTING_DOWN));
        }
        Ok(())
    }

    pub(crate) fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Room>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Rooms open now.
    pub fn count(&self) -> usize {
        self.map().len()
    }

    pub(crate) fn get(&self, id: &str) -> Option<Arc<Room>> {
        self.map().get(id).cloned()
    }

    /// Closes the rooms that have expired.
    pub(crate) fn sweep(&self) {
        let expired: Vec<Arc<Room>> = {
            let mut map = self.map();
            let ids: Vec<String> = map
                .iter()
                .filter(|(_, room)| room.expired(&self.limits).is_some())
                .map(|(id, _)| id.clone())
                .collect();
            ids.iter().filter_map(|id| map.remove(id)).collect()
        };
        for room in expired {
            let why = room.expired(&self.limits).unwrap_or(IDLE);
            room.close(why);
        }
    }

    /// Closes `room` if it has expired; whether it did.
    pub(crate) fn expire(&self, room: &Room) -> bool {
        let Some(why) = room.expired(&self.limits) else {
            return false;
        };
        self.map().remove(&room.id);
        room.close(why);
        true
    }

    /// Whether `client` may create a room now: its rate and its quota of
    /// open rooms (checked again, with the global limit, on insert).
    pub(crate) fn may_create(&self, client: IpAddr) -> Result<(), ApiError> {
        self.refuse_if_closing()?;
        let mine = self.map().values().filter(|r| r.creator == client).count();
        if mine >= self.limits.per_address {
            return Err(ApiError::budget(format!(
                "your address has {mine} rooms open, the most one address may: finish or leave one"
            )));
        }
        if !self.creations.take(client) {
            return Err(ApiError::budget(format!(
                "your address created {} rooms in a short time, the most it may: try again later",
                self.limits.create_burst
            )));
        }
        Ok(())
    }

    pub(crate) fn insert(&self, room: Arc<Room>) -> Result<(), ApiError> {
        self.refuse_if_closing()?;
        self.sweep();
        let mut map = self.map();
        if map.len() >= self.limits.rooms {
            // Finished games nobody is looking at any more make way: a
            // finished room otherwise stays open (for its review) until
            // idle.
            map.retain(|_, open| {
                let gone = open.state().game.result.is_some()
                    && open.connections.load(Ordering::SeqCst) == 0;
                if gone {
                    open.close(IDLE);
                }
                !gone
            });
        }
        if map.len() >= self.limits.rooms {
            return Err(ApiError::budget(format!(
                "{} rooms are open, the limit: try again later",
                map.len()
            )));
        }
        let mine = map.values().filter(|r| r.creator == room.creator).count();
        if mine >= self.limits.per_address {
            return Err(ApiError::budget(format!(
                "your address has {mine} rooms open, the most one address may"
            )));
        }
        map.insert(room.id.clone(), room);
        Ok(())
    }
}
