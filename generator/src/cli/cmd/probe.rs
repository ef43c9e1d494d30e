//! `solvedb probe GAME POSITION`: the value of a position and of every
//! move, from the game's table or by live search where it has none; with
//! `-`, one position per line of standard input.

use std::time::Instant;

use anyhow::{Context, Result};
use serde_json::Value as Json;
use solvedb_lookup::{GameId, InputLine, Oracle, TablePlan, bounds_json, error_json, read_line};

use crate::cli::args::{LimitArgs, OutputArgs, TABLES_ENV, TablesArg};
use crate::cli::output::{budget_words, picture_of, print_report, report_json, report_line};
use crate::cli::{Io, exit_code};
use crate::text::seconds;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The game (the list is derived from the catalogue).
    game: GameId,
    /// The position (how each game writes one is derived from the
    /// catalogue).
    #[arg(allow_hyphen_values = true)]
    position: String,
    #[command(flatten)]
    tables: TablesArg,
    #[command(flatten)]
    output: OutputArgs,
    #[command(flatten)]
    limits: LimitArgs,
}

pub(crate) fn run(args: Args, io: &mut Io<'_>) -> Result<i32> {
    let Args {
        game,
        position,
        tables: TablesArg { tables },
        output,
        limits,
    } = args;
    let oracle = Oracle::open(&tables)
        .with_context(|| format!("opening tables directory {}", tables.display()))?
        .with_search_limits(limits.limits());
    let notice = |io: &mut Io<'_>| -> Result<()> {
        if game.info().table == TablePlan::Unavailable {
            writeln!(
                io.err,
                "solvedb: {game} has no table format yet: searching exactly, {}",
                budget_words(oracle.limits())
            )?;
        } else if !oracle.has_table(game) {
            let dir = std::path::absolute(&tables).unwrap_or(tables.clone());
            writeln!(
                io.err,
                "solvedb: no {game} table in {} (no file {}): searching exactly, {}; \
                 --tables DIR or ${TABLES_ENV} names another directory",
                dir.display(),
                game.table_file_name(),
                budget_words(oracle.limits())
            )?;
        }
        Ok(())
    };
    answer(&oracle, game, &position, output, io, notice)
}

/// `probe` and `search`: one position, or with `-` one per line of standard
/// input, answered by `oracle`. `notice` prints what the user should know
/// before a search starts; a single position is read first, so that a
/// board no build answers or a bad position is refused before it. Returns
/// the exit code: 0, or for bulk input that of the first line that failed.
pub(super) fn answer(
    oracle: &Oracle,
    game: GameId,
    position: &str,
    output: OutputArgs,
    io: &mut Io<'_>,
    notice: impl FnOnce(&mut Io<'_>) -> Result<()>,
) -> Result<i32> {
    let context = || format!("probing {game} position {position:?}");
    if position != "-" {
        let picture = picture_of(game, position).with_context(context)?;
        notice(io)?;
        let started = Instant::now();
        let report = oracle.moves(game, position).with_context(context)?;
        let line = match output.pv {
            true => Some(oracle.mainline(game, position)?.moves),
            false => None,
        };
        let elapsed = started.elapsed();
        if output.json {
            writeln!(io.out, "{}", report_json(&report, line))?;
        } else {
            print_report(oracle, &report, &picture, line, &mut *io.out, io.paint)?;
            if oracle.dir().is_none() {
                writeln!(io.out, "searched in {}", seconds(elapsed))?;
            }
        }
        return Ok(0);
    }
    notice(io)?;
    let mut code = 0;
    let mut buffer = Vec::new();
    while let Some(line) = read_line(&mut io.input, &mut buffer)? {
        let answered = match line {
            InputLine::Text(text) if text.trim().is_empty() => continue,
            InputLine::Text(text) => oracle.moves(game, &text).map_err(|e| {
                let bounds = e.bounds().cloned();
                (Some(e.kind()), e.to_string(), text, bounds)
            }),
            InputLine::Refused(why) => Err((
                Some(solvedb_lookup::ErrorKind::Request),
                why,
                String::new(),
                None,
            )),
        };
        match answered {
            Ok(report) => {
                let line = match output.pv {
                    true => Some(oracle.mainline(game, &report.position)?.moves),
                    false => None,
                };
                if output.json {
                    writeln!(io.out, "{}", report_json(&report, line))?;
                } else {
                    writeln!(io.out, "{}", report_line(&report, line, io.paint))?;
                }
            }
            Err((kind, message, text, bounds)) => {
                if code == 0 {
                    code = kind.map_or(1, exit_code);
                }
                if output.json {
                    let mut error = error_json(kind, &message);
                    error["position"] = Json::from(text);
                    if let Some(bounds) = &bounds {
                        error["bounds"] = bounds_json(bounds);
                    }
                    writeln!(io.out, "{error}")?;
                } else {
                    match &bounds {
                        // The value's bounds on the line (every move's with
                        // --json).
                        Some(b) => {
                            writeln!(io.out, "{text}  error: {message}  bounds {}", b.value)?
                        }
                        None => writeln!(io.out, "{text}  error: {message}")?,
                    }
                }
            }
        }
        io.out.flush()?;
    }
    Ok(code)
}
