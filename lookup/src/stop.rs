//! [`Stop`]: what ends live searches from outside — a deadline and a node
//! budget shared by every search one request starts, and cancellation when
//! the request ends first. Every solver polls it where it already reads its
//! clock ([`Stop::poll`]); [`Search`](crate::Search) charges each call's
//! nodes to it. A stop may also carry who listens to what a search proves
//! before it ends ([`Stop::reporting`]): a solver that proves bounds part
//! way (dots-and-boxes) reports them there.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::bounds::Bounds;
use crate::error::Error;

/// A shared stop for the searches of one request: clones share it, so the
/// request keeps one and every search it starts polls another. The default
/// never stops anything.
///
/// ```
/// use std::time::Duration;
/// use solvedb_lookup::Stop;
///
/// let stop = Stop::new(Some(Duration::from_secs(3)), Some(1_000_000));
/// assert!(stop.poll().is_ok());
/// stop.clone().cancel(); // the request ended
/// assert!(stop.poll().is_err());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Stop(Option<Arc<Shared>>);

#[derive(Debug)]
struct Shared {
    /// When every search must have stopped, and the time it stands for.
    deadline: Option<(Instant, Duration)>,
    /// The nodes all the searches may visit together.
    nodes: Option<u64>,
    spent: AtomicU64,
    cancelled: AtomicBool,
    /// The stop this one was cut from ([`Stop::within`]): it stops this
    /// one too, and is charged what this one spends.
    parent: Stop,
    /// Who is told the bounds proved part way ([`Stop::reporting`]).
    listener: Option<Listener>,
}

/// A listener to the bounds a search proves as it goes.
#[derive(Clone)]
struct Listener(Arc<dyn Fn(&Bounds) + Send + Sync>);

impl fmt::Debug for Listener {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Listener")
    }
}

impl Stop {
    /// A stop `time` from now (if given), after `nodes` positions over all
    /// the searches that share it (if given), or when cancelled.
    pub fn new(time: Option<Duration>, nodes: Option<u64>) -> Stop {
        Stop(Some(Arc::new(Shared {
            deadline: time.map(|t| (Instant::now() + t, t)),
            nodes,
            spent: AtomicU64::new(0),
            cancelled: AtomicBool::new(false),
            parent: Stop::default(),
            listener: None,
        })))
    }

    /// A stop for one part of this stop's work: it stops `time` from now
    /// (if that comes first) and whenever this one does (cancelled, past
    /// its deadline, out of nodes), and the nodes its searches visit are
    /// charged to this one too. Cancelling the part leaves this one going.
    pub fn within(&self, time: Duration) -> Stop {
        self.cut(Some((Instant::now() + time, time)))
    }

    /// A part of this stop's work without a deadline of its own
    /// ([`within`](Stop::within) otherwise): what one of several searches
    /// racing for the same answer polls, so that the first to answer can
    /// cancel the others.
    pub fn part(&self) -> Stop {
        self.cut(None)
    }

    fn cut(&self, deadline: Option<(Instant, Duration)>) -> Stop {
        Stop(Some(Arc::new(Shared {
            deadline,
            nodes: self.nodes_left(),
            spent: AtomicU64::new(0),
            cancelled: AtomicBool::new(false),
            parent: self.clone(),
            listener: None,
        })))
    }

    /// This stop, with `listener` told the bounds on a position and its
    /// moves that a search proves before it ends ([`Stop::report`]): a
    /// stop cut from this one that stops, and is charged, as this one
    /// does.
    pub fn reporting(&self, listener: impl Fn(&Bounds) + Send + Sync + 'static) -> Stop {
        Stop(Some(Arc::new(Shared {
            deadline: None,
            nodes: None,
            spent: AtomicU64::new(0),
            cancelled: AtomicBool::new(false),
            parent: self.clone(),
            listener: Some(Listener(Arc::new(listener))),
        })))
    }

    /// Whether a listener waits for bounds ([`Stop::reporting`]), here or
    /// in a stop this one was cut from: without one, a search need not
    /// build its report.
    pub fn is_listened(&self) -> bool {
        self.listener().is_some()
    }

    /// Tells the nearest listener ([`Stop::reporting`]) what a search
    /// has proved so far; nothing without one.
    pub fn report(&self, bounds: &Bounds) {
        if let Some(listener) = self.listener() {
            (listener.0)(bounds);
        }
    }

    fn listener(&self) -> Option<&Listener> {
        let shared = self.0.as_ref()?;
        shared
            .listener
            .as_ref()
            .or_else(|| shared.parent.listener())
    }

    /// Stops every search that shares this stop, at its next poll.
    pub fn cancel(&self) {
        if let Some(shared) = &self.0 {
            shared.cancelled.store(true, Ordering::Relaxed);
        }
    }

