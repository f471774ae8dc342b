//! What a person sees during and after a run: a progress bar on a terminal
//! (plain lines, one per finished pattern cell, when stderr — where the bar
//! draws — is not one: a CI log), and a summary table per pattern. Messages
//! (the seed, each failure, each repro path) always go to stdout, bar or
//! not, so `dsxor run 2>err.txt` on a terminal loses none of them.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use super::results::{Results, Status};

/// Progress of a run over `total` cases.
pub struct Progress {
    bar: Option<ProgressBar>,
    total: u64,
    done: u64,
    failed: u64,
}

impl Progress {
    /// A bar when stderr (where indicatif draws it) is a terminal, plain
    /// lines otherwise: a bar on a redirected stderr would be hidden.
    pub fn new(total: u64) -> Progress {
        Self::with_mode(total, std::io::stderr().is_terminal())
    }

    pub fn with_mode(total: u64, interactive: bool) -> Progress {
        let bar = interactive.then(|| {
            let bar = ProgressBar::new(total);
            if let Ok(style) = ProgressStyle::with_template(
                "{bar:40} {pos}/{len} {msg} [{elapsed_precise}, eta {eta}]",
            ) {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        Progress {
            bar,
            total,
            done: 0,
            failed: 0,
        }
    }

    /// One case finished.
    pub fn case_done(&mut self, cell: &str, passed: bool) {
        self.done += 1;
        self.failed += u64::from(!passed);
        if let Some(bar) = &self.bar {
            bar.set_position(self.done);
            bar.set_message(format!("{cell}, {} failed", self.failed));
        }
    }

    /// A (pattern, wave) cell finished: the plain-mode line.
    pub fn cell_done(&mut self, cell: &str, cases: u64, failed: u64, wall: Duration) {
        if self.bar.is_none() {
            stdout_line(&format!(
                "[{:>width$}/{}] {cell}: {cases} cases, {failed} failed ({:.1} s)",
                self.done,
                self.total,
                wall.as_secs_f64(),
                width = self.total.to_string().len()
            ));
        }
    }

    /// A message that must not be torn by the bar. Printed to stdout with
    /// the bar cleared meanwhile (indicatif's own `println` prints nothing
    /// when the bar is not drawn, and would put messages on stderr).
    pub fn println(&self, message: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| stdout_line(message)),
            None => stdout_line(message),
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The per-pattern table and the totals line.
pub fn summary_table(results: &Results) -> String {
    let mut rows = vec![[
        "pattern".to_string(),
        "wave".to_string(),
        "cases".to_string(),
        "passed".to_string(),
        "failed".to_string(),
        "time".to_string(),
    ]];
    for c in &results.patterns {
        rows.push([
            c.pattern.to_string(),
            c.wave.lanes().to_string(),
            c.cases.to_string(),
            c.passed.to_string(),
            c.failed.to_string(),
            format!("{:.1} s", c.wall_ms as f64 / 1000.0),
        ]);
    }
    let mut widths = [0usize; 6];
    for r in &rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.len());
        }
    }
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        let line: Vec<String> = r
            .iter()
            .zip(widths)
            .enumerate()
            .map(|(j, (cell, w))| {
                if j < 1 {
                    format!("{cell:<w$}")
                } else {
                    format!("{cell:>w$}")
                }
            })
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
        if i == 0 {
            out.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * (widths.len() - 1)));
            out.push('\n');
        }
    }
    let verdict = match results.status {
        Status::Passed => "PASSED".to_string(),
        Status::Failed => "FAILED".to_string(),
        Status::Aborted => format!(
            "ABORTED ({})",
            results.abort_reason.as_deref().unwrap_or("environment")
        ),
    };
    out.push_str(&format!(
        "{verdict}: {} cases, {} passed, {} failed in {:.1} s ({:.0} cases/s) — seed {}, {} on {} ({})\n",
        results.total,
        results.passed,
        results.failed,
        results.wall_ms as f64 / 1000.0,
        results.total as f64 / (results.wall_ms.max(1) as f64 / 1000.0),
        results.spec.seed,
        results.environment.device.backend.name(),
        results.environment.device.name,
        results.environment.device.target_id,
    ));
    for p in &results.probes {
        out.push_str(&format!(
            "probe {} (wave{}, {} mode): {}: {}\n",
            p.probe,
            p.wave.lanes(),
            p.mode,
            if p.verdict == Status::Passed {
                "passed"
            } else {
                "FAILED"
            },
            p.summary
        ));
    }
    let observed: u64 = results.patterns.iter().map(|c| c.halves_observed).sum();
    if observed > 0 {
        let split: u64 = results.patterns.iter().map(|c| c.halves_split).sum();
        out.push_str(&format!(
            "wave64 halves: seen split in {split} of the {observed} cases whose returns could show it (order evidence, not a verdict)\n"
        ));
    }
    if results.verified_lane_ops > 0 {
        out.push_str(&format!(
            "verified {} lane-operations ({} per second): one ds_xor_rtn_b64 of one active lane in one round, in a passed case\n",
            results.verified_lane_ops,
            // SI-prefixed: an emulated GPU verifies thousands per second,
            // which a fixed "M" showed as 0.00.
            super::svg::si(
                results.verified_lane_ops as f64 / (results.wall_ms.max(1) as f64 / 1000.0)
            ),
        ));
    }
    out
}

