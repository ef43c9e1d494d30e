//! [`RoomLimits`]: the bounds on rooms.

use std::time::Duration;

/// The bounds on rooms.
#[derive(Copy, Clone, Debug)]
pub struct RoomLimits {
    /// Rooms open at once.
    pub rooms: usize,
    /// Rooms open at once that one client address (an IPv6 /64) created.
    pub per_address: usize,
    /// Rooms kept for addresses with none open: past `rooms` less this
    /// many, only they may create one.
    pub reserve: usize,
    /// Rooms one address may create in a burst.
    pub create_burst: u32,
    /// Rooms one address may create per second, on average.
    pub creates_per_second: f64,
    /// WebSocket connections to one room at once (players and spectators);
    /// one is kept for each seat, so spectators get two fewer.
    pub connections: usize,
    /// Players' (seats') WebSocket connections to all rooms at once;
    /// spectators are counted apart, so they never take a seat's place.
    pub websockets: usize,
    /// Spectators' WebSocket connections to all rooms at once.
    pub spectators: usize,
    /// Spectators' connections from one client address at once.
    pub spectators_per_address: usize,
    /// Spectators' places kept for addresses with none open: past
    /// `spectators` less this many, only they may open one.
    pub spectator_reserve: usize,
    /// A room with no move and no new connection for this long is closed.
    pub idle: Duration,
    /// A room whose invite nobody claimed is closed after this long
    /// without a move or a new connection.
    pub unjoined: Duration,
    /// A room with nobody connected is closed after this long without a
    /// connection arriving or leaving, if nobody claimed its invite; while
    /// the rooms are past `rooms` less `reserve`, any room with nobody
    /// connected for this long makes way for a new one.
    pub empty: Duration,
    /// Once both players have joined, the time the player to move has for
    /// a move before they forfeit (`None`: no clock). It never runs before
    /// the friend joins or after the game.
    pub move_clock: Option<Duration>,
    /// The largest message answered; a longer one is refused with an error.
    pub message_bytes: usize,
    /// The largest frame or message read at all; a longer one closes that
    /// connection with Close 1009 (the protocol's limit, not the room's).
    pub frame_bytes: usize,
    /// Messages a connection may send in a burst.
    pub burst: u32,
    /// Messages per second a connection may send on average.
    pub per_second: f64,
}

impl Default for RoomLimits {
    fn default() -> RoomLimits {
        RoomLimits {
            rooms: 1000,
            per_address: 20,
            reserve: 100,
            create_burst: 10,
            creates_per_second: 0.1,
            connections: 16,
            websockets: 2048,
            spectators: 1024,
            spectators_per_address: 32,
            spectator_reserve: 64,
            idle: Duration::from_secs(30 * 60),
            unjoined: Duration::from_secs(5 * 60),
            empty: Duration::from_secs(45),
            move_clock: Some(Duration::from_secs(5 * 60)),
            message_bytes: 1024,
            frame_bytes: 16 * 1024,
            burst: 20,
            per_second: 10.0,
        }
    }
}
