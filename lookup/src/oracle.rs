//! [`Oracle`]: one probe path for every game and board, over a directory of
//! tables that are opened lazily, with game-neutral answers ([`Report`]).

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::SystemTime;

use crate::dataset::{self, Columns};
use crate::encoding::Encoded;
use crate::error::Error;
use crate::format::{BlockCache, FileCheck, GameId, Table};
use crate::game::{SearchLimits, Tabled};
use crate::game_oracle::GameOracle;
use crate::kept_solvers::KeptSolvers;
use crate::mapping::{Opener, TableBytes};
use crate::report::{Mainline, MoveReport, Report, Want, mainline, report};
use crate::stop::Stop;

/// Positions for [`Oracle::columns`]: in notation, or as the codes of the
/// [`encoding`](crate::Encoded).
#[derive(Copy, Clone, Debug)]
pub enum Positions<'a> {
    /// Each position in the game's notation.
    Notation(&'a [String]),
    /// Each position's code.
    Codes(&'a [[u64; 2]]),
}

/// One game's oracle behind the game-neutral face the [`Oracle`] keeps.
trait AnyGameOracle: fmt::Debug + Send + Sync {
    fn report(&self, text: &str, want: Want, stop: &Stop) -> Result<Report, Error>;
    fn mainline(&self, text: &str, stop: &Stop) -> Result<Mainline, Error>;
    fn columns(&self, positions: Positions<'_>, moves: bool, stop: &Stop)
    -> Result<Columns, Error>;
    /// `None` without a table.
    fn table_span(&self) -> Option<u64>;
    fn table_count(&self, span: Range<u64>, all_symmetries: bool) -> Result<u64, Error>;
    fn table_rows(
        &self,
        span: Range<u64>,
        all_symmetries: bool,
        only: Option<&[u64]>,
        moves: bool,
    ) -> Result<Columns, Error>;
    fn file_check(&self) -> Option<FileCheck>;
}

impl<G: Tabled + Encoded + 'static> GameOracle<G, TableBytes> {
    /// The table, or [`Error::Unsupported`] saying there is none.
    fn table_or_refusal(&self) -> Result<&Table<TableBytes>, Error> {
        self.table().ok_or_else(|| Error::Unsupported {
            game: self.game().id(),
            reason: "no table of it is open: only the positions of a table can be listed".into(),
        })
    }

    /// The positions of the table in `span` (see [`dataset::table_positions`]).
    fn listed(&self, span: Range<u64>, all_symmetries: bool) -> Result<Vec<G::Position>, Error> {
        let mut positions = Vec::new();
        let table = self.table_or_refusal()?;
        dataset::table_positions(self.game(), table, span, all_symmetries, &mut positions)?;
        Ok(positions)
    }
}

impl<G: Tabled + Encoded + 'static> AnyGameOracle for GameOracle<G, TableBytes> {
    fn report(&self, text: &str, want: Want, stop: &Stop) -> Result<Report, Error> {
        report(self, text, want, stop)
    }

    fn mainline(&self, text: &str, stop: &Stop) -> Result<Mainline, Error> {
        mainline(self, text, stop)
    }

    fn columns(
        &self,
        positions: Positions<'_>,
        moves: bool,
        stop: &Stop,
    ) -> Result<Columns, Error> {
        let game = self.game();
        let positions = match positions {
            Positions::Notation(texts) => texts
                .iter()
                .map(|text| game.parse(text))
                .collect::<Result<Vec<_>, _>>()?,
            Positions::Codes(codes) => codes
                .iter()
                .map(|&code| game.position_of(code))
                .collect::<Result<Vec<_>, _>>()?,
        };
        dataset::rows(self, &positions, moves, stop)
    }

    fn table_span(&self) -> Option<u64> {
        self.table()
            .map(|table| dataset::table_span(self.game(), table))
    }

    fn table_count(&self, span: Range<u64>, all_symmetries: bool) -> Result<u64, Error> {
        Ok(self.listed(span, all_symmetries)?.len() as u64)
    }

    fn table_rows(
        &self,
        span: Range<u64>,
        all_symmetries: bool,
        only: Option<&[u64]>,
        moves: bool,
    ) -> Result<Columns, Error> {
        let mut positions = self.listed(span, all_symmetries)?;
        if let Some(only) = only {
            positions = only
                .iter()
                .filter_map(|&i| usize::try_from(i).ok().and_then(|i| positions.get(i)))
                .copied()
                .collect();
        }
        dataset::rows(self, &positions, moves, &Stop::default())
    }

    fn file_check(&self) -> Option<FileCheck> {
        self.table().map(|table| table.file_check())
    }
}

