//! Recording a finished game: the game, its moves and its players'
//! totals, in one transaction.

use anyhow::Result;
use rusqlite::{Transaction, params};

use super::database::{Store, lock, now};
use super::names::{ANONYMOUS, computer_name};
use super::records::{GameRecord, Seat};

impl Store {
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
