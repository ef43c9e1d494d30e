//! Work that Ctrl-C interrupts. Python runs its signal handlers (and so
//! raises `KeyboardInterrupt`) only on the main thread, between bytecodes:
//! a call that searches for minutes with the GIL released would ignore
//! SIGINT until it returns. [`interruptible`] runs the work on a scoped
//! thread while the calling thread waits with the GIL released and, every
//! [`POLL`], calls `Python::check_signals` with it; a handler's exception
//! cancels the work's [`Stop`], which every live search polls, and is
//! raised once the work has wound down.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use pyo3::prelude::*;

use solvedb_lookup::Stop;

use crate::errors::Error;

/// How often the waiting thread looks for a signal.
const POLL: Duration = Duration::from_millis(50);

/// `work`'s result, or the exception of a signal handler (Ctrl-C's
/// `KeyboardInterrupt`) after cancelling `stop` and waiting for `work` to
/// see it.
pub fn interruptible<T, F>(py: Python<'_>, stop: &Stop, work: F) -> PyResult<T>
where
    F: FnOnce() -> T + Send,
    T: Send,
{
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel();
        let worker = scope.spawn(move || {
            // The receiver is gone only if the caller has already returned.
            let _ = sender.send(work());
        });
        let mut receiver = receiver;
        loop {
            // The receiver goes to the waiting closure and back: it is Send,
            // not Sync.
            let (back, received) = py.detach(move || {
                let received = receiver.recv_timeout(POLL);
                (receiver, received)
            });
            receiver = back;
            match received {
                Ok(result) => {
                    let _ = py.detach(|| worker.join());
                    return Ok(result);
                }
                Err(RecvTimeoutError::Timeout) => {
                    if let Err(signal) = py.check_signals() {
                        stop.cancel();
                        let _ = py.detach(|| worker.join());
                        return Err(signal);
                    }
                }
                Err(RecvTimeoutError::Disconnected) => {
                    // The work panicked before sending: raise its panic
                    // here, where PyO3 turns it into a PanicException.
                    if let Err(panic) = worker.join() {
                        std::panic::resume_unwind(panic);
                    }
                    return Err(Error::new_err("the work ended without an answer"));
                }
            }
        }
    })
}
