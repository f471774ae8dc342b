//! The fleet as Markdown (a table per node, failing GPUs first), JUnit
//! (one test suite per device) and SVG (every device a square, a row per
//! node, coloured by verdict).

use std::time::Duration;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use super::{DeviceVerdict, Fleet};
use crate::report::results::Status;
use crate::report::svg::{SvgError, OI_GREEN, OI_ORANGE, OI_VERMILLION};

fn verdict_word(s: Status) -> &'static str {
    match s {
        Status::Passed => "passed",
        Status::Failed => "FAILED",
        Status::Aborted => "aborted",
    }
}

fn md(s: &str) -> String {
    s.replace('|', "\\|")
}

fn runs_text(d: &DeviceVerdict) -> String {
    d.runs
        .iter()
        .map(|r| {
            let mut t = format!("seed {:#x} shard {}: {}", r.seed, r.shard, r.failed);
            t.push_str(&format!(" of {} failed", r.total));
            if let Some(j) = &r.slurm_job_id {
                t.push_str(&format!(", slurm job {j}"));
                if let Some(a) = &r.slurm_array_task_id {
                    t.push_str(&format!(" task {a}"));
                }
            }
            t
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The Markdown report: the verdict, the failing devices, then one table
/// per node.
pub fn markdown(f: &Fleet) -> String {
    let mut s = format!(
        "# dsxor fleet: {}\n\n{} devices on {} nodes from {} results files: {} failed, {} aborted, {} passed.\n\n",
        verdict_word(f.verdict),
        f.devices.len(),
        f.nodes.len(),
        f.files,
        f.devices.iter().filter(|d| d.verdict == Status::Failed).count(),
        f.devices.iter().filter(|d| d.verdict == Status::Aborted).count(),
        f.devices.iter().filter(|d| d.verdict == Status::Passed).count(),
    );
    let failing: Vec<&DeviceVerdict> = f
        .devices
        .iter()
        .filter(|d| d.verdict != Status::Passed)
        .collect();
    if !failing.is_empty() {
        s.push_str("## Failing devices\n\n| node | device | verdict | failed cases | repro files |\n| --- | --- | --- | --- | --- |\n");
        for d in &failing {
            let repros: Vec<&str> = d
                .runs
                .iter()
                .flat_map(|r| r.repros.iter().map(String::as_str))
                .collect();
            s.push_str(&format!(
                "| {} | {} | {} | {} of {} | {} |\n",
                md(&d.node),
                md(&d.key),
                verdict_word(d.verdict),
                d.failed_cases,
                d.cases,
                md(&repros.join(", "))
            ));
        }
        s.push('\n');
    }
    for n in &f.nodes {
        s.push_str(&format!(
            "## Node {}\n\n{} devices: {} failed, {} aborted, {} passed.\n\n| device | name | PCI | verdict | cases | runs |\n| --- | --- | --- | --- | --- | --- |\n",
            md(&n.node),
            n.devices,
            n.failed,
            n.aborted,
            n.passed
        ));
        for key in &n.device_keys {
            let Some(d) = f.devices.iter().find(|d| &d.key == key) else {
                continue;
            };
            s.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} |\n",
                md(&d.key),
                md(&d.name),
                d.pci_bus_id.as_deref().unwrap_or("-"),
                verdict_word(d.verdict),
                d.cases,
                md(&runs_text(d))
            ));
        }
        s.push('\n');
    }
    s
}

