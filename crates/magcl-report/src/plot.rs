//! SVG plots of a [`Report`] with plotters' SVG backend. Text is written as SVG `<text>`
//! elements and laid out with plotters' built-in size estimate, so no system font (and no
//! fontconfig) is needed to draw; the viewer renders the text.
//!
//! - [`bars`]: one panel per method, datasets on the x axis, the baseline and each +MA
//!   setting as side-by-side bars (mean over seeds) with ±std error bars and every seed's
//!   value as a dot — like the paper's graph-classification figure. Bars start at 0, or
//!   the axis starts at a round value below the data and says so: a break mark on the
//!   axis and "y axis starts at …" in the panel title.
//! - [`heatmap`]: for sweeps with a grid over two keys (e.g. `ma.view1` × `ma.view2`),
//!   one panel per (dataset, method, MA setting) with the mean of every grid point; each
//!   panel has its own colour scale, shown by its colour bar.
//! - [`forest`]: one line per comparison: Δ with its 95% interval, the paper's claimed Δ
//!   (with `--claims`), a line at 0.
//!
//! [`super::raster`] turns any of them into a PNG.
use std::collections::BTreeMap;

use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::floor::family;
use super::format::{method_label, method_name};
use super::{dataset_sort_key, variant_keys, Group, Metric, Report};
use crate::error::{Error, Result};
use magcl_config::registry;

fn perr<E: std::fmt::Display>(e: E) -> Error {
    Error::Config(format!("cannot draw the plot: {e}"))
}

/// The largest value the metric can take (100% accuracy, NMI 1): no value axis runs past
/// it, whatever room the legend or an interval would like.
fn metric_top(m: Metric) -> f64 {
    match m {
        Metric::Accuracy => 100.0,
        Metric::Nmi => 1.0,
    }
}

fn metric_label(m: Metric) -> &'static str {
    match m {
        Metric::Accuracy => "accuracy (%)",
        Metric::Nmi => "NMI",
    }
}

const BASELINE_COLOR: RGBColor = RGBColor(150, 150, 150);
const MA_COLORS: &[RGBColor] = &[
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// One bar series: its label and its group per dataset.
type Setting<'a> = (String, BTreeMap<String, &'a Group>);

/// The paired bar plot as an SVG document.
pub fn bars(r: &Report) -> Result<String> {
    // method → (setting label → dataset → group); settings keep report order (baseline first).
    let mut methods: Vec<(String, Vec<Setting>)> = Vec::new();
    for g in &r.groups {
        let label = if g.key.ma == "none" {
            "baseline".to_string()
        } else {
            format!("+MA ({})", g.key.ma)
        };
        let label = if g.key.variant.is_empty() {
            label
        } else {
            format!("{label} [{}]", g.key.variant)
        };
        let method = format!("{} ({})", method_label(&g.key), g.key.evaluator);
        let mi = match methods.iter().position(|(m, _)| *m == method) {
            Some(i) => i,
            None => {
                methods.push((method, Vec::new()));
                methods.len() - 1
            }
        };
        let settings = &mut methods[mi].1;
        match settings.iter_mut().find(|(l, _)| *l == label) {
            Some((_, m)) => {
                m.insert(g.key.dataset.clone(), g);
            }
            None => {
                let mut m = BTreeMap::new();
                m.insert(g.key.dataset.clone(), g);
                settings.push((label, m));
            }
        }
    }
    let max_datasets = methods
        .iter()
        .map(|(_, s)| datasets_of(s).len())
        .max()
        .unwrap_or(1);
    let width = (160 * max_datasets as u32 + 200).max(640);
    let panel_h = 360u32;
    let height = panel_h * methods.len().max(1) as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(perr)?;
        let panels = root.split_evenly((methods.len().max(1), 1));
        for ((method, settings), panel) in methods.iter().zip(panels.iter()) {
            draw_bar_panel(panel, method, settings, r.metric)?;
        }
        root.present().map_err(perr)?;
    }
    Ok(svg)
}

fn datasets_of(settings: &[(String, BTreeMap<String, &Group>)]) -> Vec<String> {
    let mut d: Vec<String> = settings
        .iter()
        .flat_map(|(_, m)| m.keys().cloned())
        .collect();
    d.sort_by_key(|x| dataset_sort_key(x));
    d.dedup();
    d
}

