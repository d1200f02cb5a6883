//! The cost model: a price in nanoseconds for each count of [`Features`], measured on this
//! machine by the calibration, and a layout's predicted replay time as the sum of each
//! count times its price.
//!
//! The prices are the non-negative least-squares fit of the calibration's samples,
//! weighted by relative error (a 2 ms sample counts as much as a 20 ms one): no price can
//! be negative, so the model never says that doing more work saves time. A price the fit
//! drives to nothing is kept at [`FLOOR_NS`], so every constant is positive.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::calibrate::{self, Sample};
use super::profile::{Features, FEATURES};

/// The smallest price the model keeps (nanoseconds).
pub const FLOOR_NS: f64 = 1e-3;

/// What the calibration's cache file says; recalibrated when the machine or this number
/// changes.
const MODEL_VERSION: u32 = 1;

/// Entities per calibration program.
pub const CALIBRATION_SIZE: usize = 100_000;

/// Replays per calibration sample (the median is kept).
const CALIBRATION_RUNS: usize = 5;

/// The calibrated prices (see the module docs).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CostModel {
    /// What the prices were measured on (see [`machine`]).
    pub machine: String,
    /// The cache format's version.
    pub version: u32,
    /// Nanoseconds per count, in [`Features::to_array`]'s order.
    pub prices: Vec<f64>,
    /// The samples the prices were fitted to.
    pub samples: Vec<Sample>,
    /// Seconds the calibration took.
    pub seconds: f64,
}

impl CostModel {
    /// The predicted time of `features`, in nanoseconds.
    pub fn predict(&self, features: &Features) -> f64 {
        features
            .to_array()
            .iter()
            .zip(&self.prices)
            .map(|(count, price)| count * price)
            .sum()
    }

    /// Fits prices to `samples` (see the module docs).
    pub fn fit(samples: Vec<Sample>, seconds: f64) -> CostModel {
        let prices = fit_prices(&samples);
        CostModel {
            machine: machine(),
            version: MODEL_VERSION,
            prices,
            samples,
            seconds,
        }
    }

    /// Measures the calibration at size `n` and fits it.
    ///
    /// # Errors
    /// A calibration program that could not be replayed.
    pub fn calibrate(n: usize, progress: &mut dyn FnMut(&str)) -> Result<CostModel, String> {
        let start = std::time::Instant::now();
        let samples = calibrate::measure(n, CALIBRATION_RUNS, progress)?;
        Ok(CostModel::fit(samples, start.elapsed().as_secs_f64()))
    }

    /// The model cached at `path` when it was measured on this machine by this version,
    /// or a fresh calibration, then cached there.
    ///
    /// # Errors
    /// A failed calibration, an unwritable cache.
    pub fn load_or_calibrate(
        path: &Path,
        recalibrate: bool,
        progress: &mut dyn FnMut(&str),
    ) -> Result<(CostModel, bool), String> {
        if !recalibrate {
            if let Some(model) = CostModel::load(path) {
                return Ok((model, true));
            }
        }
        let model = CostModel::calibrate(CALIBRATION_SIZE, progress)?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        }
        let json = serde_json::to_string_pretty(&model).map_err(|e| e.to_string())?;
        std::fs::write(path, json).map_err(|e| format!("writing {}: {e}", path.display()))?;
        Ok((model, false))
    }

    /// The cached model at `path`, if it is this machine's and this version's.
    fn load(path: &Path) -> Option<CostModel> {
        let text = std::fs::read_to_string(path).ok()?;
        let model: CostModel = serde_json::from_str(&text).ok()?;
        let usable = model.version == MODEL_VERSION
            && model.machine == machine()
            && model.prices.len() == FEATURES
            && model.prices.iter().all(|p| p.is_finite() && *p > 0.0);
        usable.then_some(model)
    }

    /// Each price with its count's name.
    pub fn named_prices(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        Features::NAMES
            .iter()
            .copied()
            .zip(self.prices.iter().copied())
    }
}

/// Where the calibration is cached in the bench's output folder `dir`
/// (`target/ecs-bench/advise-calibration.json`).
pub fn cache_path(dir: &Path) -> PathBuf {
    dir.join("advise-calibration.json")
}

/// This machine and build, as far as prices go: [`machine_name`], and the running
/// program's file and when it was built (so prices measured by one build of the storages
/// are not taken for another's).
pub fn machine() -> String {
    let binary = std::env::current_exe()
        .ok()
        .and_then(|exe| {
            let built = std::fs::metadata(&exe).ok()?.modified().ok()?;
            let secs = built.duration_since(std::time::UNIX_EPOCH).ok()?.as_secs();
            Some(format!(", {} built at {secs}", exe.display()))
        })
        .unwrap_or_default();
    format!("{}{binary}", machine_name())
}

