//! The dots endgame solver on a fixed list of positions, one per line on
//! standard input (`4x4:h0,0 v1,2 ...`), each with a fresh solver: value,
//! positions searched and wall time per position, and the totals. The
//! running benchmark of the solver in `games/dots/endgame/`:
//!
//! ```text
//! cargo run --release -p solvedb-lookup --example endgame_bench [BITS] [before] [threads=N] [-RULE ...] \
//!     < lookup/examples/endgame_positions.txt
//! ```
//!
//! `BITS`: a table of `2^BITS` entries instead of the default size;
//! `-RULE` (a name of `Rules::NAMES`, e.g. `-transposition-cutoffs`, or
//! with underscores): that rule switched off;
//! `before`: the baseline rules `Rules::BEFORE`; `threads=N`: N threads (default:
//! every core).

use std::io::BufRead;
use std::time::Instant;

use solvedb_lookup::games::dots::{EndgameSolver, Rules};
use solvedb_lookup::{Dots, Game, SearchLimits};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut table_bits = None;
    let mut rules = Rules::ALL;
    let mut threads = None;
    for arg in std::env::args().skip(1) {
        match arg.strip_prefix('-') {
            Some(rule) => {
                // Rules as `Rules::NAMES` spells them, or with underscores.
                rules = rules
                    .switch(&rule.replace('_', "-"), false)
                    .ok_or_else(|| {
                        format!("no rule {rule} (the rules: {})", Rules::NAMES.join(", "))
                    })?;
            }
            None => match arg.strip_prefix("threads=") {
                Some(n) => threads = Some(n.parse()?),
                None if arg == "before" => rules = Rules::BEFORE,
                None => table_bits = Some(arg.parse()?),
            },
        }
    }
    let (mut total_nodes, mut total_seconds) = (0u64, 0f64);
    for line in std::io::stdin().lock().lines() {
        let line = line?;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let size = line.split(':').next().unwrap_or_default();
        let (rows, cols) = size.split_once('x').ok_or("want RxC:edges")?;
        let board = Dots::new(rows.parse()?, cols.parse()?)?;
        let position = board.parse(line)?;
        let limits = SearchLimits {
            threads,
            ..SearchLimits::default()
        };
        let mut solver = match table_bits {
            Some(bits) => EndgameSolver::with_rules(board, limits, rules, bits),
            None if rules == Rules::ALL => EndgameSolver::new(board, limits),
            None => return Err("give the table size (BITS) with rules switched off".into()),
        };
        let started = Instant::now();
        let value = solver.solve(position)?;
        let seconds = started.elapsed().as_secs_f64();
        println!(
            "{:+3} {:>13} nodes {:9.3} s  {} undrawn  {line}",
            value,
            solver.nodes(),
            seconds,
            board.edges() - position.count()
        );
        total_nodes += solver.nodes();
        total_seconds += seconds;
    }
    println!("total {total_nodes} nodes {total_seconds:.3} s");
    Ok(())
}
