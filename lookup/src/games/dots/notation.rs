//! Notation: a position as `MxN:` and one digit per edge or a list of
//! moves, a move as `h2,1` or `v0,3`.

use super::board::{Dots, Edge, Edges};
use crate::error::PositionError;
use crate::game::Game;

impl Dots {
    /// [`Game::parse`]: a position in either notation of the
    /// [module documentation](super).
    pub(super) fn parse_position(self, text: &str) -> Result<Edges, PositionError> {
        let text = text.trim();
        let Some((board, rest)) = text.split_once(':') else {
            return Err(PositionError::Board {
                input: text.to_owned(),
                reason: format!(
                    "a position starts with its board, `{}x{}:`",
                    self.rows, self.cols
                ),
            });
        };
        if parse_board(board) != Some((self.rows, self.cols)) {
            return Err(PositionError::Board {
                input: board.to_owned(),
                reason: format!("expected this board, {}x{}", self.rows, self.cols),
            });
        }
        let offset = board.len() + 1;
        let mask = if rest.starts_with(['h', 'v']) || rest.trim().is_empty() {
            self.parse_move_list(rest)?
        } else {
            self.parse_digits(rest, offset)?
        };
        Ok(Edges(mask))
    }

    /// [`Game::notation`]: the position's `0`/`1` form.
    pub(super) fn position_notation(self, position: Edges) -> String {
        let mut text = format!("{}x{}:", self.rows, self.cols);
        text.extend((0..self.edges()).map(|e| if position.0 & 1 << e != 0 { '1' } else { '0' }));
        text
    }

    /// [`Game::parse_move`]: `h2,1` or `v0,3`.
    pub(super) fn parse_edge(self, text: &str) -> Result<Edge, PositionError> {
        let text = text.trim();
        let bad = |reason: String| PositionError::BadMove {
            input: text.to_owned(),
            reason,
        };
        let horizontal = match text.chars().next() {
            Some('h') => true,
            Some('v') => false,
            _ => {
                return Err(bad(
                    "a move is h or v, a row, a comma and a column, like h2,1 or v0,3".into(),
                ));
            }
        };
        let coordinates = text[1..]
            .split_once(',')
            .and_then(|(r, c)| Some((r.parse::<u8>().ok()?, c.parse::<u8>().ok()?)));
        let Some((row, col)) = coordinates else {
            return Err(bad(
                "a move is h or v, a row, a comma and a column, like h2,1 or v0,3".into(),
            ));
        };
        let (max_row, max_col) = if horizontal {
            (self.rows, self.cols - 1)
        } else {
            (self.rows - 1, self.cols)
        };
        if row > max_row || col > max_col {
            let kind = if horizontal { 'h' } else { 'v' };
            return Err(bad(format!(
                "on a {}x{} board {kind} edges have rows 0..={max_row} and columns 0..={max_col}",
                self.rows, self.cols
            )));
        }
        Ok(Edge {
            horizontal,
            row,
            col,
        })
    }

    fn parse_digits(self, digits: &str, offset: usize) -> Result<u64, PositionError> {
        let mut mask = 0u64;
        let mut edges = 0u32;
        for (at, ch) in digits.char_indices() {
            match ch {
                '0' | '1' => {
                    if ch == '1' && edges < 64 {
                        mask |= 1 << edges;
                    }
                    edges += 1;
                }
                _ => {
                    return Err(PositionError::Character {
                        found: ch,
                        at: offset + at,
                        expected: "'0' or '1', one per edge (or a list of moves like h0,1 v2,0)",
                    });
                }
            }
        }
        if edges != self.edges() {
            return Err(PositionError::Length {
                game: "dots-and-boxes",
                unit: "edges",
                expected: self.edges() as usize,
                found: edges as usize,
            });
        }
        Ok(mask)
    }

    fn parse_move_list(self, moves: &str) -> Result<u64, PositionError> {
        let mut mask = 0u64;
        for text in moves.split(|c: char| c.is_whitespace() || c == ';') {
            if text.is_empty() {
                continue;
            }
            let bit = 1 << self.edge_index(self.parse_move(text)?);
            if mask & bit != 0 {
                return Err(PositionError::IllegalMove {
                    mv: text.to_owned(),
                    reason: "it is already drawn",
                });
            }
            mask |= bit;
        }
        Ok(mask)
    }
}

/// Parses `MxN` (1 ≤ M, N ≤ 255).
fn parse_board(text: &str) -> Option<(u8, u8)> {
    let (rows, cols) = text.split_once('x')?;
    Some((rows.parse().ok()?, cols.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;

    #[test]
    fn notation_round_trips() {
        let board = Dots::new(2, 3).unwrap();
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let p = Edges(state & board.full());
            let text = board.notation(p);
            assert_eq!(board.parse(&text).unwrap(), p);
            let moves: Vec<String> = board
                .moves(Edges(board.full() & !p.0))
                .iter()
                .map(|m| m.to_string())
                .collect();
            let listed = format!("2x3:{}", moves.join(" "));
            assert_eq!(board.parse(&listed).unwrap(), p, "{listed}");
        }
        assert_eq!(board.parse("2x3:").unwrap(), Edges(0));
    }

    #[test]
    fn bad_input_gets_a_clear_error() {
        let board = Dots::new(2, 2).unwrap();
        assert!(matches!(
            board.parse("101"),
            Err(PositionError::Board { .. })
        ));
        assert!(matches!(
            board.parse("3x3:101"),
            Err(PositionError::Board { .. })
        ));
        assert!(matches!(
            board.parse("2x2:101"),
            Err(PositionError::Length {
                expected: 12,
                found: 3,
                ..
            })
        ));
        assert!(matches!(
            board.parse("2x2:10100000002x"),
            Err(PositionError::Character {
                found: '2',
                at: 14,
                ..
            })
        ));
        assert!(matches!(
            board.parse("2x2:h0,0 h3,0"),
            Err(PositionError::BadMove { .. })
        ));
        assert!(matches!(
            board.parse("2x2:h0,0 v0,3"),
            Err(PositionError::BadMove { .. })
        ));
        assert!(matches!(
            board.parse("2x2:h0,0;h0,0"),
            Err(PositionError::IllegalMove { .. })
        ));
        assert!(matches!(
            board.parse_move("x1,1"),
            Err(PositionError::BadMove { .. })
        ));
        assert!(matches!(
            board.parse_move("h1"),
            Err(PositionError::BadMove { .. })
        ));
        assert!(Dots::new(0, 3).is_err());
        assert!(Dots::new(6, 6).is_err());
        assert!(Dots::new(5, 5).is_ok());
        assert!(Dots::new(1, 20).is_ok());
    }

    #[test]
    fn arbitrary_text_never_panics() {
        let board = Dots::new(2, 3).unwrap();
        let alphabet: Vec<char> = "01hv,;: x23\u{e9}-9".chars().collect();
        let mut state = 0x0123_4567_89ab_cdefu64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = (state % 24) as usize;
            let mut text = String::from(if state & 1 << 40 != 0 { "2x3:" } else { "" });
            let mut bits = state;
            for _ in 0..len {
                text.push(alphabet[(bits % alphabet.len() as u64) as usize]);
                bits = bits.rotate_right(5) ^ 0x9e37;
            }
            if let Ok(p) = board.parse(&text) {
                assert_eq!(board.parse(&board.notation(p)), Ok(p), "{text:?}");
            }
            let _ = board.parse_move(&text);
        }
    }
}
