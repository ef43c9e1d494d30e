//! `solvedb export GAME`: every position a table holds, with its value and
//! every move's value, one row per position, as Parquet or CSV, streamed in
//! row groups (the table is read once, through the oracle; no more than a
//! window of rows is held at a time). Also the dataset card's figures
//! ([`card_row`]): counts and class balance, computed from the tables.
//!
//! # Schema
//!
//! The same columns in both formats, in this order ([`schema`]); `i` runs
//! over the move indices of [`Encoded`](solvedb_lookup::Encoded) (cells,
//! or edges: OpenSpiel's action ids), and a move column is empty (null)
//! where the move is not legal.
//!
//! | tic-tac-toe 3×3, 4×4, cube | dots-and-boxes |
//! |---|---|
//! | `position` string: solvedb's notation | `position` string |
//! | `x`, `o` uint64: X's and O's stones, bit `i` for cell `i` | `edges` uint64: drawn edges, bit `i` for edge `i` |
//! | `ply` uint8: stones on the board | `ply` uint8: edges drawn |
//! | `to_move` string: `X` or `O` | — (values do not depend on it) |
//! | `stored` bool: the table holds an entry of its own | `stored` bool: false for a free capture resolved by rule |
//! | `result` int8: 1 win, 0 draw, -1 loss for the side to move | `value` int8: net still unclaimed boxes the side to move wins |
//! | `plies` uint8: plies to the end under perfect play | — |
//! | `m{i}_result` int8, `m{i}_plies` uint8: each move, for its mover | `m{i}_value` int8: each move, for its mover, boxes it completes included |
//!
//! Parquet files carry `solvedb.game` and `solvedb.schema` in their
//! key-value metadata and are compressed with zstd (level 3), one row group
//! per [`ExportOptions::row_group`] rows.

#[cfg(feature = "parquet")]
mod parquet;

use std::io::Write;
use std::ops::Range;

use anyhow::{Result, bail};
use rayon::prelude::*;
use solvedb_lookup::{Columns, Game, GameId, Oracle, dataset, with_game};

/// The file formats of an export.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Apache Parquet (cargo feature `parquet`, on by default).
    Parquet,
    /// Comma-separated values with a header line.
    Csv,
    /// A game's own text format: Qubic's strategy, one position and move a
    /// line (`docs/qubic.md`).
    Text,
}

impl Format {
    /// The format a name or file extension stands for: `parquet`, `csv`,
    /// `txt` or `text`.
    pub fn named(name: &str) -> Option<Format> {
        [Format::Parquet, Format::Csv, Format::Text]
            .into_iter()
            .find(|f| f.extension() == name || (name == "text" && *f == Format::Text))
    }

    /// The file extension of the format (without the dot).
    pub fn extension(self) -> &'static str {
        match self {
            Format::Parquet => "parquet",
            Format::Csv => "csv",
            Format::Text => "txt",
        }
    }
}

/// What to export and how.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// The file format.
    pub format: Format,
    /// Every symmetric image of each position, not only the canonical one.
    pub all_symmetries: bool,
    /// Keep this many rows, uniformly at random ([`dataset::sample`]).
    pub sample: Option<u64>,
    /// The sample's seed.
    pub seed: u64,
    /// Rows per Parquet row group (and per write).
    pub row_group: usize,
    /// Slots (or sorted records) per piece of work: a piece is listed and
    /// valued by one task, [`WINDOW`] pieces at once, and written in order.
    /// The output does not depend on it.
    pub piece: u64,
}

impl Default for ExportOptions {
    fn default() -> ExportOptions {
        ExportOptions {
            format: Format::Parquet,
            all_symmetries: false,
            sample: None,
            seed: 0,
            row_group: 1 << 18,
            piece: PIECE,
        }
    }
}

/// Where an export goes.
pub enum Destination<'a> {
    /// A file (Parquet or CSV).
    File(std::fs::File),
    /// A stream, such as standard output (CSV only: a Parquet file is
    /// written to a file).
    Stream(&'a mut dyn Write),
}

impl std::fmt::Debug for Destination<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Destination::File(file) => f.debug_tuple("File").field(file).finish(),
            Destination::Stream(_) => f.write_str("Stream"),
        }
    }
}

/// What an export wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportSummary {
    /// Rows written.
    pub rows: u64,
}

/// The type of a column.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// UTF-8 text.
    Text,
    /// An unsigned 64-bit integer.
    U64,
    /// An unsigned 8-bit integer.
    U8,
    /// A signed 8-bit integer.
    I8,
    /// A boolean.
    Bool,
}

