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
use solvedb_lookup::{
    Error, ErrorKind, Game, GameId, GameOracle, Table, TablePlan, Tabled, catalogue, with_game,
};

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

/// The node budget of each live search of a game without a table: the
/// fuzzer checks that answers agree, not how far the search reaches.
const SEARCH_NODES: u64 = 20_000;

/// How the fuzzer answers a game's positions: from its table, or (a game
/// without one) by a small live search, checking a few symmetric images of
/// each position rather than all of them.
struct Answers<'a, G: Tabled> {
    oracle: GameOracle<G, &'a [u8]>,
    images: usize,
}

/// One game's fuzz targets: its notation parser (with the property that
/// every accepted position round-trips and, where its value is known,
/// answers the same for its symmetric images), its move and game names, and
/// its table where it has one (`table_bytes`).
fn fuzz_game<G: Tabled + Copy>(
    game: G,
    table_bytes: Option<&[u8]>,
    share: Budget,
    rng: &mut Rng,
    report: &mut FuzzReport,
) {
    let started = Instant::now();
    let answers = match table_bytes {
        Some(bytes) => {
            let table = Table::new(bytes).expect("a good table to mutate");
            Answers {
                oracle: GameOracle::with_table(game, table).expect("the game's own table"),
                images: game.symmetry_count(),
            }
        }
        None => Answers {
            oracle: GameOracle::search_only(game).with_search_budget(SEARCH_NODES),
            images: 4,
        },
    };
    let seeds: Vec<String> = seed_positions(&game, rng, 256)
        .into_iter()
        .map(|p| game.notation(p))
        .collect();
    let targets = if table_bytes.is_some() { 3 } else { 2 };
    let mut counts = [0u64; 3];
    while share.allows(counts.iter().sum(), started) {
        let target = rng.below(targets) as usize;
        counts[target] += 1;
        let (input, result) = match (target, table_bytes) {
            (0, _) => {
                let text = random_text(rng, &seeds);
                let seed = rng.next_u64();
                let result = catch_unwind(AssertUnwindSafe(|| {
                    check_notation(&game, &answers, &text, &mut Rng::new(seed))
                }));
                (format!("{} position {text:?}", game.id()), result)
            }
            (1, _) | (_, None) => {
                let text = random_text(rng, &[]);
                let result = catch_unwind(AssertUnwindSafe(|| {
                    let _ = game.parse_move(&text);
                    let _ = text.parse::<GameId>();
                    Ok(())
                }));
                (format!("move or game name {text:?}"), result)
            }
            (_, Some(table_bytes)) => {
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
    for (name, n) in names.into_iter().zip(counts).take(targets as usize) {
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

/// Any accepted position must round-trip through its notation, have the
/// canonical form of its symmetric images, be covered by the table (where
/// there is one), and answer as its images do (where the value is known).
fn check_notation<G: Tabled>(
    game: &G,
    answers: &Answers<'_, G>,
    text: &str,
    rng: &mut Rng,
) -> Result<(), String> {
    let Ok(p) = game.parse(text) else {
        return Ok(());
    };
    if game.parse(&game.notation(p)) != Ok(p) {
        return Err("accepted, but its notation does not read back".into());
    }
    let value = match answers.oracle.answer(p) {
        Ok(answer) => Some(answer.value),
        Err(e) if e.kind() == ErrorKind::Budget && answers.oracle.table().is_none() => None,
        Err(e) => return Err(format!("accepted, but there is no answer: {e}")),
    };
    let count = game.symmetry_count();
    let images: Vec<usize> = match answers.images >= count {
        true => (0..count).collect(),
        false => (0..answers.images).map(|_| rng.index(count)).collect(),
    };
    for s in images {
        let image = game.image(p, s);
        if game.canonical(image) != game.canonical(p) {
            return Err(format!("symmetric image {s} has another canonical form"));
        }
        if game.parse(&game.notation(image)) != Ok(image) {
            return Err(format!("symmetric image {s} does not read back"));
        }
        if let Some(value) = value {
            if answers.oracle.probe(image).ok() != Some(value) {
                return Err(format!("symmetric image {s} probes differently"));
            }
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
            // Only a shipped table is built here: one built on request
            // (Qubic's strategy, its proof over an hour) is left to
            // `solvedb build`, and its game's parsers are fuzzed against
            // the live search.
            let table = match id.info().table {
                TablePlan::Default => Some(build_table(game, 3).1),
                TablePlan::OnRequest | TablePlan::Unavailable => None,
            };
            fuzz_game(*game, table.as_deref(), share, &mut rng, &mut report);
            Ok::<(), Error>(())
        })
        .expect("every fuzz target is a supported game");
    }
    report.elapsed = started.elapsed();
    report
}
