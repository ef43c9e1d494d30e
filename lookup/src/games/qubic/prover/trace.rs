//! The trace of a proof search ([`TraceLine`]): nodes near the root report
//! their children's numbers as they change, for whoever watches a search
//! (the prover itself prints nothing).

use std::fmt;

use super::proof_numbers::{Child, ProofNumber};

/// A node of the trace, after one of its children was searched: its depth
/// from the root, the nodes spent so far, and every child's move and
/// numbers. Displayed as one line, indented by the depth:
/// `depth D nodes N [cell:pn/dn …]`.
#[derive(Debug)]
pub struct TraceLine<'a> {
    pub(super) depth: usize,
    pub(super) nodes: u64,
    pub(super) children: &'a [Child],
}

impl TraceLine<'_> {
    /// Plies from the root to the node.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// Nodes the prover had spent (proof and threat search).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Each child's move (in the node's frame), proof and disproof number.
    pub fn children(&self) -> impl Iterator<Item = (u8, ProofNumber, ProofNumber)> + '_ {
        self.children.iter().map(|c| (c.cell, c.pn, c.dn))
    }
}

impl fmt::Display for TraceLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let summary: Vec<String> = self
            .children()
            .map(|(cell, pn, dn)| format!("{cell}:{pn}/{dn}"))
            .collect();
        write!(
            f,
            "{:indent$}depth {} nodes {} [{}]",
            "",
            self.depth,
            self.nodes,
            summary.join(" "),
            indent = self.depth * 2
        )
    }
}

/// What a trace reports to.
type Report = Box<dyn FnMut(&TraceLine<'_>) + Send>;

/// Where a prover's trace goes: nodes shallower than `depth` report to
/// `report` (none by default).
#[derive(Default)]
pub(super) struct Trace {
    pub(super) depth: usize,
    report: Option<Report>,
}

impl Trace {
    pub(super) fn new(depth: usize, report: impl FnMut(&TraceLine<'_>) + Send + 'static) -> Trace {
        Trace {
            depth,
            report: Some(Box::new(report)),
        }
    }

    pub(super) fn report(&mut self, line: &TraceLine<'_>) {
        if let Some(report) = &mut self.report {
            report(line);
        }
    }
}

/// The depth only: a closure has nothing to show.
impl fmt::Debug for Trace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Trace").field("depth", &self.depth).finish()
    }
}