/// Perfect-play answers for every supported game from one directory of
/// tables, for many threads at once.
///
/// Tables are opened on first use; a game without a table file is answered
/// by exact live search, and each [`Report`] says which source answered.
/// A table that exists but is damaged is an error, never a silent fallback.
///
/// # Memory and files
///
/// [`Oracle::open`] reads each table's head when its game is first asked
/// about, then one block per probe that misses the cache, by positioned
/// reads: never a whole table. Every table of an oracle keeps its decoded
/// blocks in one [`BlockCache`], of [`BlockCache::DEFAULT_CAPACITY`] (64
/// MiB) unless [`with_cache_capacity`](Oracle::with_cache_capacity) says
/// otherwise; besides it, a table keeps 40 bytes per block (under 1.3 MB
/// for dots 3×4). Each table's whole-file checksum is checked once, on a
/// thread of its own started when the table opens
/// ([`Table::check_file_in_background`](crate::Table::check_file_in_background)).
/// A table renamed over by a rebuild is picked up by
/// [`reload`](Oracle::reload); until then the oracle answers from the file
/// it opened (what happens to a file changed in place is in
/// [`TableFile`](crate::TableFile)'s module).
///
/// One example per game, against the repository's tables:
///
/// ```
/// use solvedb_lookup::{AnyValue, GameId, Oracle, Source, Want, Wdl};
///
/// let tables = concat!(env!("CARGO_MANIFEST_DIR"), "/../tables");
/// let oracle = Oracle::open(tables.as_ref())?;
///
/// // Tic-tac-toe: X to move completes the top row.
/// let report = oracle.answer(GameId::TicTacToe, "XX./OO./...", Want::Moves)?;
/// assert!(matches!(report.value, AnyValue::Outcome(o) if o.wdl == Wdl::Win && o.plies == 1));
/// assert_eq!(report.moves[0].mv, "2");
///
/// // The 3x3x3 cube: the best first move, and the value of the empty cube.
/// let empty = ".".repeat(27);
/// let best = oracle.best_move(GameId::Cube, &empty)?.expect("the game is not over");
/// let value = oracle.probe(GameId::Cube, &empty)?.value;
/// assert_eq!(best.value, value);
/// println!("cube: {value}, best first move {}", best.mv);
///
/// // Dots-and-boxes on 2x2 boxes: the net boxes the player to move wins.
/// let report = oracle.moves(GameId::Dots { rows: 2, cols: 2 }, "2x2:h0,0 v1,2")?;
/// assert_eq!(report.source, Source::Table);
/// println!("dots 2x2: {} for the player to move", report.value);
/// # Ok::<(), solvedb_lookup::Error>(())
/// ```
#[derive(Debug)]
pub struct Oracle {
    /// The tables directory; `None` for an oracle that only searches or
    /// one over tables compiled into the program.
    dir: Option<PathBuf>,
    /// Tables compiled into the program, by game (used where `dir` is
    /// `None`).
    statics: HashMap<GameId, &'static [u8]>,
    /// Companion tables compiled into the program, by game
    /// ([`Tabled::COMPANION`]).
    static_companions: HashMap<GameId, &'static [u8]>,
    opener: Opener,
    limits: SearchLimits,
    /// The decoded blocks of every table, within one bound.
    cache: Arc<BlockCache>,
    /// The solvers kept between live searches, over every game
    /// ([`with_kept_solvers`](Oracle::with_kept_solvers)).
    kept: Arc<KeptSolvers>,
    /// One oracle per game and board, opened on first use. The write lock
    /// is held while a table opens, so each table is opened once.
    games: RwLock<HashMap<GameId, Loaded>>,
}

