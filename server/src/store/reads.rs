//! Reading the leaderboard: a recorded game, a page of totals, a count.

use anyhow::Result;
use rusqlite::{OptionalExtension, params};

use super::database::Store;
use super::names::ANONYMOUS;
use super::records::{Board, Entry, GameRecord, MoveRecord, Seat};

/// Games a person plays (of a game, or in all) before they get a rank;
/// until then they are listed after the ranked players, without a rank.
pub const MIN_RANKED_GAMES: u64 = 3;

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