/// One column of an export.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// Its name.
    pub name: String,
    /// Its type.
    pub kind: Kind,
    /// Whether it may be empty (the move columns, where a move is not legal).
    pub optional: bool,
}

fn column(name: impl Into<String>, kind: Kind, optional: bool) -> Column {
    Column {
        name: name.into(),
        kind,
        optional,
    }
}

/// Whether `game` is dots-and-boxes (a margin per row) rather than of the
/// tic-tac-toe family (a result and plies).
fn is_dots(game: GameId) -> bool {
    matches!(game, GameId::Dots { .. })
}

/// The columns of an export of `game`, in order (see the [module
/// documentation](self#schema)).
///
/// # Errors
///
/// For a board this build has no rules for.
pub fn schema(game: GameId) -> Result<Vec<Column>> {
    let slots = with_game!(game, g => Ok::<_, solvedb_lookup::Error>(
        solvedb_lookup::Encoded::move_slots(g)
    ))?;
    let mut columns = vec![column("position", Kind::Text, false)];
    if is_dots(game) {
        columns.push(column("edges", Kind::U64, false));
        columns.push(column("ply", Kind::U8, false));
        columns.push(column("stored", Kind::Bool, false));
        columns.push(column("value", Kind::I8, false));
        columns.extend((0..slots).map(|i| column(format!("m{i}_value"), Kind::I8, true)));
    } else {
        columns.push(column("x", Kind::U64, false));
        columns.push(column("o", Kind::U64, false));
        columns.push(column("ply", Kind::U8, false));
        columns.push(column("to_move", Kind::Text, false));
        columns.push(column("stored", Kind::Bool, false));
        columns.push(column("result", Kind::I8, false));
        columns.push(column("plies", Kind::U8, false));
        for i in 0..slots {
            columns.push(column(format!("m{i}_result"), Kind::I8, true));
            columns.push(column(format!("m{i}_plies"), Kind::U8, true));
        }
    }
    Ok(columns)
}

/// One row group's values, column by column, as a sink writes them.
#[derive(Debug)]
enum Values {
    Text(Vec<String>),
    Int(Vec<i64>),
    Bool(Vec<bool>),
    /// A column that may be empty: values of the rows where `present`.
    Optional {
        values: Vec<i64>,
        present: Vec<bool>,
    },
}

/// The values of every column of `schema` for the rows of `columns`.
fn values(game: GameId, schema: &[Column], columns: &Columns) -> Result<Vec<Values>> {
    let notation = with_game!(game, g => columns
        .code
        .iter()
        .map(|&code| {
            solvedb_lookup::Encoded::position_of(g, code)
                .map(|p| g.notation(p))
                .map_err(solvedb_lookup::Error::from)
        })
        .collect::<Result<Vec<String>, solvedb_lookup::Error>>())?;
    let n = columns.len();
    let m = columns.move_slots;
    let ply: Vec<i64> = columns
        .code
        .iter()
        .map(|c| i64::from((c[0] | c[1]).count_ones()))
        .collect();
    let per_move = |i: usize, of: &dyn Fn(usize) -> i64| {
        let at = |row: usize| row * m + i;
        Values::Optional {
            values: (0..n)
                .filter(|&row| columns.legal[at(row)])
                .map(|row| of(at(row)))
                .collect(),
            present: (0..n).map(|row| columns.legal[at(row)]).collect(),
        }
    };
    let mut out = Vec::with_capacity(schema.len());
    out.push(Values::Text(notation));
    if is_dots(game) {
        out.push(Values::Int(
            columns.code.iter().map(|c| c[0] as i64).collect(),
        ));
        out.push(Values::Int(ply));
        out.push(Values::Bool(columns.stored.clone()));
        out.push(Values::Int(
            columns.value.iter().map(|&v| i64::from(v)).collect(),
        ));
        for i in 0..m {
            out.push(per_move(i, &|at| i64::from(columns.move_value[at])));
        }
    } else {
        out.push(Values::Int(
            columns.code.iter().map(|c| c[0] as i64).collect(),
        ));
        out.push(Values::Int(
            columns.code.iter().map(|c| c[1] as i64).collect(),
        ));
        let to_move = ply
            .iter()
            .map(|&p| if p % 2 == 0 { "X" } else { "O" }.to_owned())
            .collect();
        out.push(Values::Int(ply));
        out.push(Values::Text(to_move));
        out.push(Values::Bool(columns.stored.clone()));
        out.push(Values::Int(
            columns.result.iter().map(|&v| i64::from(v)).collect(),
        ));
        out.push(Values::Int(
            columns.plies.iter().map(|&v| i64::from(v)).collect(),
        ));
        for i in 0..m {
            out.push(per_move(i, &|at| i64::from(columns.move_result[at])));
            out.push(per_move(i, &|at| i64::from(columns.move_plies[at])));
        }
    }
    debug_assert_eq!(out.len(), schema.len());
    Ok(out)
}

