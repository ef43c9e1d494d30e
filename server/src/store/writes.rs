//! Recording a finished game: the game, its moves and, if it ranks
//! ([`ranking`](super::ranking)), its players' totals, in one transaction.

use std::net::IpAddr;

use anyhow::Result;
use rusqlite::{OptionalExtension, Transaction, params};

use super::database::{Store, lock, now};
use super::names::{ANONYMOUS, computer_name};
use super::ranking::{ALL_GAMES, Unranked, unranked};
use super::records::{GameRecord, Seat};

/// A game as recorded: its id, and why it does not rank (`None`: it
/// ranks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Recorded {
    /// The game's id.
    pub id: i64,
    /// Why it does not rank, if it does not.
    pub unranked: Option<Unranked>,
}

/// An hour, in seconds.
const HOUR: i64 = 60 * 60;

impl Store {
    /// The same database, each client address allowed `n` new identities
    /// an hour.
    pub fn with_new_identities_per_hour(mut self, n: u32) -> Store {
        self.new_identities_per_hour = n;
        self
    }

    /// Records a finished game and, if it ranks, adds it to its players'
    /// totals, in one transaction; returns its id.
    ///
    /// # Errors
    ///
    /// If SQLite cannot write it.
    pub fn record(&self, game: &GameRecord) -> Result<i64> {
        Ok(self.record_judged(game)?.id)
    }

    /// Records a finished game as [`record`](Store::record) does; returns
    /// its id and why it does not rank, if it does not.
    ///
    /// # Errors
    ///
    /// If SQLite cannot write it.
    pub fn record_judged(&self, game: &GameRecord) -> Result<Recorded> {
        let mut conn = lock(&self.writer);
        let tx = conn.transaction()?;
        let mut why = unranked(game);
        // A game that does not rank makes no identity.
        let quota = if why.is_none() {
            Some(self.new_identities_per_hour)
        } else {
            None
        };
        let players = [
            player_of(&tx, &game.players[0], game.addresses[0], quota)?,
            player_of(&tx, &game.players[1], game.addresses[1], quota)?,
        ];
        if why.is_none() && players[0].is_some() && players[0] == players[1] {
            why = Some(Unranked::Oneself);
        }
        tx.execute(
            "INSERT INTO games (game, kind, start, first, second, winner, finished,
                                first_player, second_player, unranked)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
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
                why.map(Unranked::as_str),
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
        if why.is_none() {
            add_to_totals(&tx, game, players)?;
        }
        tx.commit()?;
        Ok(Recorded { id, unranked: why })
    }
}

/// Adds a ranked game to its players' totals, of its game and of every
/// game together, and a person's first totals of a game to the count of
/// people listed.
fn add_to_totals(tx: &Transaction<'_>, game: &GameRecord, players: [Option<i64>; 2]) -> Result<()> {
    let mut add = tx.prepare(
        "INSERT INTO totals (player, game, person, games, wins, draws, losses, rated, kept)
         VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, ?7, ?8)
         ON CONFLICT (player, game) DO UPDATE SET
             games = games + 1,
             wins = wins + excluded.wins,
             draws = draws + excluded.draws,
             losses = losses + excluded.losses,
             rated = rated + excluded.rated,
             kept = kept + excluded.kept
         RETURNING games",
    )?;
    let mut listed = tx.prepare(
        "INSERT INTO listed (game, people) VALUES (?1, 1)
         ON CONFLICT (game) DO UPDATE SET people = people + 1",
    )?;
    for (seat, player) in players.iter().enumerate() {
        let Some(player) = player else { continue };
        let person = matches!(game.players[seat], Seat::Person { .. });
        let mine = game.moves.iter().filter(|m| usize::from(m.seat) == seat);
        let rated = mine.clone().filter(|m| m.kept.is_some()).count() as i64;
        let kept = mine.filter(|m| m.kept == Some(true)).count() as i64;
        let (win, draw, loss) = match game.winner {
            None => (0, 1, 0),
            Some(w) if usize::from(w) == seat => (1, 0, 0),
            Some(_) => (0, 0, 1),
        };
        for under in [game.game.as_str(), ALL_GAMES] {
            let games: i64 = add.query_row(
                params![player, under, person, win, draw, loss, rated, kept],
                |r| r.get(0),
            )?;
            if person && games == 1 {
                listed.execute([under])?;
            }
        }
    }
    Ok(())
}

/// The player in `seat`: the computer by level (made on first sight); a
/// person by identity, their name updated to the one given now. A new
/// identity is made only by a game that ranks (`quota` given), and only
/// while its address (if known) has made fewer than `quota` in the last
/// hour. `None` for a person without an identity or not made.
fn player_of(
    tx: &Transaction<'_>,
    seat: &Seat,
    address: Option<IpAddr>,
    quota: Option<u32>,
) -> Result<Option<i64>> {
    let (identity, name) = match seat {
        Seat::Person { identity: None, .. } => return Ok(None),
        Seat::Person {
            identity: Some(identity),
            name,
        } => (identity, if name.is_empty() { ANONYMOUS } else { name }),
        Seat::Computer { level } => {
            return Ok(Some(tx.query_row(
                "INSERT INTO players (computer, name) VALUES (?1, ?2)
                 ON CONFLICT (computer) DO UPDATE SET name = excluded.name
                 RETURNING id",
                params![level, computer_name(level)],
                |r| r.get(0),
            )?));
        }
    };
    let known: Option<i64> = tx
        .query_row(
            "UPDATE players SET name = ?2 WHERE identity = ?1 RETURNING id",
            params![identity, name],
            |r| r.get(0),
        )
        .optional()?;
    let Some(quota) = quota.filter(|_| known.is_none()) else {
        return Ok(known);
    };
    if let Some(address) = address {
        let address = address.to_string();
        let since = now() - HOUR;
        tx.execute("DELETE FROM new_identities WHERE at <= ?1", [since])?;
        let made: i64 = tx.query_row(
            "SELECT COUNT(*) FROM new_identities WHERE address = ?1 AND at > ?2",
            params![address, since],
            |r| r.get(0),
        )?;
        if made >= i64::from(quota) {
            return Ok(None);
        }
        tx.execute(
            "INSERT INTO new_identities (address, at) VALUES (?1, ?2)",
            params![address, now()],
        )?;
    }
    Ok(Some(tx.query_row(
        "INSERT INTO players (identity, name) VALUES (?1, ?2) RETURNING id",
        params![identity, name],
        |r| r.get(0),
    )?))
}
