//! The model-augmentation plugin (the paper's §4, "Methodology"; docs/ma.md): schedule
//! samplers.
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
//! With `constraints` (the paper's Algorithm 1), draws are repeated until ΣK ≠ ΣK′ (`sum`,
//! when A is on) and/or K_i ≠ K′_i for every layer (`layers`, when S is on).
//!
//! The readings of the paper (docs/ma.md) add: whether a range's upper bound is drawn
//! (`ranges`), whether new schedules come every step or every epoch (`redraw`), what a
//! drawn K = 0 runs (`zero_k`: with `plain` the encoder gets 1 — constraints are checked on
//! the drawn K), and which of a method's branches follows K ([`k_first`]).
use rand::Rng as _;

pub mod params;
use crate::params::Checked;
use crate::rng::{self, streams, Rng};
pub use params::{
    Constraints, KBranch, MaParams, RangeBound, Reading, ReadingName, Redraw, ZeroK, READINGS,
};

/// A pair of schedules: view 1 and view 2.
pub type SchedulePair = (Vec<usize>, Vec<usize>);

pub trait ScheduleSampler: Send {
    /// The schedules (K, K′) for optimisation step `step` (0-based, counted over the whole
    /// run), which belongs to epoch `epoch` (0-based).
    fn sample(&mut self, step: u64, epoch: u64) -> SchedulePair;
}

/// The same fixed schedule for both views (MA off).
#[derive(Clone, Debug)]
pub struct Fixed(pub Vec<usize>);

impl ScheduleSampler for Fixed {
    fn sample(&mut self, _step: u64, _epoch: u64) -> SchedulePair {
        (self.0.clone(), self.0.clone())
    }
}

/// Samples schedules with the A/R/S switches and the reading of `MaParams`.
#[derive(Clone, Debug)]
pub struct MaSampler {
    cfg: MaParams,
    layers: usize,
    seed: u64,
    kept: Option<SchedulePair>,
}

/// How many times a constrained draw is retried before the last draw is accepted.
const MAX_TRIES: usize = 1000;

impl MaSampler {
    pub fn new(cfg: &Checked<MaParams>, layers: usize, seed: u64) -> MaSampler {
        MaSampler {
            cfg: MaParams::clone(cfg),
            layers,
            seed,
            kept: None,
        }
    }

