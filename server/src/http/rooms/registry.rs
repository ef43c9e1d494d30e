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
    /// Players' (seats') connections running, in every room.
    pub(crate) seated: AtomicUsize,
    /// Spectators' connections, in all and per address.
    watchers: Mutex<Watchers>,
    /// Each connection's number, to tell a seat's newest from its older.
    pub(crate) connection_ids: AtomicU64,
}

/// Spectators' connections open, in all and per client address.
#[derive(Debug, Default)]
struct Watchers {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
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
            seated: AtomicUsize::new(0),
            watchers: Mutex::new(Watchers::default()),
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

    /// Spectators' connections open now, in every room.
    pub fn spectators(&self) -> usize {
        self.watchers().total
    }

    fn watchers(&self) -> std::sync::MutexGuard<'_, Watchers> {
        self.watchers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts a spectator's connection from `client`, if its quota and the
    /// spectators' pool allow ([`RoomLimits::spectators_per_address`],
    /// [`RoomLimits::spectators`] with its reserve for addresses that have
    /// none open); [`spectator_left`](Rooms::spectator_left) counts it out.
    pub(crate) fn admit_spectator(&self, client: IpAddr) -> Result<(), ApiError> {
        let limits = self.limits;
        let mut w = self.watchers();
        let mine = w.by_address.get(&client).copied().unwrap_or(0);
        let reserved = limits.spectators.saturating_sub(limits.spectator_reserve);
        if w.total >= limits.spectators || (w.total >= reserved && mine > 0) {
            return Err(ApiError::budget(format!(
                "the server has {} spectators connected, the limit: try again later",
                w.total
            )));
        }
        if mine >= limits.spectators_per_address {
            return Err(ApiError::budget(format!(
                "your address has {mine} spectators connected, the most one address may"
            )));
        }
        w.total += 1;
        *w.by_address.entry(client).or_default() += 1;
        Ok(())
    }

    /// Counts out a spectator's connection that
    /// [`admit_spectator`](Rooms::admit_spectator) counted in.
    pub(crate) fn spectator_left(&self, client: IpAddr) {
        let mut w = self.watchers();
        w.total = w.total.saturating_sub(1);
        if let Some(n) = w.by_address.get_mut(&client) {
            *n -= 1;
            if *n == 0 {
                w.by_address.remove(&client);
            }
        }
    }

    /// Why `client` may not have one more room in `map`, if it may not:
    /// its quota, or the rooms are down to their reserve
    /// ([`RoomLimits::reserve`]) and it has one open.
    fn refusal(&self, map: &HashMap<String, Arc<Room>>, client: IpAddr) -> Option<String> {
        let limits = self.limits;
        let mine = map.values().filter(|r| r.creator == client).count();
        let reserved = limits.rooms.saturating_sub(limits.reserve);
        if map.len() >= limits.rooms || (map.len() >= reserved && mine > 0) {
            return Some(format!(
                "{} rooms are open, the limit: try again later",
                map.len()
            ));
        }
        if mine >= limits.per_address {
            return Some(format!(
                "your address has {mine} rooms open, the most one address may: finish or leave one"
            ));
        }
        None
    }

    /// Whether `client` may create a room now: its rate, its quota of
    /// open rooms and the pool (checked again on insert, after rooms that
    /// may make way for it did).
    pub(crate) fn may_create(&self, client: IpAddr) -> Result<(), ApiError> {
        self.refuse_if_closing()?;
        {
            let mut map = self.map();
            self.make_way(&mut map);
            if let Some(why) = self.refusal(&map, client) {
                return Err(ApiError::budget(why));
            }
        }
        if !self.creations.take(client) {
            return Err(ApiError::budget(format!(
                "your address created {} rooms in a short time, the most it may: try again later",
                self.limits.create_burst
            )));
        }
        Ok(())
    }

    /// While the rooms are past their reserve line, closes those that may
    /// make way ([`Room::reclaimable`]): nobody connected, and the game
    /// over or nothing happening for [`RoomLimits::empty`].
    fn make_way(&self, map: &mut HashMap<String, Arc<Room>>) {
        let limits = self.limits;
        if map.len() < limits.rooms.saturating_sub(limits.reserve) {
            return;
        }
        map.retain(|_, open| {
            let gone = open.reclaimable(&limits);
            if gone {
                open.close(IDLE);
            }
            !gone
        });
    }

    pub(crate) fn insert(&self, room: Arc<Room>) -> Result<(), ApiError> {
        self.refuse_if_closing()?;
        self.sweep();
        let mut map = self.map();
        self.make_way(&mut map);
        if let Some(why) = self.refusal(&map, room.creator) {
            return Err(ApiError::budget(why));
        }
        map.insert(room.id.clone(), room);
        Ok(())
    }
}
