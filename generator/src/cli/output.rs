//! How the command prints: answers (a board picture and every move's value,
//! one line per position for bulk input, JSON), build reports, and colour
//! where the output is a terminal.

use std::io::Write;
use std::path::Path;

use anyhow::Result;
use serde_json::Value as Json;
use solvedb_lookup::{
    AnyValue, Bounds, Error, Game, GameId, Oracle, Report, SearchLimits, Source, TablePlan,
    ValueBounds, Wdl, with_game,
};

use crate::build::LayerCount;
use crate::text::{count, seconds};

/// Colours text for a terminal, or leaves it alone.
#[derive(Debug, Clone, Copy)]
pub(super) struct Paint(pub bool);

impl Paint {
    fn styled(self, style: anstyle::Style, text: &str) -> String {
        if self.0 {
            format!("{style}{text}{style:#}")
        } else {
            text.to_owned()
        }
    }

    /// A value, green when it wins, red when it loses.
    pub fn value(self, value: AnyValue) -> String {
        use anstyle::AnsiColor::{Green, Red};
        let style = match value {
            AnyValue::Outcome(o) | AnyValue::AtMost(o) if o.wdl == Wdl::Win => Green.on_default(),
            AnyValue::Outcome(o) | AnyValue::AtMost(o) if o.wdl == Wdl::Loss => Red.on_default(),
            AnyValue::Margin(m) if m > 0 => Green.on_default(),
            AnyValue::Margin(m) if m < 0 => Red.on_default(),
            _ => anstyle::Style::new(),
        };
        self.styled(style, &value.to_string())
    }

    /// A board picture, X and O in colour.
    pub fn picture(self, picture: &str) -> String {
        if !self.0 {
            return picture.to_owned();
        }
        let x = anstyle::AnsiColor::Red.on_default().bold();
        let o = anstyle::AnsiColor::Blue.on_default().bold();
        picture
            .chars()
            .map(|c| match c {
                'X' => self.styled(x, "X"),
                'O' => self.styled(o, "O"),
                c => c.to_string(),
            })
            .collect()
    }
}

/// How a live search is bounded, in words for standard error.
pub(super) fn budget_words(limits: SearchLimits) -> String {
    let bound = match (limits.nodes, limits.time) {
        (Some(nodes), Some(time)) => format!(
            "giving up after {} or {}",
            count(nodes, "position", "positions"),
            seconds(time)
        ),
        (Some(nodes), None) => format!("giving up after {}", count(nodes, "position", "positions")),
        (None, Some(time)) => format!("giving up after {}", seconds(time)),
        (None, None) => "with no budget: this can take very long".to_owned(),
    };
    format!("{bound} (--nodes N, --seconds S, --no-budget)")
}

/// The JSON answer, with the best line as `pv` when asked for.
pub(super) fn report_json(report: &Report, line: Option<Vec<String>>) -> Json {
    let mut json = report.to_json();
    if let Some(line) = line {
        json["pv"] = Json::from(line);
    }
    json
}

/// One line per position, for bulk input: the position, the side to move,
/// the value, the best move and the source.
pub(super) fn report_line(report: &Report, line: Option<Vec<String>>, paint: Paint) -> String {
    let mut text = report.position.clone();
    if let Some(side) = report.to_move {
        text.push_str(&format!("  {side} to move"));
    }
    text.push_str(&format!("  {}", paint.value(report.value)));
    match (report.moves.first(), line) {
        (None, _) => text.push_str("  game over"),
        (Some(_), Some(line)) => text.push_str(&format!("  best line {}", line.join(" "))),
        (Some(best), None) => text.push_str(&format!("  best {}", best.mv)),
    }
    text.push_str(&format!("  ({})", report.source));
    text
}

/// The picture of a position of `game` ([`Game::picture`]), read from its
/// notation.
///
/// # Errors
///
/// A board no build answers, or a malformed or illegal position.
pub(super) fn picture_of(game: GameId, position: &str) -> Result<String, Error> {
    with_game!(game, g => g
        .parse(position)
        .map(|p| g.picture(p))
        .map_err(Error::from))
}

