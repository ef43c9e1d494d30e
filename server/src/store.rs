//! The leaderboard's database: every finished game the server refereed (a
//! room's, or one against the computer played through a session), with its
//! players, result and moves, and for each move whether it kept the value
//! of the position; and per player and game the totals the leaderboard
//! shows, kept in the same transaction as the game, so that reading the
//! leaderboard is one small indexed query.
//!
//! **Players.** A person is known by a per-browser identity (a random
//! secret the page keeps; no accounts) and shown under the name they last
//! gave and the player's number (`players.id`), so two people of the same
//! name, or two anonymous people, are two lines. A seat without an
//! identity is recorded with the game but counted for nobody. The computer
//! has one player per level, listed apart from people. A game whose two
//! seats are the same player counts for nobody either (playing oneself).
//!
//! SQLite through rusqlite with its bundled SQLite (the same SQLite on
//! every machine, no system library), in WAL mode; the schema is migrated
//! by `PRAGMA user_version`, existing data with it. One writing connection
//! behind a mutex serialises this process's writes (a game is one
//! transaction); reads go to connections of their own (read-only, for a
//! database in a file), so a read never waits for a write or a write for a
//! read. Callers on an async runtime run these functions on a blocking
//! thread. `busy_timeout` covers another process on the same file.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, params};

/// The database file's name in the data directory.
pub const FILE_NAME: &str = "leaderboard.sqlite3";

/// Games a person plays (of a game, or in all) before they get a rank;
/// until then they are listed after the ranked players, without a rank.
pub const MIN_RANKED_GAMES: u64 = 3;

/// Reading connections of a database in a file.
const READERS: usize = 2;

/// A migration brings the schema from its version to the next.
type Migration = fn(&Transaction<'_>) -> Result<()>;

/// Each migration brings the schema from version `i` to `i + 1`.
const MIGRATIONS: &[Migration] = &[to_version_1, to_version_2];

/// Version 1: games and their moves, players by name.
fn to_version_1(tx: &Transaction<'_>) -> Result<()> {
    tx.execute_batch(
        "CREATE TABLE games (
             id       INTEGER PRIMARY KEY,
             game     TEXT    NOT NULL,
             kind     TEXT    NOT NULL,   -- 'room', 'computer'; 'posted' (see version 2)
             start    TEXT    NOT NULL,
             first    TEXT    NOT NULL,   -- the names given, as shown then
             second   TEXT    NOT NULL,
             winner   INTEGER,            -- 0 first, 1 second, NULL a draw
             finished INTEGER NOT NULL    -- seconds since 1970
         );
         CREATE INDEX games_by_game ON games (game);
         CREATE TABLE moves (
             game_id INTEGER NOT NULL REFERENCES games (id),
             ply     INTEGER NOT NULL,
             seat    INTEGER NOT NULL,    -- 0 first, 1 second
             mv      TEXT    NOT NULL,
             kept    INTEGER,             -- 1 kept the value, 0 not, NULL unknown
             cost    INTEGER,             -- what it gave away (see MoveRecord)
             PRIMARY KEY (game_id, ply)
         ) WITHOUT ROWID;",
    )?;
    Ok(())
}