/// One game's oracle and the identities of the files it opened: its table
/// and its companion table (`None`: there was none).
#[derive(Debug)]
struct Loaded {
    oracle: Arc<dyn AnyGameOracle>,
    files: [Option<FileId>; 2],
}

/// What tells one file from another at the same path: on Unix its device
/// and inode (a rename over the name gives a new inode), everywhere its
/// length and modification time.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct FileId {
    device: u64,
    inode: u64,
    len: u64,
    modified: Option<SystemTime>,
}

impl FileId {
    /// The identity of the file at `path`, `None` if there is none.
    fn of(path: &Path) -> Option<FileId> {
        let meta = std::fs::metadata(path).ok()?;
        #[cfg(unix)]
        let (device, inode) = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let (device, inode) = (0, 0);
        Some(FileId {
            device,
            inode,
            len: meta.len(),
            modified: meta.modified().ok(),
        })
    }
}

impl Oracle {
    /// An oracle over the tables in `dir`, each opened on first use for
    /// positioned reads of the blocks probes need: the way every face of
    /// solvedb opens tables (see [Memory and files](Oracle#memory-and-files)).
    /// A `dir` that does not exist holds no tables (every answer is
    /// searched).
    ///
    /// # Errors
    ///
    /// [`Error::NotADirectory`] if `dir` exists but is not a directory.
    pub fn open(dir: &Path) -> Result<Oracle, Error> {
        Oracle::new(dir, Opener::Blocks)
    }

    /// An oracle over the tables in `dir`, reading each file whole into
    /// memory on first use (its decoded blocks still go through the cache):
    /// for a process that wants the files' bytes in memory whatever happens
    /// to the files. [`Oracle::open`] reads only what probes need.
    ///
    /// # Errors
    ///
    /// As [`open`](Oracle::open).
    pub fn open_in_memory(dir: &Path) -> Result<Oracle, Error> {
        Oracle::new(dir, Opener::Memory)
    }

    /// An oracle over the tables in `dir`, mapping each file on first use.
    /// No face of solvedb maps (see `docs/tables-on-demand.md`: positioned
    /// reads measured as fast, and a mapping turns a truncated file into
    /// `SIGBUS`); this is for callers who want it.
    ///
    /// # Safety
    ///
    /// As [`map_table`](crate::map_table): the table files must not be
    /// modified or truncated while the oracle lives. (solvedb replaces tables
    /// by renaming new files over them, which is safe.)
    ///
    /// # Errors
    ///
    /// As [`open`](Oracle::open).
    #[allow(unsafe_code)] // The declaration only: the mapping itself is in mapping.rs.
    pub unsafe fn open_mapped(dir: &Path) -> Result<Oracle, Error> {
        // Our caller took on `map_table`'s contract for every file the
        // opener will map, which is what `Opener::Map` requires.
        Oracle::new(dir, Opener::Map)
    }

    /// An oracle over `dir` whose tables `opener` opens.
    fn new(dir: &Path, opener: Opener) -> Result<Oracle, Error> {
        // A directory that does not exist holds no tables: every game is
        // searched. A path that is something else is a mistake.
        if dir.exists() && !dir.is_dir() {
            return Err(Error::NotADirectory {
                path: dir.to_owned(),
            });
        }
        Ok(Oracle {
            dir: Some(dir.to_owned()),
            statics: HashMap::new(),
            static_companions: HashMap::new(),
            opener,
            limits: SearchLimits::default(),
            cache: Arc::new(BlockCache::default()),
            kept: Arc::default(),
            games: RwLock::default(),
        })
    }

