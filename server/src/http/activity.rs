//! [`LastActive`]: when a room or a session was last used.

use std::time::{Duration, Instant};

/// When something (a room, a session) was last used: what the sweeps that
/// end idle ones read.
#[derive(Debug)]
pub struct LastActive(std::sync::Mutex<Instant>);

impl LastActive {
    /// Used now.
    pub fn now() -> LastActive {
        LastActive(std::sync::Mutex::new(Instant::now()))
    }

    /// How long since it was last used.
    pub fn idle_for(&self) -> Duration {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).elapsed()
    }

    /// Marks it used now.
    pub fn touch(&self) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Instant::now();
    }
}
