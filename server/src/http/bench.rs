//! `solvedb bench http`: requests per second and latency of
//! `/api/v1/probe` for table answers over loopback, with 1 and 16
//! concurrent clients, next to the same answers computed in process. The
//! ratio is what the server costs.
//!
//! The server runs on its own two-thread runtime, the load generator on
//! another, both in this process, so the figures include the client's own
//! cost.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use solvedb_lookup::testkit::{Rng, random_positions};
use solvedb_lookup::{Cube, Game, GameId, Want};

use super::client::Client;
use super::{AppState, ServerLimits, bind, serve_until};

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