fn draw_bar_panel(
    panel: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    method: &str,
    settings: &[(String, BTreeMap<String, &Group>)],
    metric: Metric,
) -> Result<()> {
    let datasets = datasets_of(settings);
    let n = datasets.len().max(1);
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for (_, m) in settings {
        for g in m.values() {
            let s = g.summary.std.unwrap_or(0.0);
            lo = lo.min(g.summary.mean - s).min(g.summary.min);
            hi = hi.max(g.summary.mean + s).max(g.summary.max);
        }
    }
    if !lo.is_finite() || !hi.is_finite() {
        return Ok(());
    }
    let pad = ((hi - lo) * 0.15).max(0.5 * 10f64.powi(-(metric.decimals() as i32) + 1));
    // Honest axis: the axis starts at a round value below the data (5 points of
    // accuracy, 0.05 of NMI); when that is above 0 the axis is broken, and the panel
    // says so with a break mark and in its title.
    let step = match metric {
        Metric::Accuracy => 5.0,
        Metric::Nmi => 0.05,
    };
    let y0 = (((lo - pad) / step).floor() * step).max(0.0);
    let broken = y0 > 0.0;
    // Room for the legend above the bars, but never past the metric's top (100%, NMI 1).
    // When the top cuts that room, the legend gets room to the right of the last dataset
    // instead (the x axis runs on), so it covers no bar.
    let wanted = hi + (pad * 1.6).max((hi - y0) * 0.35);
    let y1 = wanted.min(metric_top(metric));
    let x_room = if wanted > y1 {
        let plot_w = panel.dim_in_pixel().0 as f64 - 56.0 - 24.0;
        let chars = settings
            .iter()
            .map(|(l, _)| l.chars().count())
            .chain(["one seed".len()])
            .max()
            .unwrap_or(8) as f64;
        let legend_w = chars * 7.0 + 44.0;
        legend_w * n as f64 / (plot_w - legend_w).max(1.0)
    } else {
        0.0
    };
    let caption = if broken {
        let prec = match metric {
            Metric::Accuracy => 0,
            Metric::Nmi => 2,
        };
        format!("{method} — y axis starts at {y0:.prec$} (axis break), not 0")
    } else {
        method.to_string()
    };
    let mut chart = ChartBuilder::on(panel)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(56)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5 + x_room), y0..y1)
        .map_err(perr)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .max_light_lines(1)
        .x_labels(0)
        .y_desc(metric_label(metric))
        .label_style(("sans-serif", 13))
        .draw()
        .map_err(perr)?;
    // Dataset names under the bar groups (plotters' automatic ticks need not fall on
    // the group centres, so they are placed here).
    let base = panel.get_base_pixel();
    if broken {
        // Break mark: a white gap with two slanted strokes across the y axis, just above
        // its lowest value.
        let (ax, ay) = chart.backend_coord(&(-0.5, y0));
        let (x, y) = (ax - base.0, ay - base.1 - 14);
        panel
            .draw(&Polygon::new(
                vec![
                    (x - 7, y - 1),
                    (x + 7, y - 5),
                    (x + 7, y + 2),
                    (x - 7, y + 6),
                ],
                WHITE.filled(),
            ))
            .map_err(perr)?;
        for dy in [-1, 6] {
            panel
                .draw(&PathElement::new(
                    vec![(x - 8, y + dy), (x + 8, y + dy - 5)],
                    BLACK.stroke_width(1),
                ))
                .map_err(perr)?;
        }
    }
    for (i, ds) in datasets.iter().enumerate() {
        text_under(panel, &chart, (i as f64, y0), 8, ds, 13)?;
    }
    let m = settings.len().max(1);
    let bar_w = 0.8 / m as f64;
    for (j, (label, groups)) in settings.iter().enumerate() {
        let color = if label.starts_with("baseline") {
            BASELINE_COLOR
        } else {
            MA_COLORS[j % MA_COLORS.len()]
        };
        let mut rects = Vec::new();
        let mut errs = Vec::new();
        let mut dots = Vec::new();
        for (i, ds) in datasets.iter().enumerate() {
            if let Some(g) = groups.get(ds) {
                let x0 = i as f64 - 0.4 + j as f64 * bar_w;
                let mean = g.summary.mean;
                // Every seed's value, spread evenly across the middle of the bar.
                let k = g.by_seed.len().max(1) as f64;
                for (s, v) in g.by_seed.values().enumerate() {
                    let x = x0 + bar_w * (0.25 + 0.5 * (s as f64 + 0.5) / k);
                    dots.push(Circle::new((x, *v), 2, BLACK.filled()));
                }
                rects.push(Rectangle::new(
                    [(x0 + bar_w * 0.05, y0), (x0 + bar_w * 0.95, mean)],
                    color.filled(),
                ));
                let s = g.summary.std.unwrap_or(0.0);
                errs.push(ErrorBar::new_vertical(
                    x0 + bar_w / 2.0,
                    mean - s,
                    mean,
                    mean + s,
                    BLACK.stroke_width(1),
                    6,
                ));
            }
        }
        chart
            .draw_series(rects)
            .map_err(perr)?
            .label(label.clone())
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
        chart.draw_series(errs).map_err(perr)?;
        let dots = chart.draw_series(dots).map_err(perr)?;
        if j == 0 {
            dots.label("one seed")
                .legend(|(x, y)| Circle::new((x + 6, y), 2, BLACK.filled()));
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .draw()
        .map_err(perr)?;
    Ok(())
}

/// Panels of a two-key grid: (title, x key, y key, x values, y values, cell means).
type HeatPanel = (
    String,
    String,
    String,
    Vec<String>,
    Vec<String>,
    BTreeMap<(String, String), f64>,
);

/// Heat maps of every (dataset, method, evaluator, MA setting) whose variants set exactly
/// two keys; `None` if the report has no such grid.
pub fn heatmap(r: &Report) -> Result<Option<String>> {
    let mut panels: BTreeMap<(String, String, String, String), Vec<&Group>> = BTreeMap::new();
    for g in &r.groups {
        if variant_keys(&g.key.variant).len() == 2 {
            panels
                .entry((
                    g.key.dataset.clone(),
                    g.key.method.clone(),
                    g.key.evaluator.clone(),
                    g.key.ma.clone(),
                ))
                .or_default()
                .push(g);
        }
    }
    let mut list: Vec<HeatPanel> = Vec::new();
    for ((ds, method, ev, ma), groups) in panels {
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        let mut cells = BTreeMap::new();
        let mut kx = String::new();
        let mut ky = String::new();
        for g in groups {
            let kv = variant_keys(&g.key.variant);
            kx = kv[0].0.clone();
            ky = kv[1].0.clone();
            if !xs.contains(&kv[0].1) {
                xs.push(kv[0].1.clone());
            }
            if !ys.contains(&kv[1].1) {
                ys.push(kv[1].1.clone());
            }
            cells.insert((kv[0].1.clone(), kv[1].1.clone()), g.summary.mean);
        }
        let title = format!("{ds} — {} +MA ({ma}), {ev}", method_name(&method));
        list.push((title, kx, ky, xs, ys, cells));
    }
    if list.is_empty() {
        return Ok(None);
    }
    let cols = list.len().min(2);
    let rows = list.len().div_ceil(cols);
    let (pw, ph) = (560u32, 480u32);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (pw * cols as u32, ph * rows as u32))
            .into_drawing_area();
        root.fill(&WHITE).map_err(perr)?;
        let areas = root.split_evenly((rows, cols));
        for (p, area) in list.iter().zip(areas.iter()) {
            draw_heat_panel(area, p, r.metric)?;
        }
        root.present().map_err(perr)?;
    }
    Ok(Some(svg))
}

