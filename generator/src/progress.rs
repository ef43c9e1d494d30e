//! Progress on long work, on standard error. indicatif hides itself when
//! standard error is not a terminal, so tests and pipes see nothing.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// A spinner or bar that disappears when finished.
#[derive(Debug)]
pub struct Progress(ProgressBar);

impl Progress {
    /// A spinner for work of unknown length.
    pub fn spinner(message: String) -> Progress {
        let bar = ProgressBar::new_spinner().with_message(message);
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress(bar)
    }

    /// A bar for `total` steps.
    pub fn bar(total: u64, message: String) -> Progress {
        let bar = ProgressBar::new(total).with_message(message);
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} ({eta} left)")
                .expect("valid template")
                .progress_chars("=> "),
        );
        Progress(bar)
    }

    /// Says what the work is at now (a spinner's running count).
    pub fn set_message(&self, message: String) {
        self.0.set_message(message);
    }

    /// Advances a bar by `steps`.
    pub fn advance(&self, steps: u64) {
        self.0.inc(steps);
    }

    /// Removes the spinner or bar.
    pub fn finish(self) {
        self.0.finish_and_clear();
    }
}
