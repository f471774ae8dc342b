//! SVG pictures of bench records, drawn with plotters' SVG backend only.
//!
//! Text needs no font: with neither the `ttf` nor the `ab_glyph` feature,
//! plotters sizes labels with its built-in estimate (`style::font::naive`)
//! and the SVG backend writes each label as an SVG `<text>` element
//! (`font-family="sans-serif"`), which the viewer renders with its own
//! fonts. No font file, no system library, no rasterisation.
//!
//! The picture has three panels:
//! 1. the latest record's pattern runs: one bar per run at its median rate,
//!    a whisker from the slowest to the fastest launch, the ceiling when the
//!    device has one; a run that failed its check has no bar, only its
//!    outcome;
//! 2. the latest record's occupancy sweep: rate against waves per workgroup
//!    (one step per doubling), dots per (wave size, workgroups per CU) —
//!    colour for workgroups per CU, marker for wave size — each with its
//!    slowest-to-fastest whisker, set a little apart so none hides another;
//! 3. across records (oldest to newest, several files): the median rate of
//!    each independent-chain pattern run with its whisker, each record
//!    labelled with its time, DATA seed and timed launches, so a nightly's
//!    trend and a regression are visible at a glance. With one record this
//!    panel is one line of text, not an empty chart.
//!
//! Conformance results (`dsxor-results/1`) get their own picture in the
//! same style (`render_conformance`): cases passed/failed per (pattern,
//! wave) of the latest run, and failed cases across runs, each run's point
//! labelled with its failed and total cases, seed and injected fault (one
//! run: one line of text).
//!
//! Every rate and count axis is linear from zero, so lengths and heights
//! compare as the values do (a 2x ratio looks like 2x); ticks carry no
//! empty digits (`si_tick`). Colours are Okabe and Ito's colour-blind-safe
//! palette, and every panel that uses colour or whiskers says what they
//! mean in a legend. Records of the software device say on every panel that the
//! rate is the emulator's speed, never a GPU figure.

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::gen::Pattern;
use crate::report::bench_record::{BenchRecord, CeilingRecord, RunRecord};
use crate::report::results::{PatternCounts, Results, Status};

const WIDTH: u32 = 1200;

// Okabe & Ito, "Color Universal Design" (2008): eight colours told apart
// under every common colour-vision deficiency.
const OI_BLUE: RGBColor = RGBColor(0, 114, 178);
pub(crate) const OI_ORANGE: RGBColor = RGBColor(230, 159, 0);
pub(crate) const OI_GREEN: RGBColor = RGBColor(0, 158, 115);
pub(crate) const OI_VERMILLION: RGBColor = RGBColor(213, 94, 0);
const OI_SKY: RGBColor = RGBColor(86, 180, 233);
const OI_PURPLE: RGBColor = RGBColor(204, 121, 167);
/// The palette in the order series take it.
pub const PALETTE: [RGBColor; 6] = [
    OI_BLUE,
    OI_ORANGE,
    OI_GREEN,
    OI_VERMILLION,
    OI_SKY,
    OI_PURPLE,
];
const ROW: u32 = 22;
const LABEL_AREA: i32 = 330;
const LEGEND_WIDTH: i32 = 280;

#[derive(Debug, thiserror::Error)]
pub enum SvgError {
    #[error("no bench record to draw")]
    NoRecords,
    #[error("no conformance results to draw")]
    NoResults,
    #[error("records mix emulated and GPU rates (`{0}` and `{1}`): the emulator's speed is no GPU figure; draw them separately")]
    MixedMetrics(String, String),
    #[error("drawing failed: {0}")]
    Draw(String),
}

fn draw_err<E: std::fmt::Debug>(e: E) -> SvgError {
    SvgError::Draw(format!("{e:?}"))
}

/// `1.230 G` style: three decimals and an SI prefix (value labels and
/// tables; axis ticks use [`si_tick`]).
pub fn si(x: f64) -> String {
    if !x.is_finite() || x <= 0.0 {
        return format!("{x}");
    }
    let prefixes = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    for (scale, p) in prefixes {
        if x >= scale {
            return format!("{:.3} {p}", x / scale);
        }
    }
    format!("{x:.3}")
}

/// An axis tick: an SI prefix and no trailing zeros (`10 M`, `2.5 G`,
/// `0`), so a tick never shows digits it does not mean ("10.000 M").
pub fn si_tick(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    let s = si(x);
    let (num, unit) = match s.split_once(' ') {
        Some((n, u)) => (n.to_string(), format!(" {u}")),
        None => (s.clone(), String::new()),
    };
    let num = if num.contains('.') {
        num.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        num
    };
    format!("{num}{unit}")
}

