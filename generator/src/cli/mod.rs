//! The `solvedb` command line, laid out as `fst-bin` lays out its own:
//! [`app`](self) holds the arguments, `cmd/` one module per command
//! (its own arguments, then a `run` that calls the library and prints),
//! `output` how answers and reports are printed. The work itself is done by
//! the build pipeline ([`crate::build`]), the games' generator code
//! ([`crate::games`]), the checks and benchmarks, the servers
//! (`solvedb-server`) and the library.
//!
//! This module runs a command line: it parses the arguments, dispatches,
//! and turns a failure into its message and exit code ([`exit_code`]).

mod app;
mod args;
mod cmd;
mod output;

use std::ffi::OsString;
use std::io::{self, BufRead, Write};

use clap::{ColorChoice, FromArgMatches};
use solvedb_lookup::{Error, ErrorKind, UnknownGame, bounds_json, error_json};

pub use app::clap_command;
pub use args::{DEFAULT_SEARCH_NODES, TABLES_ENV};

use app::{Cli, Command};
use output::Paint;

/// The exit code of a failure of each [`ErrorKind`]: the command's face of
/// the one error mapping (0 is success, 1 a failure of no other kind; a
/// usage error is a malformed request, 2).
pub fn exit_code(kind: ErrorKind) -> i32 {
    match kind {
        ErrorKind::Request => 2,
        ErrorKind::Position => 3,
        ErrorKind::Unsupported => 4,
        ErrorKind::Table => 5,
        ErrorKind::Io => 6,
        ErrorKind::Budget => 7,
        _ => 1,
    }
}

/// The kind of a command's failure: that of the first library error in its
/// chain of causes ([`Error::kind_in_chain`]), `None` if there is none.
fn failure_kind(error: &anyhow::Error) -> Option<ErrorKind> {
    Error::kind_in_chain(error.chain())
}

/// The exit codes, as `--help` and the README list them: one line per
/// code, from [`exit_code`] of every [`ErrorKind`].
pub fn exit_code_table() -> String {
    let mut lines = vec!["Exit codes:".to_owned(), "  0  success".to_owned()];
    lines.push("  1  a failure of no other kind (kind \"other\")".to_owned());
    for kind in ErrorKind::ALL {
        let what = match kind {
            ErrorKind::Request => "usage: bad arguments or a malformed request",
            ErrorKind::Position => "a malformed or illegal position or move",
            ErrorKind::Unsupported => {
                "an unknown game, or a board this build cannot answer or build"
            }
            ErrorKind::Table => "a damaged, foreign or newer table file",
            ErrorKind::Io => "a file or directory that cannot be read or written",
            ErrorKind::Budget => "unknown within the search budget (--nodes, --seconds)",
            _ => "another kind",
        };
        lines.push(format!("  {}  {what} (kind \"{kind}\")", exit_code(kind)));
    }
    lines.join("\n")
}

/// Where a run's input and output go, and whether they get colour.
#[derive(Debug, Clone, Copy, Default)]
pub struct Terminal {
    /// Colour on standard output (a terminal, `NO_COLOR` unset).
    pub color_out: bool,
    /// Colour on standard error.
    pub color_err: bool,
}

impl Terminal {
    /// Colour where the process's standard output and error are terminals
    /// and `NO_COLOR` is unset (anstream's rules: also `CLICOLOR=0`,
    /// `TERM=dumb` turn it off, `CLICOLOR_FORCE` on).
    pub fn of_process() -> Terminal {
        let on = |choice| choice != anstream::ColorChoice::Never;
        Terminal {
            color_out: on(anstream::AutoStream::choice(&io::stdout())),
            color_err: on(anstream::AutoStream::choice(&io::stderr())),
        }
    }
}

/// Runs the command line `args` (program name first), writing results to
/// `out` and problems to `err`, without colour; standard input is the
/// process's. Returns the process exit code: 0 on success, 2 for a usage
/// error, and for a failure its kind's [`exit_code`] (1 when it has none).
pub fn main_with<I, T>(args: I, out: &mut dyn Write, err: &mut dyn Write) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    // Not `stdin().lock()`: a command that never reads its input must not
    // hold the process's stdin lock (tests run many commands at once).
    main_with_input(
        args,
        &mut io::BufReader::new(io::stdin()),
        out,
        err,
        Terminal::default(),
    )
}