    /// An oracle without tables: every answer is an exact live search
    /// (what `solvedb search` uses).
    pub fn search_only() -> Oracle {
        Oracle {
            dir: None,
            statics: HashMap::new(),
            static_companions: HashMap::new(),
            opener: Opener::Blocks,
            limits: SearchLimits::default(),
            cache: Arc::new(BlockCache::default()),
            kept: Arc::default(),
            games: RwLock::default(),
        }
    }

    /// An oracle over tables compiled into the program (`include_bytes!`
    /// of table files: what the Python package ships), each keyed by the
    /// game its header names; a game without one is searched. The last
    /// table of a game wins.
    ///
    /// ```
    /// use solvedb_lookup::{GameId, Oracle, Source};
    ///
    /// static TICTACTOE: &[u8] = include_bytes!("../../tables/tictactoe.sdb");
    /// let oracle = Oracle::from_static_tables(&[TICTACTOE])?;
    /// assert_eq!(oracle.probe(GameId::TicTacToe, ".........")?.source, Source::Table);
    /// assert_eq!(oracle.probe(GameId::Dots { rows: 1, cols: 1 }, "1x1:")?.source, Source::Search);
    /// # Ok::<(), solvedb_lookup::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`TableError`](crate::TableError) for bytes that are not a table
    /// (their cheap parts are checked here, as [`Table::new`] does).
    pub fn from_static_tables(tables: &[&'static [u8]]) -> Result<Oracle, Error> {
        let mut statics = HashMap::new();
        let mut static_companions = HashMap::new();
        for &bytes in tables {
            let header = Table::new(bytes)?.header().clone();
            let companion =
                crate::with_game!(header.game, game => Ok::<_, Error>(companion_of(game)))?;
            if companion.is_some_and(|(values, _)| values == header.values) {
                static_companions.insert(header.game, bytes);
            } else {
                statics.insert(header.game, bytes);
            }
        }
        Ok(Oracle {
            statics,
            static_companions,
            ..Oracle::search_only()
        })
    }

    /// Keeps at most `bytes` of decoded blocks, over all of the oracle's
    /// tables (the default is [`BlockCache::DEFAULT_CAPACITY`], 64 MiB; 0
    /// keeps none, and every probe decodes its block). Set it before the
    /// first probe: tables already open keep the cache they opened with.
    pub fn with_cache_capacity(self, bytes: usize) -> Oracle {
        self.with_cache(Arc::new(BlockCache::new(bytes)))
    }

    /// Keeps decoded blocks in `cache`, which other oracles may share (one
    /// bound for all of them). Set it before the first probe.
    pub fn with_cache(mut self, cache: Arc<BlockCache>) -> Oracle {
        self.cache = cache;
        self
    }

    /// The cache of every table of this oracle: its capacity, what it holds
    /// and how many blocks it decoded ([`BlockCache::stats`]).
    pub fn cache(&self) -> &Arc<BlockCache> {
        &self.cache
    }

    /// Where the whole-file check of each opened table stands (games
    /// answered by search have none), without waiting: for a health check,
    /// or a test that waits for the checks to pass.
    pub fn file_checks(&self) -> Vec<(GameId, FileCheck)> {
        let games = self.games.read().unwrap_or_else(PoisonError::into_inner);
        games
            .iter()
            .filter_map(|(id, loaded)| Some((*id, loaded.oracle.file_check()?)))
            .collect()
    }

    /// Picks up tables that changed on disk since their game was first
    /// asked about: each game whose table file or companion table file was
    /// replaced (a new file renamed over it, as `solvedb build` does),
    /// removed or created is
    /// opened afresh by the next question about it. Answers in flight
    /// finish on the table they started with. Costs a `stat` per opened
    /// game; a server may call it on a signal or a timer. Returns the games
    /// that will be reopened.
    pub fn reload(&self) -> Vec<GameId> {
        let mut games = self.games.write().unwrap_or_else(PoisonError::into_inner);
        let changed: Vec<GameId> = games
            .iter()
            .filter(|(id, loaded)| self.file_ids(**id) != loaded.files)
            .map(|(id, _)| *id)
            .collect();
        for id in &changed {
            games.remove(id);
        }
        changed
    }

    /// Limits every live search to `nodes` positions; past it the answer is
    /// [`Error::BudgetExhausted`] ("unknown within the budget").
    pub fn with_search_budget(mut self, nodes: u64) -> Oracle {
        self.limits.nodes = Some(nodes);
        self
    }

    /// Limits every live search (nodes, time, memory); past them the answer
    /// is [`Error::BudgetExhausted`] or [`Error::TimeExhausted`].
    pub fn with_search_limits(mut self, limits: SearchLimits) -> Oracle {
        self.limits = limits;
        self
    }

    /// Keeps at most `capacity` of the games' own solvers between live
    /// searches, over all games (the default is 1; 0 keeps none): a dots
    /// board's next search then starts from the transposition table of the
    /// one before, which holds most of a later position of the same game
    /// (5×5: 4–6× faster after the first position, `docs/dots-and-boxes.md`).
    /// Each kept solver holds its table's memory ([`SearchLimits::table_bytes`]).
    /// Set it before the first probe: games already open keep what they had.
    pub fn with_kept_solvers(mut self, capacity: usize) -> Oracle {
        self.kept = Arc::new(KeptSolvers::new(capacity));
        self
    }

    /// The tables directory, `None` for an oracle that only searches.
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The limits of every live search.
    pub fn limits(&self) -> SearchLimits {
        self.limits.clone()
    }

    /// The file that holds `game`'s table, whether or not it exists; `None`
    /// for an oracle that only searches.
    pub fn table_path(&self, game: GameId) -> Option<PathBuf> {
        self.dir
            .as_ref()
            .map(|dir| dir.join(game.table_file_name()))
    }

    /// Whether `game` is answered from a table: its file exists in the
    /// directory, or it was compiled in. Where not, every answer is a live
    /// search.
    pub fn has_table(&self, game: GameId) -> bool {
        self.statics.contains_key(&game) || self.table_path(game).is_some_and(|path| path.exists())
    }

    /// The value of a position (no moves).
    ///
    /// # Errors
    ///
    /// A [`PositionError`](crate::PositionError) for bad notation, a
    /// [`TableError`](crate::TableError) for a damaged table,
    /// [`Error::BudgetExhausted`] when a budgeted search runs out,
    /// [`Error::Unsupported`] for a game this build cannot answer.
    pub fn probe(&self, game: GameId, position: &str) -> Result<Report, Error> {
        self.answer(game, position, Want::Value)
    }

    /// The value of a position and of every move, best first.
    ///
    /// # Errors
    ///
    /// As [`probe`](Oracle::probe).
    pub fn moves(&self, game: GameId, position: &str) -> Result<Report, Error> {
        self.answer(game, position, Want::Moves)
    }

    /// The best move (the first of [`moves`](Oracle::moves)), `None` when the
    /// game is over.
    ///
    /// # Errors
    ///
    /// As [`probe`](Oracle::probe).
    pub fn best_move(&self, game: GameId, position: &str) -> Result<Option<MoveReport>, Error> {
        Ok(self.moves(game, position)?.moves.into_iter().next())
    }

    /// The best line from a position to the end of the game, each move the
    /// best of its position.
    ///
    /// # Errors
    ///
    /// As [`probe`](Oracle::probe).
    pub fn mainline(&self, game: GameId, position: &str) -> Result<Mainline, Error> {
        self.mainline_within(game, position, &Stop::default())
    }

    /// [`mainline`](Oracle::mainline), every search on the way also stopped
    /// by `stop` (one deadline and budget for the whole line).
    ///
    /// # Errors
    ///
    /// As [`probe`](Oracle::probe), and [`Error::Cancelled`] or
    /// [`Error::TimeExhausted`] when `stop` says so.
    pub fn mainline_within(
        &self,
        game: GameId,
        position: &str,
        stop: &Stop,
    ) -> Result<Mainline, Error> {
        self.game_oracle(game)?.mainline(position, stop)
    }

    /// The answer `want` asks for.
    ///
    /// # Errors
    ///
    /// As [`probe`](Oracle::probe).
    pub fn answer(&self, game: GameId, position: &str, want: Want) -> Result<Report, Error> {
        self.answer_within(game, position, want, &Stop::default())
    }

    /// [`answer`](Oracle::answer), its searches also stopped by `stop`
    /// (shared with the other searches of one request).
    ///
    /// # Errors
    ///
    /// As [`mainline_within`](Oracle::mainline_within).
    pub fn answer_within(
        &self,
        game: GameId,
        position: &str,
        want: Want,
        stop: &Stop,
    ) -> Result<Report, Error> {
        self.game_oracle(game)?.report(position, want, stop)
    }

    /// The rows of `positions` of `game` (see [`Columns`]): values and,
    /// with `moves`, every move's value by move index, from the table or
    /// the search as [`answer`](Oracle::answer) gives them, large batches
    /// on several threads.
    ///
    /// # Errors
    ///
    /// As [`probe`](Oracle::probe), for the first position that fails.
    pub fn columns(
        &self,
        game: GameId,
        positions: Positions<'_>,
        moves: bool,
    ) -> Result<Columns, Error> {
        self.columns_within(game, positions, moves, &Stop::default())
    }

    /// [`columns`](Oracle::columns), its searches also stopped by `stop`
    /// (a caller's cancellation, as [`answer_within`](Oracle::answer_within)).
    ///
    /// # Errors
    ///
    /// As [`columns`](Oracle::columns), and [`Error::Cancelled`] or
    /// [`Error::TimeExhausted`] when `stop` says so.
    pub fn columns_within(
        &self,
        game: GameId,
        positions: Positions<'_>,
        moves: bool,
        stop: &Stop,
    ) -> Result<Columns, Error> {
        self.game_oracle(game)?.columns(positions, moves, stop)
    }

    /// How many slots (or sorted records) `game`'s table has: the span that
    /// [`table_rows`](Oracle::table_rows) walks, in pieces if need be.
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] without a table or for a strategy table
    /// (Qubic's, [`GameId::table_covers_every_position`]), or as
    /// [`probe`](Oracle::probe) opening it.
    pub fn table_span(&self, game: GameId) -> Result<u64, Error> {
        if !game.table_covers_every_position() {
            return Err(Error::Unsupported {
                game,
                reason: "its table is a winning strategy (bounds on the positions it reaches, \
                         not an exact value of every position): no dataset is listed from it"
                    .into(),
            });
        }
        let oracle = self.game_oracle(game)?;
        oracle.table_span().ok_or_else(|| Error::Unsupported {
            game,
            reason: "no table of it is open: only the positions of a table can be listed".into(),
        })
    }