/// JUnit: one test suite per device (`<node>/<device key>`), one test case
/// per results file, the identity as properties.
pub fn junit(f: &Fleet) -> Report {
    let mut report = Report::new("dsxor fleet");
    for d in &f.devices {
        let mut suite = TestSuite::new(format!("{}/{}", d.node, d.key));
        let mut props = vec![
            ("uuid", d.uuid.clone().unwrap_or_default()),
            ("node", d.node.clone()),
            ("host", d.host.clone()),
            ("backend", d.backend.clone()),
            ("device", d.name.clone()),
            ("target", d.target_id.clone()),
        ];
        if let Some(b) = &d.pci_bus_id {
            props.push(("pci_bus_id", b.clone()));
        }
        for (k, v) in props {
            suite.add_property(Property::new(k, v));
        }
        for r in &d.runs {
            let status = match r.status {
                Status::Passed => TestCaseStatus::success(),
                Status::Failed => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    s.set_message(format!("{} of {} cases failed", r.failed, r.total));
                    s.set_type("conformance");
                    if !r.repros.is_empty() {
                        s.set_description(format!("repro files: {}", r.repros.join(", ")));
                    }
                    s
                }
                Status::Aborted => {
                    let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
                    s.set_message(r.abort_reason.clone().unwrap_or_else(|| "aborted".into()));
                    s.set_type("environment");
                    s
                }
            };
            let mut tc = TestCase::new(format!("seed {:#x} shard {}", r.seed, r.shard), status);
            tc.set_classname(format!("dsxor.fleet.{}", d.node));
            tc.set_time(Duration::ZERO);
            suite.add_test_case(tc);
        }
        report.add_test_suite(suite);
    }
    report
}

const CELL: i32 = 28;
const GAP: i32 = 6;
const LEFT: i32 = 220;
const TOP: i32 = 60;

/// The fleet at a glance: a row per node (failing nodes first), a square
/// per device (vermillion failed, orange aborted, bluish green passed),
/// failing devices first in each row and labelled with their PCI address.
pub fn svg(f: &Fleet) -> Result<String, SvgError> {
    let draw = |e: DrawingAreaErrorKind<_>| SvgError::Draw(format!("{e:?}"));
    let widest = f.nodes.iter().map(|n| n.devices).max().unwrap_or(1) as i32;
    let width = (LEFT + widest * (CELL + GAP) + 260).max(700) as u32;
    let height = (TOP + f.nodes.len().max(1) as i32 * (CELL + 2 * GAP) + 40) as u32;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw)?;
        let title = format!(
            "dsxor fleet: {} — {} devices on {} nodes, {} failed, {} aborted",
            verdict_word(f.verdict),
            f.devices.len(),
            f.nodes.len(),
            f.devices
                .iter()
                .filter(|d| d.verdict == Status::Failed)
                .count(),
            f.devices
                .iter()
                .filter(|d| d.verdict == Status::Aborted)
                .count(),
        );
        root.draw(&Text::new(title, (10, 10), ("sans-serif", 20)))
            .map_err(draw)?;
        root.draw(&Text::new(
            "vermillion: failed · orange: aborted · bluish green: passed",
            (10, 36),
            ("sans-serif", 14),
        ))
        .map_err(draw)?;
        for (row, n) in f.nodes.iter().enumerate() {
            let y = TOP + row as i32 * (CELL + 2 * GAP);
            let label = format!("{} ({} of {} failed)", n.node, n.failed, n.devices);
            root.draw(&Text::new(
                label,
                (LEFT - 10, y + CELL / 2),
                ("sans-serif", 14)
                    .into_font()
                    .color(&BLACK)
                    .pos(Pos::new(HPos::Right, VPos::Center)),
            ))
            .map_err(draw)?;
            let mut failing_labels = Vec::new();
            for (i, key) in n.device_keys.iter().enumerate() {
                let Some(d) = f.devices.iter().find(|d| &d.key == key) else {
                    continue;
                };
                let x = LEFT + i as i32 * (CELL + GAP);
                let colour = match d.verdict {
                    Status::Passed => OI_GREEN,
                    Status::Failed => OI_VERMILLION,
                    Status::Aborted => OI_ORANGE,
                };
                root.draw(&Rectangle::new(
                    [(x, y), (x + CELL, y + CELL)],
                    colour.filled(),
                ))
                .map_err(draw)?;
                if d.verdict != Status::Passed {
                    failing_labels.push(d.pci_bus_id.clone().unwrap_or_else(|| d.key.clone()));
                }
            }
            if !failing_labels.is_empty() {
                let x = LEFT + n.device_keys.len() as i32 * (CELL + GAP) + 10;
                root.draw(&Text::new(
                    failing_labels.join(", "),
                    (x, y + CELL / 2),
                    ("sans-serif", 13)
                        .into_font()
                        .color(&BLACK)
                        .pos(Pos::new(HPos::Left, VPos::Center)),
                ))
                .map_err(draw)?;
            }
        }
        root.present().map_err(draw)?;
    }
    Ok(out)
}
