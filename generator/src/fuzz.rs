//! A fuzzer that runs on stable Rust, in the tests and as `solvedb fuzz`:
//! random and mutated inputs for every notation parser and for table
//! `open` + `verify` + probe, each run under `catch_unwind`.
//!
//! cargo-fuzz needs a nightly toolchain, which this project's machines do
//! not have. What this harness lacks in coverage guidance it makes up with
//! structure: inputs are mutations of valid notations and valid tables, and
//! mutated tables are often resealed (every checksum recomputed) so that the
//! checks behind the checksums get exercised too.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use solvedb_lookup::format::reseal;
use solvedb_lookup::testkit::{Rng, random_game};
use solvedb_lookup::{Error, Game, GameId, GameOracle, Table, Tabled, catalogue, with_game};

use crate::build::build_table;

/// How long to fuzz.
#[derive(Copy, Clone, Debug)]
pub enum Budget {
    /// Stop after this many executions.
    Executions(u64),
    /// Stop after this long.
    Time(Duration),
}

impl Budget {
    /// One of `parts` equal shares.
    fn split(self, parts: u32) -> Budget {
        match self {
            Budget::Executions(n) => Budget::Executions(n / u64::from(parts)),
            Budget::Time(t) => Budget::Time(t / parts),
        }
    }

    /// Whether execution number `done` (counting from 0) still fits, for a
    /// share that started at `started`.
    fn allows(self, done: u64, started: Instant) -> bool {
        match self {
            Budget::Executions(n) => done < n,
            Budget::Time(t) => started.elapsed() < t,
        }
    }
}

