//! The schema, migrated by `PRAGMA user_version`: one migration per
//! version, each in its own transaction, existing data with it.

use anyhow::{Context, Result, bail};
use rusqlite::{Connection, Transaction};

use super::names::counts_as_a_name;
use super::ranking::{ALL_GAMES, COUNT_LISTED, MIN_RANKED_GAMES};
use super::rejudge::rejudge;

/// A migration brings the schema from its version to the next.
type Migration = fn(&Transaction<'_>) -> Result<()>;

/// Each migration brings the schema from version `i` to `i + 1`.
const MIGRATIONS: &[Migration] = &[to_version_1, to_version_2, to_version_3, to_version_4];

/// Version 1: games and their moves, players by name.
pub(super) fn to_version_1(tx: &Transaction<'_>) -> Result<()> {
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
pub(super) fn to_version_2(tx: &Transaction<'_>) -> Result<()> {
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

/// Version 3: why a game does not rank (`games.unranked`, NULL for a
/// ranked game and for the games before this version); the new
/// identities per address of the last hour (`new_identities`); and the
/// totals remade to be read by one index: a `person` flag, the sums over
/// every game kept under the game [`ALL_GAMES`], and the leaderboard's
/// order as columns of its own (`accuracy`, `ranked_wins`: NULL and 0
/// before a rank) in the index `totals_board`. The order's columns are
/// generated from the totals with [`MIN_RANKED_GAMES`] as it is now.
pub(super) fn to_version_3(tx: &Transaction<'_>) -> Result<()> {
    let min = MIN_RANKED_GAMES;
    tx.execute_batch(&format!(
        "ALTER TABLE games ADD COLUMN unranked TEXT;   -- NULL: ranked; else why not
         CREATE TABLE new_identities (
             address TEXT    NOT NULL,    -- the client's address (an IPv6 /64)
             at      INTEGER NOT NULL     -- seconds since 1970
         );
         CREATE INDEX new_identities_by_address ON new_identities (address, at);
         CREATE TABLE board (
             player INTEGER NOT NULL REFERENCES players (id),
             game   TEXT    NOT NULL,     -- '{ALL_GAMES}': every game together
             person INTEGER NOT NULL,     -- 1 a person, 0 the computer
             games  INTEGER NOT NULL,
             wins   INTEGER NOT NULL,
             draws  INTEGER NOT NULL,
             losses INTEGER NOT NULL,
             rated  INTEGER NOT NULL,
             kept   INTEGER NOT NULL,
             accuracy REAL GENERATED ALWAYS AS
                 (CASE WHEN games >= {min} AND rated > 0 THEN CAST(kept AS REAL) / rated END) VIRTUAL,
             ranked_wins INTEGER GENERATED ALWAYS AS
                 (CASE WHEN games >= {min} AND rated > 0 THEN wins ELSE 0 END) VIRTUAL,
             PRIMARY KEY (player, game)
         ) WITHOUT ROWID;
         INSERT INTO board (player, game, person, games, wins, draws, losses, rated, kept)
         SELECT t.player, t.game, p.computer IS NULL, t.games, t.wins, t.draws, t.losses,
                t.rated, t.kept
         FROM totals t JOIN players p ON p.id = t.player;
         INSERT INTO board (player, game, person, games, wins, draws, losses, rated, kept)
         SELECT t.player, '{ALL_GAMES}', p.computer IS NULL, SUM(t.games), SUM(t.wins),
                SUM(t.draws), SUM(t.losses), SUM(t.rated), SUM(t.kept)
         FROM totals t JOIN players p ON p.id = t.player GROUP BY t.player;
         DROP TABLE totals;
         ALTER TABLE board RENAME TO totals;
         CREATE INDEX totals_board ON totals
             (game, person, accuracy DESC, ranked_wins DESC, games DESC, player);
         CREATE TABLE listed (
             game   TEXT PRIMARY KEY,     -- as in totals
             people INTEGER NOT NULL      -- people with totals of it
         ) WITHOUT ROWID;
         {COUNT_LISTED}"
    ))?;
    Ok(())
}

/// Version 4: the key the leaderboard's cursors are signed with
/// ([`cursor`](super::cursor): 32 bytes of SQLite's randomness, a ChaCha20
/// stream seeded by the operating system), and the games recorded before
/// the ranking rules judged again by them ([`rejudge`](super::rejudge)).
fn to_version_4(tx: &Transaction<'_>) -> Result<()> {
    tx.execute_batch(
        "CREATE TABLE keys (
             name  TEXT PRIMARY KEY,
             value BLOB NOT NULL
         ) WITHOUT ROWID;
         INSERT INTO keys (name, value) VALUES ('cursor', randomblob(32));",
    )?;
    rejudge(tx)
}

/// Brings the schema to the newest version, one migration per version,
/// each in its own transaction.
pub(super) fn migrate(conn: &mut Connection) -> Result<()> {
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
