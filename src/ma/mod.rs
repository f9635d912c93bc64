//! The model-augmentation plugin (SPEC §5): schedule samplers.
//!
//! A [`ScheduleSampler`] turns an encoder of N layers into a pair of schedules per
//! optimisation step: `K_1..K_N` for view 1 and `K′_1..K′_N` for view 2 (K_i = number of
//! propagations in layer i). It knows nothing about the method around it. [`Fixed`] gives
//! the baseline (both views the plain encoder); [`MaSampler`] implements the three tricks:
//!
//! - **A**symmetric: view 2 draws from its own range `[lo′, hi′]`; without A, view 2 draws
//!   from view 1's range and the totals ΣK′ = ΣK are forced equal.
//! - **R**andom: redraw every step; without R, draw once (step 0) and keep.
//! - **S**huffle: each layer drawn independently; without S, `K′_i = K_i` for i < N (only
//!   the last layer may differ). Without A, shuffling rearranges the same total number of
//!   propagations over the layers (a different operator permutation).
//!
//! With `constraints` (the paper's Algorithm 1), draws are repeated until ΣK ≠ ΣK′ (when A
//! is on) and K_i ≠ K′_i for every layer where the tricks allow a difference.
use rand::Rng as _;

use crate::experiment::config::MaConfig;
use crate::rng::{self, streams, Rng};

/// A pair of schedules: view 1 and view 2.
pub type SchedulePair = (Vec<usize>, Vec<usize>);

pub trait ScheduleSampler: Send {
    /// The schedules for optimisation step `step` (0-based, counted over the whole run).
    fn sample(&mut self, step: u64) -> SchedulePair;
}

/// The same fixed schedule for both views (MA off).
#[derive(Clone, Debug)]
pub struct Fixed(pub Vec<usize>);

impl ScheduleSampler for Fixed {
    fn sample(&mut self, _step: u64) -> SchedulePair {
        (self.0.clone(), self.0.clone())
    }
}

/// Samples schedules with the A/R/S switches of `MaConfig`.
#[derive(Clone, Debug)]
pub struct MaSampler {
    cfg: MaConfig,
    layers: usize,
    seed: u64,
    kept: Option<SchedulePair>,
}

/// How many times a constrained draw is retried before the last draw is accepted.
const MAX_TRIES: usize = 1000;

impl MaSampler {
    pub fn new(cfg: &MaConfig, layers: usize, seed: u64) -> MaSampler {
        MaSampler {
            cfg: cfg.clone(),
            layers,
            seed,
            kept: None,
        }
    }

    fn draw(&self, rng: &mut Rng) -> SchedulePair {
        let c = &self.cfg;
        let n = self.layers;
        let r1 = c.view1;
        let r2 = if c.asymmetric { c.view2 } else { c.view1 };
        let mut last = None;
        for _ in 0..MAX_TRIES {
            let k1: Vec<usize> = (0..n).map(|_| rng.gen_range(r1[0]..=r1[1])).collect();
            let k2: Vec<usize> = if c.asymmetric {
                if c.shuffle {
                    (0..n).map(|_| rng.gen_range(r2[0]..=r2[1])).collect()
                } else {
                    let mut k2 = k1.clone();
                    k2[n - 1] = rng.gen_range(r2[0]..=r2[1]);
                    k2
                }
            } else if c.shuffle {
                recompose(&k1, r1, rng)
            } else {
                k1.clone()
            };
            let ok = if c.asymmetric {
                let (s1, s2): (usize, usize) = (k1.iter().sum(), k2.iter().sum());
                // Asymmetry without shuffling: the last layers must differ; with the
                // constraints the totals must differ too.
                (c.shuffle || k1[n - 1] != k2[n - 1]) && (!c.constraints || s1 != s2)
            } else {
                true
            };
            let ok =
                ok && (!c.constraints || !c.shuffle || k1.iter().zip(&k2).all(|(a, b)| a != b));
            if ok {
                return (k1, k2);
            }
            last = Some((k1, k2));
        }
        last.unwrap_or_else(|| (vec![r1[0]; n], vec![r2[0]; n]))
    }
}

/// A uniformly drawn arrangement of the same total over the layers, each part within `r`;
/// `k` itself when no other arrangement exists.
fn recompose(k: &[usize], r: [usize; 2], rng: &mut Rng) -> Vec<usize> {
    let total: usize = k.iter().sum();
    let n = k.len();
    for _ in 0..MAX_TRIES {
        // stars and bars: n − 1 cut points among total + n − 1 slots
        let slots = total + n - 1;
        let mut cuts = rand::seq::index::sample(rng, slots, n - 1).into_vec();
        cuts.sort_unstable();
        let mut out = Vec::with_capacity(n);
        let mut start = 0usize;
        for &c in &cuts {
            out.push(c - start);
            start = c + 1;
        }
        out.push(slots - start);
        if out.iter().all(|&p| p >= r[0] && p <= r[1]) {
            return out;
        }
    }
    k.to_vec()
}