/// A percentage with three significant digits at most (`52.1 %`, `0.0521 %`).
pub fn percent(fraction: f64) -> String {
    let p = fraction * 100.0;
    let digits = if p >= 10.0 {
        1
    } else if p >= 1.0 {
        2
    } else if p >= 0.1 {
        3
    } else {
        4
    };
    format!("{p:.digits$} %")
}

fn rate_axis_label(r: &BenchRecord, scale: &str) -> String {
    let what = if r.is_emulated() {
        "EMULATED lane-ops/s: the software device's own speed, not a GPU figure"
    } else {
        "ds_xor_rtn_b64 lane-ops/s on the GPU"
    };
    match (&r.ceiling, &r.no_ceiling_reason) {
        // The software device never has one; its label already says why.
        (None, _) if r.is_emulated() => format!("{what}; no hardware ceiling ({scale})"),
        (None, Some(why)) => format!("{what} ({scale}); no ceiling: {why}"),
        _ => format!("{what} ({scale})"),
    }
}

/// A chart's backend pixel as a coordinate of `area` (which may not start
/// at the picture's origin).
fn to_area(area: &DrawingArea<SVGBackend, Shift>, (x, y): (i32, i32)) -> (i32, i32) {
    let (bx, by) = area.get_base_pixel();
    (x - bx, y - by)
}

fn passing(run: &RunRecord) -> Option<(f64, f64, f64)> {
    let r = run.lane_ops_per_second?;
    (run.outcome == "pass").then_some((r.median, r.min, r.max))
}

/// The top of a linear axis from zero covering `values`, with room above.
fn linear_top(values: impl Iterator<Item = f64>) -> f64 {
    values
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max)
        .max(1.0)
        * 1.15
}

/// A tick of a count axis: whole numbers only, nothing between them.
fn whole_tick(v: f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{v:.0}")
    } else {
        String::new()
    }
}

const WHISKER_LEGEND: &str = "whisker: slowest to fastest launch";

/// Vertical whiskers (x, from, to) in `color`.
fn draw_whiskers(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    spans: &[(f64, f64, f64)],
    color: RGBAColor,
) -> Result<(), SvgError> {
    chart
        .draw_series(
            spans.iter().map(|&(x, lo, hi)| {
                PathElement::new(vec![(x, lo), (x, hi)], color.stroke_width(2))
            }),
        )
        .map_err(draw_err)?;
    Ok(())
}

/// One series of `(x, median, low, high)` marks: a line through the
/// medians, a whisker per mark, and the wave size's marker (a triangle for
/// wave64, a dot for wave32).
fn draw_marked_series(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    marks: &[(f64, f64, f64, f64)],
    color: RGBAColor,
    triangle: bool,
) -> Result<(), SvgError> {
    let points: Vec<(f64, f64)> = marks.iter().map(|m| (m.0, m.1)).collect();
    chart
        .draw_series(LineSeries::new(points.clone(), color.stroke_width(1)))
        .map_err(draw_err)?;
    let spans: Vec<(f64, f64, f64)> = marks.iter().map(|m| (m.0, m.2, m.3)).collect();
    draw_whiskers(chart, &spans, color)?;
    if triangle {
        chart
            .draw_series(
                points
                    .iter()
                    .map(|&p| TriangleMarker::new(p, 6, color.filled())),
            )
            .map_err(draw_err)?;
    } else {
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled())))
            .map_err(draw_err)?;
    }
    Ok(())
}

/// A legend row at `(x0, y)`: the series' line and marker, then `label`.
fn draw_legend_entry(
    area: &DrawingArea<SVGBackend, Shift>,
    (x0, y): (i32, i32),
    color: RGBAColor,
    triangle: bool,
    label: String,
) -> Result<(), SvgError> {
    area.draw(&PathElement::new(
        vec![(x0 + 16, y), (x0 + 40, y)],
        color.stroke_width(1),
    ))
    .map_err(draw_err)?;
    if triangle {
        area.draw(&TriangleMarker::new((x0 + 28, y), 6, color.filled()))
            .map_err(draw_err)?;
    } else {
        area.draw(&Circle::new((x0 + 28, y), 4, color.filled()))
            .map_err(draw_err)?;
    }
    area.draw(&Text::new(
        label,
        (x0 + 46, y),
        ("sans-serif", 12)
            .into_font()
            .into_text_style(area)
            .pos(Pos::new(HPos::Left, VPos::Center)),
    ))
    .map_err(draw_err)?;
    Ok(())
}

