//! Reading the leaderboard: a recorded game, a page of totals, a count.

use anyhow::Result;
use rusqlite::{OptionalExtension, params};

use super::database::Store;
use super::names::ANONYMOUS;
use super::ranking::{ALL_GAMES, MIN_RANKED_GAMES};
use super::records::{Board, Entry, GameRecord, MoveRecord, Seat};

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
            addresses: [None, None],
        }))
    }

    /// One page (from 1) of the leaderboard's people for `game` (every
    /// game together if `None`), `per_page` entries, and the computer's
    /// levels apart. The page is read from the index `totals_board` in its
    /// order (see [`migrations`](super::migrations)), the players' names
    /// only for its entries; the count of people is kept (`listed`): a
    /// page costs its offset in index entries and its entries, not the
    /// number of players.
    ///
    /// # Errors
    ///
    /// If SQLite cannot read it.
    pub fn leaderboard(&self, game: Option<&str>, page: u64, per_page: u64) -> Result<Board> {
        const COLUMNS: &str = "p.id, p.name, t.games, t.wins, t.draws, t.losses, t.rated, t.kept";
        let game = game.unwrap_or(ALL_GAMES);
        let conn = self.reader();
        let people: u64 = conn
            .query_row("SELECT people FROM listed WHERE game = ?1", [game], |r| {
                r.get(0)
            })
            .optional()?
            .unwrap_or(0);
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
        let mut select = conn.prepare_cached(&format!(
            "WITH page AS (
                 SELECT player, accuracy, ranked_wins, games FROM totals
                 WHERE game = ?1 AND person = 1
                 ORDER BY accuracy DESC, ranked_wins DESC, games DESC, player
                 LIMIT ?2 OFFSET ?3)
             SELECT {COLUMNS} FROM page k
                 JOIN totals t ON t.player = k.player AND t.game = ?1
                 JOIN players p ON p.id = k.player
             ORDER BY k.accuracy DESC, k.ranked_wins DESC, k.games DESC, k.player"
        ))?;
        let mut people = select
            .query_map(
                params![
                    game,
                    per_page.min(i64::MAX as u64) as i64,
                    offset.min(i64::MAX as u64) as i64
                ],
                row,
            )?
            .collect::<Result<Vec<_>, _>>()?;
        for (i, entry) in people.iter_mut().enumerate() {
            if ranked(entry) {
                // Ranked players come first (the others' accuracy is
                // NULL, last), so a ranked entry's place is its place in
                // the whole list.
                entry.rank = Some(offset + i as u64 + 1);
            }
        }
        let mut select = conn.prepare_cached(&format!(
            "SELECT {COLUMNS} FROM totals t JOIN players p ON p.id = t.player
             WHERE t.game = ?1 AND t.person = 0 ORDER BY p.name"
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
