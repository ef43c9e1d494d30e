//! Reading the leaderboard: a recorded game, a page of totals, a count.

use anyhow::Result;
use rusqlite::{OptionalExtension, params};

use super::cursor::{Cursor, SortKey};
use super::database::Store;
use super::names::ANONYMOUS;
use super::ranking::ALL_GAMES;
use super::records::{Board, Entry, GameRecord, MoveRecord, Seat};

/// The deepest offset a page by number starts at; deeper pages are read
/// by cursor (an offset costs the entries before it).
pub const MAX_OFFSET: u64 = 2_000;

/// A page by number past [`MAX_OFFSET`] entries.
#[derive(Debug, thiserror::Error)]
#[error(
    "page {page} starts past the first {MAX_OFFSET} entries: deeper pages are read by following the answer's \"next\" (after=...)"
)]
pub struct TooDeep {
    /// The page asked for.
    pub page: u64,
}

/// The columns of an entry's line.
const COLUMNS: &str = "p.id, p.name, t.games, t.wins, t.draws, t.losses, t.rated, t.kept";

/// The columns of a sort key, and the leaderboard's order (the index
/// `totals_board`'s).
const KEY: &str = "accuracy, ranked_wins, games, player";
const ORDER: &str = "accuracy DESC, ranked_wins DESC, games DESC, player";

fn sort_key(r: &rusqlite::Row<'_>) -> rusqlite::Result<SortKey> {
    Ok(SortKey {
        accuracy: r.get(0)?,
        ranked_wins: r.get(1)?,
        games: r.get(2)?,
        player: r.get(3)?,
    })
}

fn entry_of(r: &rusqlite::Row<'_>) -> rusqlite::Result<Entry> {
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
}

/// `n` as SQLite's integer.
fn clamp(n: u64) -> i64 {
    n.min(i64::MAX as u64) as i64
}