/// Render `records` (any order; sorted by creation time here) as one SVG.
pub fn render(records: &[BenchRecord]) -> Result<String, SvgError> {
    let mut sorted: Vec<&BenchRecord> = records.iter().collect();
    sorted.sort_by(|a, b| a.created_utc.cmp(&b.created_utc));
    let latest = *sorted.last().ok_or(SvgError::NoRecords)?;
    if let Some(other) = sorted.iter().find(|r| r.metric != latest.metric) {
        return Err(SvgError::MixedMetrics(
            latest.metric.clone(),
            other.metric.clone(),
        ));
    }
    let patterns: Vec<&RunRecord> = latest
        .runs
        .iter()
        .filter(|r| r.sweep == "patterns")
        .collect();
    let occupancy: Vec<&RunRecord> = latest
        .runs
        .iter()
        .filter(|r| r.sweep == "occupancy")
        .collect();
    let h1 = 110 + ROW * patterns.len().max(1) as u32;
    let h2 = 420;
    let h3 = if sorted.len() < 2 { NOTE_HEIGHT } else { 460 };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, h1 + h2 + h3)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let (top, rest) = root.split_vertically(h1);
        let (middle, bottom) = rest.split_vertically(h2);
        draw_patterns(&top, latest, &patterns)?;
        draw_occupancy(&middle, latest, &occupancy)?;
        if sorted.len() < 2 {
            draw_note(
                &bottom,
                "one record: give dsxor report several files to see a trend",
            )?;
        } else {
            draw_trend(&bottom, &sorted)?;
        }
        root.present().map_err(draw_err)?;
    }
    Ok(svg)
}

fn title(r: &BenchRecord, what: &str) -> String {
    let d = &r.environment.device;
    format!(
        "{what}: {} ({}, {} backend), {}",
        d.name,
        d.target_id,
        d.backend.name(),
        r.created_utc
    )
}

fn draw_patterns(
    area: &DrawingArea<SVGBackend, Shift>,
    r: &BenchRecord,
    runs: &[&RunRecord],
) -> Result<(), SvgError> {
    let mut values: Vec<f64> = runs
        .iter()
        .filter_map(|x| passing(x))
        .flat_map(|(m, lo, hi)| [m, lo, hi])
        .collect();
    if let Some(c) = &r.ceiling {
        values.push(c.lane_ops_per_second);
    }
    // Linear from zero: a bar twice as long is twice the rate.
    let lo = 0.0;
    let hi = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max)
        .max(1.0)
        * 1.15;
    let n = runs.len().max(1) as f64;
    let mut chart = ChartBuilder::on(area)
        .caption(
            title(r, "ds_xor_rtn_b64 throughput per pattern"),
            ("sans-serif", 20),
        )
        .margin(10)
        .margin_right(40)
        .x_label_area_size(45)
        .y_label_area_size(LABEL_AREA)
        .build_cartesian_2d(lo..hi, 0.0..n)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_label_formatter(&|v| si_tick(*v))
        .x_desc(rate_axis_label(r, "linear, from 0"))
        .draw()
        .map_err(draw_err)?;
    let mut legend = PatternLegend {
        dep: true,
        indep: true,
        whisker: true,
    };
    for (i, run) in runs.iter().enumerate() {
        let y = n - i as f64 - 0.5;
        let (px, py) = to_area(area, chart.backend_coord(&(lo, y)));
        let label = match &run.fraction_of_ceiling {
            Some(f) => format!("{}  ({} of ceiling)", run.name, percent(*f)),
            None => run.name.clone(),
        };
        area.draw(&Text::new(
            label,
            (px - 8, py),
            ("sans-serif", 13)
                .into_font()
                .into_text_style(area)
                .pos(Pos::new(HPos::Right, VPos::Center)),
        ))
        .map_err(draw_err)?;
        match passing(run) {
            Some(rate) => draw_pattern_bar(&mut chart, area, run, (lo, y), rate, &mut legend)?,
            None => {
                let why = run.error.clone().unwrap_or_default();
                chart
                    .draw_series(std::iter::once(Text::new(
                        format!("{}: no rate counted {why}", run.outcome.to_uppercase()),
                        (lo, y),
                        ("sans-serif", 13)
                            .into_font()
                            .into_text_style(area)
                            .color(&OI_VERMILLION)
                            .pos(Pos::new(HPos::Left, VPos::Center)),
                    )))
                    .map_err(draw_err)?;
            }
        }
    }
    if let Some(c) = &r.ceiling {
        draw_ceiling(&mut chart, area, c, n)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 12))
        .draw()
        .map_err(draw_err)?;
    Ok(())
}

/// The pattern panel's legend entries still to give: each kind of mark
/// gets one, at its first use.
struct PatternLegend {
    dep: bool,
    indep: bool,
    whisker: bool,
}

