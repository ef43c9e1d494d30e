//! Probe latency of the tic-tac-toe table against live search on the same
//! positions. `solvedb bench` prints the ratio; this gives criterion's
//! detailed statistics.
//!
//! The table is read into memory rather than mapped: once warm, probes of
//! either backend read the same decoded-block cache, and reading keeps all
//! `unsafe` in `lookup/src/mapping.rs`.

use std::collections::HashSet;
use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use solvedb_lookup::{Board, Game, Oracle, TicTacToe, read_table};

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
    let with_table = Oracle::with_table(TicTacToe, table).expect("a tic-tac-toe table");
    let search_only = Oracle::<_, Vec<u8>>::search_only(TicTacToe);
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

criterion_group!(benches, probe);
criterion_main!(benches);
