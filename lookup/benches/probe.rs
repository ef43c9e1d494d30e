//! Probe latency, criterion's view: the tic-tac-toe table against live
//! search on the same positions (`solvedb bench` prints the ratio), and the
//! cube table over positions from random games (`solvedb bench cube` reports
//! p50/p99 and the heuristic baseline).
//!
//! Tables are read into memory rather than mapped: once warm, probes of
//! either backend read the same decoded-block cache, and reading keeps all
//! `unsafe` in `lookup/src/mapping.rs`.

use std::collections::HashSet;
use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use solvedb_lookup::testkit::{Rng, random_positions};
use solvedb_lookup::{Board, Cube, CubeBoard, Game, GameOracle, Tabled, TicTacToe, read_table};

fn reachable() -> Vec<Board> {
    let mut seen = HashSet::new();
    let mut stack = vec![TicTacToe.start()];
    while let Some(p) = stack.pop() {
        if seen.insert(p) {
            stack.extend(
                TicTacToe
                    .moves(p)
                    .into_iter()
                    .map(|m| TicTacToe.play(p, m).0),
            );
        }
    }
    let mut all: Vec<Board> = seen.into_iter().collect();
    all.sort_unstable();
    all
}

fn probe(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tables/tictactoe.sdb");
    let table = read_table(&path).expect("tables/tictactoe.sdb: run `solvedb build tictactoe`");
    let with_table = GameOracle::with_table(TicTacToe, table).expect("a tic-tac-toe table");
    let search_only = GameOracle::<_, Vec<u8>>::search_only(TicTacToe);
    let positions = reachable();
    for &p in &positions {
        with_table.probe(p).expect("warm-up probe");
    }
    let mut group = c.benchmark_group("tictactoe, every reachable position");
    group.bench_function("probe: table", |b| {
        b.iter(|| {
            positions
                .iter()
                .for_each(|&p| drop(black_box(with_table.probe(p))))
        })
    });
    group.bench_function("probe: live search", |b| {
        b.iter(|| {
            positions
                .iter()
                .for_each(|&p| drop(black_box(search_only.probe(p))))
        })
    });
    group.bench_function("answer (all moves): table", |b| {
        b.iter(|| {
            positions
                .iter()
                .for_each(|&p| drop(black_box(with_table.answer(p))))
        })
    });
    group.finish();
}

fn cube_probe(c: &mut Criterion) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tables/cube.sdb");
    let table = read_table(&path).expect("tables/cube.sdb (run `solvedb build cube`)");
    let positions = random_positions(&Cube, &mut Rng::new(0x5eed), 1000);
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

criterion_group!(benches, probe, cube_probe);
criterion_main!(benches);