/// Set by `--json`: standard output carries one JSON document only, so the
/// display text goes to standard error instead.
static MACHINE_STDOUT: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Reserve standard output for a machine-readable document (`--json`):
/// from now on [`stdout_text`] writes to standard error.
pub fn reserve_stdout_for_machine() {
    MACHINE_STDOUT.store(true, std::sync::atomic::Ordering::SeqCst);
}

/// Write the machine-readable document (`--json`) to standard output,
/// ignoring a closed pipe.
pub fn machine_text(text: &str) {
    use std::io::Write as _;
    let _ = std::io::stdout().write_all(text.as_bytes());
}

/// Write display text to stdout, ignoring a closed pipe (`dsxor run | head`):
/// a run must not panic and lose its results file over a display line.
/// Under `--json` ([`reserve_stdout_for_machine`]) it goes to stderr.
pub fn stdout_text(text: &str) {
    use std::io::Write as _;
    if MACHINE_STDOUT.load(std::sync::atomic::Ordering::SeqCst) {
        let _ = std::io::stderr().write_all(text.as_bytes());
    } else {
        let _ = std::io::stdout().write_all(text.as_bytes());
    }
}

/// `stdout_text` plus a newline.
pub fn stdout_line(line: &str) {
    stdout_text(&format!("{line}\n"));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::case::WaveSize;
    use crate::gen::{Pattern, Shard, SuiteSpec};
    use crate::report::results::{tests::sample_results, PatternCounts};

    #[test]
    fn table_lists_every_cell_and_the_verdict() {
        let spec = SuiteSpec::new(7, 4, &[], &[], &[], Shard::WHOLE).unwrap();
        let mut r = sample_results(spec);
        r.total = 3;
        r.passed = 2;
        r.failed = 1;
        r.status = Status::Failed;
        r.patterns = vec![PatternCounts {
            pattern: Pattern::KPerAddress,
            wave: WaveSize::Wave64,
            mode: crate::case::Mode::Wgp,
            cases: 3,
            passed: 2,
            failed: 1,
            wall_ms: 1500,
            halves_observed: 0,
            halves_split: 0,
        }];
        let t = summary_table(&r);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4, "{t}");
        assert!(lines[0].starts_with("pattern"));
        assert!(lines[2].starts_with("k-per-address"));
        assert!(lines[2].ends_with("1.5 s"), "{t}");
        assert!(
            lines[3].starts_with("FAILED: 3 cases, 2 passed, 1 failed"),
            "{t}"
        );
        assert!(lines[3].contains("seed 7"));
        // The halves evidence is summed over the cells, one line.
        r.patterns[0].halves_observed = 3;
        r.patterns[0].halves_split = 1;
        let t = summary_table(&r);
        assert!(
            t.lines()
                .any(|l| l.starts_with("wave64 halves: seen split in 1 of the 3 cases")),
            "{t}"
        );
    }
}