fn draw_heat_panel(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    (title, kx, ky, xs, ys, cells): &HeatPanel,
    metric: Metric,
) -> Result<()> {
    let nx = xs.len();
    let ny = ys.len();
    let lo = cells.values().copied().fold(f64::INFINITY, f64::min);
    let hi = cells.values().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 16))
        .margin(12)
        .margin_right(96) // the colour bar
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(-0.5f64..(nx as f64 - 0.5), -0.5f64..(ny as f64 - 0.5))
        .map_err(perr)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(0)
        .y_labels(0)
        .x_desc(kx.as_str())
        .y_desc(ky.as_str())
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(perr)?;
    let base = area.get_base_pixel();
    let label = |text: &str, at: (i32, i32), pos: Pos| -> Result<()> {
        area.draw(&Text::new(
            text.to_string(),
            (at.0 - base.0, at.1 - base.1),
            ("sans-serif", 12).into_font().color(&BLACK).pos(pos),
        ))
        .map_err(perr)
    };
    for (i, x) in xs.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(i as f64, -0.5));
        label(x, (px, py + 6), Pos::new(HPos::Center, VPos::Top))?;
    }
    for (j, y) in ys.iter().enumerate() {
        let (px, py) = chart.backend_coord(&(-0.5, j as f64));
        label(y, (px - 6, py), Pos::new(HPos::Right, VPos::Center))?;
    }
    let d = metric.decimals();
    // The colour bar of this panel's scale: lo (bottom) to hi (top).
    let (bx, top) = chart.backend_coord(&(nx as f64 - 0.5, ny as f64 - 0.5));
    let (_, bottom) = chart.backend_coord(&(nx as f64 - 0.5, -0.5));
    let (bx, top, bottom) = (bx - base.0 + 16, top - base.1, bottom - base.1);
    let steps = 48;
    let span = (bottom - top).max(1);
    for s in 0..steps {
        let y_hi = top + span * s / steps;
        let y_lo = top + span * (s + 1) / steps;
        let t = 1.0 - (s as f64 + 0.5) / steps as f64;
        area.draw(&Rectangle::new(
            [(bx, y_hi), (bx + 14, y_lo)],
            viridis(t).filled(),
        ))
        .map_err(perr)?;
    }
    area.draw(&Rectangle::new(
        [(bx, top), (bx + 14, bottom)],
        BLACK.stroke_width(1),
    ))
    .map_err(perr)?;
    for (v, y) in [
        (hi, top),
        ((lo + hi) / 2.0, (top + bottom) / 2),
        (lo, bottom),
    ] {
        area.draw(&Text::new(
            format!("{v:.d$}"),
            (bx + 18, y),
            ("sans-serif", 11)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(perr)?;
    }
    area.draw(&Text::new(
        format!("mean {}", metric_label(metric)),
        (bx - 4, top - 6),
        ("sans-serif", 11)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Bottom)),
    ))
    .map_err(perr)?;
    for (i, x) in xs.iter().enumerate() {
        for (j, y) in ys.iter().enumerate() {
            let Some(v) = cells.get(&(x.clone(), y.clone())) else {
                continue;
            };
            let t = if hi > lo { (v - lo) / (hi - lo) } else { 0.5 };
            let color = viridis(t);
            let (cx, cy) = (i as f64, j as f64);
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(cx - 0.5, cy - 0.5), (cx + 0.5, cy + 0.5)],
                    color.filled(),
                )))
                .map_err(perr)?;
            let text_color = if t > 0.6 { BLACK } else { WHITE };
            chart
                .draw_series(std::iter::once(Text::new(
                    format!("{v:.d$}"),
                    (cx, cy),
                    ("sans-serif", 12)
                        .into_font()
                        .color(&text_color)
                        .pos(Pos::new(HPos::Center, VPos::Center)),
                )))
                .map_err(perr)?;
        }
    }
    Ok(())
}

