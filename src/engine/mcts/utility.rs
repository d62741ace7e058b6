//! How an evaluation becomes the one number PUCT compares, as KataGo computes it: the win/loss value plus
//! two score terms, each the expected value of a squashed score over the score's predicted spread (a
//! normal with the network's mean and stdev). The static term is centred on zero and saturates slowly;
//! the dynamic one is centred near the root's expected score and saturates faster, so that the search
//! still tells a few points apart when the game is decided either way.

use super::tree::Sample;
use crate::nn::NnEval;
use std::sync::LazyLock;

/// The static term's width, in units of the board's side (KataGo's fixed 2.0).
const STATIC_SCALE: f64 = 2.0;
/// The dynamic term's width, in units of the board's side (KataGo's `dynamicScoreCenterScale`).
const DYNAMIC_SCALE: f64 = 0.75;
/// How far the dynamic centre is pulled from the expected score towards zero (KataGo's
/// `dynamicScoreCenterZeroWeight`), so that a side far behind still values points that close the gap.
const CENTER_ZERO_WEIGHT: f64 = 0.2;

/// Points and weights of a standard normal, for the expected value of a smooth function of the score.
const QUADRATURE_HALF_WIDTH: f64 = 4.0;
const QUADRATURE_POINTS: usize = 33;
static STANDARD_NORMAL: LazyLock<Vec<(f64, f64)>> = LazyLock::new(|| {
    let step = 2.0 * QUADRATURE_HALF_WIDTH / (QUADRATURE_POINTS - 1) as f64;
    let points: Vec<(f64, f64)> = (0..QUADRATURE_POINTS)
        .map(|i| {
            let z = -QUADRATURE_HALF_WIDTH + step * i as f64;
            (z, (-0.5 * z * z).exp())
        })
        .collect();
    let total: f64 = points.iter().map(|p| p.1).sum();
    points.into_iter().map(|(z, w)| (z, w / total)).collect()
});

/// The expected value of 2/π·atan((score − centre)/width) when the score is normal(mean, stdev).
pub fn expected_score_value(mean: f64, stdev: f64, center: f64, width: f64) -> f64 {
    let squash = |x: f64| std::f64::consts::FRAC_2_PI * ((x - center) / width).atan();
    if stdev <= 1e-3 * width {
        return squash(mean);
    }
    STANDARD_NORMAL
        .iter()
        .map(|&(z, w)| w * squash(mean + stdev * z))
        .sum()
}

/// How a network evaluation is turned into a utility (White's view, as every value in the tree).
#[derive(Debug, Clone, Copy)]
pub struct Utility {
    pub static_factor: f64,
    pub dynamic_factor: f64,
    /// The score the dynamic term is centred on (White's view).
    pub center: f64,
    /// The square root of the board's area: score widths grow with the board's side.
    pub sqrt_area: f64,
}

impl Utility {
    /// The utility of a search whose root expects White to score `expected` (KataGo's dynamic centre:
    /// most of the way to the expected score, at most 0.75 board sides from it).
    pub fn new(static_factor: f64, dynamic_factor: f64, expected: f64, area: usize) -> Utility {
        let sqrt_area = (area as f64).sqrt().max(1.0);
        let cap = sqrt_area * DYNAMIC_SCALE;
        let center = (expected * (1.0 - CENTER_ZERO_WEIGHT)).clamp(expected - cap, expected + cap);
        Utility {
            static_factor,
            dynamic_factor,
            center,
            sqrt_area,
        }
    }

    /// The score terms of a score distribution (White's view).
    pub fn of_score(&self, mean: f64, stdev: f64) -> f64 {
        self.static_factor * expected_score_value(mean, stdev, 0.0, STATIC_SCALE * self.sqrt_area)
            + self.dynamic_factor
                * expected_score_value(mean, stdev, self.center, DYNAMIC_SCALE * self.sqrt_area)
    }

    pub fn sample(&self, eval: &NnEval) -> Sample {
        let win = eval.white_win as f64 + 0.5 * eval.no_result as f64;
        let mean = eval.white_score_mean as f64;
        let stdev = eval.white_score_stdev as f64;
        Sample {
            utility: (eval.white_win - eval.white_loss) as f64 + self.of_score(mean, stdev),
            win,
            lead: eval.white_lead as f64,
            score_mean: mean,
            score_sq: stdev * stdev + mean * mean,
        }
    }

    /// A finished game: the result is certain.
    pub fn terminal(&self, white_score: f64) -> Sample {
        // Not `signum`, which calls a drawn game (a score of ±0.0) a win for one side.
        let winloss = if white_score > 0.0 {
            1.0
        } else if white_score < 0.0 {
            -1.0
        } else {
            0.0
        };
        Sample {
            utility: winloss + self.of_score(white_score, 0.0),
            win: 0.5 + 0.5 * winloss,
            lead: white_score,
            score_mean: white_score,
            score_sq: white_score * white_score,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wide_spread_flattens_the_score_value() {
        let sharp = expected_score_value(10.0, 0.0, 0.0, 18.0);
        let spread = expected_score_value(10.0, 15.0, 0.0, 18.0);
        assert!((sharp - std::f64::consts::FRAC_2_PI * (10.0f64 / 18.0).atan()).abs() < 1e-12);
        assert!(spread > 0.0 && spread < sharp, "{spread} vs {sharp}");
        // Symmetric around the centre.
        assert!(expected_score_value(0.0, 10.0, 0.0, 18.0).abs() < 1e-12);
        assert!(
            (expected_score_value(-4.0, 6.0, 0.0, 9.0) + expected_score_value(4.0, 6.0, 0.0, 9.0))
                .abs()
                < 1e-12
        );
    }

    #[test]
    fn the_dynamic_centre_leans_towards_zero_within_its_cap() {
        let u = Utility::new(0.1, 0.3, 10.0, 81);
        assert!((u.center - 8.0).abs() < 1e-12);
        let far = Utility::new(0.1, 0.3, 60.0, 81);
        assert!((far.center - (60.0 - 6.75)).abs() < 1e-12, "{}", far.center);
        // A draw is worth nothing at a centre of zero; a win by a point more is worth more.
        let even = Utility::new(0.1, 0.3, 0.0, 81);
        assert_eq!(even.terminal(0.0).utility, 0.0);
        assert!(even.terminal(2.0).utility > even.terminal(1.0).utility);
    }
}
