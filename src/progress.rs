/*!
Progress on stderr: a bar with count, rate and elapsed time when stderr is a
terminal, nothing otherwise (CI stays quiet; the final summary is printed by the
command). Workers only bump counters.
*/

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A progress display for one stage.
pub struct Progress {
    bar: ProgressBar,
    bytes: std::sync::atomic::AtomicU64,
}

impl Progress {
    /// A counter of `unit` (e.g. "games"); `total` when known (gives an ETA).
    pub fn new(stage: &str, unit: &str, total: Option<u64>, quiet: bool) -> Progress {
        let target = if quiet { ProgressDrawTarget::hidden() } else { ProgressDrawTarget::stderr() };
        let bar = match total {
            Some(t) => {
                let b = ProgressBar::with_draw_target(Some(t), target);
                b.set_style(
                    ProgressStyle::with_template(&format!(
                        "{stage:>7} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} {{per_sec}} ETA {{eta}} {{msg}}"
                    ))
                    .expect("invariant: template is valid")
                    .progress_chars("=> "),
                );
                b
            }
            None => {
                let b = ProgressBar::with_draw_target(None, target);
                b.set_style(
                    ProgressStyle::with_template(&format!(
                        "{stage:>7} {{spinner}} {{human_pos}} {unit} ({{per_sec}}) {{msg}} {{elapsed}}"
                    ))
                    .expect("invariant: template is valid"),
                );
                b
            }
        };
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        Progress { bar, bytes: Default::default() }
    }

    /// A display that draws nothing.
    pub fn hidden() -> Progress {
        Progress { bar: ProgressBar::hidden(), bytes: Default::default() }
    }

    /// Adds `n` finished units.
    pub fn add(&self, n: u64) {
        self.bar.inc(n);
    }

    /// Shows how many input bytes were read so far.
    pub fn add_bytes(&self, n: u64) {
        let total = self.bytes.fetch_add(n, std::sync::atomic::Ordering::Relaxed) + n;
        self.bar.set_message(format!("{:.1} MB read", total as f64 / 1e6));
    }

    /// Shows `m` after the counts (a match's games an hour and score).
    pub fn message(&self, m: String) {
        self.bar.set_message(m);
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