    /// How many positions [`table_rows`](Oracle::table_rows) lists in
    /// `span`, without their values.
    ///
    /// # Errors
    ///
    /// As [`table_span`](Oracle::table_span), and a damaged block.
    pub fn table_count(
        &self,
        game: GameId,
        span: Range<u64>,
        all_symmetries: bool,
    ) -> Result<u64, Error> {
        self.game_oracle(game)?.table_count(span, all_symmetries)
    }

    /// The rows of the positions `game`'s table holds in `span` of its
    /// slots (see [`dataset`](mod@crate::dataset) for which positions and in
    /// what order); with `only`, just the listed positions whose places in
    /// the span's list it gives (ascending); without `moves`, only the
    /// positions' own values.
    ///
    /// # Errors
    ///
    /// As [`table_span`](Oracle::table_span), and a damaged block.
    pub fn table_rows(
        &self,
        game: GameId,
        span: Range<u64>,
        all_symmetries: bool,
        only: Option<&[u64]>,
        moves: bool,
    ) -> Result<Columns, Error> {
        self.game_oracle(game)?
            .table_rows(span, all_symmetries, only, moves)
    }

    /// The oracle of one game, opening its table on first use.
    fn game_oracle(&self, id: GameId) -> Result<Arc<dyn AnyGameOracle>, Error> {
        let cached = self.games.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(loaded) = cached.get(&id) {
            return Ok(Arc::clone(&loaded.oracle));
        }
        drop(cached);
        let mut games = self.games.write().unwrap_or_else(PoisonError::into_inner);
        if let Some(loaded) = games.get(&id) {
            return Ok(Arc::clone(&loaded.oracle));
        }
        // The identities before the open: if a rebuild renames a new file
        // over a name in between, `reload` sees a change and opens it again.
        let files = self.file_ids(id);
        let oracle: Arc<dyn AnyGameOracle> = crate::with_game!(id, game => self.load(*game).map(
            |oracle| Arc::new(oracle) as Arc<dyn AnyGameOracle>
        ))?;
        games.insert(
            id,
            Loaded {
                oracle: Arc::clone(&oracle),
                files,
            },
        );
        Ok(oracle)
    }

