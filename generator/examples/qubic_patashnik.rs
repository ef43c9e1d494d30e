//! Item of comparison with Patashnik's proof: `qubic_patashnik
//! [--tables DIR] [--dictionary FILE] [--budget NODES]`.
//!
//! 1. Counts the strategy table's records the way Patashnik counted his
//!    2,929 strategic moves: records whose position is not a block of
//!    O's three and not won by a threat line (`dictionary::strategic`),
//!    by stones; those of the strategy from the empty board (Patashnik's
//!    proof is one) apart from those only the table's other roots reach
//!    (`walk::strategy_roots`), which a walk of the table tells.
//! 2. Walks the dictionary (default `../shared/data/qubic/patashnik.dictionary`;
//!    comparison only) from the empty board against every O reply with
//!    Patashnik's four rules, the forced win found by the project's threat
//!    search, and prints what settled the positions and the holes, each
//!    hole then tried with a threat search of 100 times the budget.

use std::path::PathBuf;
use std::time::Instant;

use solvedb_generator::games::qubic::dictionary::{self, Dictionary};
use solvedb_generator::games::qubic::prover::{Attacker, Prover, ProverLimits, Verdict};
use solvedb_generator::games::qubic::walk;
use solvedb_lookup::games::qubic::strategy::board_of_key;
use solvedb_lookup::games::qubic::threats::ThreatSearch;
use solvedb_lookup::{Game, Qubic};

/// The df-pn prover's node budget for a hole.
const PROVER_NODES: u64 = 200_000_000;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut tables = PathBuf::from("tables");
    let mut path = PathBuf::from("../shared/data/qubic/patashnik.dictionary");
    let mut budget = 20_000u64;
    let mut i = 0;
    while i + 1 < args.len() {
        match args[i].as_str() {
            "--tables" => tables = PathBuf::from(&args[i + 1]),
            "--dictionary" => path = PathBuf::from(&args[i + 1]),
            "--budget" => budget = args[i + 1].parse()?,
            other => anyhow::bail!("unknown option {other}"),
        }
        i += 2;
    }
    let table = solvedb_generator::verify::read_whole(&tables.join("qubic.sdb"))?;
    let started = Instant::now();
    let roots = walk::strategy_roots(&table)?;
    let walked = walk::walk_roots(&table, &roots)?;
    println!(
        "walked from {} roots: {} positions with X to move, {:.1} s",
        roots.len(),
        walked.all.positions,
        started.elapsed().as_secs_f64()
    );
    let mut search = ThreatSearch::new(budget);
    // By the empty board's strategy or not, then by stones.
    let mut by_stones = std::collections::BTreeMap::<(bool, u32), (u64, u64)>::new();
    let started = Instant::now();
    for index in 0..table.header().stored {
        let (key, _) = table.wide_record(index)?;
        let board = board_of_key(key);
        let entry = by_stones
            .entry((walked.from_first.contains(&key), board.stones()))
            .or_default();
        entry.0 += 1;
        entry.1 += u64::from(dictionary::strategic(&mut search, board));
    }
    for (first, what) in [
        (true, "the strategy from the empty board"),
        (false, "the other roots' strategies"),
    ] {
        let rows: Vec<_> = by_stones.iter().filter(|((f, _), _)| *f == first).collect();
        if rows.is_empty() {
            continue;
        }
        let (records, strategic): (u64, u64) =
            rows.iter().fold((0, 0), |a, (_, v)| (a.0 + v.0, a.1 + v.1));
        println!(
            "{what}: {records} records, {strategic} strategic in Patashnik's sense (threat budget {budget}), {:.1} s",
            started.elapsed().as_secs_f64()
        );
        for ((_, stones), (r, s)) in rows {
            println!("  {stones:>2} stones: {r:>6} records, {s:>6} strategic");
        }
    }
    let Ok(text) = std::fs::read_to_string(&path) else {
        println!("no dictionary at {}: its walk is skipped", path.display());
        return Ok(());
    };
    let dictionary = Dictionary::parse(&text)?;
    println!(
        "dictionary: {} lines, {} positions up to symmetry",
        dictionary.lines,
        dictionary.len()
    );
    let started = Instant::now();
    let walk = dictionary::walk(&dictionary, budget, 64, &|n| {
        eprintln!("  {n} positions, {:.0} s", started.elapsed().as_secs_f64());
    });
    println!(
        "walk: {} X-to-move positions up to symmetry; win {}, block {}, dictionary {}, forced win {}; {} dictionary positions used; {} holes; {:.1} s",
        walk.positions,
        walk.by_rule[0],
        walk.by_rule[1],
        walk.by_rule[2],
        walk.by_rule[3],
        walk.used,
        walk.holes.len(),
        started.elapsed().as_secs_f64()
    );
    // Each hole tried again: a threat search of 100 times the budget, then
    // the df-pn prover (the forced win of any kind) within `PROVER_NODES`.
    let mut deeper = ThreatSearch::new(budget * 100);
    let (mut by_threats, mut by_prover, mut open) = (0, 0, 0);
    for (n, hole) in walk.holes.iter().enumerate() {
        let line = hole
            .x_to_move()
            .then(|| deeper.find(hole.x(), hole.o()))
            .flatten();
        let verdict = if line.is_some() {
            by_threats += 1;
            format!("threat line within {} nodes", budget * 100)
        } else if hole.x_to_move() {
            let mut prover = Prover::new(
                Attacker::X,
                ProverLimits {
                    table_bytes: 512 << 20,
                    nodes: Some(PROVER_NODES),
                    ..ProverLimits::default()
                },
            );
            let verdict = prover.prove(*hole);
            match verdict {
                Ok(Verdict::Proved) => by_prover += 1,
                _ => open += 1,
            }
            format!(
                "no threat line; df-pn: {verdict:?} ({} nodes)",
                prover.nodes()
            )
        } else {
            open += 1;
            "O completed a line or filled the board".into()
        };
        if n < 20 || line.is_none() {
            println!(
                "hole: {} ({} stones): {verdict}",
                Qubic.notation(*hole),
                hole.stones()
            );
        }
    }
    println!(
        "holes: {} settled by a deeper threat search, {by_prover} by df-pn (X wins, not by threats alone), {open} open",
        by_threats
    );
    Ok(())
}