    /// One draw of (K, K′) as Algorithm 1 names them (before `zero_k` is applied).
    fn draw(&self, rng: &mut Rng) -> SchedulePair {
        let c = &self.cfg;
        let n = self.layers;
        let [r1, r2] = c.inclusive_ranges();
        let r2 = if c.asymmetric { r2 } else { r1 };
        let (sum, layers) = (c.constraints.sum(), c.constraints.layers());
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
                // sum constraint the totals must differ too.
                (c.shuffle || k1[n - 1] != k2[n - 1]) && (!sum || s1 != s2)
            } else {
                true
            };
            let ok = ok && (!layers || !c.shuffle || k1.iter().zip(&k2).all(|(a, b)| a != b));
            if ok {
                return (k1, k2);
            }
            last = Some((k1, k2));
        }
        last.unwrap_or_else(|| (vec![r1[0]; n], vec![r2[0]; n]))
    }

    /// The drawn (K, K′) of step `step` in epoch `epoch`, before `zero_k` is applied.
    pub fn drawn(&mut self, step: u64, epoch: u64) -> SchedulePair {
        if !self.cfg.random {
            if self.kept.is_none() {
                let mut r = rng::stream(self.seed, &[streams::SCHEDULE]);
                self.kept = Some(self.draw(&mut r));
            }
            return self.kept.clone().unwrap_or_default();
        }
        let mut r = match self.cfg.redraw {
            Redraw::Step => rng::stream(self.seed, &[streams::SCHEDULE, step]),
            Redraw::Epoch => rng::stream(self.seed, &[streams::SCHEDULE_EPOCH, epoch]),
        };
        self.draw(&mut r)
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

/// The propagation count the encoder runs for a drawn `k`: with `zero_k = plain` a drawn
/// 0 runs one plain step, like 1.
pub fn propagations(k: usize, zero_k: ZeroK) -> usize {
    match zero_k {
        ZeroK::Mlp => k,
        ZeroK::Plain => k.max(1),
    }
}

impl ScheduleSampler for MaSampler {
    fn sample(&mut self, step: u64, epoch: u64) -> SchedulePair {
        let (k1, k2) = self.drawn(step, epoch);
        let z = self.cfg.zero_k;
        let run = |k: Vec<usize>| k.into_iter().map(|k| propagations(k, z)).collect();
        (run(k1), run(k2))
    }
}

/// The sampler `cfg` asks for: MA when enabled, else the fixed `base` schedule.
pub fn sampler(
    cfg: &Checked<MaParams>,
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

/// The evaluation encoder's schedule: `eval_k` propagations per layer under MA (after
/// `zero_k`), the plain encoder's 1 per layer without.
pub fn eval_schedule(cfg: &MaParams, layers: usize) -> Vec<usize> {
    if cfg.enabled {
        vec![propagations(cfg.eval_k, cfg.zero_k); layers]
    } else {
        vec![1; layers]
    }
}

/// The roles of a method's two branches: the first branch is the one a method lists
/// first (GraphCL: original graph; SimGRACE: clean encoder; AD-GCL: original graph).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Branches {
    /// The first branch's embeddings are the loss's anchors (one-way loss); the second
    /// branch's are the candidates, i.e. supply the negatives.
    pub first_is_anchor: bool,
    /// The first branch sees the un-augmented input.
    pub first_is_unaugmented: bool,
    /// Symmetric loss: both branches are anchors and both supply negatives.
    pub symmetric: bool,
}

/// Whether the first branch follows K (else it follows K′). With a symmetric loss
/// `anchor` and `negatives` cannot pick a branch; K then stays on the un-augmented one.
pub fn k_first(rule: KBranch, b: Branches) -> bool {
    match rule {
        _ if b.symmetric => b.first_is_unaugmented,
        KBranch::Unaugmented => b.first_is_unaugmented,
        KBranch::Anchor => b.first_is_anchor,
        KBranch::Negatives => !b.first_is_anchor,
    }
}

/// (K, K′) as (first branch, second branch).
pub fn place(pair: SchedulePair, k_first: bool) -> SchedulePair {
    if k_first {
        pair
    } else {
        (pair.1, pair.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::params::ParamGuard;

    fn cfg(a: bool, r: bool, s: bool) -> MaParams {
        MaParams {
            enabled: true,
            view1: [0, 2],
            view2: [0, 4],
            asymmetric: a,
            random: r,
            shuffle: s,
            ..MaParams::default()
        }
    }

    /// The MA config of a named reading with all three tricks.
    fn reading(name: &str) -> MaParams {
        let mut c = cfg(true, true, true);
        Reading::find(name).unwrap().apply(&mut c);
        c
    }

    fn draws(c: &MaParams, layers: usize, steps: u64) -> Vec<SchedulePair> {
        let mut s = MaSampler::new(&c.clone().check().unwrap(), layers, 7);
        (0..steps).map(|t| s.sample(t, t / 10)).collect()
    }

    fn raw_draws(c: &MaParams, layers: usize, steps: u64) -> Vec<SchedulePair> {
        let mut s = MaSampler::new(&c.clone().check().unwrap(), layers, 7);
        (0..steps).map(|t| s.drawn(t, t / 10)).collect()
    }

    #[test]
    fn every_combination_respects_its_definition() {
        for a in [false, true] {
            for r in [false, true] {
                for s in [false, true] {
                    for constraints in [Constraints::None, Constraints::Both] {
                        let c = MaParams {
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
                            if constraints.sum() && a {
                                assert_ne!(s1, s2);
                            }
                            if constraints.layers() && s {
                                assert!(k1.iter().zip(k2).all(|(x, y)| x != y));
                            }
                            distinct.insert((k1.clone(), k2.clone()));
                        }
                        if r {
                            assert!(
                                distinct.len() > 5,
                                "R redraws ({a} {r} {s} {constraints:?})"
                            );
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
        let mut a = MaSampler::new(&c.clone().check().unwrap(), 3, 1);
        let mut b = MaSampler::new(&c.clone().check().unwrap(), 3, 1);
        let sa: Vec<_> = (0..20).map(|t| a.sample(t, t / 4)).collect();
        let sb: Vec<_> = (0..20)
            .rev()
            .map(|t| b.sample(t, t / 4))
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
        let mut s = sampler(&MaParams::default().check().unwrap(), 3, vec![1, 1, 1], 0);
        assert_eq!(s.sample(5, 0), (vec![1, 1, 1], vec![1, 1, 1]));
    }

    /// What the sampler drew before the readings existed: per step, from the stream
    /// (seed, SCHEDULE, step), K_i uniform in {0, 1, 2} for each layer, then K′_i uniform
    /// in {0, …, 4} (A and S on, no constraints: the first draw is always accepted).
    fn old_draw(seed: u64, step: u64, layers: usize) -> SchedulePair {
        let mut r = rng::stream(seed, &[streams::SCHEDULE, step]);
        let k1 = (0..layers).map(|_| r.gen_range(0..=2usize)).collect();
        let k2 = (0..layers).map(|_| r.gen_range(0..=4usize)).collect();
        (k1, k2)
    }

    #[test]
    fn the_current_reading_draws_exactly_what_magcl_drew_before() {
        let c = reading("current");
        assert_eq!(c, cfg(true, true, true), "current is the default");
        let mut s = MaSampler::new(&c.clone().check().unwrap(), 3, 7);
        for step in 0..50 {
            // the epoch does not matter per step
            assert_eq!(
                s.sample(step, step % 3),
                old_draw(7, step, 3),
                "step {step}"
            );
        }
        assert_eq!(eval_schedule(&c, 3), vec![1, 1, 1], "evaluation: plain GIN");
    }

    #[test]
    fn exclusive_ranges_never_draw_the_upper_bound() {
        // [0, 1) is {0}: every K is 0; [0, 2) is {0, 1}
        let c = MaParams {
            view1: [0, 1],
            view2: [0, 2],
            ranges: RangeBound::Exclusive,
            ..cfg(true, true, true)
        };
        for (k1, k2) in raw_draws(&c, 3, 200) {
            assert_eq!(k1, vec![0, 0, 0]);
            assert!(k2.iter().all(|&k| k <= 1));
        }
        // the paper's [0, 2] / [0, 4]: exclusive {0, 1} / {0, …, 3}, inclusive up to 2 / 4
        let (mut seen1, mut seen2) = ([false; 5], [false; 5]);
        for (k1, k2) in raw_draws(&reading("code"), 3, 2000) {
            k1.iter().for_each(|&k| seen1[k] = true);
            k2.iter().for_each(|&k| seen2[k] = true);
        }
        assert_eq!(seen1, [true, true, false, false, false]);
        assert_eq!(seen2, [true, true, true, true, false]);
        let (mut top1, mut top2) = (false, false);
        for (k1, k2) in raw_draws(&reading("current"), 3, 2000) {
            top1 |= k1.contains(&2);
            top2 |= k2.contains(&4);
        }
        assert!(top1 && top2, "inclusive ranges draw their upper bounds");
    }

    #[test]
    fn each_constraint_is_enforced_alone() {
        let with = |constraints| MaParams {
            constraints,
            ..cfg(true, true, true)
        };
        // sum only: totals always differ, some layer pairs are equal
        let d = raw_draws(&with(Constraints::Sum), 3, 500);
        let sum = |k: &Vec<usize>| k.iter().sum::<usize>();
        assert!(d.iter().all(|(a, b)| sum(a) != sum(b)));
        assert!(d.iter().any(|(a, b)| a.iter().zip(b).any(|(x, y)| x == y)));
        // layers only: every layer differs, some totals are equal (e.g. [0,1,2] / [1,2,0])
        let d = raw_draws(&with(Constraints::Layers), 3, 500);
        assert!(d.iter().all(|(a, b)| a.iter().zip(b).all(|(x, y)| x != y)));
        assert!(d.iter().any(|(a, b)| sum(a) == sum(b)));
        // none (the current and code readings): both kinds of coincidence occur
        let d = raw_draws(&with(Constraints::None), 3, 500);
        assert!(d.iter().any(|(a, b)| sum(a) == sum(b)));
        assert!(d.iter().any(|(a, b)| a.iter().zip(b).any(|(x, y)| x == y)));
        // the paper reading enforces both
        let d = raw_draws(&reading("paper"), 3, 500);
        assert!(d
            .iter()
            .all(|(a, b)| sum(a) != sum(b) && a.iter().zip(b).all(|(x, y)| x != y)));
    }

    #[test]
    fn per_epoch_redraw_keeps_one_draw_for_all_steps_of_an_epoch() {
        let c = reading("code");
        assert_eq!(c.redraw, Redraw::Epoch);
        let mut s = MaSampler::new(&c.clone().check().unwrap(), 3, 7);
        // 12 steps per epoch, 5 epochs
        let d: Vec<SchedulePair> = (0..60).map(|t| s.drawn(t, t / 12)).collect();
        for e in 0..5 {
            let first = &d[e * 12];
            assert!(
                d[e * 12..(e + 1) * 12].iter().all(|p| p == first),
                "epoch {e}"
            );
            // the epoch's draw comes from the stream (seed, SCHEDULE_EPOCH, epoch)
            let mut r = rng::stream(7, &[streams::SCHEDULE_EPOCH, e as u64]);
            assert_eq!(*first, s.draw(&mut r));
        }
        let epochs: std::collections::HashSet<_> = d.iter().collect();
        assert!(epochs.len() > 1, "epochs draw anew");
        // per step (current): the steps of one epoch get different draws
        let mut s = MaSampler::new(&reading("current").clone().check().unwrap(), 3, 7);
        let d: std::collections::HashSet<SchedulePair> = (0..12).map(|t| s.sample(t, 0)).collect();
        assert!(d.len() > 6, "per-step draws within one epoch: {}", d.len());
    }

    #[test]
    fn plain_zero_runs_one_step_where_zero_was_drawn() {
        let c = reading("code");
        let mut s = MaSampler::new(&c.clone().check().unwrap(), 3, 7);
        let mut zeros = 0;
        for t in 0..200 {
            let (d1, d2) = s.drawn(t, t);
            let (k1, k2) = s.sample(t, t);
            for (d, k) in d1.iter().chain(&d2).zip(k1.iter().chain(&k2)) {
                assert_eq!(*k, (*d).max(1), "a drawn {d} runs {k}");
                zeros += (*d == 0) as usize;
            }
        }
        assert!(zeros > 100, "zeros are drawn ({zeros}) but never run");
        assert_eq!(propagations(0, ZeroK::Mlp), 0);
        assert_eq!(propagations(0, ZeroK::Plain), 1);
        assert_eq!(propagations(3, ZeroK::Plain), 3);
        // the code reading evaluates with 2 steps per layer, as the released code (c = 2)
        assert_eq!(eval_schedule(&c, 3), vec![2, 2, 2]);
        let off = MaParams {
            enabled: false,
            ..c.clone()
        };
        assert_eq!(eval_schedule(&off, 3), vec![1, 1, 1], "MA off: plain GIN");
        let zero = MaParams { eval_k: 0, ..c };
        assert_eq!(
            eval_schedule(&zero, 2),
            vec![1, 1],
            "eval K = 0 under plain"
        );
    }

    const GRAPHCL: Branches = Branches {
        first_is_anchor: true,
        first_is_unaugmented: true,
        symmetric: false,
    };
    const SIMGRACE: Branches = Branches {
        first_is_anchor: false,
        first_is_unaugmented: true,
        symmetric: false,
    };
    const ADGCL: Branches = Branches {
        first_is_anchor: true,
        first_is_unaugmented: true,
        symmetric: true,
    };

    #[test]
    fn which_branch_follows_k() {
        // (rule, GraphCL's original graph gets K, SimGRACE's clean branch gets K)
        for (rule, graphcl, simgrace) in [
            (KBranch::Unaugmented, true, true),
            (KBranch::Anchor, true, false),
            (KBranch::Negatives, false, true),
        ] {
            assert_eq!(k_first(rule, GRAPHCL), graphcl, "{rule:?}");
            assert_eq!(k_first(rule, SIMGRACE), simgrace, "{rule:?}");
            assert!(
                k_first(rule, ADGCL),
                "symmetric loss: K on the original graph"
            );
        }
        let pair = (vec![0, 1], vec![3, 4]);
        assert_eq!(place(pair.clone(), true), pair);
        assert_eq!(place(pair, false), (vec![3, 4], vec![0, 1]));
    }

    #[test]
    fn graphcl_and_simgrace_agree_on_the_negatives_branch_under_code_and_paper() {
        // GraphCL's negatives come from its second branch, SimGRACE's from its first.
        let negatives_get_k = |rule, b: Branches| {
            let first = k_first(rule, b);
            if b.first_is_anchor {
                !first
            } else {
                first
            }
        };
        for (name, want) in [("code", false), ("paper", true)] {
            let rule = Reading::find(name).unwrap().k_branch;
            assert_eq!(negatives_get_k(rule, GRAPHCL), want, "{name}: GraphCL");
            assert_eq!(negatives_get_k(rule, SIMGRACE), want, "{name}: SimGRACE");
        }
        // the current reading keeps K on the un-augmented branch, so the two differ
        let rule = Reading::find("current").unwrap().k_branch;
        assert!(!negatives_get_k(rule, GRAPHCL));
        assert!(negatives_get_k(rule, SIMGRACE));
    }

    #[test]
    fn the_readings_table() {
        let names: Vec<&str> = READINGS.iter().map(|r| r.name.word()).collect();
        assert_eq!(names, ["current", "code", "paper"]);
        let code = reading("code");
        assert_eq!(
            (
                code.zero_k,
                code.ranges,
                code.k_branch,
                code.redraw,
                code.constraints,
                code.eval_k
            ),
            (
                ZeroK::Plain,
                RangeBound::Exclusive,
                KBranch::Anchor,
                Redraw::Epoch,
                Constraints::None,
                2
            )
        );
    }
}