    /// The identities of a game's table file and companion table file in
    /// the directory (`None` for each that is not there).
    fn file_ids(&self, id: GameId) -> [Option<FileId>; 2] {
        let companion = crate::with_game!(id, game => Ok::<_, Error>(companion_of(game)))
            .ok()
            .flatten()
            .map(|(_, file)| file);
        let in_dir = |file: Option<PathBuf>| file.and_then(|path| FileId::of(&path));
        [
            in_dir(self.table_path(id)),
            in_dir(companion.and_then(|file| Some(self.dir.as_ref()?.join(file)))),
        ]
    }

    /// The companion table of a game ([`Tabled::COMPANION`]): compiled
    /// in, or its file in the directory; `None` where there is none.
    fn companion<G: Tabled>(&self, id: GameId) -> Result<Option<Table<TableBytes>>, Error> {
        let Some((_, file)) = G::COMPANION else {
            return Ok(None);
        };
        if let Some(&bytes) = self.static_companions.get(&id) {
            return Ok(Some(Table::with_cache(
                TableBytes::Static(bytes),
                Arc::clone(&self.cache),
            )?));
        }
        match self.dir.as_ref().map(|dir| dir.join(file)) {
            Some(path) if path.exists() => {
                Ok(Some(self.opener.open(&path, Arc::clone(&self.cache))?))
            }
            _ => Ok(None),
        }
    }

