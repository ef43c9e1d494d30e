//! The leaderboard's database: every finished game (a room's, or one
//! against the computer's levels) with its players, result and moves, and
//! for each move whether it kept the value of the position.
//!
//! SQLite through rusqlite with its bundled SQLite (the same SQLite on
//! every machine, no system library), in WAL mode so readers never wait
//! for the writer; the schema is migrated by `PRAGMA user_version`. One
//! connection behind a mutex serialises this process's writes (a game is
//! one transaction); callers on an async runtime run these functions on a
//! blocking thread. `busy_timeout` covers another process on the same file.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, OptionalExtension, params};

/// The database file's name in the data directory.
pub const FILE_NAME: &str = "leaderboard.sqlite3";

/// Each migration brings the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    // 1: games and their moves.
    "CREATE TABLE games (
         id       INTEGER PRIMARY KEY,
         game     TEXT    NOT NULL,
         kind     TEXT    NOT NULL,   -- 'room' or 'computer'
         start    TEXT    NOT NULL,
         first    TEXT    NOT NULL,
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
];

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

/// A finished game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRecord {
    /// The game's name (`GameId`'s `Display`).
    pub game: String,
    /// `room` or `computer`.
    pub kind: &'static str,
    /// The position the game started from.
    pub start: String,
    /// The players' names, first seat then second.
    pub players: [String; 2],
    /// The winning seat, `None` for a draw.
    pub winner: Option<u8>,
    /// Every move in order.
    pub moves: Vec<MoveRecord>,
}

/// One player's line of the leaderboard.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// The name as given.
    pub name: String,
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

/// The database.
#[derive(Debug)]
pub struct Store {
    conn: Mutex<Connection>,
    path: Option<PathBuf>,
}

