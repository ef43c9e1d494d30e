//! Judging the games recorded before the ranking rules again by them
//! ([`ranking`](super::ranking)): each game is read back as a
//! [`GameRecord`] and given the reason [`unranked`] finds (or playing
//! oneself, told by the players' numbers; the page's posted move lists
//! rank for nobody), then the totals are counted afresh from the games
//! that rank. Run once, by the migration to schema version 4.

use anyhow::Result;
use rusqlite::{Transaction, params};

use super::ranking::{ALL_GAMES, COUNT_LISTED, Unranked, unranked};
use super::records::{GameRecord, MoveRecord, Seat};

/// Judges every game not yet marked unranked by the ranking rules, marks
/// those that do not rank with their reason, and counts the totals and
/// the people listed again from the games that rank.
pub(super) fn rejudge(tx: &Transaction<'_>) -> Result<()> {
    let ids: Vec<i64> = tx
        .prepare("SELECT id FROM games WHERE unranked IS NULL ORDER BY id")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for id in ids {
        if let Some(why) = judged(tx, id)? {
            tx.execute(
                "UPDATE games SET unranked = ?2 WHERE id = ?1",
                params![id, why.as_str()],
            )?;
        }
    }
    tx.execute_batch(&format!(
        "DELETE FROM totals;
         WITH seats AS (
             SELECT id, game, first_player AS player, 0 AS seat, winner FROM games
             WHERE unranked IS NULL AND first_player IS NOT NULL
             UNION ALL
             SELECT id, game, second_player, 1, winner FROM games
             WHERE unranked IS NULL AND second_player IS NOT NULL)
         INSERT INTO totals (player, game, person, games, wins, draws, losses, rated, kept)
         SELECT s.player, s.game, p.computer IS NULL, COUNT(*),
                COALESCE(SUM(s.winner = s.seat), 0),
                COALESCE(SUM(s.winner IS NULL), 0),
                COALESCE(SUM(s.winner IS NOT NULL AND s.winner <> s.seat), 0),
                COALESCE(SUM((SELECT COUNT(m.kept) FROM moves m
                              WHERE m.game_id = s.id AND m.seat = s.seat)), 0),
                COALESCE(SUM((SELECT COALESCE(SUM(m.kept), 0) FROM moves m
                              WHERE m.game_id = s.id AND m.seat = s.seat)), 0)
         FROM seats s JOIN players p ON p.id = s.player
         GROUP BY s.player, s.game;
         INSERT INTO totals (player, game, person, games, wins, draws, losses, rated, kept)
         SELECT player, '{ALL_GAMES}', person, SUM(games), SUM(wins), SUM(draws), SUM(losses),
                SUM(rated), SUM(kept)
         FROM totals GROUP BY player;
         {COUNT_LISTED}"
    ))?;
    Ok(())
}

/// Why the game `id` does not rank under the ranking rules, or `None`.
fn judged(tx: &Transaction<'_>, id: i64) -> Result<Option<Unranked>> {
    type Head = (String, String, Option<u8>, [Option<i64>; 2], [Seat; 2]);
    let (game, kind, winner, players, seats): Head = tx.query_row(
        "SELECT g.game, g.kind, g.winner, g.first_player, g.second_player,
                g.first, a.computer, a.identity, g.second, b.computer, b.identity
         FROM games g LEFT JOIN players a ON a.id = g.first_player
                      LEFT JOIN players b ON b.id = g.second_player
         WHERE g.id = ?1",
        [id],
        |r| {
            let seat = |at: usize| -> rusqlite::Result<Seat> {
                Ok(match r.get::<_, Option<String>>(at + 1)? {
                    Some(level) => Seat::Computer { level },
                    None => Seat::Person {
                        identity: r.get(at + 2)?,
                        name: r.get(at)?,
                    },
                })
            };
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                [r.get(3)?, r.get(4)?],
                [seat(5)?, seat(8)?],
            ))
        },
    )?;
    if kind == "posted" {
        return Ok(Some(Unranked::Posted));
    }
    let moves = MoveRecord::of_game(tx, id)?;
    let record = GameRecord {
        game,
        kind: "room",
        start: String::new(),
        players: seats,
        winner,
        moves,
        addresses: [None, None],
    };
    Ok(unranked(&record).or_else(|| {
        (players[0].is_some() && players[0] == players[1]).then_some(Unranked::Oneself)
    }))
}