/// One passing pattern run at row `y`: its bar to the median `rate`, its
/// slowest-to-fastest whisker and the median's value, with a legend entry
/// for each kind of mark at its first use.
fn draw_pattern_bar(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    area: &DrawingArea<SVGBackend, Shift>,
    run: &RunRecord,
    (lo, y): (f64, f64),
    (median, min, max): (f64, f64, f64),
    legend: &mut PatternLegend,
) -> Result<(), SvgError> {
    let colour = if run.chain == "dep" {
        OI_BLUE
    } else {
        OI_ORANGE
    };
    let bar = chart
        .draw_series(std::iter::once(Rectangle::new(
            [(lo, y - 0.35), (median, y + 0.35)],
            colour.filled(),
        )))
        .map_err(draw_err)?;
    let first = if run.chain == "dep" {
        std::mem::take(&mut legend.dep)
    } else {
        std::mem::take(&mut legend.indep)
    };
    if first {
        bar.label(if run.chain == "dep" {
            "median rate, dependent chain (1 in flight)"
        } else {
            "median rate, independent chain (4 in flight)"
        })
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 14, y + 5)], colour.filled()));
    }
    let whisker = chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(min, y), (max, y)],
            BLACK.stroke_width(2),
        )))
        .map_err(draw_err)?;
    if std::mem::take(&mut legend.whisker) {
        whisker
            .label(WHISKER_LEGEND)
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], BLACK.stroke_width(2)));
    }
    chart
        .draw_series(std::iter::once(Text::new(
            si(median),
            (max, y),
            ("sans-serif", 12)
                .into_font()
                .into_text_style(area)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        )))
        .map_err(draw_err)?;
    Ok(())
}

/// The device's ceiling across the pattern panel's `n` rows, with how it
/// was derived.
fn draw_ceiling(
    chart: &mut ChartContext<'_, SVGBackend<'_>, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    area: &DrawingArea<SVGBackend, Shift>,
    c: &CeilingRecord,
    n: f64,
) -> Result<(), SvgError> {
    let x = c.lane_ops_per_second;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(x, 0.0), (x, n)],
            OI_VERMILLION.stroke_width(2),
        )))
        .map_err(draw_err)?
        .label("ceiling derived from the device's attributes")
        .legend(|(x, y)| {
            PathElement::new(
                vec![(x + 7, y - 6), (x + 7, y + 6)],
                OI_VERMILLION.stroke_width(2),
            )
        });
    chart
        .draw_series(std::iter::once(Text::new(
            format!(
                "ceiling {} ({} CUs x {} kHz x {}/clk/CU)",
                si(x),
                c.compute_units,
                c.clock_khz,
                c.lanes_per_clock_per_cu
            ),
            (x, n),
            ("sans-serif", 12)
                .into_font()
                .into_text_style(area)
                .color(&OI_VERMILLION)
                .pos(Pos::new(HPos::Right, VPos::Top)),
        )))
        .map_err(draw_err)?;
    Ok(())
}

fn draw_occupancy(
    area: &DrawingArea<SVGBackend, Shift>,
    r: &BenchRecord,
    runs: &[&RunRecord],
) -> Result<(), SvgError> {
    // The rate axis is linear from zero: a dot twice as high is twice the
    // rate, and whisker lengths compare. The sweep doubles the waves per
    // workgroup, so the x axis has one equal step per doubling (the values
    // are the labels), and series sharing a step are set a little apart so
    // that no whisker hides another.
    let hi = linear_top(
        runs.iter()
            .filter_map(|x| passing(x))
            .map(|(_, _, max)| max),
    );
    let mut steps: Vec<u32> = runs.iter().map(|x| x.waves_per_group).collect();
    steps.sort_unstable();
    steps.dedup();
    let step_of = |w: u32| steps.iter().position(|&s| s == w).unwrap_or(0) as f64;
    let n_steps = steps.len().max(1);
    let mut chart = ChartBuilder::on(area)
        .caption(
            "occupancy sweep: conflict-free, independent chain (median of each run)",
            ("sans-serif", 18),
        )
        .margin(10)
        .margin_right(LEGEND_WIDTH)
        .x_label_area_size(45)
        .y_label_area_size(90)
        .build_cartesian_2d(-0.5f64..n_steps as f64 - 0.5, 0.0..hi)
        .map_err(draw_err)?;
    let labels: Vec<String> = steps.iter().map(|s| s.to_string()).collect();
    chart
        .configure_mesh()
        .x_labels(n_steps.clamp(1, 12))
        .x_label_formatter(&|v| index_label(&labels, *v))
        .y_label_formatter(&|v| si_tick(*v))
        .x_desc("waves per workgroup (one step per doubling)")
        .y_desc(if r.is_emulated() {
            "EMULATED lane-ops/s (not a GPU figure; linear, from 0)"
        } else {
            "lane-ops/s (linear, from 0)"
        })
        .draw()
        .map_err(draw_err)?;
    // One series per (wave size, workgroups per CU): the colour says the
    // workgroups per CU, the marker the wave size (circle wave32, triangle
    // wave64), so no two series look alike within the palette.
    let mut keys: Vec<(u32, u32)> = Vec::new();
    for run in runs {
        if !keys.contains(&(run.wave, run.workgroups_per_cu)) {
            keys.push((run.wave, run.workgroups_per_cu));
        }
    }
    let mut per_cu_values: Vec<u32> = keys.iter().map(|k| k.1).collect();
    per_cu_values.sort_unstable();
    per_cu_values.dedup();
    if keys.is_empty() || runs.iter().all(|x| passing(x).is_none()) {
        let (px, py) = to_area(area, chart.backend_coord(&(-0.5, hi)));
        area.draw(&Text::new(
            "no passing occupancy run in the latest record",
            (px + 10, py + 10),
            ("sans-serif", 14).into_font().into_text_style(area),
        ))
        .map_err(draw_err)?;
    }
    let (x0, y0) = to_area(area, chart.backend_coord(&(n_steps as f64 - 0.5, hi)));
    let spread = 0.5 / keys.len().max(1) as f64;
    for (k, &(wave, per_cu)) in keys.iter().enumerate() {
        let c = per_cu_values.iter().position(|&v| v == per_cu).unwrap_or(0);
        let color = PALETTE[c % PALETTE.len()].to_rgba();
        let dodge = (k as f64 - (keys.len() as f64 - 1.0) / 2.0) * spread;
        let mut marks: Vec<(f64, f64, f64, f64)> = runs
            .iter()
            .filter(|x| (x.wave, x.workgroups_per_cu) == (wave, per_cu))
            .filter_map(|x| {
                passing(x).map(|(m, lo, hi)| (step_of(x.waves_per_group) + dodge, m, lo, hi))
            })
            .collect();
        marks.sort_by(|a, b| a.0.total_cmp(&b.0));
        draw_marked_series(&mut chart, &marks, color, wave == 64)?;
        // The legend, right of the plot (never over the dots).
        draw_legend_entry(
            area,
            (x0, y0 + 10 + 18 * k as i32),
            color,
            wave == 64,
            format!("wave{wave}, {per_cu} workgroups/CU"),
        )?;
    }
    if !keys.is_empty() {
        draw_whisker_legend(area, (x0, y0 + 10 + 18 * keys.len() as i32))?;
    }
    Ok(())
}

