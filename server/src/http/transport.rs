//! The connections under the router: our accept loop over hyper's HTTP/1.1
//! server (rather than `axum::serve`, which has no header-read timeout, no
//! connection caps and waits for its clients for ever on shutdown).
//!
//! - **Caps**: at most [`ServerLimits::connections`] open connections, at
//!   most [`ServerLimits::connections_per_address`] from one client
//!   ([`client_key`]); a WebSocket counts as the connection it came on for
//!   as long as it lives. A connection over a cap is answered 503 with the
//!   error object at once and closed, never queued.
//! - **Timeouts**: hyper's header-read timeout runs from the moment a
//!   connection waits for a request (a new one, or a keep-alive one after
//!   its last answer) to the end of the request's headers, so it bounds idle
//!   connections too; headers are at most [`MAX_HEAD_BYTES`]. The body's
//!   timeout is a layer of the router ([`layers`](super::layers)).
//! - **Shutdown**: on the signal the listener closes, every connection is
//!   asked to finish its request in flight and close, and whatever is still
//!   open at [`ServerLimits::shutdown`] is dropped.
//! - **Lingering close**: a connection that ends is shut for writing and
//!   read for a moment before it closes (`Lingering`), so that its last
//!   answer is not lost to a reset.

use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Result;
use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tower::ServiceExt;

use super::limits::ServerLimits;
use super::rate::client_key;

/// The most bytes of a request's line and headers (hyper's own minimum is
/// 8 KiB; a query is at most [`MAX_QUERY_BYTES`](super::limits::MAX_QUERY_BYTES)).
pub const MAX_HEAD_BYTES: usize = 16 * 1024;

/// Files kept free for the rest of the server (tables, the database and
/// its journal, standard streams, the listener) when the connection cap is
/// fitted to the open-files limit.
pub const RESERVED_FILES: u64 = 64;

/// Open connections, in all and per client.
#[derive(Debug)]
pub struct Connections {
    total: AtomicUsize,
    per_client: Mutex<HashMap<IpAddr, usize>>,
    max_total: usize,
    max_per_client: usize,
}

/// One open connection, counted until the last clone is dropped (the
/// connection's task holds one; a WebSocket upgraded on it another).
#[derive(Debug)]
pub struct Ticket {
    connections: Arc<Connections>,
    client: IpAddr,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.connections.total.fetch_sub(1, Ordering::SeqCst);
        let mut map = self.connections.lock();
        if let Some(n) = map.get_mut(&self.client) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.client);
            }
        }
    }
}

