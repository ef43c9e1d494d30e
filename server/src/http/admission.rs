//! [`Admission`]: the one way work that costs CPU gets to run — table
//! lookups aside, which take microseconds. A request's admission holds its
//! client's address and one [`Stop`] for everything it runs: the
//! request's search deadline ([`ServerLimits::search_time`]) and node
//! budget over all its searches and computer moves together, cancelled
//! when the request ends (its future is dropped: the client left, or the
//! request ran out of time), so nothing it started runs on.
//!
//! The layer `scoped` gives each request its admission (a task-local
//! value, so that handlers and the helpers they call — a session's moves,
//! a room's values — share it without passing it along); work outside a
//! request (a room's WebSocket) gets one of its own per call. [`run`] then
//! takes a search slot ([`SearchSlots`](super::search_slots::SearchSlots):
//! the per-client rate, the slots and their short queue) and runs the work
//! on a blocking thread under the admission's stop. A request that answers
//! before its work runs (a stream: its status goes out first) takes its
//! slot ahead ([`Admission::reserve`]), so a refusal is its status, and
//! runs its work in [`Admission::scope`], which ends when the client leaves.

use std::future::Future;
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Mutex;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use solvedb_lookup::{ErrorKind, Oracle, Stop};
use tokio::sync::OwnedSemaphorePermit;

use super::error::ApiError;
use super::layers::client_of;
use super::limits::ServerLimits;
use super::state::AppState;

/// What a request may spend on searches and computer moves: its client
/// and one stop for all of them, cancelled when the admission is dropped.
#[derive(Debug)]
pub struct Admission {
    client: IpAddr,
    stop: Stop,
    /// A search slot taken ahead of the work ([`Admission::reserve`]),
    /// which the request's first [`run`] uses.
    reserved: Mutex<Option<OwnedSemaphorePermit>>,
}

impl Admission {
    /// An admission for a request of `client`, its deadline starting now.
    pub fn new(limits: &ServerLimits, client: IpAddr) -> Admission {
        Admission {
            client,
            stop: Stop::new(Some(limits.search_time), limits.search_nodes),
            reserved: Mutex::new(None),
        }
    }

    /// An admission for the request being handled, for work that outlives
    /// its handler (a stream's): the same client, its own stop.
    pub fn for_current(limits: &ServerLimits) -> Admission {
        Admission::new(limits, client())
    }

    /// Takes a search slot now, within the client's rate, for the first
    /// [`run`] of this admission's work.
    ///
    /// # Errors
    ///
    /// Kind `budget`, as [`run`] refuses.
    pub async fn reserve(&self, state: &AppState) -> Result<(), ApiError> {
        let permit = state
            .searches
            .admit(self.client, state.limits.queue_wait)
            .await?;
        *self.reserved.lock().unwrap_or_else(|e| e.into_inner()) = Some(permit);
        Ok(())
    }

    /// Runs `work` as this admission's request: its searches share its
    /// stop, cancelled when `work` ends or is dropped.
    pub async fn scope<T>(self, work: impl Future<Output = T>) -> T {
        CURRENT.scope(self, work).await
    }

    /// The stop every search of the request shares.
    pub fn stop(&self) -> &Stop {
        &self.stop
    }
}

impl Drop for Admission {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

tokio::task_local! {
    static CURRENT: Admission;
}

/// The layer that gives every request its [`Admission`] for as long as it
/// is handled.
pub(super) async fn scoped(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    let admission = Admission::new(&state.limits, client_of(&request));
    CURRENT.scope(admission, next.run(request)).await
}

/// The client address of the request being handled (unspecified outside
/// a request).
pub fn client() -> IpAddr {
    CURRENT
        .try_with(|a| a.client)
        .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
}

/// The client and stop of the request being handled, or of a new
/// admission (kept in `own` for the caller's call) outside a request.
fn current(state: &AppState, own: &mut Option<Admission>) -> (IpAddr, Stop) {
    if let Ok(pair) = CURRENT.try_with(|a| (a.client, a.stop.clone())) {
        return pair;
    }
    let admission = own.insert(Admission::new(
        &state.limits,
        IpAddr::V4(Ipv4Addr::UNSPECIFIED),
    ));
    (admission.client, admission.stop.clone())
}

/// Runs `work` once the request has a search slot, on a blocking thread,
/// under the request's stop; the slot is freed when the work ends.
///
/// # Errors
///
/// Kind `budget` when the client is over its rate or no slot comes free
/// in time; kind `io` if the work's task failed; else the work's own.
pub async fn run<T: Send + 'static>(
    state: &AppState,
    work: impl FnOnce(&Oracle, &Stop) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let mut own = None;
    let (client, stop) = current(state, &mut own);
    let reserved = CURRENT
        .try_with(|a| a.reserved.lock().unwrap_or_else(|e| e.into_inner()).take())
        .ok()
        .flatten();
    let permit = match reserved {
        Some(permit) => permit,
        None => {
            state
                .searches
                .admit(client, state.limits.queue_wait)
                .await?
        }
    };
    let oracle = state.oracle.clone();
    tokio::task::spawn_blocking(move || {
        let answer = work(&oracle, &stop);
        // The slot is free once the work has stopped, not before.
        drop(permit);
        answer
    })
    .await
    .map_err(|e| ApiError {
        kind: ErrorKind::Io,
        message: format!("the answer's task failed: {e}"),
    })?
}
