//! Qubic's live solver on random positions: for 40, 48 and 56 stones, the
//! position that many uniformly random moves from the empty board reach
//! (games that end before it are counted and replaced by new ones), each
//! solved by a fresh [`QubicSolver`] within a node budget (10,000,000, the
//! command line's default), and per stone count: positions tried, answered
//! within the budget, the median and largest time and the median nodes of
//! the answered ones, and their values.
//!
//! Uniformly random play leaves threats everywhere: nearly every such
//! position that is not over yet is a win in 1. So a second table does the
//! same for *calm* positions from games of careful random play: a player
//! completes a line when it can, else blocks the opponent's threat, else
//! makes a fork (two threats at once), else takes the opponent's fork
//! cell, and otherwise plays at random; only the games in which, at that
//! stone count, nobody threatens a cell and the side to move has no fork
//! are kept (the rules settle the others at once). Those positions need
//! real search.
//!
//! ```text
//! cargo run --release -p solvedb-lookup --example qubic_search \
//!     [POSITIONS [NODES]] [--stones=40,48,56] [--uniform | --calm] [--moves] [-v] [-RULE ...]
//! ```
//!
//! `POSITIONS` per stone count (default 25), `NODES` the budget;
//! `--stones` other stone counts; `--uniform` or `--calm` one table only;
//! `--moves` also every move's value with the same solver and budget, as
//! an answer of the oracle (or the command line) takes them; `-v` prints
//! every position with its value, nodes and time; `-RULE` (`-deepening`,
//! `-sign_tests`, `-pairings`, `-dead_cells`) switches that rule of the
//! solver off ([`Rules`]). The positions come from a fixed seed, so runs
//! compare.

use std::time::{Duration, Instant};

use solvedb_lookup::games::qubic::{Rules, threats};
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{
    Error, ExactSolver, Game, Limits, Qubic, QubicBoard, QubicCell, QubicSolver, Score, Wdl,
};

/// The empty cells where `stones` (against `blockers`) make two threats at
/// once.
fn forks(stones: u64, blockers: u64) -> u64 {
    let empty = !(stones | blockers);
    (0..64)
        .filter(|&c| empty >> c & 1 != 0)
        .filter(|&c| threats(stones | 1 << c, empty & !(1 << c)).count_ones() >= 2)
        .fold(0, |cells, c| cells | 1 << c)
}

/// The position after `stones` random moves, or `None` if the game ended
/// first (or, with `careful`, is not calm there).
fn random_position(rng: &mut Rng, stones: u32, careful: bool) -> Option<QubicBoard> {
    let mut board = Qubic.start();
    while board.stones() < stones {
        let moves = Qubic.moves(board);
        if moves.is_empty() {
            return None;
        }
        let (me, you) = board.mover_and_other();
        let empty = board.empty();
        let preferred = [
            threats(me, empty),
            threats(you, empty),
            forks(me, you),
            forks(you, me),
        ]
        .into_iter()
        .find(|&cells| cells != 0);
        let mv = match preferred {
            Some(cells) if careful => {
                let cells: Vec<QubicCell> = moves
                    .iter()
                    .copied()
                    .filter(|m| cells >> m.index() & 1 != 0)
                    .collect();
                *rng.pick(&cells)
            }
            _ => *rng.pick(&moves),
        };
        board = Qubic.play(board, mv).0;
    }
    let (me, you) = board.mover_and_other();
    let empty = board.empty();
    let calm = threats(me, empty) == 0 && threats(you, empty) == 0 && forks(me, you) == 0;
    (Qubic.terminal_score(board).is_none() && (calm || !careful)).then_some(board)
}

fn median<T: Copy + Ord>(mut items: Vec<T>) -> Option<T> {
    items.sort_unstable();
    items.get(items.len().saturating_sub(1) / 2).copied()
}

/// What to run, from the command line.
struct Options {
    positions: usize,
    budget: u64,
    stones: Vec<u32>,
    tables: Vec<bool>,
    moves: bool,
    verbose: bool,
    rules: Rules,
}

