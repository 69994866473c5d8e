//! A match's strength figures from its wins, losses and draws, with cutechess-cli's
//! formulas (`projects/lib/src/elo.cpp`, `projects/lib/src/sprt.cpp`; ../shared/docs/MATCH.md):
//!
//! * [`Score::elo`]: with n = W+L+D and w, l, d their shares, the score μ = w + d/2, its
//!   standard error σ = √(w(1−μ)² + l·μ² + d(½−μ)²) / √n, Elo(p) = −400·log10(1/p − 1),
//!   and the 95% margin [Elo(μ + zσ) − Elo(μ − zσ)] / 2 (z the normal 97.5% quantile);
//! * [`Score::los`]: the likelihood of superiority ½ + ½·erf((W − L) / √(2(W + L)));
//! * [`Sprt`]: the log-likelihood ratio of H1 (Elo `elo1`) against H0 (`elo0`) in the
//!   BayesElo model with the draw rate the games show, stopped at ln(β/(1−α)) and
//!   ln((1−β)/α).
//!
//! A share of 0 or 1 has an infinite Elo: as fishtest does (`stat_util.get_elo`), a count
//! of 0 is taken as 0.001 for the Elo, so that ten wins out of ten give a large finite
//! figure, not infinity ([`EloEstimate::exact`] says when); an interval end past 0 or 1 is
//! `None` (unbounded), never a number.

use serde::{Deserialize, Serialize};

/// The normal distribution's 97.5% quantile (a two-sided 95% interval), as `kibo eval`'s
/// rates use it.
pub use crate::stages::eval::stats::Z95;

/// What a zero count is taken as for the Elo and its margin (fishtest's 1e-3).
pub const ZERO_COUNT: f64 = 1e-3;

/// The first player's wins, losses and draws against the second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
}

/// The Elo difference of the first player over the second, with its 95% interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// Elo(μ).
    pub diff: f64,
    /// Elo(μ − zσ) and Elo(μ + zσ), the 95% interval's ends; `None` where the end is
    /// unbounded (its score share 0 or below, 1 or above: every game won, or lost).
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// Half the interval's width, as cutechess prints `diff +/- margin` (the interval is
    /// not symmetric about `diff`); `None` when an end is unbounded.
    pub margin: Option<f64>,
    /// No count was 0 (else a 0 was taken as [`ZERO_COUNT`]).
    pub exact: bool,
}

/// The Elo difference a score share `p` means; `None` outside (0, 1), where it is
/// unbounded.
pub fn elo_of(p: f64) -> Option<f64> {
    (p > 0.0 && p < 1.0).then(|| -400.0 * (1.0 / p - 1.0).log10())
}

impl Score {
    /// Games played.
    pub fn games(&self) -> u64 {
        self.wins + self.losses + self.draws
    }

    /// The share of the points the first player scored (a draw is half), `None` before
    /// any game.
    pub fn score(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| (self.wins as f64 + self.draws as f64 / 2.0) / n as f64)
    }

    /// The share of draws, `None` before any game.
    pub fn draw_ratio(&self) -> Option<f64> {
        let n = self.games();
        (n > 0).then(|| self.draws as f64 / n as f64)
    }

    /// The Elo difference with its 95% margin, `None` before any game.
    pub fn elo(&self) -> Option<EloEstimate> {
        if self.games() == 0 {
            return None;
        }
        let c = |k: u64| if k == 0 { ZERO_COUNT } else { k as f64 };
        let (w, l, d) = (c(self.wins), c(self.losses), c(self.draws));
        let n = w + l + d;
        let (w, l, d) = (w / n, l / n, d / n);
        let mu = w + d / 2.0;
        let sigma = (w * (1.0 - mu).powi(2) + l * mu.powi(2) + d * (0.5 - mu).powi(2)).sqrt() / n.sqrt();
        let (low, high) = (elo_of(mu - Z95 * sigma), elo_of(mu + Z95 * sigma));
        Some(EloEstimate {
            // μ is inside (0, 1): no count is 0.
            diff: elo_of(mu).unwrap_or(0.0),
            low,
            high,
            margin: low.zip(high).map(|(l, h)| (h - l) / 2.0),
            exact: self.wins > 0 && self.losses > 0 && self.draws > 0,
        })
    }

    /// The likelihood that the first player is the stronger, from the decisive games
    /// alone (½ before any: no evidence either way).
    pub fn los(&self) -> f64 {
        let (w, l) = (self.wins as f64, self.losses as f64);
        if w + l == 0.0 {
            return 0.5;
        }
        0.5 + 0.5 * libm::erf((w - l) / (2.0 * (w + l)).sqrt())
    }
}

/// A sequential probability ratio test of H0: Elo = `elo0` against H1: Elo = `elo1`
/// (`--sprt elo0=… elo1=… alpha=… beta=…`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    pub elo0: f64,
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
}

/// Where an SPRT stands after some games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SprtDecision {
    /// H0 accepted: stop, the difference is not `elo1`.
    H0,
    /// H1 accepted: stop, the difference is `elo1` (or more).
    H1,
    /// Go on playing.
    Continue,
}

/// The SPRT's figures: the log-likelihood ratio, its bounds and the decision.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtState {
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub decision: SprtDecision,
}

impl Sprt {
    /// ln(β/(1−α)): H0 is accepted at or below it.
    pub fn lower_bound(&self) -> f64 {
        (self.beta / (1.0 - self.alpha)).ln()
    }

    /// ln((1−β)/α): H1 is accepted at or above it.
    pub fn upper_bound(&self) -> f64 {
        ((1.0 - self.beta) / self.alpha).ln()
    }