/// What a fuzzing run did.
#[derive(Clone, Debug, Default)]
pub struct FuzzReport {
    /// Executions per game and target.
    pub executions: Vec<(GameId, &'static str, u64)>,
    /// Inputs that panicked or broke a property, with what went wrong.
    pub failures: Vec<String>,
    /// Wall-clock time.
    pub elapsed: Duration,
}

impl FuzzReport {
    /// Executions over all targets.
    pub fn total(&self) -> u64 {
        self.executions.iter().map(|(_, _, n)| n).sum()
    }
}

const NOTATION_CHARS: &[char] = &[
    'X', 'O', '.', '/', 'X', 'O', '.', 'x', 'o', '0', '1', '9', ':', ',', 'h', 'v', ' ', '\n', '-',
    'é', '\u{0}', '𝕏',
];

/// A random string: noise, or a mutation of a valid position's notation.
fn random_text(rng: &mut Rng, seeds: &[String]) -> String {
    let mut chars: Vec<char> = if rng.below(3) == 0 || seeds.is_empty() {
        let len = if rng.below(10) == 0 {
            rng.below(300)
        } else {
            rng.below(40)
        };
        (0..len).map(|_| *rng.pick(NOTATION_CHARS)).collect()
    } else {
        rng.pick(seeds).chars().collect()
    };
    for _ in 0..rng.below(4) {
        let at = rng.below(chars.len() as u64 + 1) as usize;
        match rng.below(3) {
            0 if at < chars.len() => chars[at] = *rng.pick(NOTATION_CHARS),
            1 => chars.insert(at, *rng.pick(NOTATION_CHARS)),
            _ if at < chars.len() => {
                chars.remove(at);
            }
            _ => {}
        }
    }
    chars.into_iter().collect()
}

/// Mutates a table's bytes: bit flips, overwritten, inserted or removed
/// bytes, truncation; resealed half of the time.
fn mutate_table(rng: &mut Rng, good: &[u8]) -> Vec<u8> {
    let mut bytes = good.to_vec();
    for _ in 0..1 + rng.below(4) {
        let len = bytes.len() as u64;
        // Aim at the head (first 256 bytes) as often as at the rest.
        let at = if rng.below(2) == 0 {
            rng.below(len.min(256))
        } else {
            rng.below(len)
        } as usize;
        match rng.below(5) {
            0 => bytes[at] ^= 1 << rng.below(8),
            1 => bytes[at] = rng.next_u64() as u8,
            2 => bytes.insert(at, rng.next_u64() as u8),
            3 if bytes.len() > 1 => {
                bytes.remove(at);
            }
            _ => bytes.truncate(at.max(1)),
        }
    }
    if rng.below(2) == 0 {
        let _ = reseal(&mut bytes);
    }
    bytes
}

/// One game's fuzz targets: its notation parser (with the property that
/// every accepted position is covered by its table and round-trips) and its
/// table.
fn fuzz_game<G: Tabled + Copy>(
    game: G,
    table_bytes: &[u8],
    share: Budget,
    rng: &mut Rng,
    report: &mut FuzzReport,
) {
    let started = Instant::now();
    let table = Table::new(table_bytes).expect("a good table to mutate");
    let oracle = GameOracle::with_table(game, table).expect("the game's own table");
    let seeds: Vec<String> = seed_positions(&game, rng, 256)
        .into_iter()
        .map(|p| game.notation(p))
        .collect();
    let mut counts = [0u64; 3];
    while share.allows(counts.iter().sum(), started) {
        let target = rng.below(3) as usize;
        counts[target] += 1;
        let (input, result) = match target {
            0 => {
                let text = random_text(rng, &seeds);
                let result =
                    catch_unwind(AssertUnwindSafe(|| check_notation(&game, &oracle, &text)));
                (format!("{} position {text:?}", game.id()), result)
            }
            1 => {
                let text = random_text(rng, &[]);
                let result = catch_unwind(AssertUnwindSafe(|| {
                    let _ = game.parse_move(&text);
                    let _ = text.parse::<GameId>();
                    Ok(())
                }));
                (format!("move or game name {text:?}"), result)
            }
            _ => {
                let bytes = mutate_table(rng, table_bytes);
                let slots: Vec<u64> = (0..4).map(|_| rng.below(game.slots())).collect();
                let result = catch_unwind(AssertUnwindSafe(|| {
                    check_table(&game, &bytes, &slots, &seeds);
                    Ok(())
                }));
                (format!("{} table bytes {}", game.id(), hex(&bytes)), result)
            }
        };
        match result {
            Ok(Ok(())) => {}
            Ok(Err(broken)) => report.failures.push(format!("{input}: {broken}")),
            Err(_) => report.failures.push(format!("{input}: panicked")),
        }
    }
    let names = ["notation", "move and game names", "table open/verify/probe"];
    for (name, n) in names.into_iter().zip(counts) {
        report.executions.push((game.id(), name, n));
    }
}

/// Every position of random games played to the end, for mutation seeds.
fn seed_positions<G: Game>(game: &G, rng: &mut Rng, count: usize) -> Vec<G::Position> {
    let mut out = Vec::new();
    while out.len() < count {
        out.extend(random_game(game, rng));
    }
    out
}

/// Any accepted position must be covered by the table, round-trip through
/// its notation, and keep both properties under symmetry.
fn check_notation<G: Tabled>(
    game: &G,
    oracle: &GameOracle<G, &[u8]>,
    text: &str,
) -> Result<(), String> {
    let Ok(p) = game.parse(text) else {
        return Ok(());
    };
    if game.parse(&game.notation(p)) != Ok(p) {
        return Err("accepted, but its notation does not read back".into());
    }
    let value = oracle
        .answer(p)
        .map_err(|e| format!("accepted, but the table has no answer: {e}"))?
        .value;
    for s in 0..game.symmetry_count() {
        let image = game.image(p, s);
        if oracle.probe(image).ok() != Some(value) {
            return Err(format!("symmetric image {s} probes differently"));
        }
    }
    Ok(())
}

/// Open, verify and probe mutated table bytes; only panics are failures
/// (typed errors are the point), and they surface through `catch_unwind`.
fn check_table<G: Tabled + Copy>(game: &G, bytes: &[u8], slots: &[u64], seeds: &[String]) {
    let Ok(table) = Table::new(bytes) else {
        return;
    };
    let _ = table.verify();
    for &slot in slots {
        let _ = table.entry(slot);
    }
    if let Ok(oracle) = GameOracle::with_table(*game, table) {
        for text in seeds.iter().take(8) {
            if let Ok(p) = game.parse(text) {
                let _ = oracle.answer(p);
            }
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The games the fuzzer covers: the catalogue's fuzz targets (every game,
/// dots-and-boxes on a board small enough to build its table in a moment).
pub fn targets() -> Vec<GameId> {
    catalogue()
        .iter()
        .filter(|game| game.fuzz)
        .map(|game| game.id)
        .collect()
}

/// Fuzzes every game's parsers and tables from `seed`, the budget split
/// evenly between the games of [`targets`].
pub fn fuzz(budget: Budget, seed: u64) -> FuzzReport {
    let started = Instant::now();
    let mut rng = Rng::new(seed);
    let mut report = FuzzReport::default();
    let targets = targets();
    let share = budget.split(targets.len() as u32);
    for id in targets {
        with_game!(id, game => {
            let table = build_table(game, 3).1;
            fuzz_game(*game, &table, share, &mut rng, &mut report);
            Ok::<(), Error>(())
        })
        .expect("every fuzz target is a supported game");
    }
    report.elapsed = started.elapsed();
    report
}
