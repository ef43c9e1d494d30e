//! `solvedb bench http`: requests per second and latency of
//! `/api/v1/probe` for table answers over loopback, with 1 and 16
//! concurrent clients, next to the same answers computed in process. The
//! ratio is what the server costs.
//!
//! Then the adversarial run ([`hostile`]): one client's cheap table probes,
//! quiet and then while slow clients (headers a byte at a time, bodies a
//! byte a second), idle keep-alive connections, loops of live searches and
//! a flood of requests run against the same server, side by side.
//!
//! The server runs on its own two-thread runtime, the load generator on
//! another, both in this process, so the figures include the client's own
//! cost; the measuring client of the adversarial run has a runtime of its
//! own.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use solvedb_lookup::testkit::{Rng, random_positions};
use solvedb_lookup::{Cube, Game, GameId, Want};

use super::client::Client;
use super::limits::ServerLimits;
use super::serve::{bind, serve_until};
use super::state::AppState;

/// Latency figures of one measurement.
#[derive(Clone, Copy, Debug)]
pub struct Latency {
    /// Answers per second over the measurement.
    pub per_second: f64,
    /// Median latency.
    pub p50: Duration,
    /// 99th percentile latency.
    pub p99: Duration,
}

fn percentile(sorted: &[Duration], fraction: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

fn latency(mut samples: Vec<Duration>, wall: Duration) -> Latency {
    samples.sort_unstable();
    Latency {
        per_second: samples.len() as f64 / wall.as_secs_f64(),
        p50: percentile(&samples, 0.5),
        p99: percentile(&samples, 0.99),
    }
}

/// The median round by answers per second.
fn median_round(mut rounds: Vec<Latency>) -> Latency {
    rounds.sort_by(|a, b| a.per_second.total_cmp(&b.per_second));
    rounds[rounds.len() / 2]
}

/// Percent-encodes what a position's notation may hold that a query
/// cannot carry as is.
pub fn encode_query_value(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' | b':' => {
                out.push(char::from(byte));
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// Runs the HTTP bench over the tables in `tables` and prints its figures.
///
/// # Errors
///
/// If the cube has no table in `tables`, the server cannot start, or any
/// HTTP answer differs from the in-process one.
pub fn run(tables: &Path, rounds: u32, positions: usize, out: &mut dyn Write) -> Result<()> {
    if !tables.join(GameId::Cube.table_file_name()).is_file() {
        bail!(
            "the HTTP bench probes cube table answers: no {} in {}",
            GameId::Cube.table_file_name(),
            tables.display()
        );
    }
    let state = AppState::new(tables, ServerLimits::default())?;
    let oracle = Arc::clone(&state.oracle);
    let mut rng = Rng::new(0x5eed_4711);
    let texts: Vec<String> = random_positions(&Cube, &mut rng, positions.max(1))
        .into_iter()
        .map(|p| Cube.notation(p))
        .collect();
    let answer = |text: &str| {
        Ok::<_, solvedb_lookup::Error>(oracle.moves(GameId::Cube, text)?.to_json_for(Want::Moves))
    };
    // Warm the table's block cache, and keep the answers to check the
    // server's against.
    let expected = texts
        .iter()
        .map(|t| answer(t).map(|j| j.to_string()))
        .collect::<Result<Vec<_>, _>>()?;

    let mut in_process = Vec::new();
    for _ in 0..rounds {
        let mut samples = Vec::with_capacity(texts.len());
        let started = Instant::now();
        for text in &texts {
            let t = Instant::now();
            let json = answer(text)?.to_string();
            samples.push(t.elapsed());
            std::hint::black_box(json);
        }
        in_process.push(latency(samples, started.elapsed()));
    }
    let in_process = median_round(in_process);

    let server = BenchServer::start(state)?;
    let addr = server.addr;
    let clients_runtime = two_threads()?;
    let urls: Arc<Vec<String>> = Arc::new(
        texts
            .iter()
            .map(|t| {
                format!(
                    "http://{addr}/api/v1/probe?game=cube&position={}",
                    encode_query_value(t)
                )
            })
            .collect(),
    );
    // Every answer once, compared with the in-process one.
    clients_runtime.block_on(async {
        let client = Client::new();
        for (url, expected) in urls.iter().zip(&expected) {
            let (status, body) = client.get(url).await?;
            if status != 200 || &body != expected {
                bail!("GET {url} answered {status} {body}, in process {expected}");
            }
        }
        anyhow::Ok(())
    })?;

    writeln!(
        out,
        "http: GET /api/v1/probe on {} random cube positions (table answers, all moves), \
         median of {rounds} rounds",
        texts.len()
    )?;
    writeln!(
        out,
        "{:<34} {:>12} {:>10} {:>10} {:>12}",
        "", "answers/s", "p50 µs", "p99 µs", "p50 ratio"
    )?;
    writeln!(
        out,
        "{:<34} {:>12.0} {:>10.1} {:>10.1} {:>12}",
        "in process (Oracle + JSON), 1 thread",
        in_process.per_second,
        micros(in_process.p50),
        micros(in_process.p99),
        "1.0"
    )?;
    for clients in [1usize, 16] {
        let mut measured = Vec::new();
        for _ in 0..rounds {
            let urls = Arc::clone(&urls);
            let samples = clients_runtime.block_on(load(urls, clients))?;
            measured.push(samples);
        }
        let figures = median_round(measured);
        writeln!(
            out,
            "{:<34} {:>12.0} {:>10.1} {:>10.1} {:>11.0}x",
            format!("HTTP over loopback, {clients} client(s)"),
            figures.per_second,
            micros(figures.p50),
            micros(figures.p99),
            figures.p50.as_secs_f64() / in_process.p50.as_secs_f64()
        )?;
    }
    server.stop()?;
    hostile(tables, &texts, out)
}

/// How many of each kind of attacker the adversarial run starts.
#[derive(Clone, Copy, Debug)]
pub struct Attackers {
    /// Connections sending their headers a byte every 500 ms.
    pub slow_headers: usize,
    /// POSTs sending their body a byte a second.
    pub slow_bodies: usize,
    /// Keep-alive connections that send one request and then nothing.
    pub idle: usize,
    /// Clients looping live searches (the empty 4x4 dots board).
    pub searchers: usize,
    /// Clients looping requests as fast as they are answered.
    pub flooders: usize,
}

impl Default for Attackers {
    fn default() -> Attackers {
        Attackers {
            slow_headers: 100,
            slow_bodies: 100,
            idle: 200,
            searchers: 64,
            flooders: 32,
        }
    }
}

/// The seconds each side of the adversarial run measures.
const HOSTILE_SECONDS: u64 = 8;

/// The `i`-th attacker's source address: 127.0.1.1 to 127.0.1.250, never
/// the measuring client's 127.0.0.1 (Linux routes all of 127/8 to
/// loopback, so per-address limits apply to attackers as to anyone).
fn attacker(i: usize) -> std::net::IpAddr {
    std::net::IpAddr::V4(std::net::Ipv4Addr::new(127, 0, 1, 1 + (i % 250) as u8))
}

async fn connect_from(
    source: std::net::IpAddr,
    to: std::net::SocketAddr,
) -> std::io::Result<tokio::net::TcpStream> {
    let socket = tokio::net::TcpSocket::new_v4()?;
    socket.bind(std::net::SocketAddr::new(source, 0))?;
    socket.connect(to).await
}

/// One attacker until `stop`: what it does follows its kind.
async fn attack(kind: usize, i: usize, addr: std::net::SocketAddr, stop: Instant) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let source = attacker(i);
    let host = format!("Host: {addr}\r\n");
    while Instant::now() < stop {
        let Ok(mut tcp) = connect_from(source, addr).await else {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        };
        let mut buffer = [0u8; 4096];
        match kind {
            // Headers a byte every 500 ms, for ever.
            0 => {
                let _ = tcp.write_all(b"GET /api/v1/games HTTP/1.1\r\n").await;
                while Instant::now() < stop && tcp.write_all(b"X").await.is_ok() {
                    tokio::time::sleep(Duration::from_millis(500)).await;
                }
            }
            // A body a byte a second.
            1 => {
                let head = format!(
                    "POST /api/v1/games HTTP/1.1\r\n{host}Content-Type: application/json\r\n\
                     Content-Length: 4000\r\n\r\n"
                );
                let _ = tcp.write_all(head.as_bytes()).await;
                while Instant::now() < stop && tcp.write_all(b" ").await.is_ok() {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
            }
            // One request, then nothing.
            2 => {
                let head = format!("GET /api/v1/games HTTP/1.1\r\n{host}\r\n");
                let _ = tcp.write_all(head.as_bytes()).await;
                let _ =
                    tokio::time::timeout(stop.saturating_duration_since(Instant::now()), async {
                        while tcp.read(&mut buffer).await.is_ok_and(|n| n > 0) {}
                    })
                    .await;
            }
            // Searches, or a flood of cheap requests, one connection each.
            _ => {
                let path = if kind == 3 {
                    "/api/v1/probe?game=dots:4x4&position=4x4:"
                } else {
                    "/api/v1/check?game=tictactoe&position=........."
                };
                let head = format!("GET {path} HTTP/1.1\r\n{host}Connection: close\r\n\r\n");
                let _ = tcp.write_all(head.as_bytes()).await;
                let _ = tokio::time::timeout(Duration::from_secs(15), async {
                    while tcp.read(&mut buffer).await.is_ok_and(|n| n > 0) {}
                })
                .await;
            }
        }
    }
}

/// One client's table probes for `seconds`, one after another on one
/// keep-alive connection (a new one when the server closes it).
async fn probe_for(urls: Arc<Vec<String>>, seconds: u64) -> Result<(Latency, usize)> {
    let started = Instant::now();
    let stop = started + Duration::from_secs(seconds);
    let mut client = Client::new();
    let mut samples = Vec::new();
    let mut failed = 0;
    for url in urls.iter().cycle() {
        if Instant::now() >= stop {
            break;
        }
        let t = Instant::now();
        match client.get(url).await {
            Ok((200, _)) => samples.push(t.elapsed()),
            _ => {
                failed += 1;
                client = Client::new();
            }
        }
    }
    if samples.is_empty() {
        bail!("no table probe was answered in {seconds} s");
    }
    Ok((latency(samples, started.elapsed()), failed))
}

/// The adversarial run: one client's table probes quiet, then under every
/// attack at once, against a server with the default limits.
///
/// # Errors
///
/// If the server cannot start or no probe is answered at all.
pub fn hostile(tables: &Path, cube_positions: &[String], out: &mut dyn Write) -> Result<()> {
    let limits = ServerLimits::default();
    let state = AppState::new(tables, limits)?;
    let server = BenchServer::start(state)?;
    let addr = server.addr;
    let attackers = Attackers::default();
    let load = two_threads()?;
    let prober = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting a tokio runtime")?;
    let urls: Arc<Vec<String>> = Arc::new(
        cube_positions
            .iter()
            .map(|t| {
                format!(
                    "http://{addr}/api/v1/probe?game=cube&position={}",
                    encode_query_value(t)
                )
            })
            .collect(),
    );
    // The quiet side: the same server, the same client, nobody else.
    let (quiet, quiet_failed) = prober.block_on(probe_for(Arc::clone(&urls), HOSTILE_SECONDS))?;
    let stop = Instant::now() + Duration::from_secs(HOSTILE_SECONDS + 3);
    let kinds = [
        attackers.slow_headers,
        attackers.slow_bodies,
        attackers.idle,
        attackers.searchers,
        attackers.flooders,
    ];
    let mut running = Vec::new();
    let mut i = 0;
    for (kind, &count) in kinds.iter().enumerate() {
        for _ in 0..count {
            running.push(load.spawn(attack(kind, i, addr, stop)));
            i += 1;
        }
    }
    // The attacks settle in, then the same measurement.
    std::thread::sleep(Duration::from_secs(2));
    let (loud, loud_failed) = prober.block_on(probe_for(Arc::clone(&urls), HOSTILE_SECONDS))?;
    load.block_on(async {
        for task in running {
            let _ = task.await;
        }
    });
    writeln!(
        out,
        "http, adversarial: one client's GET /api/v1/probe (cube table answers) for {HOSTILE_SECONDS} s, \
         quiet and then while {} slow-header and {} slow-body clients, {} idle keep-alive \
         connections, {} clients looping searches and {} flooding run (from other addresses)",
        attackers.slow_headers,
        attackers.slow_bodies,
        attackers.idle,
        attackers.searchers,
        attackers.flooders
    )?;
    writeln!(
        out,
        "{:<34} {:>12} {:>10} {:>10} {:>12}",
        "", "answers/s", "p50 µs", "p99 µs", "not answered"
    )?;
    for (name, figures, failed) in [
        ("quiet", quiet, quiet_failed),
        ("under hostile load", loud, loud_failed),
    ] {
        writeln!(
            out,
            "{:<34} {:>12.0} {:>10.1} {:>10.1} {:>12}",
            name,
            figures.per_second,
            micros(figures.p50),
            micros(figures.p99),
            failed
        )?;
    }
    server.stop()
}

/// A two-thread runtime: a bench's server, or its clients, each sized for
/// a machine of two cores so that neither side's threads crowd out the
/// other's.
pub(crate) fn two_threads() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting a tokio runtime")
}

/// A server on a loopback port and its own runtime, for a bench whose
/// clients run on another runtime of the same process.
pub(crate) struct BenchServer {
    /// Where it listens.
    pub addr: std::net::SocketAddr,
    runtime: tokio::runtime::Runtime,
    stop: tokio::sync::oneshot::Sender<()>,
    serving: tokio::task::JoinHandle<Result<()>>,
}

impl BenchServer {
    /// Serves `state` on a free loopback port.
    pub(crate) fn start(state: AppState) -> Result<BenchServer> {
        let runtime = two_threads()?;
        let listener = runtime.block_on(bind("127.0.0.1:0".parse()?))?;
        let addr = listener.local_addr()?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = runtime.spawn(serve_until(listener, state, async {
            let _ = stopped.await;
        }));
        Ok(BenchServer {
            addr,
            runtime,
            stop,
            serving,
        })
    }

    /// Stops the server and waits until it has.
    pub(crate) fn stop(self) -> Result<()> {
        let _ = self.stop.send(());
        self.runtime
            .block_on(self.serving)
            .context("joining the server")?
    }
}

/// Every URL once, split between `clients` concurrent clients, each with
/// its own connection.
async fn load(urls: Arc<Vec<String>>, clients: usize) -> Result<Latency> {
    let started = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..clients {
        let urls = Arc::clone(&urls);
        tasks.push(tokio::spawn(async move {
            let client = Client::new();
            let mut samples = Vec::new();
            for url in urls.iter().skip(c).step_by(clients) {
                let t = Instant::now();
                let (status, _) = client.get(url).await?;
                samples.push(t.elapsed());
                if status != 200 {
                    bail!("GET {url} answered {status}");
                }
            }
            anyhow::Ok(samples)
        }));
    }
    let mut samples = Vec::new();
    for task in tasks {
        samples.extend(task.await??);
    }
    Ok(latency(samples, started.elapsed()))
}