/// Where rows go, one row group at a time.
trait Sink {
    fn write_group(&mut self, rows: usize, values: &[Values]) -> Result<()>;
    fn finish(self: Box<Self>) -> Result<()>;
}

/// CSV: a header line, then one line per row; an empty field for an
/// empty value.
struct CsvSink<W: Write> {
    out: std::io::BufWriter<W>,
}

impl<W: Write> CsvSink<W> {
    fn new(out: W, schema: &[Column]) -> Result<CsvSink<W>> {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, out);
        let names: Vec<&str> = schema.iter().map(|c| c.name.as_str()).collect();
        writeln!(out, "{}", names.join(","))?;
        Ok(CsvSink { out })
    }
}

impl<W: Write> Sink for CsvSink<W> {
    fn write_group(&mut self, rows: usize, values: &[Values]) -> Result<()> {
        // Where each optional column's next value is.
        let mut next = vec![0usize; values.len()];
        let mut line = String::new();
        for row in 0..rows {
            line.clear();
            for (k, column) in values.iter().enumerate() {
                if k > 0 {
                    line.push(',');
                }
                match column {
                    Values::Text(v) => line.push_str(&v[row]),
                    Values::Int(v) => line.push_str(&v[row].to_string()),
                    Values::Bool(v) => line.push_str(if v[row] { "true" } else { "false" }),
                    Values::Optional { values, present } => {
                        if present[row] {
                            line.push_str(&values[next[k]].to_string());
                            next[k] += 1;
                        }
                    }
                }
            }
            line.push('\n');
            self.out.write_all(line.as_bytes())?;
        }
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<()> {
        self.out.flush()?;
        Ok(())
    }
}

/// Slots (or sorted records) per piece of work by default
/// ([`ExportOptions::piece`]).
pub const PIECE: u64 = 1 << 16;

/// Pieces valued at once, on every core, before they are written in order.
pub const WINDOW: usize = 16;

/// Writes every position `oracle`'s table of `game` holds (see
/// [`dataset`]) with its value and every move's,
/// in the table's order, to `out` as `options` say.
///
/// # Errors
///
/// No table of `game`, a damaged table, a failed write, or Parquet asked of
/// a build without the `parquet` feature or for a stream.
pub fn export_table(
    oracle: &Oracle,
    game: GameId,
    options: &ExportOptions,
    out: Destination<'_>,
) -> Result<ExportSummary> {
    let schema = schema(game)?;
    let span = oracle.table_span(game)?;
    let sink: Box<dyn Sink + '_> = match (options.format, out) {
        (Format::Csv, Destination::File(file)) => Box::new(CsvSink::new(file, &schema)?),
        (Format::Csv, Destination::Stream(stream)) => Box::new(CsvSink::new(stream, &schema)?),
        (Format::Parquet, Destination::File(file)) => parquet_sink(file, game, &schema, options)?,
        (Format::Parquet, Destination::Stream(_)) => {
            bail!("a Parquet export goes to a file (--out FILE); CSV may go to standard output")
        }
        (Format::Text, _) => {
            bail!("{game} exports its table as Parquet or CSV; text is Qubic's strategy format")
        }
    };
    let pieces = pieces(span, options.piece);
    let only = match options.sample {
        Some(n) => Some(sample_by_piece(oracle, game, &pieces, options, n)?),
        None => None,
    };
    // Two stages at once: a thread values windows of pieces on every core
    // (rayon), this one writes them, in order, a row group at a time; the
    // channel holds one window, so memory holds at most three (one being
    // valued, one waiting, one being written).
    let (tx, rx) = std::sync::mpsc::sync_channel::<Result<Vec<Columns>>>(1);
    std::thread::scope(|scope| {
        let (pieces, only) = (&pieces, &only);
        scope.spawn(move || {
            // `tx` is moved here: the channel closes when this ends.
            for (w, window) in pieces.chunks(WINDOW).enumerate() {
                let parts = window
                    .par_iter()
                    .enumerate()
                    .map(|(k, piece)| {
                        let only = only.as_ref().map(|o| o[w * WINDOW + k].as_slice());
                        oracle.table_rows(game, piece.clone(), options.all_symmetries, only, true)
                    })
                    .collect::<Result<Vec<Columns>, _>>()
                    .map_err(anyhow::Error::from);
                let failed = parts.is_err();
                // A closed channel: the writer stopped on an error of its own.
                if tx.send(parts).is_err() || failed {
                    break;
                }
            }
        });
        write_in_order(rx, game, &schema, options, sink)
    })
}