/// A few stops of the viridis colour map, linearly interpolated (`t` in [0, 1]).
fn viridis(t: f64) -> RGBColor {
    const STOPS: [(u8, u8, u8); 5] = [
        (68, 1, 84),
        (59, 82, 139),
        (33, 145, 140),
        (94, 201, 98),
        (253, 231, 37),
    ];
    let t = t.clamp(0.0, 1.0) * (STOPS.len() - 1) as f64;
    let i = (t.floor() as usize).min(STOPS.len() - 2);
    let f = t - i as f64;
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// One line of a forest plot.
#[derive(Clone, Debug)]
pub struct ForestLine {
    /// Left of the plot: what is compared.
    pub label: String,
    pub delta: f64,
    pub ci: Option<(f64, f64)>,
    /// The paper's claimed Δ, marked ×.
    pub claim: Option<f64>,
    /// Right of the plot: the numbers and the verdict.
    pub note: String,
    pub color: RGBColor,
}

const CONFIRMED: RGBColor = RGBColor(26, 133, 60);
const OPPOSITE: RGBColor = RGBColor(200, 30, 30);
const NOT_REPRODUCED: RGBColor = RGBColor(128, 60, 160);
const UNDECIDED: RGBColor = RGBColor(90, 90, 90);
const MEASURED: RGBColor = RGBColor(31, 119, 180);
const CLAIM: RGBColor = RGBColor(230, 120, 0);

/// The lines of a report's forest plot: with claims, one per measured verdict row
/// (coloured by verdict); without, one per comparison.
pub fn forest_lines(r: &Report) -> Vec<ForestLine> {
    use super::claims::{measured_label, measured_vs_label, signed, verdict_text, Verdict};
    let d = r.metric.decimals();
    let num = |x: f64| signed(x, d);
    let ci_text = |ci: Option<(f64, f64)>| match ci {
        Some((lo, hi)) => format!("[{lo:.d$}, {hi:.d$}]"),
        None => "[–]".into(),
    };
    let mde_text = |m: Option<f64>| m.map(|m| format!("{m:.d$}")).unwrap_or("–".into());
    match &r.verdicts {
        Some(v) => v
            .rows
            .iter()
            .filter_map(|row| {
                let m = row.measured.as_ref()?;
                Some(ForestLine {
                    label: format!("{} · {}", m.key.dataset, measured_vs_label(m)),
                    delta: m.mean_diff,
                    ci: m.ci95,
                    claim: Some(row.claim.delta),
                    note: format!(
                        "{} {}, claim {}, power {}: {}",
                        num(m.mean_diff),
                        ci_text(m.ci95),
                        num(row.claim.delta),
                        m.power_at_claim
                            .map(|p| format!("{p:.2}"))
                            .unwrap_or("–".into()),
                        verdict_text(row)
                    ),
                    color: match row.verdict {
                        Verdict::Confirmed => CONFIRMED,
                        Verdict::OppositeSign => OPPOSITE,
                        Verdict::NotReproduced => NOT_REPRODUCED,
                        _ => UNDECIDED,
                    },
                })
            })
            .collect(),
        None => r
            .comparisons
            .iter()
            .map(|c| ForestLine {
                label: format!("{} · {}", c.key.dataset, measured_label(&c.key)),
                delta: c.test.mean_diff,
                ci: c.test.ci95_diff,
                claim: None,
                note: format!(
                    "{} {}, n = {}, MDE {}",
                    num(c.test.mean_diff),
                    ci_text(c.test.ci95_diff),
                    c.test.n,
                    mde_text(c.test.mde)
                ),
                color: MEASURED,
            })
            .collect(),
    }
}

/// The forest plot of a report as an SVG document: one line per comparison (or per
/// claim-comparison pair), Δ = +MA − baseline with its 95% interval, the paper's claimed
/// Δ marked ×, and a line at 0. `None` when there is nothing to draw.
pub fn forest(r: &Report) -> Result<Option<String>> {
    let lines = forest_lines(r);
    if lines.is_empty() {
        return Ok(None);
    }
    let n = lines.len();
    let mut lo = 0.0f64;
    let mut hi = 0.0f64;
    for l in &lines {
        let (a, b) = l.ci.unwrap_or((l.delta, l.delta));
        for x in [a, b, l.delta].into_iter().chain(l.claim) {
            if x.is_finite() {
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
    }
    let pad = ((hi - lo) * 0.06).max(10f64.powi(-(r.metric.decimals() as i32)));
    let (x0, x1) = (lo - pad, hi + pad);
    let row_h = 24u32;
    // Label areas sized to their text (about 6.6 px per character at 12 px).
    let text_w = |s: &str| (s.chars().count() as f64 * 6.6).ceil() as u32 + 24;
    let left = lines
        .iter()
        .map(|l| text_w(&l.label))
        .max()
        .unwrap_or(0)
        .max(120);
    let right = lines
        .iter()
        .map(|l| text_w(&l.note))
        .max()
        .unwrap_or(0)
        .max(120);
    let width = left + 640 + right;
    let height = 110 + row_h * n as u32;
    let unit = match r.metric {
        Metric::Accuracy => "accuracy points",
        Metric::Nmi => "NMI",
    };
    let title = if r.verdicts.is_some() {
        "MA's effect: measured Δ with 95% CI (●) and the paper's claimed Δ (×)"
    } else {
        "MA's effect: measured Δ with 95% CI (●)"
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(perr)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 17))
            .margin_top(10)
            .margin_bottom(6)
            .margin_left(left)
            .margin_right(right)
            .x_label_area_size(44)
            .build_cartesian_2d(x0..x1, -0.5f64..(n as f64 - 0.5))
            .map_err(perr)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .max_light_lines(1)
            .x_desc(format!("Δ = +MA − baseline ({unit})"))
            .label_style(("sans-serif", 12))
            .draw()
            .map_err(perr)?;
        // The zero line.
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0.0, -0.5), (0.0, n as f64 - 0.5)],
                BLACK.stroke_width(1),
            )))
            .map_err(perr)?;
        let y_of = |i: usize| (n - 1 - i) as f64;
        for (i, l) in lines.iter().enumerate() {
            let y = y_of(i);
            if let Some((a, b)) = l.ci {
                chart
                    .draw_series(std::iter::once(ErrorBar::new_horizontal(
                        y,
                        a,
                        l.delta,
                        b,
                        l.color.stroke_width(2),
                        8,
                    )))
                    .map_err(perr)?;
            }
            chart
                .draw_series(std::iter::once(Circle::new(
                    (l.delta, y),
                    4,
                    l.color.filled(),
                )))
                .map_err(perr)?;
            if let Some(c) = l.claim {
                chart
                    .draw_series(std::iter::once(Cross::new(
                        (c, y),
                        5,
                        CLAIM.stroke_width(2),
                    )))
                    .map_err(perr)?;
            }
            // Labels left and right of the plotting area.
            let (px, py) = chart.backend_coord(&(x0, y));
            root.draw(&Text::new(
                l.label.clone(),
                (px - 10, py),
                ("sans-serif", 12)
                    .into_font()
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Right, VPos::Center)),
            ))
            .map_err(perr)?;
            let (qx, qy) = chart.backend_coord(&(x1, y));
            root.draw(&Text::new(
                l.note.clone(),
                (qx + 10, qy),
                ("sans-serif", 12)
                    .into_font()
                    .color(&l.color)
                    .pos(Pos::new(HPos::Left, VPos::Center)),
            ))
            .map_err(perr)?;
        }
        root.present().map_err(perr)?;
    }
    Ok(Some(svg))
}

/// Line colour of a method's training curves: its declared colour (a row label's own,
/// e.g. AD-GCL's fixed augmenter); a floor or an undeclared method gets cyan.
fn curve_color(method: &str) -> RGBColor {
    let r = registry::row_method(super::floor::family(method));
    match r.colour() {
        Some((red, green, blue)) if !r.is_floor() => RGBColor(red, green, blue),
        _ => RGBColor(23, 190, 207),
    }
}

/// Band colour of a classical floor, as declared (WL green, the degree histogram grey);
/// olive for any other.
fn band_color(method: &str) -> RGBColor {
    let r = registry::row_method(method);
    match (r.classical(), r.colour()) {
        (Some(_), Some((red, green, blue))) => RGBColor(red, green, blue),
        _ => RGBColor(188, 189, 34),
    }
}