impl Store {
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
        let moves = MoveRecord::of_game(&conn, id)?;
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
            addresses: [None, None],
        }))
    }

    /// One page (from 1) of the leaderboard's people for `game` (every
    /// game together if `None`), `per_page` entries, and the computer's
    /// levels apart. A page by number is read at an offset in the index
    /// `totals_board`, so only pages within the first [`MAX_OFFSET`]
    /// entries are; the pages after them are read by cursor
    /// ([`leaderboard_after`](Store::leaderboard_after), the answer's
    /// `next`).
    ///
    /// # Errors
    ///
    /// [`TooDeep`] for a page past the first [`MAX_OFFSET`] entries; if
    /// SQLite cannot read it.
    pub fn leaderboard(&self, game: Option<&str>, page: u64, per_page: u64) -> Result<Board> {
        let offset = page.saturating_sub(1).saturating_mul(per_page);
        if offset > MAX_OFFSET {
            return Err(TooDeep { page }.into());
        }
        self.leaderboard_at(game, offset, per_page)
    }

    /// The page of `per_page` entries after the first `offset` (read
    /// through them in the index).
    pub(super) fn leaderboard_at(
        &self,
        game: Option<&str>,
        offset: u64,
        per_page: u64,
    ) -> Result<Board> {
        let game = game.unwrap_or(ALL_GAMES);
        let conn = self.reader();
        let mut select = conn.prepare_cached(&format!(
            "SELECT {KEY} FROM totals WHERE game = ?1 AND person = 1
             ORDER BY {ORDER} LIMIT ?2 OFFSET ?3"
        ))?;
        let keys = select
            .query_map(params![game, clamp(per_page), clamp(offset)], sort_key)?
            .collect::<Result<Vec<_>, _>>()?;
        self.board(&conn, game, offset, &keys, per_page)
    }

    /// The page of `per_page` entries after `cursor` (an answer's `next`)
    /// of `game`'s leaderboard (every game together if `None`): read from
    /// the index `totals_board` from the cursor's entry on, so it costs
    /// its entries however deep it is.
    ///
    /// # Errors
    ///
    /// [`CursorError`](super::CursorError) for a cursor that is not one this database signed
    /// for `game`; if SQLite cannot read it.
    pub fn leaderboard_after(
        &self,
        game: Option<&str>,
        cursor: &str,
        per_page: u64,
    ) -> Result<Board> {
        let game = game.unwrap_or(ALL_GAMES);
        let cursor = Cursor::decode(cursor, game, &self.cursor_key)?;
        let conn = self.reader();
        let mut keys = Vec::new();
        // The entries after the cursor's, in order, as ranges of the index
        // that each start at a seek: the rest of its tie, then each column
        // of the key in turn strictly past the cursor's value.
        let k = cursor.key;
        let same = if k.accuracy.is_some() {
            "accuracy = :accuracy"
        } else {
            "accuracy IS NULL"
        };
        let mut ranges = vec![
            format!("{same} AND ranked_wins = :wins AND games = :games AND player > :player"),
            format!("{same} AND ranked_wins = :wins AND games < :games"),
            format!("{same} AND ranked_wins < :wins"),
        ];
        if k.accuracy.is_some() {
            ranges.push("accuracy < :accuracy".to_owned());
            ranges.push("accuracy IS NULL".to_owned());
        }
        for range in ranges {
            let wanted = per_page.saturating_sub(keys.len() as u64);
            if wanted == 0 {
                break;
            }
            let mut select = conn.prepare_cached(&format!(
                "SELECT {KEY} FROM totals WHERE game = :game AND person = 1 AND {range}
                 ORDER BY {ORDER} LIMIT :limit"
            ))?;
            let values: [(&str, &dyn rusqlite::ToSql); 6] = [
                (":game", &game),
                (":limit", &clamp(wanted)),
                (":accuracy", &k.accuracy),
                (":wins", &k.ranked_wins),
                (":games", &k.games),
                (":player", &k.player),
            ];
            // Each range names only the columns it compares.
            for (name, value) in values {
                if let Some(i) = select.parameter_index(name)? {
                    select.raw_bind_parameter(i, value)?;
                }
            }
            let mut rows = select.raw_query();
            while let Some(row) = rows.next()? {
                keys.push(sort_key(row)?);
            }
        }
        self.board(&conn, game, cursor.position, &keys, per_page)
    }

    /// The page of the entries of `keys`, `position` entries before them:
    /// their lines, ranks, the cursor after them and the computer's
    /// levels.
    fn board(
        &self,
        conn: &rusqlite::Connection,
        game: &str,
        position: u64,
        keys: &[SortKey],
        per_page: u64,
    ) -> Result<Board> {
        let people: u64 = conn
            .query_row("SELECT people FROM listed WHERE game = ?1", [game], |r| {
                r.get(0)
            })
            .optional()?
            .unwrap_or(0);
        let mut select = conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM totals t JOIN players p ON p.id = t.player
             WHERE t.player = ?1 AND t.game = ?2"
        ))?;
        let mut entries = Vec::with_capacity(keys.len());
        for (i, key) in keys.iter().enumerate() {
            let mut entry = select.query_row(params![key.player, game], entry_of)?;
            // Ranked players come first (the others' accuracy is NULL,
            // last), so a ranked entry's place is its place in the list.
            if key.accuracy.is_some() {
                entry.rank = Some(position + i as u64 + 1);
            }
            entries.push(entry);
        }
        let end = position + keys.len() as u64;
        let next = match keys.last() {
            Some(&key) if keys.len() as u64 == per_page && end < people => {
                Some(Cursor { position: end, key }.encode(game, &self.cursor_key))
            }
            _ => None,
        };
        let mut select = conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM totals t JOIN players p ON p.id = t.player
             WHERE t.game = ?1 AND t.person = 0 ORDER BY p.name"
        ))?;
        let computer = select
            .query_map([game], entry_of)?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Board {
            people: entries,
            pages: people.div_ceil(per_page.max(1)).max(1),
            page: position / per_page.max(1) + 1,
            next,
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