/// Version 2: players (people by identity, the computer by level), each
/// game's two players, per-player totals; the games of version 1 carried
/// over. Games against the computer of version 1 were move lists the page
/// posted, not games the server refereed: they become `posted` and count
/// for nobody. Names of room games become one player each (there were no
/// identities), except `anonymous` and the computer's names, which stood
/// for anyone and count for nobody.
fn to_version_2(tx: &Transaction<'_>) -> Result<()> {
    tx.execute_batch(
        "CREATE TABLE players (
             id       INTEGER PRIMARY KEY,
             identity TEXT UNIQUE,        -- a browser's secret; NULL: the computer, or a name of version 1
             computer TEXT UNIQUE,        -- the computer's level; NULL for people
             name     TEXT NOT NULL       -- the name last given
         );
         ALTER TABLE games ADD COLUMN first_player INTEGER REFERENCES players (id);
         ALTER TABLE games ADD COLUMN second_player INTEGER REFERENCES players (id);
         CREATE TABLE totals (
             player INTEGER NOT NULL REFERENCES players (id),
             game   TEXT    NOT NULL,
             games  INTEGER NOT NULL,
             wins   INTEGER NOT NULL,
             draws  INTEGER NOT NULL,
             losses INTEGER NOT NULL,
             rated  INTEGER NOT NULL,     -- moves whose value was known
             kept   INTEGER NOT NULL,     -- of those, the moves that kept it
             PRIMARY KEY (player, game)
         ) WITHOUT ROWID;
         CREATE INDEX totals_by_game ON totals (game);
         UPDATE games SET kind = 'posted' WHERE kind = 'computer';",
    )?;
    let names: Vec<String> = {
        let mut select = tx.prepare(
            "SELECT first FROM games WHERE kind = 'room'
             UNION SELECT second FROM games WHERE kind = 'room'",
        )?;
        select
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?
    };
    for name in names.iter().filter(|n| counts_as_a_name(n)) {
        tx.execute("INSERT INTO players (name) VALUES (?1)", [name])?;
    }
    tx.execute_batch(
        "UPDATE games SET
             first_player = (SELECT id FROM players p
                             WHERE p.identity IS NULL AND p.computer IS NULL AND p.name = games.first),
             second_player = (SELECT id FROM players p
                              WHERE p.identity IS NULL AND p.computer IS NULL AND p.name = games.second)
         WHERE kind = 'room';
         WITH seats AS (
             SELECT id, game, first_player AS player, 0 AS seat, winner FROM games
             WHERE kind = 'room' AND first_player IS NOT NULL
                   AND first_player IS NOT second_player
             UNION ALL
             SELECT id, game, second_player, 1, winner FROM games
             WHERE kind = 'room' AND second_player IS NOT NULL
                   AND first_player IS NOT second_player)
         INSERT INTO totals (player, game, games, wins, draws, losses, rated, kept)
         SELECT s.player, s.game, COUNT(*),
                COALESCE(SUM(s.winner = s.seat), 0),
                COALESCE(SUM(s.winner IS NULL), 0),
                COALESCE(SUM(s.winner IS NOT NULL AND s.winner <> s.seat), 0),
                COALESCE(SUM((SELECT COUNT(m.kept) FROM moves m
                              WHERE m.game_id = s.id AND m.seat = s.seat)), 0),
                COALESCE(SUM((SELECT COALESCE(SUM(m.kept), 0) FROM moves m
                              WHERE m.game_id = s.id AND m.seat = s.seat)), 0)
         FROM seats s GROUP BY s.player, s.game;",
    )?;
    Ok(())
}

/// Whether a name of version 1 stood for one person: not `anonymous`
/// (anyone without a name) and not one of the computer's names.
fn counts_as_a_name(name: &str) -> bool {
    let name = name.trim();
    !name.is_empty() && name != ANONYMOUS && !is_reserved_name(name)
}

/// The name shown for a person who gave none.
pub const ANONYMOUS: &str = "anonymous";

/// Whether people may not take `name`: it reads as the computer's
/// (`computer`, `computer (perfect)`, `Computer: classic`, …) or as this
/// program's.
pub fn is_reserved_name(name: &str) -> bool {
    let plain: String = name
        .chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect();
    plain.starts_with("computer") || plain.starts_with("solvedb")
}

/// Whether `text` may be a per-browser identity: 16 to 64 letters, digits,
/// `-` or `_` (the page makes 32 hex digits from the browser's CSPRNG).
pub fn is_valid_identity(text: &str) -> bool {
    (16..=64).contains(&text.len())
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// The computer's name at `level`, as the leaderboard shows it.
pub fn computer_name(level: &str) -> String {
    format!("computer ({level})")
}

/// One move of a finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveRecord {
    /// Who made it: 0 the first seat, 1 the second.
    pub seat: u8,
    /// The move in the game's notation.
    pub mv: String,
    /// Whether it kept the value of the position (`None`: the value was
    /// unknown within the search budget).
    pub kept: Option<bool>,
    /// What it gave away: result classes for the tic-tac-toe family (a win
    /// turned into a draw is 1), boxes for dots-and-boxes.
    pub cost: Option<i64>,
}

/// Who sat in a seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seat {
    /// A person: their browser's identity (without one, the game counts
    /// for nobody in this seat) and the name they gave (empty: none).
    Person {
        /// The per-browser secret the page keeps, if it sent one.
        identity: Option<String>,
        /// The name given, trimmed; empty for none.
        name: String,
    },
    /// The computer at a level (`perfect`, `classic`, `random`).
    Computer {
        /// The level's name.
        level: String,
    },
}