/// Whether a floor band's mean is drawn dashed: as declared (WL's solid); every other
/// band dashed.
fn band_dashed(method: &str) -> bool {
    registry::row_method(method)
        .classical()
        .is_none_or(|(_, dashed)| dashed)
}

/// How a curve is drawn: its colour (the method), whether its line is dashed and its
/// marker a triangle (an MA label other than `none`).
#[derive(Clone)]
struct CurveStyle {
    label: String,
    color: RGBColor,
    ma: bool,
}

fn curve_style(c: &super::curves::Curve) -> CurveStyle {
    CurveStyle {
        label: c.label(),
        color: curve_color(&c.key.method),
        ma: c.key.ma != "none",
    }
}

/// A marker of a curve's style at pixel `(x, y)`.
fn marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    s: &CurveStyle,
    (x, y): (i32, i32),
) -> Result<()> {
    if s.ma {
        area.draw(&TriangleMarker::new((x, y), 5, s.color.filled()))
            .map_err(perr)
    } else {
        area.draw(&Circle::new((x, y), 4, s.color.filled()))
            .map_err(perr)
    }
}

/// Training curves as an SVG document: one panel per dataset (small multiples), one line
/// per method × MA label — mean accuracy at each epoch count with its 95% t-interval as
/// an error bar — on a categorical epoch axis (0 = the untrained encoder), and each
/// classical floor as a horizontal band (the 95% interval of its mean, a line at the
/// mean): WL green and solid, the degree histogram grey and dashed. One legend below the
/// panels. `None` without curve data ([`Report::curves`]).
pub fn curves(r: &Report) -> Result<Option<String>> {
    let c = &r.curves;
    if c.is_empty() {
        return Ok(None);
    }
    let panels = c.panels();
    let epochs = c.epoch_counts();
    // Legend entries: the curves' styles in curve order, then the floors present.
    let styles = distinct_styles(c.curves.iter().map(curve_style));
    let floors = distinct_floors(&c.bands);
    let cols = panels.len().min(3);
    let rows = panels.len().div_ceil(cols);
    let (pw, ph) = (440u32, 340u32);
    // One legend line per method (its MA labels side by side), the floors on their own.
    let mut ma_labels: Vec<&str> = c.curves.iter().map(|x| x.key.ma.as_str()).collect();
    ma_labels.sort_unstable();
    ma_labels.dedup();
    let per_line = ma_labels.len().clamp(2, 4).max(floors.len());
    let curve_lines = styles.len().div_ceil(per_line);
    let legend_h = 28 + 22 * (curve_lines + floors.len().div_ceil(per_line)) as u32;
    let title_h = 40u32;
    let width = pw * cols as u32;
    let height = title_h + ph * rows as u32 + legend_h;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(perr)?;
        let (top, rest) = root.split_vertically(title_h);
        let (grid, legend) = rest.split_vertically(ph * rows as u32);
        top.draw(&Text::new(
            format!(
                "{} against training epochs: mean and 95% CI over seeds; bands: classical floors (95% CI of the mean)",
                match r.metric {
                    Metric::Accuracy => "Accuracy",
                    Metric::Nmi => "NMI",
                }
            ),
            (width as i32 / 2, title_h as i32 / 2),
            ("sans-serif", 17)
                .into_font()
                .color(&BLACK)
                .pos(Pos::new(HPos::Center, VPos::Center)),
        ))
        .map_err(perr)?;
        let areas = grid.split_evenly((rows, cols));
        for ((dataset, split), area) in panels.iter().zip(areas.iter()) {
            draw_curve_panel(area, r, dataset, split, &epochs)?;
        }
        // The legend: a line sample with its marker per curve, a band sample per floor.
        draw_legend(
            &legend,
            width,
            per_line,
            &styles,
            true,
            &floors,
            |area, f, x, y| {
                draw_band_sample(area, f, x, y)?;
                Ok(format!(
                    "{} (floor: 95% CI of its mean)",
                    super::curves::band_label(f)
                ))
            },
        )?;
        root.present().map_err(perr)?;
    }
    Ok(Some(svg))
}

/// The styles of some curves with each label once, in curve order (the legend's entries).
fn distinct_styles(styles: impl Iterator<Item = CurveStyle>) -> Vec<CurveStyle> {
    let mut out: Vec<CurveStyle> = Vec::new();
    for s in styles {
        if !out.iter().any(|x| x.label == s.label) {
            out.push(s);
        }
    }
    out
}

/// The floors that have bands, each once, in band order.
fn distinct_floors(bands: &[super::curves::FloorBand]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for b in bands {
        if !out.contains(&b.method) {
            out.push(b.method.clone());
        }
    }
    out
}

/// The legend below a plot's panels: `per_line` entries to a line across `width` pixels,
/// first a line sample with its marker per curve style (dashed for an MA style where
/// `dash_ma`), then, from a line of their own, one entry per floor, drawn and labelled by
/// `floor_entry(area, floor, x, y)`.
fn draw_legend<DB: DrawingBackend>(
    legend: &DrawingArea<DB, plotters::coord::Shift>,
    width: u32,
    per_line: usize,
    styles: &[CurveStyle],
    dash_ma: bool,
    floors: &[String],
    mut floor_entry: impl FnMut(
        &DrawingArea<DB, plotters::coord::Shift>,
        &str,
        i32,
        i32,
    ) -> Result<String>,
) -> Result<()> {
    let col_w = width as i32 / per_line as i32;
    let curve_lines = styles.len().div_ceil(per_line);
    for (i, e) in styles
        .iter()
        .map(Some)
        .chain(floors.iter().map(|_| None))
        .enumerate()
    {
        // Floors start a line of their own.
        let slot = if i < styles.len() {
            i
        } else {
            curve_lines * per_line + i - styles.len()
        };
        let x = 16 + col_w * (slot % per_line) as i32;
        let y = 20 + 22 * (slot / per_line) as i32;
        let text = match e {
            Some(s) => {
                let line = vec![(x, y), (x + 36, y)];
                if s.ma && dash_ma {
                    legend
                        .draw(&DashedPathElement::new(line, 6, 4, s.color.stroke_width(2)))
                        .map_err(perr)?;
                } else {
                    legend
                        .draw(&PathElement::new(line, s.color.stroke_width(2)))
                        .map_err(perr)?;
                }
                marker(legend, s, (x + 18, y))?;
                s.label.clone()
            }
            None => floor_entry(legend, &floors[i - styles.len()], x, y)?,
        };
        legend
            .draw(&Text::new(
                text,
                (x + 44, y),
                ("sans-serif", 12)
                    .into_font()
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Left, VPos::Center)),
            ))
            .map_err(perr)?;
    }
    Ok(())
}

