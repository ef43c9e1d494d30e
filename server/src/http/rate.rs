//! Rates per connection and per client address: a token [`Bucket`], and
//! [`Buckets`], one bucket per client ([`client_key`]) kept in a bounded
//! map.
//!
//! Written here rather than taken from a rate-limiting crate (governor and
//! its tower wrapper): the server needs a dozen lines of token bucket,
//! already had one for WebSocket messages, and keys its other per-address
//! state (connection counts, room quotas) the same way.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv6Addr};
use std::sync::Mutex;
use std::time::Instant;

/// A token bucket: `burst` at once, `per_second` on average.
#[derive(Clone, Debug)]
pub struct Bucket {
    tokens: f64,
    at: Instant,
    burst: f64,
    per_second: f64,
}

impl Bucket {
    /// A full bucket.
    pub fn new(burst: u32, per_second: f64) -> Bucket {
        Bucket {
            tokens: f64::from(burst),
            at: Instant::now(),
            burst: f64::from(burst),
            per_second,
        }
    }

    fn refill(&mut self, now: Instant) {
        let refill = now.duration_since(self.at).as_secs_f64() * self.per_second;
        self.tokens = (self.tokens + refill).min(self.burst);
        self.at = now;
    }

    /// Takes a token if there is one.
    pub fn take(&mut self) -> bool {
        self.refill(Instant::now());
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }

    /// Whether the bucket has refilled to its burst: as good as a new one.
    fn is_full(&mut self, now: Instant) -> bool {
        self.refill(now);
        self.tokens >= self.burst
    }
}

/// Whom per-address limits count ([`client_key`]) for a request, from
/// the address the transport put in its extensions (an unspecified
/// address for a request that came some other way).
pub(crate) fn client_in(extensions: &axum::http::Extensions) -> IpAddr {
    let ip = extensions
        .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
        .map_or(IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), |c| c.0.ip());
    client_key(ip)
}

/// Whom per-address limits count: an IPv4 address, or the /64 network of
/// an IPv6 one (one host usually holds a whole /64).
pub fn client_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

/// Entries kept before full buckets (those equal to a new one) are dropped.
const PRUNE_ABOVE: usize = 4096;

/// One bucket per client, `burst` and `per_second` each.
#[derive(Debug)]
pub struct Buckets {
    map: Mutex<HashMap<IpAddr, Bucket>>,
    burst: u32,
    per_second: f64,
}

impl Buckets {
    /// No client has spent anything yet.
    pub fn new(burst: u32, per_second: f64) -> Buckets {
        Buckets {
            map: Mutex::new(HashMap::new()),
            burst,
            per_second,
        }
    }

    /// Takes a token from `ip`'s bucket, if it has one.
    pub fn take(&self, ip: IpAddr) -> bool {
        let mut map = self.map.lock().unwrap_or_else(|e| e.into_inner());
        if map.len() > PRUNE_ABOVE {
            let now = Instant::now();
            map.retain(|_, bucket| !bucket.is_full(now));
        }
        map.entry(client_key(ip))
            .or_insert_with(|| Bucket::new(self.burst, self.per_second))
            .take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_gives_its_burst_then_refills() {
        let buckets = Buckets::new(3, 1000.0);
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        assert!((0..3).all(|_| buckets.take(a)));
        // Another client has its own bucket.
        assert!(buckets.take(b));
        std::thread::sleep(std::time::Duration::from_millis(5));
        assert!(buckets.take(a), "refilled");
        let slow = Buckets::new(1, 0.001);
        assert!(slow.take(a));
        assert!(!slow.take(a));
    }

    #[test]
    fn ipv6_clients_are_their_networks() {
        let one: IpAddr = "2001:db8:1:2::5".parse().unwrap();
        let two: IpAddr = "2001:db8:1:2:ffff::9".parse().unwrap();
        assert_eq!(client_key(one), client_key(two));
        let mapped: IpAddr = "::ffff:10.1.2.3".parse().unwrap();
        assert_eq!(client_key(mapped), "10.1.2.3".parse::<IpAddr>().unwrap());
    }
}
