//! The episode as every backend keeps it, apart from the device's own state: the steps the
//! device applied, what the agent answered and asked, how the episode ended, and the feedback
//! the next observation shows. The rules and wording that do not depend on the device live
//! here once: an episode that has ended takes no more actions, an action outside the limits
//! every action obeys is refused, `answer`, `ask_user` and `terminate` are recorded, an invalid
//! action's feedback says so.

use serde::{Deserialize, Serialize};

use crate::{Action, StepOutcome, TerminateStatus};

/// What happened in an episode beyond the device state: answers, questions, termination.
/// Verifiers read it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct EpisodeLog {
    pub answers: Vec<String>,
    pub questions: Vec<String>,
    pub terminated: Option<TerminateStatus>,
    /// The first question came after the agent had already changed the device's data: asking
    /// then is too late to matter. The device says what a change is (`Episode::record`).
    #[serde(default)]
    pub asked_after_a_change: bool,
}

/// The feedback of a step the episode had already ended for.
pub const ENDED: &str = "the episode has ended";

/// What a question gets when the task gives no user's reply.
pub const NO_REPLY: &str = "no one is there to answer; go on with what the task says";

/// The feedback an observation shows after an invalid action (a refused action, a reply that
/// held no action): the reason, said to be one.
pub fn invalid_feedback(why: &str) -> String {
    format!("invalid action: {why}")
}

/// One episode's record, reset with the device.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Episode {
    pub log: EpisodeLog,
    /// Steps the device applied (refused and invalid actions do not count).
    pub steps: u32,
    /// How the agent broke the instance, when it did (see `StepOutcome::broken`).
    pub broken: Option<String>,
    /// The last step's feedback, for the next observation.
    pub feedback: Option<String>,
}

impl Episode {
    /// Whether the episode is over: the agent terminated it, or broke its instance.
    pub fn is_over(&self) -> bool {
        self.log.terminated.is_some() || self.broken.is_some()
    }

    /// The outcome of an action the device must not see: the episode is over, or the action
    /// is outside the limits every action obeys (`Action::check`). `None`: go on.
    pub fn refuse(&mut self, action: &Action) -> Option<StepOutcome> {
        if let Some(why) = &self.broken {
            return Some(StepOutcome::broken(why.clone()));
        }
        if self.log.terminated.is_some() {
            return Some(StepOutcome { feedback: ENDED.into(), invalid: true, done: true, broken: None });
        }
        let refused = action.check().err()?;
        Some(self.finish(StepOutcome::invalid(refused.message)))
    }

    /// Records the actions every platform answers alike — `answer`, `ask_user` (answered with
    /// the task's `reply`, when it has one; `changed`: whether the device's data changed since
    /// the reset, for a first question), `terminate` — and returns their outcome; `None` for
    /// any other action, which is the device's to apply.
    pub fn record(&mut self, action: &Action, reply: Option<&str>, changed: impl FnOnce() -> bool) -> Option<StepOutcome> {
        let outcome = match action {
            Action::Answer { text } => {
                self.log.answers.push(text.clone());
                StepOutcome::ok("answer recorded")
            }
            Action::AskUser { text } => {
                if self.log.questions.is_empty() {
                    self.log.asked_after_a_change = changed();
                }
                self.log.questions.push(text.clone());
                StepOutcome::ok(reply.map_or_else(|| NO_REPLY.to_string(), |r| format!("the user says: {r}")))
            }
            Action::Terminate { status } => {
                self.log.terminated = Some(*status);
                StepOutcome::done(format!("terminated: {}", status.name()))
            }
            _ => return None,
        };
        Some(self.finish(outcome))
    }

    /// Takes a step's outcome into the record: an applied step counts, its feedback (said to
    /// be invalid when it is) shows in the next observation, a broken instance ends the episode.
    pub fn finish(&mut self, outcome: StepOutcome) -> StepOutcome {
        if !outcome.invalid {
            self.steps += 1;
        }
        if outcome.broken.is_some() {
            self.broken = outcome.broken.clone();
        }
        self.feedback = Some(if outcome.invalid && outcome.broken.is_none() { invalid_feedback(&outcome.feedback) } else { outcome.feedback.clone() });
        outcome
    }

    /// Ends the episode: the agent's doing broke the instance.
    pub fn broke(&mut self, why: impl Into<String>) -> StepOutcome {
        self.finish(StepOutcome::broken(why))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_actions_are_recorded_alike_and_an_ended_episode_takes_no_more() {
        let mut e = Episode::default();
        let answered = e.record(&Action::Answer { text: "14:30".into() }, None, || false).unwrap();
        assert_eq!((answered.feedback.as_str(), answered.invalid), ("answer recorded", false));
        let asked = e.record(&Action::AskUser { text: "which one?".into() }, Some("the blue one"), || true).unwrap();
        assert_eq!(asked.feedback, "the user says: the blue one");
        assert!(e.log.asked_after_a_change, "the first question after a change");
        assert_eq!(e.record(&Action::AskUser { text: "and?".into() }, None, || false).unwrap().feedback, NO_REPLY);
        assert!(e.log.asked_after_a_change, "only the first question decides");
        assert!(e.record(&Action::Back, None, || false).is_none(), "the device's to apply");
        assert_eq!(e.steps, 3);
        let refused = e.refuse(&Action::Type { text: "x".repeat(20_000), element: None, clear: false }).unwrap();
        assert!(refused.invalid && !refused.done);
        assert!(e.feedback.as_deref().is_some_and(|f| f.starts_with("invalid action: ")), "{:?}", e.feedback);
        assert_eq!(e.steps, 3, "a refused action is no step");
        let done = e.record(&Action::Terminate { status: TerminateStatus::Infeasible }, None, || false).unwrap();
        assert_eq!((done.feedback.as_str(), done.done), ("terminated: infeasible", true));
        let after = e.refuse(&Action::Back).unwrap();
        assert_eq!((after.feedback.as_str(), after.invalid, after.done), (ENDED, true, true));
        let mut broken = Episode::default();
        broken.broke("the display is held");
        assert!(broken.is_over());
        assert_eq!(broken.refuse(&Action::Back).unwrap().broken.as_deref(), Some("the display is held"));
    }
}
