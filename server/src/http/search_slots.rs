//! [`SearchSlots`]: the few live searches (and computer moves) that run
//! at once, the few requests that may wait for one, and how often one
//! client may ask for one.

use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::error::ApiError;
use super::limits::ServerLimits;
use super::rate::Buckets;

/// Slots for live searches, and the few requests that may wait for one.
#[derive(Debug)]
pub struct SearchSlots {
    slots: Arc<Semaphore>,
    waiting: AtomicUsize,
    max_waiting: usize,
    /// Slots asked for per client address.
    asked: Buckets,
}

/// Counts a request as waiting for a slot while it lives.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl SearchSlots {
    /// [`ServerLimits::searches`] slots and room for
    /// [`ServerLimits::search_queue`] requests to wait.
    pub fn new(limits: &ServerLimits) -> SearchSlots {
        SearchSlots {
            slots: Arc::new(Semaphore::new(limits.searches.max(1))),
            waiting: AtomicUsize::new(0),
            max_waiting: limits.search_queue,
            asked: Buckets::new(limits.search_burst, limits.searches_per_second),
        }
    }

    /// Requests waiting for a slot now.
    pub fn waiting(&self) -> usize {
        self.waiting.load(Ordering::SeqCst)
    }

    /// A slot at once if one is free; else a place in the queue and a slot
    /// within `wait`; else an error of kind `budget` — at once when the
    /// queue is full or `client` asked for more than its rate
    /// ([`ServerLimits::search_burst`], [`ServerLimits::searches_per_second`]).
    pub(crate) async fn admit(
        &self,
        client: IpAddr,
        wait: Duration,
    ) -> Result<OwnedSemaphorePermit, ApiError> {
        if !client.is_unspecified() && !self.asked.take(client) {
            return Err(ApiError::budget(
                "unknown within the budget: too many searches from your address: try again shortly",
            ));
        }
        if let Ok(permit) = Arc::clone(&self.slots).try_acquire_owned() {
            return Ok(permit);
        }
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= self.max_waiting {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(ApiError::budget(format!(
                "unknown within the budget: every search slot is busy and {} requests wait \
                 for one: try again shortly",
                self.max_waiting
            )));
        }
        let _waiting = Waiting(&self.waiting);
        match tokio::time::timeout(wait, Arc::clone(&self.slots).acquire_owned()).await {
            Ok(Ok(permit)) => Ok(permit),
            _ => Err(ApiError::budget(format!(
                "unknown within the budget: every search slot stayed busy for {} s",
                wait.as_secs_f64()
            ))),
        }
    }
}