/// Short label of a record on the time axis: `MM-DD HH:MM`.
fn time_label(created_utc: &str) -> String {
    created_utc
        .get(5..16)
        .map(|s| s.replace('T', " "))
        .unwrap_or_else(|| created_utc.to_string())
}

fn draw_trend(
    area: &DrawingArea<SVGBackend, Shift>,
    records: &[&BenchRecord],
) -> Result<(), SvgError> {
    let Some(latest) = records.last() else {
        return Err(SvgError::NoRecords);
    };
    // The series: the latest record's independent-chain pattern runs, each
    // through the records that ran it with the same geometry.
    let series: Vec<&RunRecord> = latest
        .runs
        .iter()
        .filter(|r| r.sweep == "patterns" && r.chain == "indep")
        .collect();
    let values = records.iter().flat_map(|rec| {
        series.iter().filter_map(move |like| {
            rec.comparable_run(like)
                .and_then(passing)
                .map(|(_, _, max)| max)
        })
    });
    // Linear from zero: a drop to half the rate looks like half.
    let hi = linear_top(values);
    let k = records.len();
    let times: Vec<&str> = records.iter().map(|r| r.created_utc.as_str()).collect();
    // Each record says what it was: when, which DATA seed, how many timed
    // launches per run.
    let labels: Vec<String> = time_labels(&times)
        .into_iter()
        .zip(records)
        .map(|(t, r)| format!("{t}, seed {:#x}, {} reps", r.settings.seed, r.settings.reps))
        .collect();
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("across {k} record(s), oldest to newest: median rate of each independent-chain pattern run (same geometry only)"),
            ("sans-serif", 18),
        )
        .margin(10)
        .x_label_area_size(45)
        .y_label_area_size(90)
        .margin_right(LEGEND_WIDTH)
        .build_cartesian_2d(-0.5f64..(k as f64 - 0.5).max(0.5), 0.0..hi)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .x_labels(k.clamp(1, 12))
        .x_label_formatter(&|v| index_label(&labels, *v))
        .y_label_formatter(&|v| si_tick(*v))
        .x_desc("record (UTC creation time, DATA seed, timed launches per run)")
        .y_desc(if latest.is_emulated() {
            "EMULATED lane-ops/s (not a GPU figure; linear, from 0)"
        } else {
            "lane-ops/s (linear, from 0)"
        })
        .draw()
        .map_err(draw_err)?;
    let (x0, y0) = to_area(area, chart.backend_coord(&((k as f64 - 0.5).max(0.5), hi)));
    // Colour for the pattern, marker for the wave size (circle wave32,
    // triangle wave64): seven patterns fit the palette and black. Series
    // are set a little apart at each record so no whisker hides another.
    let mut pattern_order: Vec<&str> = Vec::new();
    for like in &series {
        if !pattern_order.contains(&like.pattern.as_str()) {
            pattern_order.push(like.pattern.as_str());
        }
    }
    let colours: Vec<RGBColor> = PALETTE.iter().copied().chain([BLACK]).collect();
    let spread = 0.6 / series.len().max(1) as f64;
    for (s, like) in series.iter().enumerate() {
        let c = pattern_order
            .iter()
            .position(|p| *p == like.pattern)
            .unwrap_or(0);
        let color = colours[c % colours.len()].to_rgba();
        let dodge = (s as f64 - (series.len() as f64 - 1.0) / 2.0) * spread;
        let marks: Vec<(f64, f64, f64, f64)> = records
            .iter()
            .enumerate()
            .filter_map(|(i, rec)| {
                rec.comparable_run(like)
                    .and_then(passing)
                    .map(|(m, lo, hi)| (i as f64 + dodge, m, lo, hi))
            })
            .collect();
        draw_marked_series(&mut chart, &marks, color, like.wave == 64)?;
        // The legend, right of the plot (never over the lines).
        draw_legend_entry(
            area,
            (x0, y0 + 10 + 18 * s as i32),
            color,
            like.wave == 64,
            like.name.clone(),
        )?;
    }
    if !series.is_empty() {
        draw_whisker_legend(area, (x0, y0 + 10 + 18 * series.len() as i32))?;
    }
    Ok(())
}