impl Store {
    /// Opens (or creates) the database in `dir`, creating the directory,
    /// and migrates its schema.
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
        Ok(Store {
            conn: Mutex::new(conn),
            path,
        })
    }

    /// The database file, if not in memory.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock leaves no half-written game: each
        // game is one transaction, so the connection is still sound.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a finished game in one transaction; returns its id.
    ///
    /// # Errors
    ///
    /// If SQLite cannot write it.
    pub fn record(&self, game: &GameRecord) -> Result<i64> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        let finished = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        tx.execute(
            "INSERT INTO games (game, kind, start, first, second, winner, finished)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                game.game,
                game.kind,
                game.start,
                game.players[0],
                game.players[1],
                game.winner,
                finished
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
        tx.commit()?;
        Ok(id)
    }

    /// The game recorded under `id`, if any.
    ///
    /// # Errors
    ///
    /// If SQLite cannot read it.
    pub fn game(&self, id: i64) -> Result<Option<GameRecord>> {
        let conn = self.lock();
        let head = conn
            .query_row(
                "SELECT game, kind, start, first, second, winner FROM games WHERE id = ?1",
                [id],
                |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        [r.get::<_, String>(3)?, r.get::<_, String>(4)?],
                        r.get::<_, Option<u8>>(5)?,
                    ))
                },
            )
            .optional()?;
        let Some((game, kind, start, players, winner)) = head else {
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
        Ok(Some(GameRecord {
            game,
            kind: if kind == "room" { "room" } else { "computer" },
            start,
            players,
            winner,
            moves,
        }))
    }

    /// One page (from 1) of the leaderboard of `game` (every game if
    /// `None`), `per_page` entries, best accuracy first (then wins, then
    /// name); and the number of pages (at least 1).
    ///
    /// # Errors
    ///
    /// If SQLite cannot read it.
    pub fn leaderboard(
        &self,
        game: Option<&str>,
        page: u64,
        per_page: u64,
    ) -> Result<(Vec<Entry>, u64)> {
        const SEATS: &str = "WITH seats AS (
                 SELECT id, first AS name, 0 AS seat, winner FROM games WHERE ?1 IS NULL OR game = ?1
                 UNION ALL
                 SELECT id, second, 1, winner FROM games WHERE ?1 IS NULL OR game = ?1)";
        let conn = self.lock();
        let names: u64 = conn.query_row(
            &format!("{SEATS} SELECT COUNT(DISTINCT name) FROM seats"),
            [game],
            |r| r.get(0),
        )?;
        let pages = names.div_ceil(per_page.max(1)).max(1);
        let mut select = conn.prepare(&format!(
            "{SEATS},
             results AS (
                 SELECT name, COUNT(*) AS games,
                        SUM(winner = seat) AS wins,
                        SUM(winner IS NULL) AS draws,
                        SUM(winner IS NOT NULL AND winner <> seat) AS losses
                 FROM seats GROUP BY name),
             rated AS (
                 SELECT s.name, COUNT(m.kept) AS rated, COALESCE(SUM(m.kept), 0) AS kept
                 FROM seats s JOIN moves m ON m.game_id = s.id AND m.seat = s.seat
                 GROUP BY s.name)
             SELECT r.name, r.games, r.wins, r.draws, r.losses,
                    COALESCE(q.rated, 0), COALESCE(q.kept, 0)
             FROM results r LEFT JOIN rated q ON q.name = r.name
             ORDER BY CASE WHEN COALESCE(q.rated, 0) = 0 THEN 1 ELSE 0 END,
                      CAST(COALESCE(q.kept, 0) AS REAL) / MAX(COALESCE(q.rated, 0), 1) DESC,
                      r.wins DESC, r.name
             LIMIT ?2 OFFSET ?3"
        ))?;
        let offset = page.saturating_sub(1).saturating_mul(per_page);
        let entries = select
            .query_map(
                params![game, per_page as i64, offset.min(i64::MAX as u64) as i64],
                |r| {
                    Ok(Entry {
                        name: r.get(0)?,
                        games: r.get(1)?,
                        wins: r.get(2)?,
                        draws: r.get(3)?,
                        losses: r.get(4)?,
                        rated_moves: r.get(5)?,
                        kept_moves: r.get(6)?,
                    })
                },
            )?
            .collect::<Result<Vec<_>, _>>()?;
        Ok((entries, pages))
    }

    /// Games recorded (of `game`, or all).
    ///
    /// # Errors
    ///
    /// If SQLite cannot read it.
    pub fn count(&self, game: Option<&str>) -> Result<u64> {
        Ok(self.lock().query_row(
            "SELECT COUNT(*) FROM games WHERE ?1 IS NULL OR game = ?1",
            [game],
            |r| r.get(0),
        )?)
    }
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
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(version) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)
            .with_context(|| format!("migrating the schema to version {}", i + 1))?;
        tx.pragma_update(None, "user_version", i + 1)?;
        tx.commit()?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(names: [&str; 2], winner: Option<u8>, kept: &[Option<bool>]) -> GameRecord {
        GameRecord {
            game: "tictactoe".into(),
            kind: "room",
            start: "...".into(),
            players: names.map(str::to_owned),
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

    #[test]
    fn records_count_per_player_and_survive_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        // ann: moves 0, 2, 4 (kept, kept, missed); bob: 1, 3 (kept, unknown).
        let id = store
            .record(&record(
                ["ann", "bob"],
                Some(0),
                &[Some(true), Some(true), Some(true), None, Some(false)],
            ))
            .unwrap();
        store
            .record(&record(["bob", "ann"], None, &[Some(true), Some(true)]))
            .unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        assert_eq!(store.count(Some("tictactoe")).unwrap(), 2);
        assert_eq!(store.count(Some("cube")).unwrap(), 0);
        let back = store.game(id).unwrap().unwrap();
        assert_eq!(back.moves[3].kept, None);
        assert_eq!(back.players, ["ann".to_owned(), "bob".to_owned()]);
        let (entries, pages) = store.leaderboard(Some("tictactoe"), 1, 10).unwrap();
        assert_eq!(pages, 1);
        let ann = entries.iter().find(|e| e.name == "ann").unwrap();
        let bob = entries.iter().find(|e| e.name == "bob").unwrap();
        assert_eq!((ann.games, ann.wins, ann.draws, ann.losses), (2, 1, 1, 0));
        assert_eq!((bob.games, bob.wins, bob.draws, bob.losses), (2, 0, 1, 1));
        // ann: 2 of 3 in the first game, 1 of 1 in the second.
        assert_eq!((ann.kept_moves, ann.rated_moves), (3, 4));
        assert_eq!((bob.kept_moves, bob.rated_moves), (2, 2));
        // bob's accuracy (1.0) is above ann's (0.75).
        assert_eq!(entries[0].name, "bob");
        // Pages of one.
        let (first, pages) = store.leaderboard(None, 1, 1).unwrap();
        let (second, _) = store.leaderboard(None, 2, 1).unwrap();
        let (beyond, _) = store.leaderboard(None, 3, 1).unwrap();
        assert_eq!(pages, 2);
        assert_eq!(
            (first[0].name.as_str(), second[0].name.as_str()),
            ("bob", "ann")
        );
        assert!(beyond.is_empty());
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
