//! The board drawn in text.

use super::board::{Dots, Edges};

impl Dots {
    /// [`Game::picture`](crate::Game::picture): dots `+`, drawn edges
    /// `---` and `|`, completed boxes `###`.
    pub(super) fn draw_picture(self, position: Edges) -> String {
        let mask = position.0;
        let drawn = |edge: u32| mask & 1 << edge != 0;
        let mut lines = Vec::new();
        for r in 0..=self.rows() {
            let mut dots = String::from("+");
            for c in 0..self.cols() {
                dots.push_str(if drawn(self.h(r, c)) { "---+" } else { "   +" });
            }
            lines.push(dots);
            if r == self.rows() {
                break;
            }
            let mut boxes = String::new();
            for c in 0..=self.cols() {
                boxes.push(if drawn(self.v(r, c)) { '|' } else { ' ' });
                if c < self.cols() {
                    let b = self.box_mask(r, c);
                    boxes.push_str(if mask & b == b { "###" } else { "   " });
                }
            }
            lines.push(boxes.trim_end().to_owned());
        }
        lines.join("\n")
    }
}
