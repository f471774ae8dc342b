//! Runs sized by the odds. A fault that hits each event (here: a contended
//! lane-op, see [`contended_lane_ops`]) independently with probability r
//! stays hidden through n events with probability (1 − r)^n. So a run of n
//! events shows it with probability c = 1 − (1 − r)^n, and seeing it with
//! confidence c needs n = ⌈ln(1 − c) / ln(1 − r)⌉ ≤ ⌈−ln(1 − c) / r⌉ events
//! (the rule MC Mutants' analysis uses, Levine et al., ASPLOS 2023 §5;
//! exact for small r). Every hit is assumed to be visible to the check —
//! an upper bound on sensitivity: a lost xor of zero data shows nothing.

use crate::case::Case;

/// Why a claim cannot be sized.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OddsError {
    #[error("--confidence {0}: expected a probability strictly between 0 and 1")]
    Confidence(f64),
    #[error("--rate {0}: expected a probability in (0, 1]")]
    Rate(f64),
    /// The run the claim needs has more events, or cases, than a run can
    /// count (its counters are u64): refused rather than started with a
    /// saturated target whose printed claim would be false.
    #[error(
        "--rate {rate:e} at --confidence {confidence}: the claim needs about {needed:.3e} {unit}, \
         more than a run can count ({max:.3e}); choose a larger rate"
    )]
    Uncountable {
        rate: f64,
        confidence: f64,
        needed: f64,
        unit: &'static str,
        max: f64,
    },
}

/// 2^64 as a double: the first count a u64 cannot hold (`u64::MAX as f64`
/// rounds up to it).
const COUNT_LIMIT: f64 = 18_446_744_073_709_551_616.0;

fn check(c: f64, r: f64) -> Result<(), OddsError> {
    if !(c > 0.0 && c < 1.0) {
        return Err(OddsError::Confidence(c));
    }
    if !(r > 0.0 && r <= 1.0) {
        return Err(OddsError::Rate(r));
    }
    Ok(())
}

/// Events needed to see a fault of rate `r` with confidence `c`:
/// ⌈−ln(1 − c) / r⌉ (the rule of the issue and of MC Mutants).
pub fn events_needed(r: f64, c: f64) -> Result<u64, OddsError> {
    check(c, r)?;
    let needed = (-(1.0 - c).ln() / r).ceil();
    if needed >= COUNT_LIMIT {
        return Err(OddsError::Uncountable {
            rate: r,
            confidence: c,
            needed,
            unit: "contended lane-ops",
            max: COUNT_LIMIT,
        });
    }
    Ok(needed as u64)
}

/// Probability that `n` events show a fault of rate `r`: 1 − (1 − r)^n.
pub fn detection_probability(r: f64, n: u64) -> f64 {
    // ln_1p keeps precision for tiny r.
    1.0 - ((n as f64) * (-r).ln_1p()).exp()
}

/// The smallest rate that `n` passing events rule out with confidence `c`:
/// the r with 1 − (1 − r)^n = c, i.e. 1 − (1 − c)^(1/n).
pub fn rate_ruled_out(n: u64, c: f64) -> Option<f64> {
    if n == 0 || !(c > 0.0 && c < 1.0) {
        return None;
    }
    Some(-((1.0 - c).ln() / n as f64).exp_m1())
}

/// Contended lane-ops of a case: active lanes whose workgroup has another
/// active lane on the same effective address, counted once per lane. The
/// event unit of the odds: the lanes a serialization fault can act on.
pub fn contended_lane_ops(case: &Case) -> u64 {
    let per_group = case.geometry.lanes_per_group() as usize;
    if per_group == 0 {
        return 0;
    }
    let offset = u64::from(case.offset);
    let mut n = 0;
    let mut addrs: Vec<u64> = Vec::with_capacity(per_group);
    for group in case.lanes.chunks(per_group) {
        addrs.clear();
        addrs.extend(
            group
                .iter()
                .filter(|l| l.active)
                .map(|l| u64::from(l.addr) + offset),
        );
        addrs.sort_unstable();
        let mut i = 0;
        while i < addrs.len() {
            let mut j = i + 1;
            while j < addrs.len() && addrs[j] == addrs[i] {
                j += 1;
            }
            if j - i >= 2 {
                n += (j - i) as u64;
            }
            i = j;
        }
    }
    n
}

