//! The leaderboard's reads at scale, an ignored test that prints its
//! figures (no timed assertion):
//!
//! ```text
//! cargo test -p solvedb-server --lib store::read_bench -- --ignored --nocapture
//! ```
//!
//! It fills a database in a temporary directory with [`PLAYERS`] people
//! (each with totals of one game and of every game together; about half
//! with enough games to rank), then [`READERS`] threads each read
//! [`READS`] pages, as the route does (the first pages most, some deep),
//! of one game and of every game together, and prints the latency's
//! quantiles, of the first pages and of the deep ones apart
//! (`SOLVEDB_BENCH_SHALLOW=1`: the first pages only).

use std::time::{Duration, Instant};

use rusqlite::params;

use super::database::lock;
use super::migrations::COUNT_LISTED;
use super::*;

/// People on the leaderboard.
const PLAYERS: i64 = 100_000;
/// Threads reading at once.
const READERS: usize = 30;
/// Reads per thread.
const READS: usize = 200;

fn fill(store: &Store) {
    let mut conn = lock(&store.writer);
    let tx = conn.transaction().unwrap();
    {
        let mut player = tx
            .prepare("INSERT INTO players (id, identity, name) VALUES (?1, ?2, ?3)")
            .unwrap();
        let mut total = tx
            .prepare(
                "INSERT INTO totals (player, game, person, games, wins, draws, losses, rated, kept)
                 VALUES (?1, ?2, 1, ?3, ?4, ?5, ?6, ?7, ?8)",
            )
            .unwrap();
        let mut rng = solvedb_lookup::Rng::new(47);
        for id in 1..=PLAYERS {
            player
                .execute(params![id, format!("identity{id:012}"), format!("p{id}")])
                .unwrap();
            let games = 1 + (rng.next_u64() % 6) as i64;
            let wins = (rng.next_u64() % (games as u64 + 1)) as i64;
            let rated = games * 4;
            let kept = (rng.next_u64() % (rated as u64 + 1)) as i64;
            for game in ["tictactoe", ALL_GAMES] {
                total
                    .execute(params![id, game, games, wins, games - wins, 0, rated, kept])
                    .unwrap();
            }
        }
    }
    tx.execute_batch(COUNT_LISTED).unwrap();
    tx.commit().unwrap();
    conn.execute_batch("ANALYZE").unwrap();
}

fn quantile(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

#[test]
#[ignore = "a measurement: run with --ignored --nocapture"]
fn leaderboard_reads_at_100000_players() {
    let dir = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(Store::open(dir.path()).unwrap());
    let start = Instant::now();
    fill(&store);
    println!("filled {PLAYERS} players in {:?}", start.elapsed());
    let plan: Vec<String> = lock(&store.writer)
        .prepare(
            "EXPLAIN QUERY PLAN SELECT player FROM totals
             WHERE game = 'tictactoe' AND person = 1
             ORDER BY accuracy DESC, ranked_wins DESC, games DESC, player
             LIMIT 20 OFFSET 50000",
        )
        .unwrap()
        .query_map([], |r| r.get::<_, String>(3))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    println!("query plan: {plan:?}");
    let wall = Instant::now();
    let threads: Vec<_> = (0..READERS)
        .map(|t| {
            let store = std::sync::Arc::clone(&store);
            std::thread::spawn(move || {
                let mut times = Vec::with_capacity(READS);
                for i in 0..READS {
                    let game = (i % 2 == 0).then_some("tictactoe");
                    // Mostly the first pages; every tenth read deep.
                    let page = if i % 10 == 9 && std::env::var_os("SOLVEDB_BENCH_SHALLOW").is_none()
                    {
                        1 + (t * 37 + i) as u64 % 5000
                    } else {
                        1 + (i % 3) as u64
                    };
                    let began = Instant::now();
                    let board = store.leaderboard(game, page, 20).unwrap();
                    times.push((page > 3, began.elapsed()));
                    assert!(board.pages >= 1);
                }
                times
            })
        })
        .collect();
    let times: Vec<(bool, Duration)> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    println!(
        "{} reads by {READERS} threads in {:?}",
        times.len(),
        wall.elapsed()
    );
    for (what, deep) in [
        ("pages 1 to 3", false),
        ("deep pages (offset up to 100,000)", true),
    ] {
        let mut these: Vec<Duration> = times.iter().filter(|t| t.0 == deep).map(|t| t.1).collect();
        these.sort_unstable();
        if these.is_empty() {
            continue;
        }
        println!(
            "  {what}: {} reads, p50 {:?}, p90 {:?}, p99 {:?}, max {:?}",
            these.len(),
            quantile(&these, 0.5),
            quantile(&these, 0.9),
            quantile(&these, 0.99),
            these[these.len() - 1],
        );
    }
    let board = store.leaderboard(None, 1, 20).unwrap();
    println!(
        "first of {} pages: {:?}",
        board.pages,
        board.people.iter().take(3).collect::<Vec<_>>()
    );
}
