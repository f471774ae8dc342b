//! A `dsxor-mutate/1` record as Markdown and as an SVG (plotters' SVG
//! backend, no font files, as `report::svg`): seconds per kill of every
//! (mutant, pattern), on a log axis, with the budgets as lines.

use std::fmt::Write as _;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::MutateRecord;
use crate::report::svg::{SvgError, PALETTE};

fn secs(s: f64) -> String {
    if s < 0.01 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

/// The score table and one row per mutant.
pub fn markdown(r: &MutateRecord) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# Mutation score (`{}`)\n", r.format);
    let _ = writeln!(
        md,
        "Seed {}, generator version {}, waves {}, {} job(s); budget per mutant {} case-seconds \
         or {} cases; case time is single-core seconds (generate + run + judge).\n",
        r.seed,
        r.generator_version,
        r.waves
            .iter()
            .map(|w| w.lanes().to_string())
            .collect::<Vec<_>>()
            .join(","),
        r.jobs,
        r.max_seconds,
        r.max_cases
    );
    let _ = writeln!(md, "| budget (case-s) | killed | mutants | score |");
    let _ = writeln!(md, "| ---: | ---: | ---: | ---: |");
    for s in &r.scores {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {:.1} % |",
            s.budget_seconds,
            s.killed,
            s.total,
            s.score * 100.0
        );
    }
    let _ = writeln!(
        md,
        "\nMix (cases per 1000): {}\n",
        r.mix_per_mille
            .iter()
            .map(|(p, n)| format!("{p} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let smallest = r.scores.first().map_or(r.max_seconds, |s| s.budget_seconds);
    let _ = writeln!(
        md,
        "Mix the kill rates suggest (maximizing the mutants killed within {smallest} case-s, \
         every pattern at least 4 %; cases per 1000): {}\n",
        super::suggested_mix(r, smallest, 0.04)
            .iter()
            .map(|(p, s)| format!("{p} {:.0}", s * 1000.0))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        md,
        "| mutant | killed | cases to first kill | case-s to first kill | first kill by | fastest pattern (kills/s) | detection floor |"
    );
    let _ = writeln!(md, "| --- | --- | ---: | ---: | --- | --- | --- |");
    for m in &r.mutants {
        let (cases, at, by) = match &m.first_kill {
            Some(k) => (
                (k.cases_before + 1).to_string(),
                secs(k.seconds),
                format!(
                    "{}/{} wave{} ({})",
                    k.pattern,
                    k.variant,
                    k.wave.lanes(),
                    k.kind
                ),
            ),
            None => (
                format!("> {}", m.cases_run),
                format!("> {}", secs(m.seconds_run)),
                "—".into(),
            ),
        };
        let fastest = m
            .fastest_pattern
            .and_then(|p| m.patterns.iter().find(|k| k.pattern == p))
            .map(|k| format!("{} ({:.1})", k.pattern, k.kill_rate_per_s))
            .unwrap_or_else(|| "—".into());
        let floor = if m.killed {
            String::new()
        } else {
            match m.detection_floor {
                Some(f) => format!("killed at rate {f}"),
                None if m.floor_tries.is_empty() => "not measured".into(),
                None => "not killed at any rate tried".into(),
            }
        };
        let _ = writeln!(
            md,
            "| `{}` | {} | {cases} | {at} | {by} | {fastest} | {floor} |",
            m.fault,
            if m.killed { "yes" } else { "**no**" }
        );
    }
    md
}

/// Seconds per kill (1 / kill rate) per mutant and pattern.
pub fn render(r: &MutateRecord) -> Result<String, SvgError> {
    let err = |e: &dyn std::fmt::Debug| SvgError::Draw(format!("{e:?}"));
    let n = r.mutants.len();
    if n == 0 {
        return Err(SvgError::NoResults);
    }
    let patterns: Vec<_> = r.mix_per_mille.iter().map(|(p, _)| *p).collect();
    let mut points: Vec<(usize, usize, f64)> = Vec::new();
    for (i, m) in r.mutants.iter().enumerate() {
        for k in &m.patterns {
            if k.kills > 0 {
                if let Some(j) = patterns.iter().position(|p| *p == k.pattern) {
                    points.push((i, j, 1.0 / k.kill_rate_per_s.max(1e-12)));
                }
            }
        }
    }
    let lo = points
        .iter()
        .map(|p| p.2)
        .fold(f64::INFINITY, f64::min)
        .clamp(1e-7, 1e-3);
    let hi = r.max_seconds.max(1.0) * 10.0;
    let row = 22u32;
    let height = 160 + row * n as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1200, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let score = r
            .scores
            .iter()
            .map(|s| format!("{} s: {}/{}", s.budget_seconds, s.killed, s.total))
            .collect::<Vec<_>>()
            .join(", ");
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("case-seconds per kill, per mutant and pattern (score {score})"),
                ("sans-serif", 18),
            )
            .margin(10)
            .margin_right(30)
            .x_label_area_size(45)
            .y_label_area_size(330)
            .build_cartesian_2d((lo..hi).log_scale(), 0.0..n as f64)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_desc(format!(
                "case-seconds per kill (1 / kills per second; seed {}, survivors: red label)",
                r.seed
            ))
            .draw()
            .map_err(|e| err(&e))?;
        for (i, m) in r.mutants.iter().enumerate() {
            let y = n as f64 - i as f64 - 0.5;
            let style = ("sans-serif", 12)
                .into_font()
                .into_text_style(&root)
                .pos(Pos::new(HPos::Right, VPos::Center));
            let style = if m.killed { style } else { style.color(&RED) };
            let (px, py) = chart.backend_coord(&(lo, y));
            root.draw(&Text::new(m.fault.clone(), (px - 8, py), style))
                .map_err(|e| err(&e))?;
        }
        for b in &r.scores {
            chart
                .draw_series(LineSeries::new(
                    [(b.budget_seconds, 0.0), (b.budget_seconds, n as f64)],
                    BLACK.mix(0.3),
                ))
                .map_err(|e| err(&e))?;
        }
        for (j, p) in patterns.iter().enumerate() {
            // The reports' colour-blind-safe palette; past its six colours,
            // the same colours as rings, so no two patterns look alike.
            let color = PALETTE[j % PALETTE.len()];
            let shape = if j < PALETTE.len() {
                color.filled()
            } else {
                color.stroke_width(2)
            };
            let pts: Vec<(f64, f64)> = points
                .iter()
                .filter(|q| q.1 == j)
                .map(|q| (q.2, n as f64 - q.0 as f64 - 0.5))
                .collect();
            chart
                .draw_series(pts.into_iter().map(|xy| Circle::new(xy, 4, shape)))
                .map_err(|e| err(&e))?
                .label(p.name())
                .legend(move |(x, y)| Circle::new((x, y), 4, shape));
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}