impl ScheduleSampler for MaSampler {
    fn sample(&mut self, step: u64) -> SchedulePair {
        if self.cfg.random {
            let mut r = rng::stream(self.seed, &[streams::SCHEDULE, step]);
            self.draw(&mut r)
        } else {
            if self.kept.is_none() {
                let mut r = rng::stream(self.seed, &[streams::SCHEDULE]);
                self.kept = Some(self.draw(&mut r));
            }
            self.kept.clone().unwrap_or_default()
        }
    }
}

/// The sampler `cfg` asks for: MA when enabled, else the fixed `base` schedule.
pub fn sampler(
    cfg: &MaConfig,
    layers: usize,
    base: Vec<usize>,
    seed: u64,
) -> Box<dyn ScheduleSampler> {
    if cfg.enabled {
        Box::new(MaSampler::new(cfg, layers, seed))
    } else {
        Box::new(Fixed(base))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(a: bool, r: bool, s: bool) -> MaConfig {
        MaConfig {
            enabled: true,
            view1: [0, 2],
            view2: [0, 4],
            asymmetric: a,
            random: r,
            shuffle: s,
            ..MaConfig::default()
        }
    }

    fn draws(c: &MaConfig, layers: usize, steps: u64) -> Vec<SchedulePair> {
        let mut s = MaSampler::new(c, layers, 7);
        (0..steps).map(|t| s.sample(t)).collect()
    }

    #[test]
    fn every_combination_respects_its_definition() {
        for a in [false, true] {
            for r in [false, true] {
                for s in [false, true] {
                    for constraints in [false, true] {
                        let c = MaConfig {
                            constraints,
                            ..cfg(a, r, s)
                        };
                        let d = draws(&c, 3, 300);
                        let mut distinct = std::collections::HashSet::new();
                        for (k1, k2) in &d {
                            assert_eq!(k1.len(), 3);
                            assert!(k1.iter().all(|&k| k <= 2), "view 1 in range");
                            let hi2 = if a { 4 } else { 2 };
                            assert!(k2.iter().all(|&k| k <= hi2), "view 2 in range");
                            let (s1, s2): (usize, usize) = (k1.iter().sum(), k2.iter().sum());
                            if !a {
                                assert_eq!(s1, s2, "without A the totals are equal");
                            }
                            if !s {
                                assert_eq!(
                                    k1[..2],
                                    k2[..2],
                                    "without S only the last layer differs"
                                );
                            }
                            if a && !s {
                                assert_ne!(k1[2], k2[2], "A without S: the last layers differ");
                            }
                            if !a && !s {
                                assert_eq!(k1, k2);
                            }
                            if constraints && a {
                                assert_ne!(s1, s2);
                            }
                            if constraints && s {
                                assert!(k1.iter().zip(k2).all(|(x, y)| x != y));
                            }
                            distinct.insert((k1.clone(), k2.clone()));
                        }
                        if r {
                            assert!(distinct.len() > 5, "R redraws ({a} {r} {s} {constraints})");
                        } else {
                            assert_eq!(distinct.len(), 1, "without R one draw is kept");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn shuffle_without_asymmetry_rearranges_the_same_total() {
        let d = draws(&cfg(false, true, true), 3, 500);
        assert!(
            d.iter().any(|(k1, k2)| k1 != k2),
            "some arrangements differ"
        );
    }

    #[test]
    fn asymmetric_draws_cover_the_whole_range() {
        let d = draws(&cfg(true, true, true), 2, 2000);
        for k in 0..=4 {
            assert!(d.iter().any(|(_, k2)| k2.contains(&k)), "K′ = {k} drawn");
        }
        for k in 0..=2 {
            assert!(d.iter().any(|(k1, _)| k1.contains(&k)));
        }
    }

    #[test]
    fn sampling_is_deterministic_per_step() {
        let c = cfg(true, true, true);
        let mut a = MaSampler::new(&c, 3, 1);
        let mut b = MaSampler::new(&c, 3, 1);
        let sa: Vec<_> = (0..20).map(|t| a.sample(t)).collect();
        let sb: Vec<_> = (0..20)
            .rev()
            .map(|t| b.sample(t))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        assert_eq!(
            sa, sb,
            "a step's draw does not depend on the order of calls"
        );
    }

    #[test]
    fn fixed_sampler_is_the_baseline() {
        let mut s = sampler(&MaConfig::default(), 3, vec![1, 1, 1], 0);
        assert_eq!(s.sample(5), (vec![1, 1, 1], vec![1, 1, 1]));
    }
}