/// The whisker's legend entry of a legend drawn right of a plot, whose
/// first entry's mark starts at `x0 + 16`.
fn draw_whisker_legend(
    area: &DrawingArea<SVGBackend, Shift>,
    (x0, y): (i32, i32),
) -> Result<(), SvgError> {
    area.draw(&PathElement::new(
        vec![(x0 + 28, y - 6), (x0 + 28, y + 6)],
        BLACK.stroke_width(2),
    ))
    .map_err(draw_err)?;
    area.draw(&Text::new(
        WHISKER_LEGEND,
        (x0 + 46, y),
        ("sans-serif", 12)
            .into_font()
            .into_text_style(area)
            .pos(Pos::new(HPos::Left, VPos::Center)),
    ))
    .map_err(draw_err)
}

/// One line where a trend would be: a single record or run has none, and
/// an empty chart of half the picture would only hide that.
const NOTE_HEIGHT: u32 = 44;

fn draw_note(area: &DrawingArea<SVGBackend, Shift>, text: &str) -> Result<(), SvgError> {
    area.draw(&Text::new(
        text.to_string(),
        (20, NOTE_HEIGHT as i32 / 2),
        ("sans-serif", 14)
            .into_font()
            .into_text_style(area)
            .pos(Pos::new(HPos::Left, VPos::Center)),
    ))
    .map_err(draw_err)
}

/// The time axis labels of `times` (RFC 3339): `MM-DD HH:MM`, with the
/// seconds when two neighbours would otherwise look alike.
fn time_labels(times: &[&str]) -> Vec<String> {
    let labels: Vec<String> = times.iter().map(|t| time_label(t)).collect();
    if (1..labels.len()).any(|i| labels[i] == labels[i - 1]) {
        return times
            .iter()
            .map(|t| {
                t.get(5..19)
                    .map(|s| s.replace('T', " "))
                    .unwrap_or_else(|| t.to_string())
            })
            .collect();
    }
    labels
}

/// `, fault NAME` for a run under an injected fault, else nothing.
fn fault_note(r: &Results) -> String {
    match &r.parameters.fault {
        Some(f) => format!(", fault {f}"),
        None => String::new(),
    }
}

fn cell_label(c: &PatternCounts) -> String {
    format!("{} / wave{}", c.pattern.name(), c.wave.lanes())
}

fn status_name(s: Status) -> &'static str {
    match s {
        Status::Passed => "passed",
        Status::Failed => "FAILED",
        Status::Aborted => "ABORTED",
    }
}

/// Render conformance results (`dsxor-results/1`, any order; sorted by
/// start time here) as one SVG in the bench picture's style:
/// 1. the latest run's cells: per (pattern, wave) one bar of passed cases
///    (green) followed by the failed ones (red), with the counts as text;
/// 2. across runs (oldest to newest): the failed cases of each run, in
///    total and per pattern that failed in any run.
pub fn render_conformance(results: &[Results]) -> Result<String, SvgError> {
    let mut sorted: Vec<&Results> = results.iter().collect();
    sorted.sort_by(|a, b| a.started_utc.cmp(&b.started_utc));
    let latest = *sorted.last().ok_or(SvgError::NoResults)?;
    let h1 = 110 + ROW * latest.patterns.len().max(1) as u32;
    let h2 = if sorted.len() < 2 { NOTE_HEIGHT } else { 460 };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, h1 + h2)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        let (top, bottom) = root.split_vertically(h1);
        draw_cells(&top, latest)?;
        if sorted.len() < 2 {
            draw_note(
                &bottom,
                &format!(
                    "one run ({} of {} failed, seed {:#x}{}): give dsxor report several results files to see a trend",
                    latest.failed,
                    latest.total,
                    latest.spec.seed,
                    fault_note(latest)
                ),
            )?;
        } else {
            draw_failure_trend(&bottom, &sorted)?;
        }
        root.present().map_err(draw_err)?;
    }
    Ok(svg)
}