/// A floor's band sample in the legend at pixel `(x, y)`.
fn draw_band_sample<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    floor: &str,
    x: i32,
    y: i32,
) -> Result<()> {
    let color = band_color(floor);
    area.draw(&Rectangle::new(
        [(x, y - 7), (x + 36, y + 7)],
        color.mix(0.22).filled(),
    ))
    .map_err(perr)?;
    let line = vec![(x, y), (x + 36, y)];
    if !band_dashed(floor) {
        area.draw(&PathElement::new(line, color.stroke_width(1)))
            .map_err(perr)
    } else {
        area.draw(&DashedPathElement::new(line, 4, 3, color.stroke_width(1)))
            .map_err(perr)
    }
}

/// The chart of one small-multiples panel (training curves, pre-training sizes): the
/// dataset (with its split) as caption, the metric on the y axis, no x labels (each plot
/// writes its own under the axis with [`text_under`]).
fn panel_chart<'a, 'b>(
    area: &'a DrawingArea<SVGBackend<'b>, plotters::coord::Shift>,
    (dataset, split): (&str, &str),
    metric: Metric,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
    margin_right: u32,
) -> Result<PanelChart<'a, 'b>> {
    let title = if split.is_empty() {
        dataset.to_string()
    } else {
        format!("{dataset} ({split} split)")
    };
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .margin_right(margin_right)
        .x_label_area_size(40)
        .y_label_area_size(52)
        .build_cartesian_2d(x0..x1, y0..y1)
        .map_err(perr)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .max_light_lines(1)
        .x_labels(0)
        .y_desc(metric_label(metric))
        .label_style(("sans-serif", 12))
        .draw()
        .map_err(perr)?;
    Ok(chart)
}

type PanelChart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    plotters::coord::cartesian::Cartesian2d<
        plotters::coord::types::RangedCoordf64,
        plotters::coord::types::RangedCoordf64,
    >,
>;

/// `text` centred `dy` pixels below the chart point `at`, in a `size`-point font.
fn text_under(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    chart: &PanelChart,
    at: (f64, f64),
    dy: i32,
    text: &str,
    size: u32,
) -> Result<()> {
    let base = area.get_base_pixel();
    let (px, py) = chart.backend_coord(&at);
    area.draw(&Text::new(
        text,
        (px - base.0, py - base.1 + dy),
        ("sans-serif", size)
            .into_font()
            .color(&BLACK)
            .pos(Pos::new(HPos::Center, VPos::Top)),
    ))
    .map_err(perr)
}

/// A point of a drawn curve: (x, y) and the 95% interval of y, if any.
type PlotPoint = ((f64, f64), Option<(f64, f64)>);

/// One curve of a panel: the line through `points` (dashed where `dashed`), then at each
/// point its interval as an error bar and the style's marker.
fn draw_curve_points(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    chart: &mut PanelChart,
    s: &CurveStyle,
    dashed: bool,
    points: &[PlotPoint],
) -> Result<()> {
    let xy: Vec<(f64, f64)> = points.iter().map(|p| p.0).collect();
    if dashed {
        chart
            .draw_series(std::iter::once(DashedPathElement::new(
                xy,
                6,
                4,
                s.color.stroke_width(2),
            )))
            .map_err(perr)?;
    } else {
        chart
            .draw_series(std::iter::once(PathElement::new(
                xy,
                s.color.stroke_width(2),
            )))
            .map_err(perr)?;
    }
    let base = area.get_base_pixel();
    for &((x, y), ci) in points {
        if let Some((a, z)) = ci {
            chart
                .draw_series(std::iter::once(ErrorBar::new_vertical(
                    x,
                    a,
                    y,
                    z,
                    s.color.stroke_width(1),
                    6,
                )))
                .map_err(perr)?;
        }
        let (px, py) = chart.backend_coord(&(x, y));
        marker(area, s, (px - base.0, py - base.1))?;
    }
    Ok(())
}

fn draw_curve_panel(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    r: &Report,
    dataset: &str,
    split: &str,
    epochs: &[usize],
) -> Result<()> {
    let c = &r.curves;
    let curves: Vec<&super::curves::Curve> = c
        .curves
        .iter()
        .filter(|x| x.key.dataset == dataset && x.key.split == split)
        .collect();
    let bands: Vec<&super::curves::FloorBand> = c
        .bands
        .iter()
        .filter(|b| b.dataset == dataset && b.split == split)
        .collect();
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for p in curves.iter().flat_map(|x| x.points.iter()) {
        let (a, b) = p.ci95.unwrap_or((p.mean, p.mean));
        lo = lo.min(a).min(p.mean);
        hi = hi.max(b).max(p.mean);
    }
    for b in &bands {
        let (x, y) = b.ci95.unwrap_or((b.mean, b.mean));
        lo = lo.min(x).min(b.mean);
        hi = hi.max(y).max(b.mean);
    }
    if !lo.is_finite() || !hi.is_finite() {
        return Ok(());
    }
    let pad = ((hi - lo) * 0.08).max(10f64.powi(-(r.metric.decimals() as i32) + 1));
    let (y0, y1) = (lo - pad, (hi + pad).min(metric_top(r.metric)));
    let k = epochs.len();
    let (x0, x1) = (-0.5, k as f64 - 0.5);
    let mut chart = panel_chart(area, (dataset, split), r.metric, (x0, x1), (y0, y1), 10)?;
    // Epoch counts under their categories, and the axis name under them.
    for (i, e) in epochs.iter().enumerate() {
        text_under(area, &chart, (i as f64, y0), 6, &e.to_string(), 12)?;
    }
    text_under(
        area,
        &chart,
        ((x0 + x1) / 2.0, y0),
        22,
        "training epochs (0 = untrained encoder; categorical axis)",
        11,
    )?;
    // Floor bands first, under the curves.
    for b in &bands {
        let color = band_color(&b.method);
        let (a, z) = b.ci95.unwrap_or((b.mean, b.mean));
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(x0, a), (x1, z)],
                color.mix(0.22).filled(),
            )))
            .map_err(perr)?;
        let line = vec![(x0, b.mean), (x1, b.mean)];
        if !band_dashed(&b.method) {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    line,
                    color.stroke_width(1),
                )))
                .map_err(perr)?;
        } else {
            chart
                .draw_series(std::iter::once(DashedPathElement::new(
                    line,
                    4,
                    3,
                    color.stroke_width(1),
                )))
                .map_err(perr)?;
        }
    }
    // Curves side by side within each category so their error bars do not overlap.
    let m = curves.len();
    let dodge = if m > 1 { 0.5 / m as f64 } else { 0.0 };
    for (j, curve) in curves.iter().enumerate() {
        let s = curve_style(curve);
        let off = (j as f64 - (m as f64 - 1.0) / 2.0) * dodge;
        let points: Vec<PlotPoint> = curve
            .points
            .iter()
            .filter_map(|p| {
                let i = epochs.iter().position(|e| *e == p.epochs)?;
                Some(((i as f64 + off, p.mean), p.ci95))
            })
            .collect();
        draw_curve_points(area, &mut chart, &s, s.ma, &points)?;
    }
    Ok(())
}