impl Connections {
    /// No connection yet, with these caps.
    pub fn new(max_total: usize, max_per_client: usize) -> Connections {
        Connections {
            total: AtomicUsize::new(0),
            per_client: Mutex::new(HashMap::new()),
            max_total: max_total.max(1),
            max_per_client: max_per_client.max(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, usize>> {
        self.per_client.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Open connections now.
    pub fn open(&self) -> usize {
        self.total.load(Ordering::SeqCst)
    }

    /// A ticket for a connection from `ip`, or why not.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Result<Ticket, &'static str> {
        let client = client_key(ip);
        let mut map = self.lock();
        if self.total.load(Ordering::SeqCst) >= self.max_total {
            return Err("the server has as many connections open as it takes: try again shortly");
        }
        let n = map.entry(client).or_insert(0);
        if *n >= self.max_per_client {
            return Err("your address has as many connections open as one address may");
        }
        *n += 1;
        self.total.fetch_add(1, Ordering::SeqCst);
        Ok(Ticket {
            connections: Arc::clone(self),
            client,
        })
    }
}

/// Raises the soft limit of open files to the hard one (a no-op where it
/// cannot); returns the soft limit in force after, if known.
pub fn raise_open_files_limit() -> Option<u64> {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    if limit.current < limit.maximum {
        let raised = rustix::process::Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        };
        let _ = setrlimit(Resource::Nofile, raised);
    }
    getrlimit(Resource::Nofile).current
}

/// The open-files limit in force, if known.
pub fn open_files_limit() -> Option<u64> {
    rustix::process::getrlimit(rustix::process::Resource::Nofile).current
}

/// The connection cap that fits `limits` and `open_files` (keeping
/// [`RESERVED_FILES`] for the rest).
pub fn fitted_connections(limits: &ServerLimits, open_files: Option<u64>) -> usize {
    match open_files {
        Some(files) => {
            let room = files.saturating_sub(RESERVED_FILES).max(1);
            limits
                .connections
                .min(usize::try_from(room).unwrap_or(usize::MAX))
        }
        None => limits.connections,
    }
}

/// The answer to a connection over a cap, written in one go.
fn refusal(why: &str) -> Vec<u8> {
    let body = solvedb_lookup::error_json(Some(solvedb_lookup::ErrorKind::Budget), why).to_string();
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         x-content-type-options: nosniff\r\nretry-after: 1\r\nconnection: close\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Connections being refused at once; past this many, a refused connection
/// is closed without waiting to read what it sent.
const REFUSING_AT_ONCE: usize = 256;

/// Answers a connection over a cap and closes it: the answer is written
/// without waiting, then what the client sent is read for a moment (so that
/// closing does not reset the connection before the answer is read).
fn refuse(tcp: TcpStream, why: &str, refusing: &Arc<AtomicUsize>) {
    let _ = tcp.try_write(&refusal(why));
    if refusing.fetch_add(1, Ordering::SeqCst) >= REFUSING_AT_ONCE {
        refusing.fetch_sub(1, Ordering::SeqCst);
        return;
    }
    let refusing = Arc::clone(refusing);
    tokio::spawn(async move {
        let mut tcp = tcp;
        let _ = tokio::time::timeout(Duration::from_millis(200), async {
            use tokio::io::AsyncReadExt;
            let mut sink = [0u8; 4096];
            while let Ok(n) = tcp.read(&mut sink).await {
                if n == 0 {
                    break;
                }
            }
        })
        .await;
        refusing.fetch_sub(1, Ordering::SeqCst);
    });
}

/// Connections lingering after their end at once; past this many, a
/// connection that ends is closed at once.
const LINGERING_AT_ONCE: usize = 256;

/// How long an ended connection is read (and what is read thrown away)
/// before it is closed.
const LINGER: Duration = Duration::from_secs(1);

/// A connection's socket that, when hyper or a WebSocket is done with it,
/// is not closed at once but shut for writing and read for up to
/// [`LINGER`] (a lingering close, as Apache's and nginx's): closing a
/// socket with unread bytes makes the kernel reset the connection, and the
/// client then loses the last answer it was sent — a 400 for a body over
/// the limit, the Close 1009 for a WebSocket frame over it.
#[derive(Debug)]
struct Lingering {
    tcp: Option<TcpStream>,
    lingering: Arc<AtomicUsize>,
}

impl Lingering {
    fn tcp(&mut self) -> &mut TcpStream {
        self.tcp.as_mut().expect("the socket is taken only on drop")
    }
}

impl Drop for Lingering {
    fn drop(&mut self) {
        let (Some(tcp), Ok(runtime)) = (self.tcp.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        if self.lingering.fetch_add(1, Ordering::SeqCst) >= LINGERING_AT_ONCE {
            self.lingering.fetch_sub(1, Ordering::SeqCst);
            return;
        }
        let lingering = Arc::clone(&self.lingering);
        runtime.spawn(async move {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            let mut tcp = tcp;
            let _ = tokio::time::timeout(LINGER, async {
                let _ = tcp.shutdown().await;
                let mut sink = [0u8; 4096];
                while let Ok(n) = tcp.read(&mut sink).await {
                    if n == 0 {
                        break;
                    }
                }
            })
            .await;
            lingering.fetch_sub(1, Ordering::SeqCst);
        });
    }
}

impl tokio::io::AsyncRead for Lingering {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(self.tcp()).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Lingering {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(self.tcp()).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(self.tcp()).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(self.tcp()).poll_shutdown(cx)
    }

    fn poll_write_vectored(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        bufs: &[std::io::IoSlice<'_>],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(self.tcp()).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.tcp.as_ref().is_some_and(|tcp| tcp.is_write_vectored())
    }
}

/// Serves `app` on `listener` until `shutdown` resolves, then runs
/// `on_shutdown` (rooms close their WebSockets) and winds down within
/// `limits.shutdown`.
///
/// # Errors
///
/// None yet: a failed accept (out of files, a connection reset before it
/// was accepted) is waited out, not fatal.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ServerLimits,
    connections: Arc<Connections>,
    shutdown: impl Future<Output = ()> + Send + 'static,
    on_shutdown: impl FnOnce() + Send,
) -> Result<()> {
    let mut tasks = JoinSet::new();
    let (stopping, stop_seen) = watch::channel(false);
    let refusing = Arc::new(AtomicUsize::new(0));
    let lingering = Arc::new(AtomicUsize::new(0));
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => {
                let (tcp, peer) = match accepted {
                    Ok(accepted) => accepted,
                    Err(_) => {
                        // Out of files or a connection gone before it was
                        // accepted: wait a little rather than spin.
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        continue;
                    }
                };
                // Small writes go out at once: a move's state is one small
                // frame, and Nagle's algorithm would hold it for the
                // client's delayed ACK (tens of milliseconds).
                let _ = tcp.set_nodelay(true);
                match connections.admit(peer.ip()) {
                    Ok(ticket) => {
                        let tcp = Lingering { tcp: Some(tcp), lingering: Arc::clone(&lingering) };
                        tasks.spawn(connection(tcp, peer, Arc::new(ticket), app.clone(), limits, stop_seen.clone()));
                    }
                    Err(why) => refuse(tcp, why, &refusing),
                }
            }
            Some(_) = tasks.join_next(), if !tasks.is_empty() => {}
        }
    }
    drop(listener);
    on_shutdown();
    let _ = stopping.send(true);
    let finished = tokio::time::timeout(limits.shutdown, async {
        while tasks.join_next().await.is_some() {}
    })
    .await;
    if finished.is_err() {
        tasks.shutdown().await;
    }
    Ok(())
}

/// One connection: hyper's HTTP/1.1 with upgrades (WebSockets), the
/// client's address and the connection's [`Ticket`] in every request.
async fn connection(
    tcp: Lingering,
    peer: SocketAddr,
    ticket: Arc<Ticket>,
    app: Router,
    limits: ServerLimits,
    mut stop_seen: watch::Receiver<bool>,
) {
    let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
        request.extensions_mut().insert(ConnectInfo(peer));
        request.extensions_mut().insert(Arc::clone(&ticket));
        app.clone().oneshot(request.map(axum::body::Body::new))
    });
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(limits.header_read)
        .max_buf_size(MAX_HEAD_BYTES.max(8192));
    let conn = builder
        .serve_connection(TokioIo::new(tcp), service)
        .with_upgrades();
    tokio::pin!(conn);
    let mut asked_to_stop = false;
    loop {
        tokio::select! {
            _ = conn.as_mut() => break,
            changed = stop_seen.changed(), if !asked_to_stop => {
                asked_to_stop = true;
                if changed.is_ok() {
                    conn.as_mut().graceful_shutdown();
                }
            }
        }
    }
}