/// This machine's processor, how many threads it runs, and the version of ecs-bench and
/// whether the build is optimised: what the advice prints (without the file of
/// [`machine`]'s key, a path on this machine).
pub fn machine_name() -> String {
    let crate::report::model::Machine {
        cpu,
        logical_cores: threads,
        ..
    } = crate::report::model::Machine::current();
    // A debug build's prices are not a release build's.
    let build = if cfg!(debug_assertions) {
        ", debug build"
    } else {
        ""
    };
    format!(
        "{cpu}, {threads} threads, ecs-bench {}{build}",
        env!("CARGO_PKG_VERSION")
    )
}

/// The fitted prices, each at least [`FLOOR_NS`].
fn fit_prices(samples: &[Sample]) -> Vec<f64> {
    non_negative_fit(samples)
        .into_iter()
        .map(|p| p.max(FLOOR_NS))
        .collect()
}

/// Non-negative least squares by cyclic coordinate descent, on relative errors.
fn non_negative_fit(samples: &[Sample]) -> Vec<f64> {
    let rows: Vec<(&[f64], f64, f64)> = samples
        .iter()
        .filter(|s| s.measured_ns > 0.0 && s.features.len() == FEATURES)
        .map(|s| {
            (
                s.features.as_slice(),
                s.measured_ns,
                1.0 / (s.measured_ns * s.measured_ns),
            )
        })
        .collect();
    let mut prices = vec![0.0f64; FEATURES];
    let mut residual: Vec<f64> = rows.iter().map(|r| r.1).collect();
    let norms: Vec<f64> = (0..FEATURES)
        .map(|i| rows.iter().map(|(f, _, w)| w * f[i] * f[i]).sum())
        .collect();
    for _ in 0..20_000 {
        let mut moved = 0.0f64;
        for i in 0..FEATURES {
            if norms[i] == 0.0 {
                continue;
            }
            let gradient: f64 = rows
                .iter()
                .zip(&residual)
                .map(|((f, _, w), r)| w * f[i] * r)
                .sum();
            let next = (prices[i] + gradient / norms[i]).max(0.0);
            let step = next - prices[i];
            if step != 0.0 {
                for ((f, _, _), r) in rows.iter().zip(residual.iter_mut()) {
                    *r -= step * f[i];
                }
                prices[i] = next;
                moved = moved.max((step / next.max(1e-9)).abs());
            }
        }
        if moved < 1e-9 {
            break;
        }
    }
    prices
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(features: [f64; FEATURES], measured_ns: f64) -> Sample {
        Sample {
            program: "test".into(),
            sparse: Vec::new(),
            features: features.to_vec(),
            measured_ns,
        }
    }

    /// Samples made from known prices give those prices back.
    #[test]
    fn the_fit_recovers_known_prices() {
        let truth: [f64; FEATURES] = std::array::from_fn(|i| 1.0 + i as f64);
        let samples: Vec<Sample> = (0..FEATURES * 2)
            .map(|k| {
                let f: [f64; FEATURES] = std::array::from_fn(|i| {
                    if i == k % FEATURES {
                        1000.0
                    } else {
                        (k * i % 7) as f64
                    }
                });
                let t = f.iter().zip(&truth).map(|(a, b)| a * b).sum();
                sample(f, t)
            })
            .collect();
        let prices = fit_prices(&samples);
        for (got, want) in prices.iter().zip(&truth) {
            assert!((got - want).abs() / want < 1e-3, "{prices:?}");
        }
    }

    /// A count that only lowers the time is fitted at zero (kept at the floor), never
    /// below: the fit is constrained, not clamped after.
    #[test]
    fn no_price_is_negative() {
        // The more of the second count, the less time: unconstrained, its price would be
        // negative.
        let samples: Vec<Sample> = (1..=4)
            .map(|k| {
                let mut f = [0.0; FEATURES];
                f[0] = 100.0;
                f[1] = 10.0 * k as f64;
                sample(f, 100.0 - k as f64)
            })
            .collect();
        let raw = non_negative_fit(&samples);
        assert_eq!(raw[1], 0.0, "{raw:?}");
        assert!(raw[0] > 0.9 && raw[0] < 1.0, "{raw:?}");
        assert_eq!(fit_prices(&samples)[1], FLOOR_NS);
    }
}