/// Line colours of the pre-training size plot, one per method in the order the curves
/// come (WL's green and the degree histogram's grey are left to the floors).
const SIZE_COLORS: &[RGBColor] = &[
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// A colour darkened towards black by `t` (0 = as it is): the matched-steps curve of a
/// method beside its preset-epochs curve.
fn darker(c: RGBColor, t: f64) -> RGBColor {
    let f = |x: u8| (x as f64 * (1.0 - t)).round() as u8;
    RGBColor(f(c.0), f(c.1), f(c.2))
}

/// The x position of a point on the log2 axis: log2 of its size; a whole set of unknown
/// size one doubling right of the largest subset of its curve.
fn size_x(p: &super::pretrain::SizePoint, curve: &super::pretrain::SizeCurve) -> f64 {
    match p.size {
        Some(n) => (n.max(1) as f64).log2(),
        None => {
            let largest = curve
                .points
                .iter()
                .filter_map(|q| q.graphs)
                .max()
                .unwrap_or(1);
            (largest.max(1) as f64).log2() + 1.0
        }
    }
}

/// The y range of a panel holding `values` (means and interval ends): padded, and never
/// past the metric's maximum (100% of accuracy, 1 of NMI) nor below 0.
pub(crate) fn bounded_y_range(values: &[f64], metric: Metric) -> Option<(f64, f64)> {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !lo.is_finite() || !hi.is_finite() {
        return None;
    }
    let top = match metric {
        Metric::Accuracy => 100.0,
        Metric::Nmi => 1.0,
    };
    let pad = ((hi - lo) * 0.08).max(10f64.powi(-(metric.decimals() as i32) + 1));
    let y1 = (hi + pad).min(top);
    let y0 = (lo - pad).max(0.0).min(y1 - pad);
    Some((y0, y1))
}

/// How a pre-training size curve is drawn: solid line, circles for the preset epochs; a
/// darker line with triangles for the matched steps.
fn size_style(c: &super::pretrain::SizeCurve, methods: &[String]) -> CurveStyle {
    let i = methods.iter().position(|m| *m == c.key.method).unwrap_or(0);
    let base = SIZE_COLORS[i % SIZE_COLORS.len()];
    let matched = c.kind == super::pretrain::CurveKind::MatchedSteps;
    CurveStyle {
        label: c.label(),
        color: if matched { darker(base, 0.4) } else { base },
        ma: matched,
    }
}

/// The colour of a floor band in the pre-training size plot: an untrained encoder takes
/// its method's colour, a classical floor its own.
fn size_band_color(method: &str, r: &Report, methods: &[String]) -> RGBColor {
    let of = r
        .pretrain
        .curves
        .iter()
        .find(|c| {
            c.untrained
                .as_ref()
                .is_some_and(|u| family(&u.method) == method)
        })
        .and_then(|c| methods.iter().position(|m| *m == c.key.method));
    match of {
        Some(i) => SIZE_COLORS[i % SIZE_COLORS.len()],
        None => band_color(method),
    }
}

/// Accuracy against the number of graphs pre-trained on, as an SVG document: one panel
/// per dataset, x the pre-training size on a log2 axis (the whole set rightmost), one
/// solid line per method × MA label × curve (the preset epochs with circles; the matched
/// steps darker, with triangles) with the 95% t-interval of each point as an error bar,
/// and the floors as horizontal bands (the 95% interval of the mean, a dashed line at the
/// mean): each curve's untrained encoder in its method's colour, WL and the degree
/// histogram in theirs. The y axis stops at 100% (1 for NMI). `None` without pre-training
/// subsets ([`Report::pretrain`]).
pub fn pretrain_sizes(r: &Report) -> Result<Option<String>> {
    let c = &r.pretrain;
    if c.is_empty() {
        return Ok(None);
    }
    let panels = c.panels();
    let mut methods: Vec<String> = Vec::new();
    for curve in &c.curves {
        if !methods.contains(&curve.key.method) {
            methods.push(curve.key.method.clone());
        }
    }
    let styles = distinct_styles(c.curves.iter().map(|x| size_style(x, &methods)));
    let floors = distinct_floors(&c.bands);
    let cols = panels.len().min(3);
    let rows = panels.len().div_ceil(cols);
    let (pw, ph) = (560u32, 380u32);
    // Legend entries side by side: as many per line as there are panel columns, up to 2.
    let per_line = cols.min(2);
    let entries = styles.len().div_ceil(per_line) + floors.len().div_ceil(per_line);
    let legend_h = 28 + 22 * entries as u32;
    let title_h = 56u32;
    let width = pw * cols as u32;
    let height = title_h + ph * rows as u32 + legend_h;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(perr)?;
        let (top, rest) = root.split_vertically(title_h);
        let (grid, legend) = rest.split_vertically(ph * rows as u32);
        for (line, text) in [
            format!(
                "{} against the number of graphs pre-trained on",
                match r.metric {
                    Metric::Accuracy => "Accuracy",
                    Metric::Nmi => "NMI",
                }
            ),
            "mean and 95% CI over seeds; bands: floors (95% CI of the mean)".to_string(),
        ]
        .into_iter()
        .enumerate()
        {
            top.draw(&Text::new(
                text,
                (width as i32 / 2, 18 + 22 * line as i32),
                ("sans-serif", 16 - 3 * line as u32)
                    .into_font()
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Center, VPos::Center)),
            ))
            .map_err(perr)?;
        }
        let areas = grid.split_evenly((rows, cols));
        for ((dataset, split), area) in panels.iter().zip(areas.iter()) {
            draw_size_panel(area, r, dataset, split, &methods)?;
        }
        draw_legend(
            &legend,
            width,
            per_line,
            &styles,
            false,
            &floors,
            |area, f, x, y| {
                draw_size_band_sample(area, size_band_color(f, r, &methods), x, y)?;
                Ok(format!(
                    "{} (floor: 95% CI of its mean)",
                    super::pretrain::floor_label(f)
                ))
            },
        )?;
        root.present().map_err(perr)?;
    }
    Ok(Some(svg))
}