    /// One game's oracle: over its table if it was compiled in or the
    /// directory has one (its whole-file check started in the background),
    /// else searching within the limits.
    fn load<G: Tabled>(&self, game: G) -> Result<GameOracle<G, TableBytes>, Error> {
        let table = match self.statics.get(&game.id()) {
            Some(&bytes) => Some(Table::with_cache(
                TableBytes::Static(bytes),
                Arc::clone(&self.cache),
            )?),
            None => match self.table_path(game.id()).filter(|path| path.exists()) {
                Some(path) => Some(self.opener.open(&path, Arc::clone(&self.cache))?),
                None => None,
            },
        };
        let oracle = match table {
            Some(table) => {
                let mut oracle = GameOracle::with_table(game, table)?;
                if let Some(table) = oracle.table() {
                    table.check_file_in_background();
                }
                if let Some(companion) = self.companion::<G>(oracle.game().id())? {
                    companion.check_file_in_background();
                    oracle = oracle.with_companion(companion)?;
                }
                oracle
            }
            None => GameOracle::search_only(game),
        };
        Ok(oracle
            .with_search_limits(self.limits.clone())
            .with_kept_solvers(Arc::clone(&self.kept)))
    }
}

/// A game's companion table ([`Tabled::COMPANION`]).
fn companion_of<G: Tabled>(_game: &G) -> Option<(crate::format::ValueEncoding, &'static str)> {
    G::COMPANION
}