    /// The log-likelihood ratio of `s`: the draw Elo from the games' own win and loss
    /// rates, each hypothesis' Elo scaled to BayesElo, the counts weighing the log ratios.
    /// ½ is added to each count for the rates (MATCH.md's form): cutechess's older
    /// `sprt.cpp` and fishtest's first SPRT wait for a win, a loss and a draw, which a Go
    /// match under a half-point komi never has.
    pub fn llr(&self, s: &Score) -> f64 {
        let (w, l, d) = (s.wins as f64 + 0.5, s.losses as f64 + 0.5, s.draws as f64 + 0.5);
        let n = w + l + d;
        let (pw, pl) = (w / n, l / n);
        let draw_elo = 200.0 * ((1.0 - pl) / pl * (1.0 - pw) / pw).log10();
        let x = 10f64.powf(-draw_elo / 400.0);
        let scale = 4.0 * x / (1.0 + x).powi(2);
        let probs = |elo: f64| {
            let b = elo / scale;
            let pw = 1.0 / (1.0 + 10f64.powf((draw_elo - b) / 400.0));
            let pl = 1.0 / (1.0 + 10f64.powf((draw_elo + b) / 400.0));
            (pw, pl, 1.0 - pw - pl)
        };
        let (w0, l0, d0) = probs(self.elo0);
        let (w1, l1, d1) = probs(self.elo1);
        // The counts as played (without the ½) weigh the ratios, as cutechess does.
        let (sw, sl, sd) = (s.wins as f64, s.losses as f64, s.draws as f64);
        sw * (w1 / w0).ln() + sl * (l1 / l0).ln() + sd * (d1 / d0).ln()
    }

    /// The test after the games of `s`.
    pub fn state(&self, s: &Score) -> SprtState {
        let (llr, lower, upper) = (self.llr(s), self.lower_bound(), self.upper_bound());
        let decision = if llr >= upper {
            SprtDecision::H1
        } else if llr <= lower {
            SprtDecision::H0
        } else {
            SprtDecision::Continue
        };
        SprtState { llr, lower, upper, decision }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-9 * b.abs().max(1.0), "{a} against {b}");
    }

    fn score(wins: u64, losses: u64, draws: u64) -> Score {
        Score { wins, losses, draws }
    }

    /// Closed forms: Elo(¾) = 400·log10(3); LOS of one win and no loss is Φ(1); α = β =
    /// 0.05 gives the bounds ±ln 19. The other figures were computed apart from this code
    /// with Python's `math` from MATCH.md's formulas (`checks/`-style one-off, 2026-12-07).
    #[test]
    fn the_figures_equal_their_closed_forms() {
        close(elo_of(0.75).unwrap(), 400.0 * 3f64.log10());
        assert_eq!((elo_of(0.0), elo_of(1.0)), (None, None));
        close(score(1, 0, 0).los(), 0.841_344_746_068_542_9);
        close(score(60, 40, 0).los(), 0.977_249_868_051_820_8);
        assert_eq!(score(0, 0, 3).los(), 0.5);
        let e = score(60, 40, 0).elo().unwrap();
        close(e.diff, 70.435_779_805_675_71);
        close(e.low.unwrap(), 2.766_831_652_270_416_6);
        close(e.high.unwrap(), 143.907_640_021_943_7);
        close(e.margin.unwrap(), 70.570_404_184_836_65);
        assert!(!e.exact);
        let e = score(7, 3, 2).elo().unwrap();
        close(e.diff, 120.411_998_265_592_54);
        close(e.margin.unwrap(), 223.721_089_216_643_35);
        assert!(e.exact);
        let even = score(30, 30, 10).elo().unwrap();
        close(even.diff, 0.0);
        close(even.margin.unwrap(), 76.568_898_794_625_43);
        assert_eq!(score(0, 0, 0).elo(), None);
    }

    #[test]
    fn all_wins_and_all_losses_have_an_unbounded_end_not_a_number() {
        let e = score(10, 0, 0).elo().unwrap();
        close(e.diff, 1_529.572_182_050_260_2);
        close(e.low.unwrap(), 858.814_682_397_151_5);
        assert_eq!((e.high, e.margin), (None, None));
        let e = score(0, 5, 0).elo().unwrap();
        close(e.diff, -1_409.168_869_022_880_2);
        close(e.high.unwrap(), -737.210_751_726_665_3);
        assert_eq!((e.low, e.margin), (None, None));
        let json = serde_json::to_string(&e).unwrap();
        assert!(json.contains("\"low\":null") && json.contains("\"margin\":null"), "{json}");
    }

    #[test]
    fn the_sprt_stops_where_its_bounds_say() {
        let t = Sprt { elo0: 0.0, elo1: 50.0, alpha: 0.05, beta: 0.05 };
        close(t.upper_bound(), 19f64.ln());
        close(t.lower_bound(), -(19f64.ln()));
        close(t.llr(&score(60, 40, 0)), 1.860_958_181_325_632);
        close(t.llr(&score(30, 30, 10)), -0.843_840_432_353_073_5);
        assert_eq!(t.state(&score(60, 40, 0)).decision, SprtDecision::Continue);
        // Every game won: H1 is accepted at the 18th win, not before (LLR 2.793 after 17,
        // 2.956 after 18, against ln 19 = 2.944).
        assert_eq!(t.state(&score(17, 0, 0)).decision, SprtDecision::Continue);
        let s = t.state(&score(18, 0, 0));
        close(s.llr, 2.956_261_321_896_502_4);
        assert_eq!(s.decision, SprtDecision::H1);
        // Even play for long enough accepts H0.
        assert_eq!(t.state(&score(300, 300, 0)).decision, SprtDecision::H0);
    }
}
