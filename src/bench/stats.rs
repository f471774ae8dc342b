//! Order statistics over repeated timings: median, min/max, quartiles (IQR)
//! and the median absolute deviation (MAD). Robust statistics because a
//! timing distribution has a hard floor and a long right tail (preemption,
//! clock ramps): the mean and standard deviation would be led by the tail.

use serde::{Deserialize, Serialize};

/// Summary of a set of samples (seconds, or any unit: the summary keeps it).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Summary {
    pub count: usize,
    pub median: f64,
    pub min: f64,
    pub max: f64,
    /// First and third quartiles, linear interpolation between order
    /// statistics (Hyndman & Fan type 7, the default of R and NumPy).
    pub q1: f64,
    pub q3: f64,
    /// Median of |x - median|.
    pub mad: f64,
}

impl Summary {
    /// Summarise `samples`; `None` when empty or when any sample is not a
    /// finite number (a NaN would make every order statistic meaningless).
    pub fn of(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() || samples.iter().any(|x| !x.is_finite()) {
            return None;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let median = quantile_sorted(&sorted, 0.5);
        let mut dev: Vec<f64> = sorted.iter().map(|x| (x - median).abs()).collect();
        dev.sort_by(f64::total_cmp);
        Some(Summary {
            count: sorted.len(),
            median,
            min: sorted[0],
            max: sorted[sorted.len() - 1],
            q1: quantile_sorted(&sorted, 0.25),
            q3: quantile_sorted(&sorted, 0.75),
            mad: quantile_sorted(&dev, 0.5),
        })
    }

    /// Interquartile range, q3 - q1.
    pub fn iqr(&self) -> f64 {
        self.q3 - self.q1
    }
}

/// Quantile `p` in [0, 1] of non-empty sorted samples, type 7:
/// h = (n - 1) p, x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
fn quantile_sorted(sorted: &[f64], p: f64) -> f64 {
    let n = sorted.len();
    if n == 1 {
        return sorted[0];
    }
    let h = (n - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    let frac = h - lo as f64;
    sorted[lo] + frac * (sorted[hi] - sorted[lo])
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    #[test]
    fn odd_count_median_is_middle_element() {
        let s = Summary::of(&[5.0, 1.0, 3.0]).unwrap();
        assert_eq!(s.median, 3.0);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.max, 5.0);
        assert_eq!(s.count, 3);
    }

    #[test]
    fn even_count_median_interpolates() {
        let s = Summary::of(&[4.0, 1.0, 3.0, 2.0]).unwrap();
        assert_relative_eq!(s.median, 2.5);
        // type 7 on 1,2,3,4: q1 at h = 0.75 -> 1.75; q3 at h = 2.25 -> 3.25
        assert_relative_eq!(s.q1, 1.75);
        assert_relative_eq!(s.q3, 3.25);
        assert_relative_eq!(s.iqr(), 1.5);
    }

    #[test]
    fn numpy_reference_values() {
        // numpy.percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 100], [25, 50, 75])
        // = [3.25, 5.5, 7.75]; MAD = median(|x - 5.5|) = 2.5
        let x = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 100.0];
        let s = Summary::of(&x).unwrap();
        assert_relative_eq!(s.q1, 3.25);
        assert_relative_eq!(s.median, 5.5);
        assert_relative_eq!(s.q3, 7.75);
        assert_relative_eq!(s.mad, 2.5);
    }

    #[test]
    fn outlier_moves_max_but_not_median_or_mad() {
        let base = [10.0, 11.0, 10.5, 10.2, 10.8];
        let mut tail = base.to_vec();
        tail.push(1000.0);
        let a = Summary::of(&base).unwrap();
        let b = Summary::of(&tail).unwrap();
        assert!(b.max > 900.0);
        assert!((a.median - b.median).abs() < 0.5);
        assert!(b.mad < 1.0);
    }

    #[test]
    fn single_sample() {
        let s = Summary::of(&[7.0]).unwrap();
        assert_eq!(
            (s.median, s.min, s.max, s.q1, s.q3, s.mad),
            (7.0, 7.0, 7.0, 7.0, 7.0, 0.0)
        );
    }

    #[test]
    fn empty_or_nan_is_none() {
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[1.0, f64::NAN]).is_none());
        assert!(Summary::of(&[f64::INFINITY]).is_none());
    }
}
