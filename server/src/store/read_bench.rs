//! The leaderboard's reads at scale, an ignored test that prints its
//! figures (no timed assertion):
//!
//! ```text
//! cargo test -p solvedb-server --lib store::read_bench -- --ignored --nocapture
//! ```
//!
//! It fills a database in a temporary directory with [`PLAYERS`] people
//! (each with totals of one game and of every game together; about half
//! with enough games to rank), walks the whole leaderboard once by cursor
//! (checking every person comes once, in order), then [`READERS`] threads
//! each read [`READS`] pages of one game and of every game together, the
//! first pages by number and every tenth read a deep page (anywhere in
//! the list), and prints the latency's quantiles, of the first pages and
//! of the deep ones apart. It does so twice: deep pages read at their
//! offset (as a page by number is read, here without the depth cap), then
//! by cursor (as the route reads them). `SOLVEDB_BENCH_SHALLOW=1`: the
//! first pages only.

use std::time::{Duration, Instant};

use rusqlite::params;

use super::database::lock;
use super::ranking::COUNT_LISTED;
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

/// Every cursor of a walk of `game`'s whole leaderboard, `per_page` a
/// page, checking that it lists each person once, in order.
fn walk(store: &Store, game: Option<&str>, per_page: u64) -> Vec<String> {
    let mut cursors = Vec::new();
    let mut board = store.leaderboard(game, 1, per_page).unwrap();
    let mut seen = board.people.len() as i64;
    let mut last = board.people.last().unwrap().player;
    while let Some(next) = board.next.clone() {
        board = store.leaderboard_after(game, &next, per_page).unwrap();
        assert_ne!(board.people.first().unwrap().player, last);
        seen += board.people.len() as i64;
        last = board.people.last().unwrap().player;
        cursors.push(next);
    }
    assert_eq!(seen, PLAYERS);
    cursors
}

/// How a deep page is read.
#[derive(Clone, Copy, Debug)]
enum Deep {
    /// At its offset, through the entries before it.
    Offset,
    /// After a cursor.
    Cursor,
}

/// [`READERS`] threads of [`READS`] reads; each read's time, and whether
/// it was of a deep page.
fn run(
    store: &std::sync::Arc<Store>,
    deep: Deep,
    cursors: &[Vec<String>; 2],
) -> Vec<(bool, Duration)> {
    let threads: Vec<_> = (0..READERS)
        .map(|t| {
            let store = std::sync::Arc::clone(store);
            let cursors = cursors.clone();
            std::thread::spawn(move || {
                let mut times = Vec::with_capacity(READS);
                for i in 0..READS {
                    let which = i % 2;
                    let game = (which == 0).then_some("tictactoe");
                    // Mostly the first pages; every tenth read deep.
                    let is_deep =
                        i % 10 == 9 && std::env::var_os("SOLVEDB_BENCH_SHALLOW").is_none();
                    let k = (t * 37 + i) % cursors[which].len();
                    let began = Instant::now();
                    let board = match (is_deep, deep) {
                        (false, _) => store.leaderboard(game, 1 + (i % 3) as u64, 20),
                        // Cursor `k` starts page `k + 2`.
                        (true, Deep::Offset) => store.leaderboard_at(game, (k as u64 + 1) * 20, 20),
                        (true, Deep::Cursor) => {
                            store.leaderboard_after(game, &cursors[which][k], 20)
                        }
                    }
                    .unwrap();
                    times.push((is_deep, began.elapsed()));
                    assert_eq!(board.people.len(), 20);
                }
                times
            })
        })
        .collect();
    threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect()
}

#[test]
#[ignore = "a measurement: run with --ignored --nocapture"]
fn leaderboard_reads_at_100000_players() {
    let dir = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(Store::open(dir.path()).unwrap());
    let start = Instant::now();
    fill(&store);
    println!("filled {PLAYERS} players in {:?}", start.elapsed());
    let start = Instant::now();
    let cursors = [walk(&store, Some("tictactoe"), 20), walk(&store, None, 20)];
    println!(
        "walked both leaderboards whole by cursor ({} and {} pages) in {:?}",
        cursors[0].len() + 1,
        cursors[1].len() + 1,
        start.elapsed()
    );
    for deep in [Deep::Offset, Deep::Cursor] {
        let wall = Instant::now();
        let times = run(&store, deep, &cursors);
        println!(
            "deep pages by {deep:?}: {} reads by {READERS} threads in {:?}",
            times.len(),
            wall.elapsed()
        );
        for (what, is_deep) in [
            ("pages 1 to 3", false),
            ("deep pages (anywhere in 100,000)", true),
        ] {
            let mut these: Vec<Duration> = times
                .iter()
                .filter(|t| t.0 == is_deep)
                .map(|t| t.1)
                .collect();
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
    }
    let board = store.leaderboard(None, 1, 20).unwrap();
    println!(
        "first of {} pages: {:?}",
        board.pages,
        board.people.iter().take(3).collect::<Vec<_>>()
    );
}