impl Seat {
    /// The name the game shows for this seat.
    pub fn shown_name(&self) -> String {
        match self {
            Seat::Person { name, .. } if name.is_empty() => ANONYMOUS.to_owned(),
            Seat::Person { name, .. } => name.clone(),
            Seat::Computer { level } => computer_name(level),
        }
    }
}

/// A finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The game's name (`GameId`'s `Display`).
    pub game: String,
    /// `room` (two people in a room) or `computer` (a person against the
    /// computer, through a session); `posted` for the games of version 1
    /// that the page posted (read back only).
    pub kind: &'static str,
    /// The position the game started from.
    pub start: String,
    /// Who sat in each seat, first then second.
    pub players: [Seat; 2],
    /// The winning seat, `None` for a draw.
    pub winner: Option<u8>,
    /// Every move in order.
    pub moves: Vec<MoveRecord>,
}

/// One player's line of the leaderboard.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The player's number: tells apart people of the same name.
    pub player: i64,
    /// The name last given (`anonymous` for none).
    pub name: String,
    /// The place among ranked players, `None` before
    /// [`MIN_RANKED_GAMES`] games with a rated move (and for the computer).
    pub rank: Option<u64>,
    /// Games played.
    pub games: u64,
    /// Games won.
    pub wins: u64,
    /// Games drawn.
    pub draws: u64,
    /// Games lost.
    pub losses: u64,
    /// Moves whose value is known.
    pub rated_moves: u64,
    /// Of those, the moves that kept the value.
    pub kept_moves: u64,
}

impl Entry {
    /// The share of the player's rated moves that kept the value, `None`
    /// before any.
    pub fn accuracy(&self) -> Option<f64> {
        (self.rated_moves > 0).then(|| self.kept_moves as f64 / self.rated_moves as f64)
    }
}

/// A page of the leaderboard.
#[derive(Clone, Debug, PartialEq)]
pub struct Board {
    /// People, ranked first (best accuracy first, then wins, then games),
    /// then those without a rank yet (most games first).
    pub people: Vec<Entry>,
    /// Pages of people (at least 1).
    pub pages: u64,
    /// The computer's levels, apart from people (every level, on every page).
    pub computer: Vec<Entry>,
}

/// The database.
#[derive(Debug)]
pub struct Store {
    writer: Mutex<Connection>,
    /// Reading connections; empty for a database in memory, whose reads
    /// share the writer (a memory database is one connection's).
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
    path: Option<PathBuf>,
}