    /// Whether [`cancel`](Stop::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.0
            .as_ref()
            .is_some_and(|s| s.cancelled.load(Ordering::Relaxed) || s.parent.is_cancelled())
    }

    /// `Ok` while searches may go on.
    ///
    /// # Errors
    ///
    /// [`Error::Cancelled`] once cancelled, [`Error::TimeExhausted`] past
    /// the deadline.
    #[inline]
    pub fn poll(&self) -> Result<(), Error> {
        let Some(shared) = &self.0 else {
            return Ok(());
        };
        if shared.cancelled.load(Ordering::Relaxed) {
            return Err(Error::Cancelled);
        }
        if let Some((deadline, time)) = shared.deadline {
            if Instant::now() > deadline {
                return Err(Error::TimeExhausted {
                    millis: time.as_millis() as u64,
                });
            }
        }
        shared.parent.poll()
    }

    /// Whether a deadline or a node budget may stop the searches (not only
    /// cancellation).
    pub fn is_limited(&self) -> bool {
        self.0
            .as_ref()
            .is_some_and(|s| s.deadline.is_some() || s.nodes.is_some() || s.parent.is_limited())
    }

    /// The time left before the nearest deadline, if there is one.
    pub fn time_left(&self) -> Option<Duration> {
        let shared = self.0.as_ref()?;
        let own = shared
            .deadline
            .map(|(deadline, _)| deadline.saturating_duration_since(Instant::now()));
        match (own, shared.parent.time_left()) {
            (Some(own), Some(parent)) => Some(own.min(parent)),
            (own, parent) => own.or(parent),
        }
    }

    /// The nodes still to spend, if the budget is bounded.
    pub fn nodes_left(&self) -> Option<u64> {
        let shared = self.0.as_ref()?;
        let own = shared
            .nodes
            .map(|budget| budget.saturating_sub(shared.spent.load(Ordering::Relaxed)));
        match (own, shared.parent.nodes_left()) {
            (Some(own), Some(parent)) => Some(own.min(parent)),
            (own, parent) => own.or(parent),
        }
    }

    /// Counts `nodes` more visited by one of the searches.
    pub fn charge(&self, nodes: u64) {
        if let Some(shared) = &self.0 {
            shared.spent.fetch_add(nodes, Ordering::Relaxed);
            shared.parent.charge(nodes);
        }
    }
}

/// Two stops are equal when they are the same stop (or both never stop).
impl PartialEq for Stop {
    fn eq(&self, other: &Stop) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Eq for Stop {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deadline_budget_and_cancel() {
        assert!(Stop::default().poll().is_ok());
        assert_eq!(Stop::default().nodes_left(), None);
        let stop = Stop::new(Some(Duration::ZERO), Some(10));
        std::thread::sleep(Duration::from_millis(2));
        assert!(matches!(
            stop.poll(),
            Err(Error::TimeExhausted { millis: 0 })
        ));
        stop.charge(4);
        assert_eq!(stop.nodes_left(), Some(6));
        stop.charge(40);
        assert_eq!(stop.nodes_left(), Some(0));
        let open = Stop::new(None, None);
        let other = open.clone();
        assert_eq!(open, other);
        assert_ne!(open, Stop::new(None, None));
        other.cancel();
        assert!(open.is_cancelled());
        assert!(matches!(open.poll(), Err(Error::Cancelled)));
    }

    #[test]
    fn a_part_stops_with_its_whole_and_charges_it() {
        let whole = Stop::new(None, Some(100));
        let part = whole.within(Duration::from_secs(60));
        part.charge(30);
        assert_eq!(whole.nodes_left(), Some(70));
        whole.charge(50);
        assert_eq!(part.nodes_left(), Some(20));
        assert!(part.poll().is_ok());
        whole.cancel();
        assert!(part.is_cancelled());
        assert!(matches!(part.poll(), Err(Error::Cancelled)));

        let whole = Stop::new(Some(Duration::from_secs(60)), None);
        let racer = whole.part();
        assert!(racer.time_left().unwrap() <= Duration::from_secs(60));
        assert!(racer.time_left().unwrap() > Duration::from_secs(50));
        racer.cancel();
        assert!(matches!(racer.poll(), Err(Error::Cancelled)));
        assert!(whole.poll().is_ok());
        assert_eq!(Stop::new(None, None).part().time_left(), None);

        let whole = Stop::new(None, None);
        let part = whole.within(Duration::ZERO);
        std::thread::sleep(Duration::from_millis(2));
        assert!(matches!(part.poll(), Err(Error::TimeExhausted { .. })));
        part.cancel();
        assert!(whole.poll().is_ok());
        assert_eq!(part.nodes_left(), None);
    }

    #[test]
    fn a_listener_hears_its_stop_and_the_parts_cut_from_it() {
        use crate::bounds::ValueBounds;
        use crate::value::AnyValue;
        use std::sync::Mutex;

        let heard = Arc::new(Mutex::new(Vec::new()));
        let whole = Stop::new(Some(Duration::from_secs(60)), Some(100));
        assert!(!whole.is_listened());
        let ear = Arc::clone(&heard);
        let listened = whole.reporting(move |b: &Bounds| ear.lock().unwrap().push(b.clone()));
        let part = listened.within(Duration::from_secs(30));
        assert!(listened.is_listened() && part.is_listened());
        // The listened stop is limited, stopped and charged as its whole.
        assert!(listened.is_limited());
        part.charge(40);
        assert_eq!(whole.nodes_left(), Some(60));
        let bounds = Bounds {
            value: ValueBounds {
                lower: AnyValue::Margin(-2),
                upper: AnyValue::Margin(4),
            },
            moves: Vec::new(),
        };
        part.report(&bounds);
        whole.report(&bounds); // no listener there: nothing heard
        assert_eq!(heard.lock().unwrap().len(), 1);
        whole.cancel();
        assert!(matches!(part.poll(), Err(Error::Cancelled)));
    }
}