fn draw_size_band_sample<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    color: RGBColor,
    x: i32,
    y: i32,
) -> Result<()> {
    area.draw(&Rectangle::new(
        [(x, y - 7), (x + 36, y + 7)],
        color.mix(0.18).filled(),
    ))
    .map_err(perr)?;
    area.draw(&DashedPathElement::new(
        vec![(x, y), (x + 36, y)],
        4,
        3,
        color.mix(0.8).stroke_width(1),
    ))
    .map_err(perr)
}

fn draw_size_panel(
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
    r: &Report,
    dataset: &str,
    split: &str,
    methods: &[String],
) -> Result<()> {
    let c = &r.pretrain;
    let curves: Vec<&super::pretrain::SizeCurve> = c
        .curves
        .iter()
        .filter(|x| x.key.dataset == dataset && x.key.split == split)
        .collect();
    let bands: Vec<&super::curves::FloorBand> = c
        .bands
        .iter()
        .filter(|b| b.dataset == dataset && b.split == split)
        .collect();
    let mut ys = Vec::new();
    for p in curves.iter().flat_map(|x| x.points.iter()) {
        let (a, b) = p.ci95.unwrap_or((p.mean, p.mean));
        ys.extend([a, b, p.mean]);
    }
    for b in &bands {
        let (x, y) = b.ci95.unwrap_or((b.mean, b.mean));
        ys.extend([x, y, b.mean]);
    }
    let Some((y0, y1)) = bounded_y_range(&ys, r.metric) else {
        return Ok(());
    };
    // Ticks: every size measured, labelled once (the whole set wins over a subset within
    // a third of a doubling of it).
    let mut ticks: Vec<(f64, String, bool)> = Vec::new();
    for curve in &curves {
        for p in &curve.points {
            let x = size_x(p, curve);
            if !ticks
                .iter()
                .any(|(t, l, _)| (*t - x).abs() < 1e-9 && *l == p.label())
            {
                ticks.push((x, p.label(), p.graphs.is_none()));
            }
        }
    }
    ticks.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.2.cmp(&b.2)));
    let mut shown: Vec<(f64, String, bool)> = Vec::new();
    for t in ticks {
        match shown.last() {
            Some(last) if t.0 - last.0 < 0.33 => {
                if t.2 && !last.2 {
                    shown.pop();
                    shown.push(t);
                }
            }
            _ => shown.push(t),
        }
    }
    let (xmin, xmax) = match (shown.first(), shown.last()) {
        (Some(a), Some(b)) => (a.0, b.0),
        _ => return Ok(()),
    };
    let (x0, x1) = (xmin - 0.4, xmax + 0.4);
    let mut chart = panel_chart(area, (dataset, split), r.metric, (x0, x1), (y0, y1), 24)?;
    for (x, label, _) in &shown {
        text_under(area, &chart, (*x, y0), 6, label, 11)?;
    }
    text_under(
        area,
        &chart,
        ((x0 + x1) / 2.0, y0),
        22,
        "graphs pre-trained on (log2 axis; all = the whole set)",
        11,
    )?;
    // Bands first, under the curves; a band past the axis is clipped to it.
    for b in &bands {
        let color = size_band_color(&b.method, r, methods);
        let (a, z) = b.ci95.unwrap_or((b.mean, b.mean));
        let clip = |v: f64| v.clamp(y0, y1);
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(x0, clip(a)), (x1, clip(z))],
                color.mix(0.18).filled(),
            )))
            .map_err(perr)?;
        chart
            .draw_series(std::iter::once(DashedPathElement::new(
                vec![(x0, clip(b.mean)), (x1, clip(b.mean))],
                4,
                3,
                color.mix(0.8).stroke_width(1),
            )))
            .map_err(perr)?;
    }
    // The two curves of a method side by side so their error bars do not overlap.
    let m = curves.len();
    let dodge = if m > 1 { 0.12 / m as f64 } else { 0.0 };
    for (j, curve) in curves.iter().enumerate() {
        let s = size_style(curve, methods);
        let off = (j as f64 - (m as f64 - 1.0) / 2.0) * dodge;
        // Points past the axis are drawn on it.
        let clip = |v: f64| v.clamp(y0, y1);
        let points: Vec<PlotPoint> = curve
            .points
            .iter()
            .map(|p| {
                let ci = p.ci95.map(|(a, z)| (clip(a), clip(z)));
                ((size_x(p, curve) + off, clip(p.mean)), ci)
            })
            .collect();
        draw_curve_points(area, &mut chart, &s, false, &points)?;
    }
    Ok(())
}
