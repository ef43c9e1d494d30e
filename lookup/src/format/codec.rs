//! Entry bytes: how a value is written into one byte of a table, for each
//! [`ValueEncoding`](super::ValueEncoding). The games call these; no other
//! code knows the bytes.

use super::TableError;
use crate::value::{Outcome, Score, Wdl};

/// The entry byte of margin 0 in [`ValueEncoding::Margin`](super::ValueEncoding::Margin):
/// an entry is `MARGIN_BIAS + margin`, so that 0 stays free for "nothing
/// stored". As a signed byte, `entry ^ 0x80` is the margin itself, which the
/// vectorised generator uses.
pub const MARGIN_BIAS: i32 = 128;

/// The entry byte of an outcome in
/// [`ValueEncoding::OutcomePlies`](super::ValueEncoding::OutcomePlies):
/// `(wdl + 1) << 5 | plies`, with `wdl` 0 loss, 1 draw, 2 win.
///
/// # Panics
///
/// If `plies >= 32` (no board of the family has 32 cells).
pub fn encode_outcome(outcome: Outcome) -> u8 {
    assert!(outcome.plies < 32, "plies {} do not fit", outcome.plies);
    (outcome.wdl as u8 + 1) << 5 | outcome.plies
}

/// The outcome an entry byte holds for a position with `empty` empty cells,
/// read from `slot`.
///
/// # Errors
///
/// [`TableError::Entry`] for an empty entry (0), a byte outside the
/// encoding, more plies than empty cells, a draw that does not fill the
/// board (in the tic-tac-toe family a drawn game always does), or a win
/// after an even number of plies or a loss after an odd one (players
/// alternate, and whoever completes a line made the last move).
pub fn decode_outcome(entry: u8, empty: u32, slot: u64) -> Result<Outcome, TableError> {
    let bad = |reason: String| TableError::Entry { slot, reason };
    let wdl = match entry >> 5 {
        1 => Wdl::Loss,
        2 => Wdl::Draw,
        3 => Wdl::Win,
        _ if entry == 0 => return Err(bad("no position stored here".into())),
        _ => return Err(bad(format!("byte {entry:#04x} encodes no outcome"))),
    };
    let plies = entry & 31;
    let fits = match wdl {
        Wdl::Draw => u32::from(plies) == empty,
        Wdl::Win => u32::from(plies) <= empty && plies % 2 == 1,
        Wdl::Loss => u32::from(plies) <= empty && plies % 2 == 0,
    };
    if !fits {
        return Err(bad(format!(
            "{wdl} in {plies} plies with {empty} empty cells"
        )));
    }
    Ok(Outcome { wdl, plies })
}

/// The entry byte of a margin in [`ValueEncoding::Margin`](super::ValueEncoding::Margin).
///
/// # Panics
///
/// If the margin is outside `-127..=127` (no board has that many boxes).
pub fn encode_margin(margin: Score) -> u8 {
    u8::try_from(margin + MARGIN_BIAS)
        .ok()
        .filter(|&e| e != 0)
        .expect("margin within -127..=127")
}

/// The margin an entry byte holds, without checks (0, "nothing stored",
/// reads as -128).
pub fn decode_margin(entry: u8) -> Score {
    i32::from(entry) - MARGIN_BIAS
}

/// The entry byte of a stored position in
/// [`ValueEncoding::MarginResolved`](super::ValueEncoding::MarginResolved):
/// `1 +` the number of the `remaining` unclaimed boxes the side to move
/// wins, `(margin + remaining) / 2`. The margin and the remaining boxes
/// always have the same parity, so this drops the parity bit the
/// [`Margin`](super::ValueEncoding::Margin) byte spends, and its values are
/// small and few (measured: 5-10% smaller tables after zstd).
///
/// # Panics
///
/// If the margin does not fit `remaining` (more than it, or the other
/// parity) or `remaining > 253`: the writer's bugs.
#[inline]
pub fn encode_boxes_won(margin: Score, remaining: u32) -> u8 {
    let remaining = remaining as Score;
    assert!(
        margin.abs() <= remaining && (margin + remaining) % 2 == 0 && remaining < 254,
        "margin {margin} with {remaining} boxes unclaimed"
    );
    (1 + (margin + remaining) / 2) as u8
}

/// The margin an [`encode_boxes_won`] byte gives a position with
/// `remaining` unclaimed boxes, read from `slot`.
///
/// # Errors
///
/// [`TableError::Entry`] for 0 (a don't-care entry, which a probe never
/// reads) or more boxes than remain.
pub fn decode_boxes_won(entry: u8, remaining: u32, slot: u64) -> Result<Score, TableError> {
    let won = i32::from(entry) - 1;
    if entry == 0 || won > remaining as Score {
        return Err(TableError::Entry {
            slot,
            reason: if entry == 0 {
                "no position stored here".into()
            } else {
                format!("{won} boxes won of {remaining} unclaimed")
            },
        });
    }
    Ok(2 * won - remaining as Score)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_outcome_round_trips_and_nothing_else_decodes() {
        for empty in 0..=27u32 {
            for entry in 0..=u8::MAX {
                if let Ok(outcome) = decode_outcome(entry, empty, 0) {
                    assert_eq!(encode_outcome(outcome), entry);
                    assert!(u32::from(outcome.plies) <= empty);
                    let odd = outcome.plies % 2 == 1;
                    match outcome.wdl {
                        Wdl::Win => assert!(odd),
                        Wdl::Loss => assert!(!odd),
                        Wdl::Draw => assert_eq!(u32::from(outcome.plies), empty),
                    }
                }
            }
            let draw = Outcome::draw(empty as u8);
            assert_eq!(decode_outcome(encode_outcome(draw), empty, 0), Ok(draw));
        }
        assert!(decode_outcome(0, 9, 0).is_err());
    }

    #[test]
    fn boxes_won_round_trip_and_nothing_else_decodes() {
        for remaining in 0..=60u32 {
            let mut decoded = 0;
            for entry in 0..=u8::MAX {
                if let Ok(margin) = decode_boxes_won(entry, remaining, 0) {
                    assert_eq!(encode_boxes_won(margin, remaining), entry);
                    decoded += 1;
                }
            }
            assert_eq!(decoded, remaining + 1);
        }
    }

    #[test]
    fn margins_round_trip_and_agree_with_the_signed_byte_view() {
        for margin in -127..=127 {
            let entry = encode_margin(margin);
            assert_eq!(decode_margin(entry), margin);
            assert_eq!(i32::from((entry ^ 0x80) as i8), margin);
        }
    }
}
