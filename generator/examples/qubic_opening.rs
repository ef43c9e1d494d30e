//! The opening table's build alone, from a strategy table already built:
//! `qubic_opening [--tables DIR] [--stones N] [--nodes B] [--mib M] [--out
//! DIR]`. Follows the strategy of `DIR/qubic.sdb` from the empty board up
//! to N stones (the build's by default), settles every X move of its
//! X-to-move positions with a df-pn proof of B nodes and M MiB of proof
//! table a position, and prints the counts and the time; with `--out`,
//! writes the table there (`qubic-opening.sdb`, as `solvedb build qubic`
//! does).

use std::path::PathBuf;
use std::time::Instant;

use solvedb_generator::games::qubic::opening::{
    BUILD_BUDGET, OPENING_LEVEL, build_opening, opening_bytes,
};
use solvedb_generator::verify::read_whole;
use solvedb_lookup::games::qubic::opening::OPENING_FILE;
use solvedb_lookup::{Game, Qubic};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut tables, mut out, mut budget) = (PathBuf::from("tables"), None, BUILD_BUDGET);
    let mut sample = None;
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--tables" => tables = PathBuf::from(value),
            "--out" => out = Some(PathBuf::from(value)),
            "--stones" => budget.stones = value.parse()?,
            "--nodes" => budget.nodes = value.parse()?,
            "--mib" => budget.table_bytes = value.parse::<u64>()? << 20,
            "--sample" => sample = Some(value.parse::<usize>()?),
            other => anyhow::bail!("unknown option {other}"),
        }
        i += 2;
    }
    let table = read_whole(&tables.join("qubic.sdb"))?;
    if let Some(count) = sample {
        return measure_sample(&table, budget, count);
    }
    let started = Instant::now();
    let opening = build_opening(&table, Qubic.start(), budget)?;
    for note in opening.notes(budget) {
        println!("{note}");
    }
    let bytes = opening_bytes(&opening, OPENING_LEVEL);
    println!(
        "{} bytes, {:.1} s in all",
        bytes.len(),
        started.elapsed().as_secs_f64()
    );
    if let Some(out) = out {
        std::fs::create_dir_all(&out)?;
        let path = out.join(OPENING_FILE);
        solvedb_lookup::format::write_atomically(&path, &bytes)?;
        println!("written {}", path.display());
    }
    Ok(())
}

/// Settles `count` children of the X-to-move positions with exactly
/// `budget.stones` stones, spread evenly, and prints what they came to and
/// the time: the cost of a budget before a whole build.
fn measure_sample(
    table: &solvedb_lookup::Table<Vec<u8>>,
    budget: solvedb_generator::games::qubic::opening::OpeningBudget,
    count: usize,
) -> anyhow::Result<()> {
    use rayon::prelude::*;
    use solvedb_generator::games::qubic::opening::{settle, strategy_positions};
    use solvedb_lookup::games::qubic::has_line;
    use solvedb_lookup::games::qubic::strategy::{Strategy, board_of_key, key};
    use std::collections::{BTreeMap, BTreeSet};

    let positions = strategy_positions(table, Qubic.start(), budget.stones)?;
    let mut children = BTreeSet::new();
    for &p in positions.x_to_move.keys() {
        let board = board_of_key(p);
        if board.stones() != budget.stones {
            continue;
        }
        for c in 0..64u8 {
            if board.empty() >> c & 1 == 0 {
                continue;
            }
            let after = board.with_move(solvedb_lookup::QubicCell::new(c).expect("a cell"));
            if !has_line(after.x()) {
                children.insert(key(Qubic.canonical(after)));
            }
        }
    }
    let all: Vec<u128> = children.into_iter().collect();
    let step = (all.len() / count).max(1);
    let chosen: Vec<u128> = all.iter().step_by(step).copied().take(count).collect();
    let started = Instant::now();
    let values: Vec<_> = chosen
        .par_iter()
        .map_init(
            || Strategy::new(table),
            |strategy, &c| settle(table, strategy, &positions, budget, board_of_key(c)),
        )
        .collect::<Result<_, _>>()?;
    let mut counts = BTreeMap::new();
    for v in &values {
        *counts.entry(v.settled.as_str()).or_insert(0) += 1;
    }
    println!(
        "{} children of {}-stone positions ({} in all): {:?}, {:.1} s wall",
        chosen.len(),
        budget.stones,
        all.len(),
        counts,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}