/// As [`main_with`], reading standard input (`probe GAME -`, `serve`) from
/// `input` and colouring as `terminal` says.
pub fn main_with_input<I, T>(
    args: I,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    err: &mut dyn Write,
    terminal: Terminal,
) -> i32
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let json = args.iter().any(|a| a == "--json");
    let parsed = clap_command()
        .color(if terminal.color_out && terminal.color_err {
            ColorChoice::Always
        } else {
            ColorChoice::Never
        })
        .try_get_matches_from(args)
        .and_then(|mut matches| Cli::from_arg_matches_mut(&mut matches));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            // A game name that names no game is refused while the arguments
            // are read, but it is an unsupported game, not a usage error.
            let unknown_game = std::error::Error::source(&e).is_some_and(|s| s.is::<UnknownGame>());
            let (kind, code) = match unknown_game {
                true => (ErrorKind::Unsupported, exit_code(ErrorKind::Unsupported)),
                false => (ErrorKind::Request, e.exit_code()),
            };
            if e.use_stderr() && json {
                // The error itself, without the usage hints below it.
                let message = e.render().to_string();
                let message = message.split("\n\n").next().unwrap_or_default();
                let message = message.trim_end().trim_start_matches("error: ");
                let _ = writeln!(out, "{}", error_json(Some(kind), message));
                return code;
            }
            let (sink, color): (&mut dyn Write, bool) = if e.use_stderr() {
                (err, terminal.color_err)
            } else {
                (out, terminal.color_out)
            };
            let _ = if color {
                write!(sink, "{}", e.render().ansi())
            } else {
                write!(sink, "{}", e.render())
            };
            return code;
        }
    };
    let mut io = Io {
        input,
        out,
        err,
        paint: Paint(terminal.color_out),
    };
    match run(cli.command, &mut io) {
        Ok(code) => code,
        Err(e) => {
            let kind = failure_kind(&e);
            let message = error_message(&e);
            // What a stopped search proved, where it proved anything.
            let bounds = e
                .chain()
                .find_map(|cause| cause.downcast_ref::<Error>().and_then(Error::bounds));
            if json {
                let mut error = error_json(kind, &message);
                if let Some(bounds) = bounds {
                    error["bounds"] = bounds_json(bounds);
                }
                let _ = writeln!(io.out, "{error}");
            } else {
                let _ = writeln!(io.err, "error: {message}");
                // Beside the error: a failed command writes nothing to
                // standard output, so a script never reads half an answer.
                if let Some(bounds) = bounds {
                    let _ = output::print_bounds(bounds, io.err, io.paint);
                }
            }
            kind.map_or(1, exit_code)
        }
    }
}

/// An error and its causes in one line, each cause once: a cause whose
/// text the line already holds (an OS error a library error quotes) is not
/// repeated.
fn error_message(error: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if message.contains(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    message
}

/// A run's streams and colour.
struct Io<'a> {
    input: &'a mut dyn BufRead,
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    paint: Paint,
}

/// Runs one command; returns its exit code (0, or for bulk input that of
/// the first line that failed).
fn run(command: Command, io: &mut Io<'_>) -> anyhow::Result<i32> {
    match command {
        Command::Build(args) => cmd::build::run(args, io)?,
        Command::Verify(args) => cmd::verify::run(args, io)?,
        Command::Sweep(args) => cmd::sweep::run(args, io)?,
        Command::Fuzz(args) => cmd::fuzz::run(args, io)?,
        Command::Serve(args) => cmd::serve::run(args, io)?,
        Command::Info(args) => cmd::info::run(args, io)?,
        Command::Export(args) => cmd::export::run(args, io)?,
        Command::Probe(args) => return cmd::probe::run(args, io),
        Command::Search(args) => return cmd::search::run(args, io),
        Command::Bench(args) => cmd::bench::run(args, io)?,
        Command::Completions { shell } => {
            // `generate` panics when its writer fails (a closed pipe):
            // write into memory, then out, where a failure is an error.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut clap_command(), "solvedb", &mut script);
            io.out.write_all(&script)?;
        }
        Command::Man => clap_mangen::Man::new(clap_command()).render(io.out)?,
    }
    Ok(0)
}
