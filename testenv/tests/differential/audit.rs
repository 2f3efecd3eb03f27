//! `KUBEFORGE_DIFF_NOPICK=1`: an audit of the corpus's `pick`s. A step with a `pick` compares
//! only those parts of the body, which can hide a difference in the rest (a field one server
//! keeps and the other drops). With the switch each such step is also compared whole (after
//! the same normalization, its `ignore` still applied) and reported: `PICK-NEEDED` with the
//! first pointers that differ whole, or `PICK-UNNEEDED` (with the status code) when the whole
//! answers are equal and the pick can go, unless a controller of the reference control plane
//! may write the object before or after the step (run the audit more than once, and keep the
//! picks of successful writes and reads of objects a controller writes). The run's outcome is
//! the usual one: the audit only prints.

use crate::compare::{self, Difference};
use crate::corpus::Step;
use crate::send::Answer;

/// How many differing pointers a `PICK-NEEDED` line shows.
const SHOWN: usize = 6;

/// Whether the audit is on.
pub fn enabled() -> bool {
    std::env::var("KUBEFORGE_DIFF_NOPICK").is_ok_and(|v| v == "1")
}

/// Counts of the audit.
#[derive(Default)]
pub struct Audit {
    /// Steps with a pick.
    pub picked: usize,
    /// Of those, the ones whose whole answers are equal.
    pub unneeded: usize,
}

impl Audit {
    /// Compares `step`'s normalized answers whole when it has a pick, and prints the outcome.
    pub fn check(&mut self, label: &str, step: &Step, embedded: &Answer, real: &Answer) {
        if step.pick.is_empty() {
            return;
        }
        self.picked += 1;
        let whole = compare::compare_whole(step, embedded, real);
        if whole.is_empty() {
            self.unneeded += 1;
            println!("PICK-UNNEEDED {label} ({})", real.code);
            return;
        }
        println!(
            "PICK-NEEDED {label}: {} differences whole, pick {:?}",
            whole.len(),
            step.pick
        );
        for d in whole.iter().take(SHOWN) {
            println!("    {}", line(d));
        }
    }

    /// The audit's summary line.
    pub fn summary(&self) -> String {
        format!(
            "pick audit: {} steps with a pick, {} equal whole (the pick is not needed), {} differ whole",
            self.picked,
            self.unneeded,
            self.picked - self.unneeded
        )
    }
}

fn line(d: &Difference) -> String {
    format!(
        "{}: embedded {} | real {}",
        d.at,
        crate::short(&d.embedded),
        crate::short(&d.real)
    )
}
