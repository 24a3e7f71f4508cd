//! The judgement of an attempt: a score with named checks, so progress can serve as a dense
//! reward and a failure says which check failed.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    pub name: String,
    pub passed: bool,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Verdict {
    /// In [0, 1]; 1 only when every check passed and nothing else changed.
    pub score: f32,
    pub success: bool,
    pub checks: Vec<Check>,
    /// State paths that changed although the task did not ask for it.
    pub unexpected_side_effects: Vec<String>,
    /// Fraction of checks passed: a dense reward.
    pub progress: f32,
}

impl Verdict {
    /// Builds a verdict from checks and side effects: success needs every check and no
    /// side effect.
    pub fn from_checks(checks: Vec<Check>, unexpected_side_effects: Vec<String>) -> Verdict {
        let passed = checks.iter().filter(|c| c.passed).count();
        let progress = if checks.is_empty() { 0.0 } else { passed as f32 / checks.len() as f32 };
        let success = !checks.is_empty() && passed == checks.len() && unexpected_side_effects.is_empty();
        Verdict { score: if success { 1.0 } else { 0.0 }, success, checks, unexpected_side_effects, progress }
    }

    /// The verdict with one more check, failed: what made the attempt fail beyond what the
    /// verifier looked at (the agent broke its instance).
    pub fn with_failed_check(self, name: &str, detail: impl Into<String>) -> Verdict {
        let mut checks = self.checks;
        checks.push(Check::new(name, false, detail));
        Verdict::from_checks(checks, self.unexpected_side_effects)
    }

    /// The first failing check, or the first side effect, worded for a report.
    pub fn first_failure(&self) -> Option<String> {
        if let Some(c) = self.checks.iter().find(|c| !c.passed) {
            return Some(if c.detail.is_empty() { c.name.clone() } else { format!("{}: {}", c.name, c.detail) });
        }
        self.unexpected_side_effects.first().map(|p| format!("unexpected side effect at {p}"))
    }
}

impl Check {
    pub fn new(name: impl Into<String>, passed: bool, detail: impl Into<String>) -> Check {
        Check { name: name.into(), passed, detail: detail.into() }
    }
}

/// Whether an answer reads as an explanation that something cannot be done ("There is no
/// song called X", "I can't find that setting"), not as a report that it was. Every platform
/// judges an infeasible task's answers by it: one that reports the task done is a false claim.
pub fn explains_impossibility(answer: &str) -> bool {
    let folded = answer.replace(['\u{2019}', '\u{2032}'], "'").to_lowercase();
    let t = format!(" {} ", folded.replace(['.', ',', ';', '!', '?', ':'], " ").split_whitespace().collect::<Vec<_>>().join(" "));
    [
        " not ",
        "n't ",
        " cannot ",
        " unable ",
        " no ",
        " none ",
        " nothing ",
        " impossible ",
        " infeasible ",
        " missing ",
        " never ",
        " nobody ",
        " nowhere ",
        " neither ",
        " nor ",
        " without ",
        " fails ",
        " failed ",
        " too low ",
        " too little ",
        " insufficient ",
        " not enough ",
        " exceeds ",
        " only have ",
        " only has ",
        " unavailable ",
        " refused ",
    ]
    .iter()
    .any(|w| t.contains(w))
}

#[cfg(test)]
mod tests {
    #[test]
    fn answers_explaining_impossibility_are_told_from_claims() {
        assert!(super::explains_impossibility("There is no such setting."));
        assert!(super::explains_impossibility("I can\u{2019}t find that file"));
        assert!(super::explains_impossibility("Impossible: the printer is missing"));
        assert!(!super::explains_impossibility("Done, it is all taken care of."));
        assert!(!super::explains_impossibility("Nothingness is a word, and I did it"));
    }

    use super::*;

    #[test]
    fn success_needs_all_checks_and_no_side_effects() {
        let ok = Verdict::from_checks(vec![Check::new("a", true, ""), Check::new("b", true, "")], vec![]);
        assert!(ok.success);
        assert_eq!(ok.score, 1.0);
        let half = Verdict::from_checks(vec![Check::new("a", true, ""), Check::new("b", false, "no")], vec![]);
        assert!(!half.success);
        assert_eq!(half.progress, 0.5);
        assert_eq!(half.first_failure().unwrap(), "b: no");
        let side = Verdict::from_checks(vec![Check::new("a", true, "")], vec!["contacts/2".into()]);
        assert!(!side.success);
        assert_eq!(side.score, 0.0);
        assert!(!Verdict::from_checks(vec![], vec![]).success);
    }
}