/// The pieces `span` is walked in, in order.
fn pieces(span: u64, piece: u64) -> Vec<Range<u64>> {
    let piece = piece.max(1);
    (0..span.div_ceil(piece))
        .map(|k| k * piece..((k + 1) * piece).min(span))
        .collect()
}

/// Writes the windows of rows `windows` gives, in order, in row groups of
/// `options.row_group`, and finishes `sink`.
fn write_in_order(
    windows: std::sync::mpsc::Receiver<Result<Vec<Columns>>>,
    game: GameId,
    schema: &[Column],
    options: &ExportOptions,
    mut sink: Box<dyn Sink + '_>,
) -> Result<ExportSummary> {
    let mut buffer = Columns::default();
    let mut rows = 0u64;
    let row_group = options.row_group.max(1);
    let mut write = |group: Columns, sink: &mut Box<dyn Sink + '_>| -> Result<()> {
        if !group.is_empty() {
            sink.write_group(group.len(), &values(game, schema, &group)?)?;
            rows += group.len() as u64;
        }
        Ok(())
    };
    // Row groups of exactly `row_group` rows but the last, however the
    // pieces fall; split off from the back, so each row is moved once.
    for parts in windows {
        for part in parts? {
            if buffer.is_empty() {
                buffer = Columns::new(part.move_slots);
            }
            buffer.append(part);
            if buffer.len() >= row_group {
                let tail = buffer.split_off(buffer.len() / row_group * row_group);
                let mut groups = Vec::new();
                while !buffer.is_empty() {
                    groups.push(buffer.split_off(buffer.len() - row_group));
                }
                for group in groups.into_iter().rev() {
                    write(group, &mut sink)?;
                }
                buffer = tail;
            }
        }
    }
    write(buffer, &mut sink)?;
    sink.finish()?;
    Ok(ExportSummary { rows })
}

/// For a sample of `n` rows, the places to keep in each piece's list.
fn sample_by_piece(
    oracle: &Oracle,
    game: GameId,
    pieces: &[Range<u64>],
    options: &ExportOptions,
    n: u64,
) -> Result<Vec<Vec<u64>>> {
    let counts = pieces
        .par_iter()
        .map(|piece| oracle.table_count(game, piece.clone(), options.all_symmetries))
        .collect::<Result<Vec<u64>, _>>()?;
    let total = counts.iter().sum();
    let places = dataset::sample(total, n, options.seed);
    let mut by_piece = Vec::with_capacity(pieces.len());
    let (mut start, mut next) = (0u64, 0usize);
    for count in counts {
        let end = start + count;
        let mut mine = Vec::new();
        while next < places.len() && places[next] < end {
            mine.push(places[next] - start);
            next += 1;
        }
        by_piece.push(mine);
        start = end;
    }
    Ok(by_piece)
}

#[cfg(feature = "parquet")]
fn parquet_sink(
    out: std::fs::File,
    game: GameId,
    schema: &[Column],
    options: &ExportOptions,
) -> Result<Box<dyn Sink>> {
    Ok(Box::new(parquet::ParquetSink::new(
        out, game, schema, options,
    )?))
}

#[cfg(not(feature = "parquet"))]
#[allow(clippy::unnecessary_wraps)]
fn parquet_sink(
    _out: std::fs::File,
    _game: GameId,
    _schema: &[Column],
    _options: &ExportOptions,
) -> Result<Box<dyn Sink>> {
    bail!(
        "this solvedb was built without Parquet (cargo feature `parquet`, on by default): \
         export with --format csv, or build with `--features parquet`"
    )
}