fn lock(conn: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    // A panic while holding the lock leaves no half-written game: each
    // game is one transaction, so the connection is still sound.
    conn.lock().unwrap_or_else(|e| e.into_inner())
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

impl Store {
    /// Opens (or creates) the database in `dir`, creating the directory,
    /// and migrates its schema and data.
    ///
    /// # Errors
    ///
    /// If the directory or file cannot be created or opened, or the file
    /// is not a database of this program (or of a newer version).
    pub fn open(dir: &Path) -> Result<Store> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("creating the data directory {}", dir.display()))?;
        let path = dir.join(FILE_NAME);
        let conn =
            Connection::open(&path).with_context(|| format!("opening {}", path.display()))?;
        let store = Store::prepare(conn, Some(path.clone()))
            .with_context(|| format!("preparing {}", path.display()))?;
        Ok(store)
    }

    /// A database in memory, gone with the process: for a server without
    /// a data directory and for tests.
    ///
    /// # Errors
    ///
    /// If SQLite cannot start.
    pub fn in_memory() -> Result<Store> {
        Store::prepare(Connection::open_in_memory()?, None)
    }

    fn prepare(mut conn: Connection, path: Option<PathBuf>) -> Result<Store> {
        conn.busy_timeout(Duration::from_secs(5))?;
        if path.is_some() {
            let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))?;
            if !mode.eq_ignore_ascii_case("wal") {
                bail!("the database would not switch to WAL mode (it is in {mode})");
            }
        }
        conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")?;
        migrate(&mut conn)?;
        let mut readers = Vec::new();
        if let Some(path) = &path {
            for _ in 0..READERS {
                let reader = Connection::open_with_flags(
                    path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )
                .context("opening a reading connection")?;
                reader.busy_timeout(Duration::from_secs(5))?;
                readers.push(Mutex::new(reader));
            }
        }
        Ok(Store {
            writer: Mutex::new(conn),
            readers,
            next_reader: AtomicUsize::new(0),
            path,
        })
    }

    /// The database file, if not in memory.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// A reading connection: a free one if any, else the next in turn.
    fn reader(&self) -> MutexGuard<'_, Connection> {
        if self.readers.is_empty() {
            return lock(&self.writer);
        }
        for conn in &self.readers {
            if let Ok(guard) = conn.try_lock() {
                return guard;
            }
        }
        let turn = self.next_reader.fetch_add(1, Ordering::Relaxed) % self.readers.len();
        lock(&self.readers[turn])
    }

    /// Records a finished game and adds it to its players' totals, in one
    /// transaction; returns its id.
    ///
    /// # Errors
    ///
    /// If SQLite cannot write it.
    pub fn record(&self, game: &GameRecord) -> Result<i64> {
        let mut conn = lock(&self.writer);
        let tx = conn.transaction()?;
        let players = [
            player_of(&tx, &game.players[0])?,
            player_of(&tx, &game.players[1])?,
        ];
        tx.execute(
            "INSERT INTO games (game, kind, start, first, second, winner, finished,
                                first_player, second_player)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                game.game,
                game.kind,
                game.start,
                game.players[0].shown_name(),
                game.players[1].shown_name(),
                game.winner,
                now(),
                players[0],
                players[1],
            ],
        )?;
        let id = tx.last_insert_rowid();
        {
            let mut insert = tx.prepare(
                "INSERT INTO moves (game_id, ply, seat, mv, kept, cost) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for (ply, m) in game.moves.iter().enumerate() {
                insert.execute(params![id, ply as i64, m.seat, m.mv, m.kept, m.cost])?;
            }
        }
        let playing_oneself = players[0].is_some() && players[0] == players[1];
        if !playing_oneself {
            let mut add = tx.prepare(
                "INSERT INTO totals (player, game, games, wins, draws, losses, rated, kept)
                 VALUES (?1, ?2, 1, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (player, game) DO UPDATE SET
                     games = games + 1,
                     wins = wins + excluded.wins,
                     draws = draws + excluded.draws,
                     losses = losses + excluded.losses,
                     rated = rated + excluded.rated,
                     kept = kept + excluded.kept",
            )?;
            for (seat, player) in players.iter().enumerate() {
                let Some(player) = player else { continue };
                let mine = game.moves.iter().filter(|m| usize::from(m.seat) == seat);
                let rated = mine.clone().filter(|m| m.kept.is_some()).count() as i64;
                let kept = mine.filter(|m| m.kept == Some(true)).count() as i64;
                let (win, draw, loss) = match game.winner {
                    None => (0, 1, 0),
                    Some(w) if usize::from(w) == seat => (1, 0, 0),
                    Some(_) => (0, 0, 1),
                };
                add.execute(params![player, game.game, win, draw, loss, rated, kept])?;
            }
        }
        tx.commit()?;
        Ok(id)
    }

    /// The game recorded under `id`, if any. A person's identity is not
    /// read back (it is their secret).
    ///
    /// # Errors
    ///
    /// If SQLite cannot read it.
    pub fn game(&self, id: i64) -> Result<Option<GameRecord>> {
        let conn = self.reader();
        let head = conn
            .query_row(
                "SELECT g.game, g.kind, g.start, g.first, g.second, g.winner, a.computer, b.computer
                 FROM games g LEFT JOIN players a ON a.id = g.first_player
                              LEFT JOIN players b ON b.id = g.second_player
                 WHERE g.id = ?1",
                [id],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        [r.get::<_, String>(3)?, r.get::<_, String>(4)?],
                        r.get::<_, Option<u8>>(5)?,
                        [r.get::<_, Option<String>>(6)?, r.get::<_, Option<String>>(7)?],
                    ))
                },
            )
            .optional()?;
        let Some((game, kind, start, names, winner, levels)) = head else {
            return Ok(None);
        };
        let mut select =
            conn.prepare("SELECT seat, mv, kept, cost FROM moves WHERE game_id = ?1 ORDER BY ply")?;
        let moves = select
            .query_map([id], |r| {
                Ok(MoveRecord {
                    seat: r.get(0)?,
                    mv: r.get(1)?,
                    kept: r.get(2)?,
                    cost: r.get(3)?,
                })
            })?
            .collect::<Result<Vec<_>, _>>()?;
        let seat = |name: &String, level: &Option<String>| match level {
            Some(level) => Seat::Computer {
                level: level.clone(),
            },
            None => Seat::Person {
                identity: None,
                name: if name == ANONYMOUS {
                    String::new()
                } else {
                    name.clone()
                },
            },
        };
        Ok(Some(GameRecord {
            game,
            kind: match kind.as_str() {
                "room" => "room",
                "computer" => "computer",
                _ => "posted",
            },
            start,
            players: [seat(&names[0], &levels[0]), seat(&names[1], &levels[1])],
            winner,
            moves,
        }))
    }

    /// One page (from 1) of the leaderboard's people for `game` (every
    /// game together if `None`), `per_page` entries, and the computer's
    /// levels apart.
    ///
    /// # Errors
    ///
    /// If SQLite cannot read it.
    pub fn leaderboard(&self, game: Option<&str>, page: u64, per_page: u64) -> Result<Board> {
        // Per player: the game's totals, or the sums over every game.
        const TOTALS: &str = "WITH t AS (
                 SELECT player, SUM(games) AS games, SUM(wins) AS wins, SUM(draws) AS draws,
                        SUM(losses) AS losses, SUM(rated) AS rated, SUM(kept) AS kept
                 FROM totals WHERE ?1 IS NULL OR game = ?1 GROUP BY player)";
        const COLUMNS: &str = "p.id, p.name, t.games, t.wins, t.draws, t.losses, t.rated, t.kept";
        let conn = self.reader();
        let people: u64 = conn.query_row(
            &format!(
                "{TOTALS} SELECT COUNT(*) FROM t JOIN players p ON p.id = t.player
                 WHERE p.computer IS NULL"
            ),
            [game],
            |r| r.get(0),
        )?;
        let pages = people.div_ceil(per_page.max(1)).max(1);
        let offset = page.saturating_sub(1).saturating_mul(per_page);
        let row = |r: &rusqlite::Row<'_>| {
            Ok(Entry {
                player: r.get(0)?,
                name: r.get(1)?,
                rank: None,
                games: r.get(2)?,
                wins: r.get(3)?,
                draws: r.get(4)?,
                losses: r.get(5)?,
                rated_moves: r.get(6)?,
                kept_moves: r.get(7)?,
            })
        };
        let ranked = |e: &Entry| e.games >= MIN_RANKED_GAMES && e.rated_moves > 0;
        let mut select = conn.prepare(&format!(
            "{TOTALS} SELECT {COLUMNS} FROM t JOIN players p ON p.id = t.player
             WHERE p.computer IS NULL
             ORDER BY (t.games >= ?2 AND t.rated > 0) DESC,
                      CASE WHEN t.games >= ?2 AND t.rated > 0
                           THEN CAST(t.kept AS REAL) / t.rated END DESC,
                      CASE WHEN t.games >= ?2 AND t.rated > 0 THEN t.wins END DESC,
                      t.games DESC, p.id
             LIMIT ?3 OFFSET ?4"
        ))?;
        let mut people = select
            .query_map(
                params![
                    game,
                    MIN_RANKED_GAMES as i64,
                    per_page.min(i64::MAX as u64) as i64,
                    offset.min(i64::MAX as u64) as i64
                ],
                row,
            )?
            .collect::<Result<Vec<_>, _>>()?;
        for (i, entry) in people.iter_mut().enumerate() {
            if ranked(entry) {
                // Ranked players come first, so a ranked entry's place is
                // its place in the whole list.
                entry.rank = Some(offset + i as u64 + 1);
            }
        }
        let mut select = conn.prepare(&format!(
            "{TOTALS} SELECT {COLUMNS} FROM t JOIN players p ON p.id = t.player
             WHERE p.computer IS NOT NULL ORDER BY p.name"
        ))?;
        let computer = select
            .query_map([game], row)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Board {
            people,
            pages,
            computer,
        })
    }

    /// Games recorded (of `game`, or all), counted or not.
    ///
    /// # Errors
    ///
    /// If SQLite cannot read it.
    pub fn count(&self, game: Option<&str>) -> Result<u64> {
        Ok(self.reader().query_row(
            "SELECT COUNT(*) FROM games WHERE ?1 IS NULL OR game = ?1",
            [game],
            |r| r.get(0),
        )?)
    }
}

