//! The rooms themselves, apart from their routes
//! ([`room_routes`](super::room_routes)) and their WebSockets
//! ([`room_socket`](super::room_socket)): the registry of open rooms and
//! its quotas ([`Rooms`]), one room's seats, game and connections, and the
//! state it broadcasts ([`Room`]), and the bounds on all of them
//! ([`RoomLimits`]).

mod limits;
mod registry;
mod room;

pub use limits::RoomLimits;
pub use registry::Rooms;
pub(crate) use registry::SHUTTING_DOWN;
pub(crate) use room::Update;
pub use room::{Room, Snapshot};