/// The dataset card's row of figures for `game`, computed from its table
/// (a Markdown table row; [`CARD_HEADERS`] names its cells): positions
/// canonical and with every symmetric image, and the class balance of
/// their values for the side to move.
///
/// # Errors
///
/// No table of `game`, or a damaged one.
pub fn card_row(oracle: &Oracle, game: GameId) -> Result<String> {
    let span = oracle.table_span(game)?;
    // Piece by piece on every core, each piece's figures added up: memory
    // holds a window of pieces' values, never a table's.
    let tally = pieces(span, PIECE)
        .into_par_iter()
        .map(|piece| -> Result<Tally> {
            let all = oracle.table_count(game, piece.clone(), true)?;
            let rows = oracle.table_rows(game, piece, false, None, false)?;
            Ok(Tally::of(&rows, all))
        })
        .try_reduce(Tally::default, |a, b| Ok(a.add(&b)))?;
    let n = tally.rows;
    let share = |k: u64| {
        format!(
            "{} ({:.1}%)",
            thousands(k),
            100.0 * k as f64 / n.max(1) as f64
        )
    };
    let [wins, draws, losses] = tally.results;
    if is_dots(game) {
        let (low, high) = tally.values.unwrap_or((0, 0));
        Ok(format!(
            "| `{game}` | {} | {} | {} | {} | {} | {} | {} | {low}..{high} |",
            thousands(n),
            thousands(tally.stored),
            thousands(n - tally.stored),
            thousands(tally.all),
            share(wins),
            share(draws),
            share(losses),
        ))
    } else {
        Ok(format!(
            "| `{game}` | {} | {} | {} | {} | {} | {} | {} |",
            thousands(n),
            thousands(tally.all),
            thousands(tally.x_to_move),
            thousands(tally.over),
            share(wins),
            share(draws),
            share(losses),
        ))
    }
}

/// The card's figures over some rows, added up piece by piece.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Tally {
    /// Canonical rows.
    rows: u64,
    /// Rows with every symmetric image.
    all: u64,
    /// Rows the table holds an entry of its own for.
    stored: u64,
    /// Wins, draws, losses for the side to move.
    results: [u64; 3],
    /// The least and greatest value, if any row.
    values: Option<(i8, i8)>,
    /// Rows with no ply left (the game is over).
    over: u64,
    /// Rows with an even number of stones (X to move).
    x_to_move: u64,
}

impl Tally {
    /// The figures of `rows` (values only), whose rows with every image
    /// are `all`.
    fn of(rows: &Columns, all: u64) -> Tally {
        let count = |sign: i8| rows.result.iter().filter(|&&r| r == sign).count() as u64;
        let low = rows.value.iter().min().copied();
        let high = rows.value.iter().max().copied();
        Tally {
            rows: rows.len() as u64,
            all,
            stored: rows.stored.iter().filter(|&&s| s).count() as u64,
            results: [count(1), count(0), count(-1)],
            values: low.zip(high),
            over: rows.plies.iter().filter(|&&p| p == 0).count() as u64,
            x_to_move: rows
                .code
                .iter()
                .filter(|c| (c[0] | c[1]).count_ones() % 2 == 0)
                .count() as u64,
        }
    }

    /// Both tallies' figures together.
    fn add(&self, other: &Tally) -> Tally {
        let values = match (self.values, other.values) {
            (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
            (a, b) => a.or(b),
        };
        Tally {
            rows: self.rows + other.rows,
            all: self.all + other.all,
            stored: self.stored + other.stored,
            results: [0, 1, 2].map(|i| self.results[i] + other.results[i]),
            values,
            over: self.over + other.over,
            x_to_move: self.x_to_move + other.x_to_move,
        }
    }
}

/// The header rows of the card's two tables, for the tic-tac-toe family and
/// for dots-and-boxes.
pub const CARD_HEADERS: [&str; 2] = [
    "| game | positions | with every image | X to move | game over | wins | draws | losses |\n|---|---|---|---|---|---|---|---|",
    "| game | positions | stored | free capture (resolved) | with every image | wins (value > 0) | ties (0) | losses (< 0) | values |\n|---|---|---|---|---|---|---|---|---|",
];

/// `n` with commas between thousands.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_are_separated() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(765), "765");
        assert_eq!(thousands(5478), "5,478");
        assert_eq!(thousands(16_777_216), "16,777,216");
    }

    #[test]
    fn the_schema_has_two_columns_a_move_or_one() {
        let ttt = schema(GameId::TicTacToe).unwrap();
        assert_eq!(ttt.len(), 8 + 2 * 9);
        assert_eq!(ttt[0].name, "position");
        assert_eq!(ttt[8].name, "m0_result");
        let dots = schema(GameId::Dots { rows: 2, cols: 2 }).unwrap();
        assert_eq!(dots.len(), 5 + 12);
        assert!(dots[5].optional && !dots[4].optional);
    }
}
