//! Probe latency on the committed cube table, over positions from random
//! games (the `solvedb bench cube` command reports p50/p99 and the heuristic
//! baseline; this is the criterion view of the same probe).

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use solvedb_lookup::{Cube, CubeBoard, Game, Tabled, read_table};

/// Non-terminal positions from games of random moves (xorshift64*).
fn random_positions(count: usize) -> Vec<CubeBoard> {
    let mut state = 0x5eed_u64;
    let mut positions = Vec::with_capacity(count);
    while positions.len() < count {
        let mut board = Cube.start();
        loop {
            let moves = Cube.moves(board);
            if moves.is_empty() {
                break;
            }
            positions.push(board);
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let r = (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 33) as usize;
            board = Cube.play(board, moves[r % moves.len()]).0;
        }
    }
    positions.truncate(count);
    positions
}

fn cube_probe(c: &mut Criterion) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tables/cube.sdb");
    let table = read_table(&path).expect("tables/cube.sdb (run `solvedb build cube`)");
    let positions = random_positions(1000);
    for &p in &positions {
        Cube.table_score(&table, p).expect("warm every block");
    }
    c.bench_function("cube probe, 1000 random reachable positions", |b| {
        b.iter(|| {
            for &p in &positions {
                black_box(Cube.table_score(&table, black_box(p)).ok());
            }
        })
    });
    let quiet: Vec<CubeBoard> = positions.iter().copied().filter(|p| p.is_quiet()).collect();
    c.bench_function("cube canonical form, quiet positions", |b| {
        b.iter(|| {
            for &p in &quiet {
                black_box(Cube.canonical(black_box(p)));
            }
        })
    });
}

criterion_group!(benches, cube_probe);
criterion_main!(benches);