/// Cases of `sample`'s selection (same patterns, waves and mix) needed for
/// `events` contended lane-ops, from the mean over the sample's cases;
/// None when the selection has no contended lane-op at all.
pub fn cases_for_events(sample: &crate::gen::SuiteSpec, events: u64) -> Option<u64> {
    let plan = sample.plan_all();
    let total: u64 = plan
        .iter()
        .map(|p| contended_lane_ops(&sample.generate(*p).case))
        .sum();
    if total == 0 || plan.is_empty() {
        return None;
    }
    let mean = total as f64 / plan.len() as f64;
    // At least one contended lane-op per case on average for any selection
    // with one at all is not guaranteed: saturate rather than wrap (the
    // caller refuses a count this large before it runs).
    let cases = (events as f64 / mean).ceil();
    Some(if cases >= COUNT_LIMIT {
        u64::MAX
    } else {
        (cases as u64).max(1)
    })
}

/// "1 in 10^5" style text for a rate.
pub fn one_in(r: f64) -> String {
    if r <= 0.0 || !r.is_finite() {
        return "never".into();
    }
    let inv = 1.0 / r;
    let e = inv.log10();
    if (e - e.round()).abs() < 1e-9 && e >= 2.0 {
        format!("1 in 10^{}", e.round() as i64)
    } else if inv >= 100.0 {
        format!("1 in {:.3e}", inv)
    } else {
        format!("1 in {:.1}", inv)
    }
}

/// The sentence a pass prints: what `n` passing contended lane-ops rule out.
pub fn pass_statement(n: u64, c: f64) -> String {
    match rate_ruled_out(n, c) {
        Some(r) => format!(
            "this pass rules out, with confidence {c}, a fault hitting {} contended lane-ops \
             ({n} contended lane-ops ran; each hit assumed visible to the check): such a fault \
             would have shown with probability {:.4}",
            one_in(r),
            detection_probability(r, n)
        ),
        None => {
            "this pass ran no contended lane-op: it rules out no serialization fault at any rate"
                .to_string()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_needed_matches_hand_computed_values() {
        // −ln(0.001) = 6.907755…; / 1e-5 = 690 775.5… → 690 776.
        assert_eq!(events_needed(1e-5, 0.999).unwrap(), 690_776);
        // −ln(0.05) = 2.995732…; / 0.01 → 299.57… → 300.
        assert_eq!(events_needed(0.01, 0.95).unwrap(), 300);
        // −ln(0.5) = 0.693147…; rate 1 → 1 event.
        assert_eq!(events_needed(1.0, 0.5).unwrap(), 1);
        assert!(events_needed(0.0, 0.9).is_err());
        assert!(events_needed(0.1, 1.0).is_err());
        assert!(events_needed(0.1, 0.0).is_err());
        assert!(events_needed(1.5, 0.5).is_err());
        // 6.9e300 lane-ops: refused, not saturated at u64::MAX.
        match events_needed(1e-300, 0.999) {
            Err(OddsError::Uncountable { needed, .. }) => {
                assert!((needed / 6.907755e300 - 1.0).abs() < 1e-6, "{needed}")
            }
            other => panic!("{other:?}"),
        }
        // The largest countable claim still sizes.
        assert!(events_needed(1e-18, 0.999).is_ok());
    }

    #[test]
    fn detection_and_ruled_out_rate_are_inverse() {
        // 1 − 0.99^300 = 0.95096…
        assert!((detection_probability(0.01, 300) - 0.950_959).abs() < 1e-5);
        // 1 − (0.001)^(1/690776) = 9.99995e-6…
        let r = rate_ruled_out(690_776, 0.999).unwrap();
        assert!((r - 1e-5).abs() < 1e-9, "{r}");
        assert!((detection_probability(r, 690_776) - 0.999).abs() < 1e-12);
        assert_eq!(rate_ruled_out(0, 0.9), None);
        assert_eq!(one_in(1e-5), "1 in 10^5");
        assert!(pass_statement(690_776, 0.999).contains("1 in 1.000e5"));
    }
}
