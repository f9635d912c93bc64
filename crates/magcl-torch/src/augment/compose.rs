//! Combining augmentations: the identity, a sequence, a uniform choice.
use rand::Rng as _;

use super::Augmentor;
use crate::graph::GraphView;
use crate::rng::Rng;

/// The graph unchanged (draws nothing from the RNG).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Identity;

impl Augmentor for Identity {
    fn apply(&self, g: &GraphView, _rng: &mut Rng) -> GraphView {
        g.clone()
    }
    fn describe(&self) -> String {
        "none".into()
    }
}

/// Applies its augmentations in order, each to the previous one's output.
pub struct Compose(pub Vec<Box<dyn Augmentor>>);

impl Augmentor for Compose {
    fn apply(&self, g: &GraphView, rng: &mut Rng) -> GraphView {
        let mut out = g.clone();
        for a in &self.0 {
            out = a.apply(&out, rng);
        }
        out
    }
    fn describe(&self) -> String {
        let parts: Vec<String> = self.0.iter().map(|a| a.describe()).collect();
        format!("compose({})", parts.join(", "))
    }
}

/// Applies one of its augmentations, chosen uniformly for each graph and access (the
/// choice is the first draw from the RNG); with none, the graph unchanged.
pub struct RandomChoice(pub Vec<Box<dyn Augmentor>>);

impl Augmentor for RandomChoice {
    fn apply(&self, g: &GraphView, rng: &mut Rng) -> GraphView {
        if self.0.is_empty() {
            return g.clone();
        }
        let i = rng.gen_range(0..self.0.len());
        self.0[i].apply(g, rng)
    }
    fn describe(&self) -> String {
        let parts: Vec<String> = self.0.iter().map(|a| a.describe()).collect();
        format!("choice({})", parts.join(", "))
    }
}
