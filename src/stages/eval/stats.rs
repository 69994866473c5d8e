//! Rates with their 95% Wilson score intervals (docs/eval.md, "Rates").

use serde::{Deserialize, Serialize};

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A rate: `count` of `n`, its value and its 95% Wilson interval (`null` values when `n` is 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rate {
    pub count: u64,
    pub n: u64,
    pub rate: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
}

impl Rate {
    /// `count` successes of `n`.
    pub fn of(count: u64, n: u64) -> Rate {
        let (low, high) = match wilson(count, n, Z95) {
            Some((l, h)) => (Some(l), Some(h)),
            None => (None, None),
        };
        Rate { count, n, rate: (n > 0).then(|| count as f64 / n as f64), low, high }
    }

    /// The rate and its interval in percent, `(rate, low, high)`; `None` when `n` is 0.
    pub fn percent(&self) -> Option<(f64, f64, f64)> {
        let r = self.rate?;
        Some((100.0 * r, 100.0 * self.low.unwrap_or(0.0), 100.0 * self.high.unwrap_or(0.0)))
    }
}

/// The Wilson score interval of `k` successes in `n` trials at `z`; `None` when `n` is 0.
pub fn wilson(k: u64, n: u64, z: f64) -> Option<(f64, f64)> {
    if n == 0 {
        return None;
    }
    let (n, p) = (n as f64, k as f64 / n as f64);
    let z2 = z * z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = z / (1.0 + z2 / n) * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    // At k = 0 and k = n the bound is exactly 0 or 1 (the rounding of the sum is not).
    let low = if k == 0 { 0.0 } else { (centre - half).max(0.0) };
    let high = if k as f64 == n { 1.0 } else { (centre + half).min(1.0) };
    Some((low, high))
}

/// A tally of successes.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    pub count: u64,
    pub n: u64,
}

impl Tally {
    /// Counts one trial.
    pub fn add(&mut self, ok: bool) {
        self.n += 1;
        self.count += ok as u64;
    }

    /// The tally as a [`Rate`].
    pub fn rate(self) -> Rate {
        Rate::of(self.count, self.n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_the_closed_form_on_small_cases() {
        // 0 of 10 at z: (0, z²/(n+z²)).
        let (l, h) = wilson(0, 10, Z95).unwrap();
        assert_eq!(l, 0.0);
        assert!((h - Z95 * Z95 / (10.0 + Z95 * Z95)).abs() < 1e-12, "{h}");
        // 10 of 10: (n/(n+z²), 1).
        let (l, h) = wilson(10, 10, Z95).unwrap();
        assert!((l - 10.0 / (10.0 + Z95 * Z95)).abs() < 1e-12 && h == 1.0);
        // 5 of 10 (p = 1/2): centre 1/2, half z·sqrt(n/4 + z²/4)/(n + z²) = 0.2366...
        let (l, h) = wilson(5, 10, Z95).unwrap();
        let half = Z95 * (10.0f64 / 4.0 + Z95 * Z95 / 4.0).sqrt() / (10.0 + Z95 * Z95);
        assert!((l - (0.5 - half)).abs() < 1e-12 && (h - (0.5 + half)).abs() < 1e-12);
        assert!((l - 0.236_593).abs() < 1e-5 && (h - 0.763_407).abs() < 1e-5, "{l} {h}");
        // Every k of n = 3 and 20 against the other closed form,
        // (2k + z² ∓ z·sqrt(z² + 4k(n−k)/n)) / (2(n + z²)).
        for n in [3u64, 20] {
            for k in 0..=n {
                let (kf, nf, z2) = (k as f64, n as f64, Z95 * Z95);
                let root = Z95 * (z2 + 4.0 * kf * (nf - kf) / nf).sqrt();
                let (el, eh) = ((2.0 * kf + z2 - root) / (2.0 * (nf + z2)), (2.0 * kf + z2 + root) / (2.0 * (nf + z2)));
                let (l, h) = wilson(k, n, Z95).unwrap();
                assert!((l - el.max(0.0)).abs() < 1e-12 && (h - eh.min(1.0)).abs() < 1e-12, "{k}/{n}: {l} {h}");
            }
        }
        let (l, h) = wilson(1, 3, Z95).unwrap();
        assert!((l - 0.0615).abs() < 1e-4 && (h - 0.7923).abs() < 1e-4, "{l} {h}");
        assert_eq!(wilson(0, 0, Z95), None);
        assert_eq!(Rate::of(0, 0).rate, None);
    }
}