/// The player in `seat`, made on first sight: a person by identity (their
/// name updated to the one given now), the computer by level; `None` for a
/// person without an identity.
fn player_of(tx: &Transaction<'_>, seat: &Seat) -> Result<Option<i64>> {
    let id = match seat {
        Seat::Person { identity: None, .. } => return Ok(None),
        Seat::Person {
            identity: Some(identity),
            name,
        } => {
            let name = if name.is_empty() { ANONYMOUS } else { name };
            tx.query_row(
                "INSERT INTO players (identity, name) VALUES (?1, ?2)
                 ON CONFLICT (identity) DO UPDATE SET name = excluded.name
                 RETURNING id",
                params![identity, name],
                |r| r.get(0),
            )?
        }
        Seat::Computer { level } => tx.query_row(
            "INSERT INTO players (computer, name) VALUES (?1, ?2)
             ON CONFLICT (computer) DO UPDATE SET name = excluded.name
             RETURNING id",
            params![level, computer_name(level)],
            |r| r.get(0),
        )?,
    };
    Ok(Some(id))
}

/// Brings the schema to the newest version, one migration per version,
/// each in its own transaction.
fn migrate(conn: &mut Connection) -> Result<()> {
    let version: usize = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > MIGRATIONS.len() {
        bail!(
            "the database has schema version {version}, newer than this program's {}",
            MIGRATIONS.len()
        );
    }
    for (i, step) in MIGRATIONS.iter().enumerate().skip(version) {
        let tx = conn.transaction()?;
        step(&tx).with_context(|| format!("migrating the schema to version {}", i + 1))?;
        tx.pragma_update(None, "user_version", i + 1)?;
        tx.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn person(identity: &str, name: &str) -> Seat {
        Seat::Person {
            identity: Some(identity.to_owned()),
            name: name.to_owned(),
        }
    }

    fn record(players: [Seat; 2], winner: Option<u8>, kept: &[Option<bool>]) -> GameRecord {
        GameRecord {
            game: "tictactoe".into(),
            kind: "room",
            start: "...".into(),
            players,
            winner,
            moves: kept
                .iter()
                .enumerate()
                .map(|(i, &k)| MoveRecord {
                    seat: (i % 2) as u8,
                    mv: i.to_string(),
                    kept: k,
                    cost: k.map(|k| i64::from(!k)),
                })
                .collect(),
        }
    }

    fn entry<'a>(board: &'a Board, name: &str) -> &'a Entry {
        board
            .people
            .iter()
            .chain(&board.computer)
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("no {name} in {board:?}"))
    }

    #[test]
    fn records_count_per_player_and_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        // ann: moves 0, 2, 4 (kept, kept, missed); bob: 1, 3 (kept, unknown).
        let id = store
            .record(&record(
                [person("a", "ann"), person("b", "bob")],
                Some(0),
                &[Some(true), Some(true), Some(true), None, Some(false)],
            ))
            .unwrap();
        store
            .record(&record(
                [person("b", "bob"), person("a", "ann")],
                None,
                &[Some(true), Some(true)],
            ))
            .unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.count(Some("tictactoe")).unwrap(), 2);
        assert_eq!(store.count(Some("cube")).unwrap(), 0);
        let back = store.game(id).unwrap().unwrap();
        assert_eq!(back.moves[3].kept, None);
        assert_eq!(back.players[0].shown_name(), "ann");
        let board = store.leaderboard(Some("tictactoe"), 1, 10).unwrap();
        assert_eq!(board.pages, 1);
        let (ann, bob) = (entry(&board, "ann"), entry(&board, "bob"));
        assert_eq!((ann.games, ann.wins, ann.draws, ann.losses), (2, 1, 1, 0));
        assert_eq!((bob.games, bob.wins, bob.draws, bob.losses), (2, 0, 1, 1));
        // ann: 2 of 3 in the first game, 1 of 1 in the second.
        assert_eq!((ann.kept_moves, ann.rated_moves), (3, 4));
        assert_eq!((bob.kept_moves, bob.rated_moves), (2, 2));
        // Two games each: not ranked yet; the one with more games first,
        // then by number.
        assert_eq!((ann.rank, bob.rank), (None, None));
        // Pages of one.
        let first = store.leaderboard(None, 1, 1).unwrap();
        let second = store.leaderboard(None, 2, 1).unwrap();
        let beyond = store.leaderboard(None, 3, 1).unwrap();
        assert_eq!(first.pages, 2);
        assert_eq!(
            (
                first.people[0].name.as_str(),
                second.people[0].name.as_str()
            ),
            ("ann", "bob")
        );
        assert!(beyond.people.is_empty());
    }

    #[test]
    fn players_who_only_drew_only_lost_or_only_won_are_listed() {
        let store = Store::in_memory().unwrap();
        // dee only draws, los only loses, win only wins: every total but
        // one of theirs is zero (the sums of version 1 were NULL there).
        for _ in 0..3 {
            store
                .record(&record(
                    [person("d", "dee"), person("e", "eve")],
                    None,
                    &[Some(true), Some(true)],
                ))
                .unwrap();
            store
                .record(&record(
                    [person("w", "win"), person("l", "los")],
                    Some(0),
                    &[Some(true), Some(false), Some(true)],
                ))
                .unwrap();
        }
        let board = store.leaderboard(Some("tictactoe"), 1, 20).unwrap();
        let dee = entry(&board, "dee");
        assert_eq!((dee.games, dee.wins, dee.draws, dee.losses), (3, 0, 3, 0));
        let los = entry(&board, "los");
        assert_eq!((los.games, los.wins, los.draws, los.losses), (3, 0, 0, 3));
        assert_eq!((los.kept_moves, los.rated_moves), (0, 3));
        assert_eq!(los.accuracy(), Some(0.0));
        let win = entry(&board, "win");
        assert_eq!((win.games, win.wins, win.draws, win.losses), (3, 3, 0, 0));
        // Ranked: three games each; 100% first, los (0%) last.
        assert_eq!(board.people.len(), 4);
        assert_eq!(board.people[3].name, "los");
        assert_eq!(board.people[3].rank, Some(4));
        assert!(board.people[..3].iter().all(|e| e.accuracy() == Some(1.0)));
        // All games together reads the same.
        let all = store.leaderboard(None, 1, 20).unwrap();
        assert_eq!(entry(&all, "dee").draws, 3);
    }

    #[test]
    fn identities_names_and_the_computer() {
        let store = Store::in_memory().unwrap();
        let anonymous = |id: &str| person(id, "");
        // Two anonymous people and two people called ann: four lines.
        for (first, second) in [
            (anonymous("x1"), anonymous("x2")),
            (person("a1", "ann"), person("a2", "ann")),
        ] {
            store.record(&record([first, second], None, &[])).unwrap();
        }
        // A person against the computer; a seat without an identity; a
        // person playing both seats.
        let computer = Seat::Computer {
            level: "perfect".into(),
        };
        store
            .record(&record(
                [person("a1", "ann b."), computer.clone()],
                Some(1),
                &[Some(false), Some(true)],
            ))
            .unwrap();
        store
            .record(&record(
                [
                    Seat::Person {
                        identity: None,
                        name: "ann".into(),
                    },
                    computer,
                ],
                None,
                &[],
            ))
            .unwrap();
        store
            .record(&record([person("x1", ""), person("x1", "")], Some(0), &[]))
            .unwrap();
        let board = store.leaderboard(None, 1, 20).unwrap();
        let names: Vec<&str> = board.people.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names.len(), 4, "{names:?}");
        assert_eq!(names.iter().filter(|n| **n == "anonymous").count(), 2);
        // The first ann's name is the last she gave; her games: 2.
        assert!(names.contains(&"ann b.") && names.contains(&"ann"));
        assert_eq!(entry(&board, "ann b.").games, 2);
        // The computer apart: one game counted (the other seat had no
        // identity, but the computer's seat counts).
        assert_eq!(board.computer.len(), 1);
        let perfect = &board.computer[0];
        assert_eq!(
            (perfect.name.as_str(), perfect.games, perfect.rank),
            ("computer (perfect)", 2, None)
        );
        // Playing oneself counted for nobody: x1 still has one game.
        let x1 = board
            .people
            .iter()
            .filter(|e| e.name == "anonymous")
            .map(|e| e.games)
            .collect::<Vec<_>>();
        assert_eq!(x1, [1, 1]);
        assert_eq!(store.count(None).unwrap(), 5);
    }

    #[test]
    fn reserved_names() {
        for name in [
            "computer",
            "Computer (perfect)",
            " computer: classic",
            "SolveDB",
        ] {
            assert!(is_reserved_name(name), "{name}");
        }
        for name in ["ann", "the computer", "comp"] {
            assert!(!is_reserved_name(name), "{name}");
        }
    }

    #[test]
    fn a_version_1_database_is_migrated_with_its_data() {
        let dir = tempfile::tempdir().unwrap();
        {
            let mut conn = Connection::open(dir.path().join(FILE_NAME)).unwrap();
            let tx = conn.transaction().unwrap();
            to_version_1(&tx).unwrap();
            tx.pragma_update(None, "user_version", 1).unwrap();
            // Room games: dee only drew (the leaderboard of version 1
            // failed on her), los only lost; anonymous and a player named
            // like the computer; a posted game against the computer.
            let games = [
                (1, "room", "dee", "los", Some(0)),
                (2, "room", "dee", "anonymous", None),
                (3, "room", "win", "los", Some(0)),
                (4, "room", "computer (perfect)", "win", Some(1)),
                (5, "computer", "win", "computer (perfect)", Some(0)),
            ];
            for (id, kind, first, second, winner) in games {
                // dee only drew: her first game she won is made a draw.
                let winner = if id == 1 { None } else { winner };
                tx.execute(
                    "INSERT INTO games (id, game, kind, start, first, second, winner, finished)
                     VALUES (?1, 'tictactoe', ?2, '...', ?3, ?4, ?5, 0)",
                    params![id, kind, first, second, winner],
                )
                .unwrap();
                for ply in 0..4 {
                    tx.execute(
                        "INSERT INTO moves (game_id, ply, seat, mv, kept, cost)
                         VALUES (?1, ?2, ?3, '0', ?4, 0)",
                        params![id, ply, ply % 2, (ply != 3).then_some(ply != 1)],
                    )
                    .unwrap();
                }
            }
            tx.commit().unwrap();
        }
        let store = Store::open(dir.path()).unwrap();
        let board = store.leaderboard(Some("tictactoe"), 1, 20).unwrap();
        let names: Vec<&str> = board.people.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names.len(), 3, "{names:?}");
        let dee = entry(&board, "dee");
        assert_eq!((dee.games, dee.wins, dee.draws, dee.losses), (2, 0, 2, 0));
        // dee sat first: plies 0 (kept) and 2 (kept).
        assert_eq!((dee.kept_moves, dee.rated_moves), (4, 4));
        let los = entry(&board, "los");
        // los: games 1 (a draw, see above) and 3 (lost); plies 1 (missed), 3 (unknown).
        assert_eq!((los.games, los.draws, los.losses), (2, 1, 1));
        assert_eq!((los.kept_moves, los.rated_moves), (0, 2));
        // win: rooms 3 (won) and 4 (won against a person named like the
        // computer, who counts for nobody); the posted game not at all.
        let win = entry(&board, "win");
        assert_eq!((win.games, win.wins), (2, 2));
        assert!(board.computer.is_empty());
        assert_eq!(store.game(5).unwrap().unwrap().kind, "posted");
        assert_eq!(store.count(None).unwrap(), 5);
        // New games go on from there.
        store
            .record(&record([person("d", "dee"), person("l", "los")], None, &[]))
            .unwrap();
        let board = store.leaderboard(Some("tictactoe"), 1, 20).unwrap();
        // An identity is a new player: the dee of version 1 stays apart.
        assert_eq!(board.people.len(), 5);
    }

    #[test]
    fn a_write_does_not_wait_for_reads() {
        let dir = tempfile::tempdir().unwrap();
        let store = std::sync::Arc::new(Store::open(dir.path()).unwrap());
        // Every reading connection busy inside a read transaction.
        let guards: Vec<_> = store.readers.iter().map(lock).collect();
        for conn in &guards {
            conn.execute_batch("BEGIN; SELECT COUNT(*) FROM totals;")
                .unwrap();
        }
        let (done, finished) = std::sync::mpsc::channel();
        let writer = std::sync::Arc::clone(&store);
        std::thread::spawn(move || {
            let game = record([person("a", "ann"), person("b", "bob")], Some(0), &[]);
            done.send(writer.record(&game).is_ok()).unwrap();
        });
        // The write goes through while the reads are open.
        assert_eq!(
            finished.recv_timeout(Duration::from_secs(30)),
            Ok(true),
            "the write waited for the readers"
        );
        for conn in &guards {
            conn.execute_batch("COMMIT").unwrap();
        }
        drop(guards);
        assert_eq!(store.count(None).unwrap(), 1);
    }

    #[test]
    fn a_newer_schema_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        drop(Store::open(dir.path()).unwrap());
        let conn = Connection::open(dir.path().join(FILE_NAME)).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        drop(conn);
        let error = format!("{:#}", Store::open(dir.path()).unwrap_err());
        assert!(error.contains("newer"), "{error}");
    }

    #[test]
    fn not_a_database_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(FILE_NAME),
            b"not a database at all, just text",
        )
        .unwrap();
        assert!(Store::open(dir.path()).is_err());
    }
}
