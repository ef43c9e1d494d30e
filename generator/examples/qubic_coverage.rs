//! How much of the game the probe answers as people reach it:
//! `qubic_coverage [--tables DIR] [--positions N] [--seconds S] [--seed S]
//! [--stones A-B] [--moves] [--x-strategy] [--threads T]`.
//!
//! For each stone count, N positions from `people_position` (seeds
//! `seed·1000 + stones·100 + i`, skipping games already over; with
//! `--x-strategy` X plays the strategy's move wherever it has one, so the
//! positions are on its line as a person playing O against it reaches
//! them), each probed as the server probes it (the tables of
//! `DIR/qubic.sdb` and `DIR/qubic-opening.sdb` if present, else live search
//! only), with a deadline of S seconds (the server's 3 s by default): the
//! value alone, or with `--moves` the value and every move's; the live
//! proofs on `T` threads (every core by default, `1`: one after the
//! other). Prints answered/N and the median and slowest time per stone
//! count; with `--moves`, also how many of the positions' legal moves have
//! a value.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use solvedb_lookup::games::qubic::samples::people_position_with;
use solvedb_lookup::games::qubic::strategy::Strategy;
use solvedb_lookup::{Game, GameOracle, Qubic, SearchLimits, Stop, TableFile, open_table};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut tables, mut positions, mut seconds, mut seed) = (PathBuf::from("tables"), 20, 3.0, 1);
    let (mut from, mut to, mut moves, mut threads) = (0u32, 24u32, false, None);
    let mut x_strategy = false;
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--tables" => tables = PathBuf::from(value),
            "--positions" => positions = value.parse()?,
            "--seconds" => seconds = value.parse()?,
            "--seed" => seed = value.parse()?,
            "--threads" => threads = Some(value.parse()?),
            "--stones" => {
                let (a, b) = value.split_once('-').unwrap_or((&value, &value));
                (from, to) = (a.parse()?, b.parse()?);
            }
            "--moves" => {
                moves = true;
                i += 1;
                continue;
            }
            "--x-strategy" => {
                x_strategy = true;
                i += 1;
                continue;
            }
            other => anyhow::bail!("unknown option {other}"),
        }
        i += 2;
    }
    let path = tables.join("qubic.sdb");
    let opening = tables.join("qubic-opening.sdb");
    let oracle: GameOracle<Qubic, TableFile> = if path.exists() {
        let oracle = GameOracle::with_table(Qubic, open_table(&path)?)?;
        if opening.exists() {
            oracle.with_companion(open_table(&opening)?)?
        } else {
            oracle
        }
    } else {
        println!("no {}: live search only", path.display());
        GameOracle::search_only(Qubic)
    }
    .with_search_limits(SearchLimits {
        threads,
        ..SearchLimits::default()
    });
    println!(
        "stones  answered  median s  slowest s  (value{})",
        if moves { " and every move" } else { "" }
    );
    let mut strategy = match (x_strategy, oracle.table()) {
        (true, Some(table)) => Some(Strategy::new(table)),
        (true, None) => anyhow::bail!("--x-strategy needs {}", path.display()),
        (false, _) => None,
    };
    for stones in from..=to {
        let mut times = Vec::new();
        let mut answered = 0;
        let (mut valued, mut legal) = (0usize, 0usize);
        let mut unknown = Vec::new();
        let mut k = 0u64;
        while times.len() < positions {
            let s = seed * 1000 + u64::from(stones) * 100 + k;
            k += 1;
            let x_move = |board| {
                let strategy = strategy.as_mut()?;
                Some(strategy.x_move(board).ok()??.cell.index())
            };
            let Some(board) = people_position_with(s, stones, x_move) else {
                continue;
            };
            let stop = Stop::new(Some(Duration::from_secs_f64(seconds)), None);
            let started = Instant::now();
            let ok = if moves {
                let answer = oracle.answer_within(board, &stop);
                legal += Qubic.moves(board).len();
                if let Ok(a) = &answer {
                    valued += a.moves.len();
                }
                answer.is_ok_and(|a| a.unknown.is_empty())
            } else {
                oracle.probe_value_within(board, &stop).is_ok()
            };
            times.push(started.elapsed().as_secs_f64());
            if ok {
                answered += 1;
            } else {
                unknown.push(Qubic.notation(board));
            }
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{stones:>6}  {answered:>4}/{positions:<4} {:>8.3}  {:>9.3}{}",
            times[times.len() / 2],
            times[times.len() - 1],
            if moves {
                format!("  moves valued {valued}/{legal}")
            } else {
                String::new()
            }
        );
        for u in unknown.iter().take(2) {
            println!("        unknown: {u}");
        }
    }
    Ok(())
}
