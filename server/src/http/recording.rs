//! Recording a finished game so that it is never dropped: written at once
//! if the database can, else retried every [`RETRY_EVERY`] on a task of
//! its own until it is written (the database locked by another process
//! past its busy timeout, a full disk freed), the outcome then handed to
//! whoever waits for it.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::store::{GameRecord, Recorded, Store};

/// How often a record that failed is tried again.
pub const RETRY_EVERY: Duration = Duration::from_secs(1);

/// Where a finished game's record stands: empty until it is written (at
/// once, or by a later retry), then the record.
pub type Outcome = Arc<OnceLock<Recorded>>;

/// Records `record` in `store`, into `outcome`. If the write fails, it is
/// retried every [`RETRY_EVERY`] on a task of its own until it is
/// written, and `outcome` is set then; `on_late` is called after a late
/// write (to tell those watching).
pub async fn record(
    store: &Arc<Store>,
    record: GameRecord,
    outcome: &Outcome,
    on_late: impl FnOnce() + Send + 'static,
) {
    if outcome.get().is_some() {
        return;
    }
    let first = (Arc::clone(store), record.clone());
    let written = tokio::task::spawn_blocking(move || first.0.record_judged(&first.1)).await;
    if let Ok(Ok(done)) = written {
        let _ = outcome.set(done);
        return;
    }
    let (store, outcome) = (Arc::clone(store), Arc::clone(outcome));
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(RETRY_EVERY).await;
            let (store, record) = (Arc::clone(&store), record.clone());
            let written = tokio::task::spawn_blocking(move || store.record_judged(&record)).await;
            if let Ok(Ok(done)) = written {
                let _ = outcome.set(done);
                on_late();
                return;
            }
        }
    });
}
