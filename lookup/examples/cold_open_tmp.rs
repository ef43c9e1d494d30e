use solvedb_lookup::*;
use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = std::path::Path::new(&args[1]);
    let t = Instant::now();
    let table = open_table(&dir.join("dots-3x4.sdb")).unwrap();
    let open = t.elapsed();
    if args.get(2).map(|s| s.as_str()) == Some("bg") {
        table.check_file_in_background();
    }
    let t = Instant::now();
    let e = table.entry(0x1234_5678).unwrap();
    let first = t.elapsed();
    let t = Instant::now();
    let mut s = 0u64;
    for i in 0..24u64 {
        s += u64::from(table.entry(i * 89_478_485 + 12345).unwrap());
    }
    let more = t.elapsed();
    let t = Instant::now();
    let o = Oracle::open(dir).unwrap();
    let r = o
        .moves(
            GameId::Dots { rows: 3, cols: 4 },
            "3x4:h0,0 h1,1 v0,2 v2,3 h3,2 v1,0 h2,3",
        )
        .unwrap();
    let moves = t.elapsed();
    println!(
        "open {:?} first {:?} 24 more {:?} oracle moves {:?} {} {} {}",
        open,
        first,
        more,
        moves,
        e,
        s,
        r.moves.len()
    );
}