fn draw_cells(area: &DrawingArea<SVGBackend, Shift>, r: &Results) -> Result<(), SvgError> {
    let cells = &r.patterns;
    let n = cells.len().max(1) as f64;
    let most = cells.iter().map(|c| c.cases).max().unwrap_or(0).max(1) as f64;
    let d = &r.environment.device;
    // Two lines: the verdict as the caption, where it ran on the axis.
    let caption = format!(
        "conformance cases per (pattern, wave): {} of {} passed, status {}, seed {}",
        r.passed,
        r.total,
        status_name(r.status),
        r.spec.seed
    );
    let ran = format!(
        "cases (bluish green: passed, vermillion: failed) on {} ({}, {} backend), started {}",
        d.name,
        d.target_id,
        d.backend.name(),
        r.started_utc
    );
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 20))
        .margin(10)
        .margin_right(40)
        .x_label_area_size(45)
        .y_label_area_size(LABEL_AREA)
        // Room right of the longest bar for its counts.
        .build_cartesian_2d(0.0..most * 1.45, 0.0..n + 1.2)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(0)
        .x_label_formatter(&|v| format!("{v:.0}"))
        .x_desc(ran)
        .draw()
        .map_err(draw_err)?;
    let green = OI_GREEN;
    let (mut legend_pass, mut legend_fail) = (true, true);
    for (i, c) in cells.iter().enumerate() {
        let y = n - i as f64 - 0.5;
        let (px, py) = to_area(area, chart.backend_coord(&(0.0, y)));
        area.draw(&Text::new(
            cell_label(c),
            (px - 8, py),
            ("sans-serif", 13)
                .into_font()
                .into_text_style(area)
                .pos(Pos::new(HPos::Right, VPos::Center)),
        ))
        .map_err(draw_err)?;
        let passed = c.passed as f64;
        let end = (c.passed + c.failed) as f64;
        if c.passed > 0 {
            let bar = chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(0.0, y - 0.35), (passed, y + 0.35)],
                    green.filled(),
                )))
                .map_err(draw_err)?;
            if std::mem::take(&mut legend_pass) {
                bar.label("cases passed").legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 14, y + 5)], green.filled())
                });
            }
        }
        if c.failed > 0 {
            let bar = chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(passed, y - 0.35), (end, y + 0.35)],
                    OI_VERMILLION.filled(),
                )))
                .map_err(draw_err)?;
            if std::mem::take(&mut legend_fail) {
                bar.label("cases failed").legend(|(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 14, y + 5)], OI_VERMILLION.filled())
                });
            }
        }
        let text = format!(
            " {} cases: {} passed, {} failed ({} ms)",
            c.cases, c.passed, c.failed, c.wall_ms
        );
        let style = ("sans-serif", 12)
            .into_font()
            .into_text_style(area)
            .pos(Pos::new(HPos::Left, VPos::Center));
        let style = if c.failed > 0 {
            style.color(&OI_VERMILLION)
        } else {
            style
        };
        chart
            .draw_series(std::iter::once(Text::new(text, (end.max(0.0), y), style)))
            .map_err(draw_err)?;
    }
    if cells.is_empty() {
        let (px, py) = to_area(area, chart.backend_coord(&(0.0, n)));
        area.draw(&Text::new(
            "no (pattern, wave) cell in the latest run",
            (px + 10, py + 10),
            ("sans-serif", 14).into_font().into_text_style(area),
        ))
        .map_err(draw_err)?;
    }
    if !cells.is_empty() {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 12))
            .draw()
            .map_err(draw_err)?;
    }
    Ok(())
}

/// A line of the failure trend: legend name, colour, (run, failed) points.
type FailureSeries = (String, RGBAColor, Vec<(f64, f64)>);

