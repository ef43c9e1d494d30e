//! What the dots endgame solver's transposition table is worth along one
//! game: from a position, plays seeded random moves that give no box a
//! third side (as the committed positions are made) and solves each
//! position of the game twice — with a fresh solver, as the oracle does for
//! every request, and with one solver kept from the first position on, its
//! table holding what the searches of the positions before proved. Both
//! must give the same value; the figures are the positions visited and the
//! time of each.
//!
//! `cargo run --release -p solvedb-generator --example dots_game --
//! 5x5:000101101100001110100110100100001000000000000100000000000010
//! --moves 8` (the first 5×5 position of the committed set with 44
//! undrawn edges; docs/dots-and-boxes.md has the figures).

use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Parser;
use solvedb_lookup::games::dots::EndgameSolver;
use solvedb_lookup::{Dots, Edges, Game, GameId, Rng, SearchLimits};

/// Solves the positions of one game with a fresh solver each and with one
/// solver kept through the game.
#[derive(Debug, Parser)]
struct Args {
    /// The first position, `MxN:` and its edges (`0`/`1`, in the
    /// notation's order).
    position: String,
    /// Moves played after the first position (fewer where no move is left
    /// that gives no box a third side).
    #[arg(long, default_value_t = 8)]
    moves: usize,
    /// The seed of the moves' draws.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads of each search (one gives repeatable node counts).
    #[arg(long, default_value_t = 1)]
    threads: usize,
}

/// The positions of the game: `first`, then `moves` random edges that
/// give no box a third side.
fn game(board: Dots, first: Edges, moves: usize, rng: &mut Rng) -> Vec<Edges> {
    let mut positions = vec![first];
    let mut mask = first.0;
    for _ in 0..moves {
        let quiet = board.edges_without_third_sides(mask);
        if quiet.is_empty() {
            break;
        }
        mask |= 1 << rng.pick(&quiet);
        positions.push(Edges(mask));
    }
    positions
}

fn main() -> Result<()> {
    let args = Args::parse();
    let (id, _) = args
        .position
        .split_once(':')
        .context("a position starts with its board, as `5x5:0101...`")?;
    let board = Dots::from_id(format!("dots:{id}").parse::<GameId>()?)?;
    let first = board.parse(&args.position)?;
    let limits = SearchLimits {
        threads: Some(args.threads),
        ..SearchLimits::default()
    };
    let positions = game(board, first, args.moves, &mut Rng::new(args.seed));
    let mut kept = EndgameSolver::new(board, limits.clone());
    // Seconds of the first position and of the rest, fresh and kept.
    let (mut first, mut rest) = ([0.0; 2], [0.0; 2]);
    println!("undrawn  value  fresh solver (positions, s)  kept solver (positions, s)");
    for &position in &positions {
        let started = Instant::now();
        let mut fresh = EndgameSolver::new(board, limits.clone());
        let value = fresh.solve(position)?;
        let fresh_nodes = fresh.nodes();
        drop(fresh);
        let fresh_time = started.elapsed().as_secs_f64();

        let before = kept.nodes();
        let started = Instant::now();
        let kept_value = kept.solve(position)?;
        let kept_time = started.elapsed().as_secs_f64();
        if kept_value != value {
            bail!(
                "{}: a fresh solver says {value:+}, the kept one {kept_value:+}",
                board.notation(position)
            );
        }
        let undrawn = board.edges() - position.0.count_ones();
        println!(
            "{undrawn:7}  {value:+5}  {fresh_nodes:>12} {fresh_time:>9.3}       {:>12} {kept_time:>9.3}",
            kept.nodes() - before
        );
        let sum = if position == positions[0] {
            &mut first
        } else {
            &mut rest
        };
        sum[0] += fresh_time;
        sum[1] += kept_time;
    }
    println!(
        "the first position: fresh {:.2} s, kept {:.2} s; the {} after it: fresh {:.2} s, kept {:.2} s",
        first[0],
        first[1],
        positions.len() - 1,
        rest[0],
        rest[1]
    );
    Ok(())
}