/// The full text answer: the picture of the board, the position and side
/// to move, the value and where it came from, every move's value, and the
/// best line when asked for.
pub(super) fn print_report(
    oracle: &Oracle,
    report: &Report,
    picture: &str,
    line: Option<Vec<String>>,
    out: &mut dyn Write,
    paint: Paint,
) -> Result<()> {
    writeln!(out, "{}", paint.picture(picture))?;
    match report.to_move {
        Some(side) => writeln!(out, "position {} ({side} to move)", report.position)?,
        None => writeln!(out, "position {}", report.position)?,
    }
    let path = oracle
        .table_path(report.game)
        .filter(|_| report.game.info().table != TablePlan::Unavailable);
    let source = match (report.source, path) {
        (Source::Table, Some(path)) => format!("table {}", path.display()),
        (Source::ForcedPlay, Some(path)) => {
            format!("forced play by the rules, table {}", path.display())
        }
        (_, Some(path)) if oracle.has_table(report.game) => {
            format!("live search, beyond the table {}", path.display())
        }
        (_, Some(path)) => format!("live search, no table at {}", path.display()),
        (_, None) if oracle.dir().is_some() => {
            format!("exact live search: {} has no table", report.game)
        }
        (_, None) => "exact live search".to_owned(),
    };
    writeln!(
        out,
        "value    {} (from {source})",
        paint.value(report.value)
    )?;
    if report.moves.is_empty() {
        writeln!(out, "the game is over")?;
    }
    for m in &report.moves {
        // Qubic off the strategy's line: a move the table left open and
        // the search within --seconds valued says so.
        let by = if report.searched.contains(&m.mv) {
            "  (live search)"
        } else {
            ""
        };
        writeln!(out, "  move {:>6}  {}{by}", m.mv, paint.value(m.value))?;
    }
    if !report.unknown.is_empty() {
        // Qubic off the strategy's line: moves no table covers, searched
        // only within --seconds.
        writeln!(
            out,
            "unknown  {} ({} no table settles, nor the search within --seconds if given)",
            report.unknown.join(" "),
            count(report.unknown.len() as u64, "move", "moves")
        )?;
    }
    if let Some(line) = line {
        writeln!(
            out,
            "best line ({}): {}",
            count(line.len() as u64, "move", "moves"),
            line.join(" ")
        )?;
    }
    Ok(())
}

/// What a search proved before it stopped ([`Error::Bounded`]): the
/// value's bounds and every move's, `-1..+3` or one value where they meet.
pub(super) fn print_bounds(bounds: &Bounds, out: &mut dyn Write, paint: Paint) -> Result<()> {
    let words = |b: &ValueBounds| match b.is_exact() {
        true => paint.value(b.lower),
        false => format!("{}..{}", paint.value(b.lower), paint.value(b.upper)),
    };
    writeln!(
        out,
        "value    {} (bounds the search proved before it stopped)",
        words(&bounds.value)
    )?;
    for m in &bounds.moves {
        writeln!(out, "  move {:>6}  {}", m.mv, words(&m.bounds))?;
    }
    Ok(())
}

/// The positions of a build by ply (or edges drawn), raw and canonical, and
/// their sums: one table for `build` and `build --mpi`.
pub(super) fn write_counts(
    out: &mut dyn Write,
    heading: &str,
    what: &str,
    [layer_head, positions_head, canonical_head]: [&str; 3],
    layers: &[LayerCount],
) -> Result<()> {
    writeln!(out, "{heading}: {what}")?;
    writeln!(
        out,
        "{layer_head:>6} {positions_head:>12} {canonical_head:>12}"
    )?;
    for layer in layers {
        writeln!(
            out,
            "{:>6} {:>12} {:>12}",
            layer.ply, layer.reachable, layer.canonical
        )?;
    }
    writeln!(
        out,
        "{:>6} {:>12} {:>12}",
        "all",
        layers.iter().map(|l| l.reachable).sum::<u64>(),
        layers.iter().map(|l| l.canonical).sum::<u64>()
    )?;
    Ok(())
}

/// How many positions a dense table stores in how many slots.
pub(super) fn write_stored(out: &mut dyn Write, stored: u64, slots: u64) -> Result<()> {
    writeln!(
        out,
        "stored: {} in {}",
        count(stored, "position", "positions"),
        count(slots, "slot", "slots")
    )?;
    Ok(())
}

/// The file a build wrote: its size, per stored entry and per canonical
/// position, and its blocks.
pub(super) fn write_written(
    out: &mut dyn Write,
    path: &Path,
    bytes: u64,
    stored: u64,
    canonical: u64,
    blocks: u64,
) -> Result<()> {
    writeln!(
        out,
        "wrote {}: {}, {:.2} bits per stored entry, {:.3} per canonical position, {}",
        path.display(),
        count(bytes, "byte", "bytes"),
        bytes as f64 * 8.0 / stored.max(1) as f64,
        bytes as f64 * 8.0 / canonical.max(1) as f64,
        count(blocks, "block", "blocks")
    )?;
    Ok(())
}
