//! `solvedb bench qubic`: the live search that answers positions outside
//! the strategy, measured on positions with 40, 48 and 56 stones from
//! seeded random play ([`random_position`]), each answered as `solvedb
//! probe` answers it without a table — the value and every move's value,
//! within the command line's budget — and the value alone.

use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use solvedb_lookup::testkit::Rng;
use solvedb_lookup::{Error, Game, GameOracle, Qubic, SearchLimits, Wdl};

use super::samples::random_position;
use crate::bench::{BenchOptions, median};

/// The stone counts measured.
const STONES: [u32; 3] = [40, 48, 56];

/// Positions per stone count and kind of play unless `--positions` says.
const POSITIONS: usize = 25;

/// A table of each stone count's figures, for uniform and careful play.
pub(super) fn bench(options: &BenchOptions, out: &mut dyn Write) -> Result<()> {
    let positions = options.positions_or(POSITIONS);
    writeln!(
        out,
        "qubic live search (no table): {positions} positions per stone count and kind of \
         play, each answered within {} nodes",
        options.search_nodes
    )?;
    for careful in [false, true] {
        writeln!(
            out,
            "{}",
            if careful {
                "calm positions from careful random play:"
            } else {
                "positions from uniformly random play:"
            }
        )?;
        writeln!(
            out,
            "{:>6} {:>7} {:>8} {:>9} {:>10} {:>10} {:>10} {:>10}  values",
            "stones", "tried", "skipped", "answered", "median", "max", "value med", "value max"
        )?;
        for stones in STONES {
            let row = measure(stones, careful, positions, options.search_nodes)?;
            writeln!(
                out,
                "{stones:>6} {positions:>7} {:>8} {:>9} {:>10} {:>10} {:>10} {:>10}  {} win, {} draw, {} loss",
                row.skipped,
                row.answered,
                shown(row.answers.median()),
                shown(row.answers.max()),
                shown(row.values.median()),
                shown(row.values.max()),
                row.results[Wdl::Win as usize],
                row.results[Wdl::Draw as usize],
                row.results[Wdl::Loss as usize],
            )?;
        }
    }
    writeln!(
        out,
        "answered: the value and every move's value within the budget (what `probe` \
         prints); median/max over the answered ones; value: the position's value alone; \
         skipped: random games over (or not calm) at that many stones, replaced"
    )?;
    Ok(())
}

/// Times of the answered positions.
#[derive(Default)]
struct Times(Vec<Duration>);

impl Times {
    fn median(&self) -> Option<Duration> {
        (!self.0.is_empty()).then(|| median(self.0.clone()))
    }

    fn max(&self) -> Option<Duration> {
        self.0.iter().max().copied()
    }
}

/// One stone count's figures.
struct Row {
    skipped: usize,
    answered: usize,
    answers: Times,
    values: Times,
    results: [usize; 3],
}

fn measure(stones: u32, careful: bool, positions: usize, nodes: u64) -> Result<Row> {
    let limits = SearchLimits {
        nodes: Some(nodes),
        ..SearchLimits::default()
    };
    let mut rng = Rng::new(0x9b1c + u64::from(stones) + u64::from(careful));
    let mut row = Row {
        skipped: 0,
        answered: 0,
        answers: Times::default(),
        values: Times::default(),
        results: [0; 3],
    };
    let mut tried = 0;
    while tried < positions {
        let Some(board) = random_position(&mut rng, stones, careful) else {
            row.skipped += 1;
            continue;
        };
        tried += 1;
        // A fresh oracle each time: no position profits from another's
        // search.
        let oracle =
            GameOracle::<_, Vec<u8>>::search_only(Qubic).with_search_limits(limits.clone());
        let started = Instant::now();
        match oracle.answer(board) {
            Ok(answer) => {
                row.answers.0.push(started.elapsed());
                row.answered += 1;
                row.results[answer.value.wdl as usize] += 1;
            }
            Err(Error::BudgetExhausted { .. }) => {}
            Err(e) => bail!("{}: {e}", Qubic.notation(board)),
        }
        let oracle =
            GameOracle::<_, Vec<u8>>::search_only(Qubic).with_search_limits(limits.clone());
        let started = Instant::now();
        if oracle.probe(board).is_ok() {
            row.values.0.push(started.elapsed());
        }
    }
    Ok(row)
}

fn shown(time: Option<Duration>) -> String {
    match time.map(|t| t.as_secs_f64()) {
        Some(t) if t < 1e-3 => format!("{:.0} µs", t * 1e6),
        Some(t) if t < 1.0 => format!("{:.1} ms", t * 1e3),
        Some(t) => format!("{t:.2} s"),
        None => "-".to_owned(),
    }
}
