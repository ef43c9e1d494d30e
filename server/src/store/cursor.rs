//! The leaderboard's page cursor: where the next page starts, as the last
//! entry's place in the leaderboard's order (its sort key) and the count
//! of entries before the next page (so ranks go on from there without
//! counting them again). A page read by cursor costs its own entries, not
//! the entries before it (keyset pagination).
//!
//! The cursor is text the client carries (`next` in the answer) and sends
//! back (`after`); it is signed (HMAC-SHA-256, RFC 2104, truncated to 128
//! bits) with a key kept in the database, bound to the game it is of, so a
//! made-up or edited cursor is refused rather than showing a made-up rank.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// An entry's place in the leaderboard's order: accuracy (descending,
/// none last), wins counted for the rank (descending), games
/// (descending), then the player's number (ascending), as in the index
/// `totals_board`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SortKey {
    /// The accuracy the order is by (`None` before a rank).
    pub accuracy: Option<f64>,
    /// Wins counted for the rank (0 before a rank).
    pub ranked_wins: i64,
    /// Games played.
    pub games: i64,
    /// The player's number.
    pub player: i64,
}

/// Where a page starts: after the entry of `key`, `position` entries
/// before it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cursor {
    /// Entries before the page.
    pub position: u64,
    /// The sort key of the entry before the page.
    pub key: SortKey,
}

/// Why a cursor was refused.
#[derive(Clone, Copy, Debug, thiserror::Error, PartialEq, Eq)]
pub enum CursorError {
    /// Not a cursor's shape.
    #[error("not a leaderboard cursor (use the \"next\" of a leaderboard answer)")]
    Malformed,
    /// Its signature does not hold: edited, made up, or of another game.
    #[error(
        "the leaderboard cursor is not this server's for this game (use the \"next\" of a leaderboard answer of the same game)"
    )]
    Forged,
}

/// Bytes of the signature kept in a cursor.
const TAG_BYTES: usize = 16;

impl Cursor {
    /// The cursor's text, signed with `key` for `game`.
    pub fn encode(&self, game: &str, key: &[u8]) -> String {
        let k = &self.key;
        let accuracy = k
            .accuracy
            .map_or_else(|| "n".to_owned(), |a| format!("{:x}", a.to_bits()));
        let body = format!(
            "{}.{accuracy}.{}.{}.{}",
            self.position, k.ranked_wins, k.games, k.player
        );
        let tag: String = tag(game, &body, key)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        format!("{body}.{tag}")
    }

    /// The cursor of `text`, if it is one signed with `key` for `game`.
    ///
    /// # Errors
    ///
    /// [`CursorError::Malformed`] for text not of a cursor's shape,
    /// [`CursorError::Forged`] for one whose signature does not hold.
    pub fn decode(text: &str, game: &str, key: &[u8]) -> Result<Cursor, CursorError> {
        let (body, hex) = text.rsplit_once('.').ok_or(CursorError::Malformed)?;
        if hex.len() != 2 * TAG_BYTES || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(CursorError::Malformed);
        }
        let given: Vec<u8> = (0..TAG_BYTES)
            .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16))
            .collect::<Result<_, _>>()
            .map_err(|_| CursorError::Malformed)?;
        let fields: Vec<&str> = body.split('.').collect();
        let [position, accuracy, ranked_wins, games, player] = fields[..] else {
            return Err(CursorError::Malformed);
        };
        let number = |t: &str| t.parse::<i64>().map_err(|_| CursorError::Malformed);
        let accuracy = match accuracy {
            "n" => None,
            bits => Some(f64::from_bits(
                u64::from_str_radix(bits, 16).map_err(|_| CursorError::Malformed)?,
            )),
        };
        let cursor = Cursor {
            position: position.parse().map_err(|_| CursorError::Malformed)?,
            key: SortKey {
                accuracy,
                ranked_wins: number(ranked_wins)?,
                games: number(games)?,
                player: number(player)?,
            },
        };
        // `verify_truncated_left` compares in constant time.
        mac(game, body, key)
            .verify_truncated_left(&given)
            .map_err(|_| CursorError::Forged)?;
        Ok(cursor)
    }
}

fn mac(game: &str, body: &str, key: &[u8]) -> Hmac<Sha256> {
    // Any key length is accepted by HMAC.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key length");
    mac.update(game.as_bytes());
    mac.update(&[0]);
    mac.update(body.as_bytes());
    mac
}

fn tag(game: &str, body: &str, key: &[u8]) -> [u8; TAG_BYTES] {
    let full = mac(game, body, key).finalize().into_bytes();
    let mut tag = [0u8; TAG_BYTES];
    tag.copy_from_slice(&full[..TAG_BYTES]);
    tag
}
