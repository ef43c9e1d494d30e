//! Dots-and-boxes as a [`Game`]: moves, play, values and symmetry.

use super::board::{Dots, Edge, Edges};
use super::endgame::EndgameSolver;
use crate::error::PositionError;
use crate::format::GameId;
use crate::game::{ExactSolver, Game, SearchLimits};
use crate::rng::Rng;
use crate::value::{Margin, Score, Transition};

impl Game for Dots {
    type Position = Edges;
    type Move = Edge;
    type Value = Margin;

    fn id(&self) -> GameId {
        GameId::Dots {
            rows: self.rows,
            cols: self.cols,
        }
    }

    fn start(&self) -> Edges {
        Edges(0)
    }

    fn parse(&self, text: &str) -> Result<Edges, PositionError> {
        self.parse_position(text)
    }

    fn notation(&self, position: Edges) -> String {
        self.position_notation(position)
    }

    /// Dots `+`, drawn edges `---` and `|`, completed boxes `###`; `hR,C`
    /// is the edge right of dot (R, C), `vR,C` the edge below it:
    ///
    /// ```text
    /// +---+   +
    /// |###|
    /// +---+---+
    /// ```
    fn picture(&self, position: Edges) -> String {
        self.draw_picture(position)
    }

    fn parse_move(&self, text: &str) -> Result<Edge, PositionError> {
        self.parse_edge(text)
    }

    fn moves(&self, position: Edges) -> Vec<Edge> {
        let free = self.full() & !position.0;
        (0..self.edges())
            .filter(|&e| free & 1 << e != 0)
            .map(|e| self.edge(e))
            .collect()
    }

    fn play(&self, position: Edges, edge: Edge) -> (Edges, Transition) {
        let (next, gain) = self.draw(position.0, self.edge_index(edge));
        let transition = if gain > 0 {
            Transition {
                same_mover: true,
                gain: gain as Score,
            }
        } else {
            Transition::PASS
        };
        (Edges(next), transition)
    }

    fn terminal_score(&self, position: Edges) -> Option<Score> {
        (position.0 & self.full() == self.full()).then_some(0)
    }

    fn value(&self, _position: Edges, score: Score) -> Margin {
        Margin(score)
    }

    fn symmetry_count(&self) -> usize {
        if self.square() { 8 } else { 4 }
    }

    /// The least image by the board's shared lookup tables
    /// ([`Dots::shared_symmetries`]): a probe canonicalises every position.
    fn canonical(&self, position: Edges) -> Edges {
        Edges(self.shared_symmetries().canonical(position.0))
    }

    /// By the shared lookup tables, stopping at the first smaller image.
    fn is_canonical(&self, position: Edges) -> bool {
        self.shared_symmetries().is_canonical(position.0)
    }

    /// The [`EndgameSolver`], with chain and loop theory.
    fn exact_solver(&self, limits: SearchLimits) -> Option<Box<dyn ExactSolver<Edges>>> {
        Some(Box::new(EndgameSolver::new(*self, limits)))
    }

    fn image(&self, position: Edges, index: usize) -> Edges {
        assert!(
            index < self.symmetry_count(),
            "symmetry {index} of {self:?}"
        );
        let mut image = 0;
        let mut rest = position.0;
        while rest != 0 {
            let edge = rest.trailing_zeros();
            rest &= rest - 1;
            image |= 1 << self.edge_image(index, edge);
        }
        Edges(image)
    }
}

impl Dots {
    /// The edges not drawn in `mask` that give no box a third side, in
    /// edge order.
    pub fn edges_without_third_sides(self, mask: u64) -> Vec<u32> {
        let box_masks: Vec<u64> = (0..self.rows())
            .flat_map(|r| (0..self.cols()).map(move |c| self.box_mask(r, c)))
            .collect();
        (0..self.edges())
            .filter(|&e| mask & 1 << e == 0)
            .filter(|&e| {
                box_masks
                    .iter()
                    .all(|&b| b & 1 << e == 0 || (mask & b).count_ones() < 2)
            })
            .collect()
    }

    /// A position of this board with `undrawn` edges left, from
    /// random play that never draws a box's third side: each edge is drawn
    /// uniformly among those that give no box three sides
    /// ([`edges_without_third_sides`](Self::edges_without_third_sides)),
    /// like a game before its endgame (a uniformly random edge set has most
    /// boxes taken and is trivial). `None` when play runs out of such edges
    /// first; the caller draws again from the same generator. The committed
    /// bench positions (`tests/data/dots-endgame.positions`) are made this
    /// way.
    pub fn random_without_third_sides(self, rng: &mut Rng, undrawn: u32) -> Option<Edges> {
        let mut mask = 0u64;
        while self.edges() - mask.count_ones() > undrawn {
            let safe = self.edges_without_third_sides(mask);
            if safe.is_empty() {
                return None;
            }
            mask |= 1 << rng.pick(&safe);
        }
        Some(Edges(mask))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drawing_the_fourth_edge_scores() {
        let board = Dots::new(1, 2).unwrap();
        let p = board.parse("1x2:h0,0 h1,0 v0,0 h0,1 h1,1 v0,2").unwrap();
        let (next, tr) = board.play(p, board.parse_move("v0,1").unwrap());
        assert_eq!(tr.gain, 2);
        assert!(tr.same_mover);
        assert_eq!(board.terminal_score(next), Some(0));
        assert_eq!(board.completed_boxes(next.0), 2);
    }
}