fn draw_failure_trend(
    area: &DrawingArea<SVGBackend, Shift>,
    runs: &[&Results],
) -> Result<(), SvgError> {
    let k = runs.len();
    // Series: the total, then each pattern that failed in some run, in the
    // order patterns first appear.
    let mut failing: Vec<Pattern> = Vec::new();
    for r in runs {
        for c in &r.patterns {
            if c.failed > 0 && !failing.contains(&c.pattern) {
                failing.push(c.pattern);
            }
        }
    }
    let failed_of = |r: &Results, p: Pattern| -> u64 {
        r.patterns
            .iter()
            .filter(|c| c.pattern == p)
            .map(|c| c.failed)
            .sum()
    };
    let most = runs.iter().map(|r| r.failed).max().unwrap_or(0).max(1) as f64;
    let times: Vec<&str> = runs.iter().map(|r| r.started_utc.as_str()).collect();
    let labels = time_labels(&times);
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("across {k} run(s), oldest to newest: failed cases per run"),
            ("sans-serif", 18),
        )
        .margin(10)
        .x_label_area_size(45)
        .y_label_area_size(90)
        .margin_right(LEGEND_WIDTH)
        .build_cartesian_2d(-0.5f64..(k as f64 - 0.5).max(0.5), 0.0..most * 1.15)
        .map_err(draw_err)?;
    chart
        .configure_mesh()
        .x_labels(k.clamp(1, 12))
        .x_label_formatter(&|v| index_label(&labels, *v))
        // Counts are whole: label only the integer ticks.
        .y_label_formatter(&|v| whole_tick(*v))
        .x_desc("run (UTC start time)")
        .y_desc("failed cases")
        .draw()
        .map_err(draw_err)?;
    let mut series: Vec<FailureSeries> = vec![(
        "all patterns".into(),
        BLACK.to_rgba(),
        runs.iter()
            .enumerate()
            .map(|(i, r)| (i as f64, r.failed as f64))
            .collect(),
    )];
    for (s, &p) in failing.iter().enumerate() {
        series.push((
            p.name().to_string(),
            PALETTE[s % PALETTE.len()].to_rgba(),
            runs.iter()
                .enumerate()
                .map(|(i, r)| (i as f64, failed_of(r, p) as f64))
                .collect(),
        ));
    }
    for (s, (name, color, points)) in series.iter().enumerate() {
        // The total is wider: a pattern that holds every failure draws over
        // it, and the total must still show.
        let width = if s == 0 { 5 } else { 2 };
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(width)))
            .map_err(draw_err)?;
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(draw_err)?;
        let (x0, y0) = to_area(
            area,
            chart.backend_coord(&((k as f64 - 0.5).max(0.5), most * 1.15)),
        );
        let y = y0 + 10 + 18 * s as i32;
        area.draw(&PathElement::new(
            vec![(x0 + 16, y), (x0 + 40, y)],
            color.stroke_width(3),
        ))
        .map_err(draw_err)?;
        area.draw(&Text::new(
            name.clone(),
            (x0 + 46, y),
            ("sans-serif", 12)
                .into_font()
                .into_text_style(area)
                .pos(Pos::new(HPos::Left, VPos::Center)),
        ))
        .map_err(draw_err)?;
    }
    // Each run's point says what it was — failed of how many cases, which
    // seed, which injected fault — so a reader needs no axis or file list.
    if let Some((_, _, total)) = series.first() {
        for (&(x, y), r) in total.iter().zip(runs) {
            let fault = fault_note(r);
            chart
                .draw_series(std::iter::once(Text::new(
                    format!(
                        "{y:.0} of {} failed, seed {:#x}{fault}",
                        r.total, r.spec.seed
                    ),
                    (x, y),
                    ("sans-serif", 12)
                        .into_font()
                        .into_text_style(area)
                        .pos(Pos::new(HPos::Center, VPos::Bottom)),
                )))
                .map_err(draw_err)?;
        }
    }
    Ok(())
}

/// The label of the run at x = index (the trend charts' x axis counts runs);
/// nothing between integer ticks.
fn index_label(labels: &[String], v: f64) -> String {
    let i = v.round();
    if (v - i).abs() < 1e-6 && i >= 0.0 {
        labels.get(i as usize).cloned().unwrap_or_default()
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si_prefixes() {
        assert_eq!(si(3.84e12), "3.840 T");
        assert_eq!(si(1.5e6), "1.500 M");
        assert_eq!(si(999.0), "999.000");
        assert_eq!(si(0.0), "0");
    }

    #[test]
    fn si_ticks_show_no_empty_digits() {
        assert_eq!(si_tick(1e7), "10 M");
        assert_eq!(si_tick(2.5e9), "2.5 G");
        assert_eq!(si_tick(5e7), "50 M");
        assert_eq!(si_tick(999.0), "999");
        assert_eq!(si_tick(0.0), "0");
    }

    #[test]
    fn percents() {
        assert_eq!(percent(0.521), "52.1 %");
        assert_eq!(percent(0.0521), "5.21 %");
        assert_eq!(percent(0.000521), "0.0521 %");
    }

    #[test]
    fn time_labels() {
        assert_eq!(time_label("2026-12-01T20:15:00Z"), "12-01 20:15");
        assert_eq!(time_label("odd"), "odd");
    }

    #[test]
    fn no_records_is_an_error() {
        assert!(matches!(render(&[]), Err(SvgError::NoRecords)));
    }
}