fn options() -> Result<Options, Box<dyn std::error::Error>> {
    let mut options = Options {
        positions: 25,
        budget: 10_000_000,
        stones: vec![40, 48, 56],
        tables: vec![false, true],
        moves: false,
        verbose: false,
        rules: Rules::ALL,
    };
    let mut numbers = Vec::new();
    for arg in std::env::args().skip(1) {
        if arg == "-v" {
            options.verbose = true;
        } else if arg == "--moves" {
            options.moves = true;
        } else if arg == "--uniform" {
            options.tables = vec![false];
        } else if arg == "--calm" {
            options.tables = vec![true];
        } else if let Some(rule) = arg.strip_prefix('-').filter(|r| !r.starts_with('-')) {
            let flag = match rule {
                "deepening" => &mut options.rules.deepening,
                "sign_tests" => &mut options.rules.sign_tests,
                "pairings" => &mut options.rules.pairings,
                "dead_cells" => &mut options.rules.dead_cells,
                _ => return Err(format!("no rule {rule}").into()),
            };
            *flag = false;
        } else if let Some(list) = arg.strip_prefix("--stones=") {
            options.stones = list.split(',').map(str::parse).collect::<Result<_, _>>()?;
        } else {
            numbers.push(arg.parse::<u64>()?);
        }
    }
    if let Some(&n) = numbers.first() {
        options.positions = n as usize;
    }
    if let Some(&n) = numbers.get(1) {
        options.budget = n;
    }
    Ok(options)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let options = options()?;
    println!(
        "qubic live search, {} random positions per stone count, budget {} nodes{}{}",
        options.positions,
        options.budget,
        if options.rules == Rules::ALL {
            String::new()
        } else {
            format!(", {:?}", options.rules)
        },
        if options.moves {
            ", the position and every move (one solver, one budget, as an answer)"
        } else {
            ""
        }
    );
    for &careful in &options.tables {
        if careful {
            println!("calm positions from careful random play:");
        } else {
            println!("positions from uniformly random play:");
        }
        let (nodes, time) = table(&options, careful)?;
        println!(
            "total {nodes} nodes in {:.2} s (every position tried, answered or not)",
            time.as_secs_f64()
        );
    }
    println!("(ended: random games that were over (or not calm) at that many stones, replaced)");
    Ok(())
}

/// The position's score with a fresh solver (and every move's, with the
/// same solver, if asked), and the nodes it took.
fn solve(board: QubicBoard, options: &Options) -> (Result<Score, Error>, u64) {
    let limits = Limits {
        nodes: Some(options.budget),
        ..Limits::default()
    };
    let mut solver = QubicSolver::with_rules(limits, options.rules);
    let mut result = solver.score(board);
    if options.moves && result.is_ok() {
        for mv in Qubic.moves(board) {
            if let Err(e) = solver.score(Qubic.play(board, mv).0) {
                result = Err(e);
                break;
            }
        }
    }
    (result, solver.nodes())
}

/// One table: each stone count's positions, solved.
fn table(options: &Options, careful: bool) -> Result<(u64, Duration), Error> {
    println!(
        "{:>6} {:>6} {:>6} {:>8} {:>10} {:>10} {:>12} {:>8}  values (answered)",
        "stones", "tried", "ended", "answered", "median", "max", "median nodes", "nodes/s"
    );
    let mut rng = Rng::new(0x9b1c);
    let (mut total_nodes, mut total_time) = (0, Duration::ZERO);
    for &stones in &options.stones {
        let mut ended = 0;
        let (mut times, mut nodes) = (Vec::new(), Vec::new());
        let mut values = [0; 3];
        let mut unknown = 0;
        let mut tried = 0;
        let (mut all_nodes, mut all_time) = (0, Duration::ZERO);

        while tried < options.positions {
            let Some(board) = random_position(&mut rng, stones, careful) else {
                ended += 1;
                continue;
            };
            tried += 1;
            let started = Instant::now();
            let (result, spent) = solve(board, options);
            let time = started.elapsed();
            all_nodes += spent;
            all_time += time;
            let shown = match result {
                Ok(score) => {
                    let value = Qubic.value(board, score);
                    values[value.wdl as usize] += 1;
                    times.push(time);
                    nodes.push(spent);
                    value.to_string()
                }
                Err(Error::BudgetExhausted { .. }) => {
                    unknown += 1;
                    "unknown".to_owned()
                }
                Err(e) => return Err(e),
            };
            if options.verbose {
                println!(
                    "  {shown:<12} {spent:>10} nodes {:>9.3} s  {}",
                    time.as_secs_f64(),
                    Qubic.notation(board)
                );
            }
        }
        let seconds = |t: Option<Duration>| match t.map(|t| t.as_secs_f64()) {
            Some(t) if t < 1e-3 => format!("{:.0} µs", t * 1e6),
            Some(t) if t < 1.0 => format!("{:.1} ms", t * 1e3),
            Some(t) => format!("{t:.2} s"),
            None => "-".to_owned(),
        };
        // Over every position tried, answered or not.
        let rate = all_nodes as f64 / all_time.as_secs_f64().max(1e-9);
        println!(
            "{stones:>6} {tried:>6} {ended:>6} {:>8} {:>10} {:>10} {:>12} {:>7.2}M  {} win, {} draw, {} loss",
            tried - unknown,
            seconds(median(times.clone())),
            seconds(times.iter().max().copied()),
            median(nodes).map_or("-".to_owned(), |n| n.to_string()),
            rate / 1e6,
            values[Wdl::Win as usize],
            values[Wdl::Draw as usize],
            values[Wdl::Loss as usize],
        );
        total_nodes += all_nodes;
        total_time += all_time;
    }
    Ok((total_nodes, total_time))
}
