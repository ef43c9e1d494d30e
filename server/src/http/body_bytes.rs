//! [`BodyBytes`]: the bytes of request bodies held at once, over every
//! connection, and the most the server holds
//! ([`ServerLimits::body_bytes`](super::limits::ServerLimits::body_bytes)):
//! a body whose room does not fit is refused before it is read, so however
//! many clients send bodies at once, their bodies cost the server at most
//! that much.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes of request bodies held now, and the most held at once.
#[derive(Debug)]
pub struct BodyBytes {
    held: AtomicUsize,
    max: usize,
}

/// Room for one body, given back when dropped.
#[derive(Debug)]
pub struct Held {
    of: Arc<BodyBytes>,
    bytes: usize,
}

impl Drop for Held {
    fn drop(&mut self) {
        self.of.held.fetch_sub(self.bytes, Ordering::SeqCst);
    }
}

impl BodyBytes {
    /// Nothing held yet; at most `max` bytes at once.
    pub fn new(max: usize) -> BodyBytes {
        BodyBytes {
            held: AtomicUsize::new(0),
            max,
        }
    }

    /// Bytes held now.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::SeqCst)
    }

    /// Room for `bytes` more, if it fits under the most held at once.
    pub fn take(self: &Arc<Self>, bytes: usize) -> Option<Held> {
        let mut now = self.held.load(Ordering::SeqCst);
        loop {
            if now + bytes > self.max {
                return None;
            }
            match self
                .held
                .compare_exchange(now, now + bytes, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => {
                    return Some(Held {
                        of: Arc::clone(self),
                        bytes,
                    });
                }
                Err(seen) => now = seen,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_is_taken_up_to_the_most_and_given_back() {
        let bytes = Arc::new(BodyBytes::new(10));
        let a = bytes.take(6).unwrap();
        assert!(bytes.take(5).is_none());
        let b = bytes.take(4).unwrap();
        assert_eq!(bytes.held(), 10);
        drop(a);
        assert_eq!(bytes.held(), 4);
        assert!(bytes.take(6).is_some());
        drop(b);
        assert_eq!(bytes.held(), 0);
    }
}
