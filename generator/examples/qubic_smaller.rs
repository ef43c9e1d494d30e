//! The pass that makes Qubic's strategy smaller
//! ([`smaller_strategy`]), measured on a built strategy table:
//! `qubic_smaller [--tables DIR]`.
//!
//! The table's records are taken as the proof's moves; the records the
//! build would write from them are computed again (and must be the
//! table's own, which checks the walk), then the pass runs, and the
//! records of the smaller strategy are computed. Prints, by stones, the
//! positions, the records and the strategic records (Patashnik's sense,
//! [`dictionary::strategic`], the probe's threat budget) before and after,
//! the pass's figures and time, and digests of the table's records and
//! of the records after (two runs, or a run and the table the build
//! wrote with the pass, give the same digest).

use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::path::PathBuf;
use std::time::Instant;

use solvedb_generator::games::qubic::dictionary;
use solvedb_generator::games::qubic::peak_memory;
use solvedb_generator::games::qubic::records::{StrategyRecords, strategy_records};
use solvedb_generator::games::qubic::smaller::smaller_strategy;
use solvedb_lookup::games::qubic::strategy::{board_of_key, probe_threats};
use solvedb_lookup::{Game, Qubic, open_table};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut tables = PathBuf::from("tables");
    let mut i = 0;
    while i + 1 < args.len() {
        match args[i].as_str() {
            "--tables" => tables = PathBuf::from(&args[i + 1]),
            other => anyhow::bail!("unknown option {other}"),
        }
        i += 2;
    }
    let table = open_table(&tables.join("qubic.sdb"))?;
    let mut stored = Vec::new();
    for index in 0..table.header().stored {
        let (key, entry) = table.wide_record(index)?;
        stored.push((key, [entry[0], entry[1]]));
    }
    let proved: HashMap<u128, u8> = stored.iter().map(|&(k, [mv, _])| (k, mv)).collect();
    println!("the table's records: digest {:016x}", digest(&stored));

    let started = Instant::now();
    let before = strategy_records(Qubic.start(), &proved)?;
    anyhow::ensure!(
        before.records == stored,
        "the walk of the table's own moves does not give its records back"
    );
    println!(
        "before: the table's records given back by the walk ({:.1} s)",
        started.elapsed().as_secs_f64()
    );
    let started = Instant::now();
    let (moves, report) = smaller_strategy(Qubic.start(), &proved)?;
    let pass = started.elapsed();
    let after = strategy_records(Qubic.start(), &moves)?;
    println!(
        "pass: {} strategic positions walked: {} kept (their move settles every reply), {} changed, {} kept the proof's move; {:.1} s, and {:.1} s for the records",
        report.strategic,
        report.kept_settled,
        report.changed,
        report.kept_proved,
        pass.as_secs_f64(),
        started.elapsed().as_secs_f64() - pass.as_secs_f64()
    );
    let (rows_before, rows_after) = (rows(&before), rows(&after));
    println!("stones: positions, records, strategic records; before -> after");
    let stones: std::collections::BTreeSet<u32> = rows_before
        .keys()
        .chain(rows_after.keys())
        .copied()
        .collect();
    let mut totals = [[0u64; 3]; 2];
    for s in stones {
        let b = rows_before.get(&s).copied().unwrap_or_default();
        let a = rows_after.get(&s).copied().unwrap_or_default();
        for j in 0..3 {
            totals[0][j] += b[j];
            totals[1][j] += a[j];
        }
        println!(
            "  {s:>2}: {:>8} -> {:>8}   {:>6} -> {:>6}   {:>6} -> {:>6}",
            b[0], a[0], b[1], a[1], b[2], a[2]
        );
    }
    let [b, a] = totals;
    println!(
        "  all: {:>8} -> {:>8}   {:>6} -> {:>6}   {:>6} -> {:>6}   (Patashnik: 2,929 strategic moves)",
        b[0], a[0], b[1], a[1], b[2], a[2]
    );
    println!(
        "bound at the empty board: {} -> {} plies",
        before.depth, after.depth
    );
    println!(
        "records after: digest {:016x}; peak memory {} MiB",
        digest(&after.records),
        peak_memory().unwrap_or(0) >> 20
    );
    Ok(())
}

/// A digest of records, to compare two runs or a run and a table.
fn digest(records: &[(u128, [u8; 2])]) -> u64 {
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    records.hash(&mut hasher);
    hasher.finish()
}

/// Positions, records and strategic records by stones.
fn rows(strategy: &StrategyRecords) -> BTreeMap<u32, [u64; 3]> {
    let mut rows: BTreeMap<u32, [u64; 3]> = BTreeMap::new();
    for &(stones, positions, records) in &strategy.by_stones {
        let row = rows.entry(stones).or_default();
        row[0] = positions;
        row[1] = records;
    }
    let mut search = probe_threats();
    for &(key, _) in &strategy.records {
        let board = board_of_key(key);
        if dictionary::strategic(&mut search, board) {
            rows.entry(board.stones()).or_default()[2] += 1;
        }
    }
    rows
}
