//! Proves X's win (or fails to) after one first move with the build's
//! pipeline: `qubic_first_move CELL [--threads N] [--mib M] [--nodes N]
//! [--out DIR] [--stones-ahead A,A,...] [--survey [--replies C,C,...]
//! [--walk]]`. Every O reply up to
//! symmetry is a task, proved as `solvedb build qubic` proves the
//! corner's (growing stone limits, a prover of its own each); each task's
//! result is kept in `DIR/qubic-tasks/` so that a run resumes. Prints each
//! task as it ends, then the totals and the peak memory. With `--survey`
//! every task is tried within the node budget whether or not another was
//! proved, easiest first (with `--replies`, only the O replies on those
//! cells, as the survey names them), and the run ends with a line per
//! task; `--walk` walks each proved task's strategy against every defence
//! with the walker's own rules, as a build walks the merged strategy.
//! `--stones-ahead` replaces the stone limits a task tries in turn (stones
//! beyond the task's position; the build's by default): `--stones-ahead 16`
//! tries only within 18 stones, then without a limit.

use std::path::PathBuf;
use std::time::Instant;

use solvedb_generator::games::qubic::parts::{Kept, TaskStore};
use solvedb_generator::games::qubic::peak_memory;
use solvedb_generator::games::qubic::prove::{prove_first_move, survey_first_move};
use solvedb_generator::games::qubic::task::{ProofOptions, within};
use solvedb_generator::games::qubic::walk_task;
use solvedb_lookup::{Game, Qubic};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let first: u8 = args.first().map_or(Ok(1), |a| a.parse())?;
    let mut options = ProofOptions {
        threads: 1,
        ..ProofOptions::default()
    };
    let mut out = PathBuf::from("target/qubic-first-move");
    let mut survey = false;
    let mut walk = false;
    let mut replies: Vec<u8> = Vec::new();
    let mut i = 1;
    while i < args.len() {
        if args[i] == "--survey" || args[i] == "--walk" {
            survey |= args[i] == "--survey";
            walk |= args[i] == "--walk";
            i += 1;
            continue;
        }
        let Some(value) = args.get(i + 1) else {
            anyhow::bail!("{} needs a value", args[i]);
        };
        match args[i].as_str() {
            "--threads" => options.threads = value.parse()?,
            "--mib" => options.task_table_bytes = value.parse::<u64>()? << 20,
            "--nodes" => options.task_nodes = Some(value.parse()?),
            "--out" => out = PathBuf::from(value),
            "--replies" => replies = value.split(',').map(str::parse).collect::<Result<_, _>>()?,
            "--stones-ahead" => {
                let limits: Vec<u32> =
                    value.split(',').map(str::parse).collect::<Result<_, _>>()?;
                // The options hold a static slice: one list a run.
                options.stones_ahead = Box::leak(limits.into_boxed_slice());
            }
            other => anyhow::bail!("unknown option {other}"),
        }
        i += 2;
    }
    std::fs::create_dir_all(&out)?;
    let store = TaskStore::new(&out, options.settings());
    let started = Instant::now();
    let progress = |line: &str| {
        println!("[{:>8.1} s] {line}", started.elapsed().as_secs_f64());
    };
    if survey {
        let tasks = survey_first_move(
            Qubic.start(),
            first,
            &replies,
            options,
            Some(&store),
            &progress,
        )?;
        let proved = tasks.iter().filter(|t| t.2.is_some()).count();
        for (cell, task, report) in &tasks {
            match report {
                Some(r) => {
                    let walked = if walk {
                        let Some(Kept::Proved(moves, _)) = store.load(*task)? else {
                            anyhow::bail!("{}: proved but not kept", Qubic.notation(*task));
                        };
                        let w = walk_task(*task, &moves)?;
                        format!(
                            "; walked: {} positions with X to move ({} from records), X wins within {} plies",
                            w.positions, w.from_records, w.depth
                        )
                    } else {
                        String::new()
                    };
                    println!(
                        "O on {cell:>2} ({}): proved{}, {} nodes, {:.1} s, {} strategy moves{walked}",
                        Qubic.notation(*task),
                        within(r.stone_limit),
                        r.nodes,
                        r.prove.as_secs_f64(),
                        r.moves
                    )
                }
                None => println!(
                    "O on {cell:>2} ({}): not proved within the budget",
                    Qubic.notation(*task)
                ),
            }
        }
        println!(
            "after X on {first}: {proved} of {} tasks proved, {:.1} s wall",
            tasks.len(),
            started.elapsed().as_secs_f64()
        );
        if let Some(peak) = peak_memory() {
            println!("peak memory {peak} bytes");
        }
        return Ok(());
    }
    let result = prove_first_move(Qubic.start(), first, options, Some(&store), &progress)?;
    match result {
        Ok(reports) => {
            let nodes: u64 = reports.iter().map(|r| r.nodes).sum();
            for r in &reports {
                println!(
                    "{}: proved{}, {} nodes, {:.1} s, {} strategy moves",
                    Qubic.notation(r.position),
                    within(r.stone_limit),
                    r.nodes,
                    r.prove.as_secs_f64(),
                    r.moves
                );
            }
            println!(
                "X wins after {first}: {} tasks, {nodes} nodes, {:.1} s wall",
                reports.len(),
                started.elapsed().as_secs_f64()
            );
        }
        Err(task) => println!(
            "not proved after {first}: task {} (disproved or over budget), {:.1} s wall",
            Qubic.notation(task),
            started.elapsed().as_secs_f64()
        ),
    }
    if let Some(peak) = peak_memory() {
        println!("peak memory {peak} bytes");
    }
    Ok(())
}
