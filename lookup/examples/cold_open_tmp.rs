// Temporary measurement (not committed): a fresh process's first probes of
// dots 3x4 by each way of opening.
use solvedb_lookup::*;
use std::time::Instant;
fn kb(f: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find(|l| l.starts_with(f))
        .unwrap()
        .split_whitespace()
        .nth(1)
        .unwrap()
        .parse()
        .unwrap()
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::Path::new(&args[1]);
    let mode = args[2].as_str();
    let before = kb("VmRSS:");
    let t = Instant::now();
    let o = match mode {
        "file" => Oracle::open(dir).unwrap(),
        "memory" => Oracle::open_in_memory(dir).unwrap(),
        "map" => unsafe { Oracle::open_mapped(dir) }.unwrap(),
        _ => panic!(),
    };
    let g = GameId::Dots { rows: 3, cols: 4 };
    let v = o
        .probe(g, "3x4:h0,0 h1,1 v0,2 v2,3 h3,2 v1,0 h2,3")
        .unwrap();
    let value = t.elapsed();
    let r = o
        .moves(g, "3x4:h0,0 h1,1 v0,2 v2,3 h3,2 v1,0 h2,3")
        .unwrap();
    let moves = t.elapsed();
    println!(
        "{mode} value {:.0} us moves(+{} children) {:.0} us rss {} kB (+{}) hwm {} kB {}",
        value.as_secs_f64() * 1e6,
        r.moves.len(),
        moves.as_secs_f64() * 1e6,
        kb("VmRSS:"),
        kb("VmRSS:") - before,
        kb("VmHWM:"),
        v.value
    );
}
