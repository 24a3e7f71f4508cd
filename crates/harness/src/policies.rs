//! Built-in scripted policies: `golden` plays a task's walkthrough through the GUI, `random`
//! taps and types at random (a floor for success rates). Both answer in the harness's codec,
//! so they exercise the same parsing path as a model.

use async_trait::async_trait;
use guigym_core::action::Target;
use guigym_core::{Action, Direction, Observation, Point, Rng, TaskSpec, TerminateStatus, UiNode};
use serde::{Deserialize, Serialize};

use crate::policy::{Policy, PolicyError, PolicyFactory, PolicyInput, PolicyOutput};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PolicyKind {
    Golden,
    Random,
}

impl PolicyFactory for PolicyKind {
    fn name(&self) -> String {
        match self {
            PolicyKind::Golden => "golden".into(),
            PolicyKind::Random => "random".into(),
        }
    }

    fn for_attempt(&self, task: &TaskSpec, attempt: u32) -> Box<dyn Policy> {
        match self {
            PolicyKind::Golden => Box::new(GoldenPolicy::new(task.walkthrough.clone())),
            PolicyKind::Random => {
                let seed = Rng::derive(attempt as u64, &task.id).next_u64();
                Box::new(RandomPolicy::new(seed))
            }
        }
    }
}

/// Plays a walkthrough the way a person would: element targets become taps at the element's
/// centre on the current screen, and an element below the fold is scrolled to first.
pub struct GoldenPolicy {
    walkthrough: Vec<Action>,
    next: usize,
    scrolls: u32,
}

/// How many scrolls the golden policy spends looking for one element (half down, then up):
/// enough for the longest list on the most zoomed screen.
const MAX_SCROLLS: u32 = 24;

impl GoldenPolicy {
    pub fn new(walkthrough: Vec<Action>) -> GoldenPolicy {
        GoldenPolicy { walkthrough, next: 0, scrolls: 0 }
    }

    /// The next action on this screen.
    pub fn decide(&mut self, obs: &Observation) -> Action {
        let Some(step) = self.walkthrough.get(self.next).cloned() else {
            return Action::Terminate { status: TerminateStatus::Failure };
        };
        let target = match step.target() {
            Ok(Some(Target::Element(id))) => id.to_string(),
            _ => {
                self.next += 1;
                return step;
            }
        };
        if let Some(node) = obs.node(&target).filter(|n| n.bounds.w > 0 && n.bounds.h > 0) {
            self.next += 1;
            self.scrolls = 0;
            let (x, y) = node.bounds.center();
            return with_point(step, Point(x.floor(), y.floor()));
        }
        // Not on screen: scroll the list down, then back up, looking for it.
        if let Some(list) = obs.ui_tree.iter().find(|n| n.scrollable) {
            if self.scrolls < MAX_SCROLLS {
                self.scrolls += 1;
                let direction = if self.scrolls <= MAX_SCROLLS / 2 { Direction::Down } else { Direction::Up };
                return Action::Scroll { at: None, element: Some(list.id.clone()), direction, amount: 1 };
            }
        }
        // Give up on finding it: tap by id and let the environment say why that fails.
        self.next += 1;
        step
    }
}

/// Swaps an element target for a point.
fn with_point(action: Action, p: Point) -> Action {
    match action {
        Action::Click { .. } => Action::Click { at: Some(p), element: None },
        Action::DoubleClick { .. } => Action::DoubleClick { at: Some(p), element: None },
        Action::LongPress { .. } => Action::LongPress { at: Some(p), element: None },
        Action::RightClick { .. } => Action::RightClick { at: Some(p), element: None },
        Action::Scroll { direction, amount, .. } => Action::Scroll { at: Some(p), element: None, direction, amount },
        other => other,
    }
}

#[async_trait]
impl Policy for GoldenPolicy {
    async fn act(&mut self, input: &PolicyInput<'_>) -> Result<PolicyOutput, PolicyError> {
        let action = self.decide(input.observation);
        Ok(PolicyOutput { raw: input.prompt.encode(&action, input.observation), ..Default::default() })
    }
}

/// Seeded random actions over the screen and the UI tree.
pub struct RandomPolicy {
    rng: Rng,
}

const WORDS: [&str; 8] = ["hello", "Ana", "14:30", "2026-03-05", "meeting", "+1 555 010 2030", "ok", "test"];
const APPS: [&str; 5] = ["Contacts", "Messages", "Mail", "Calendar", "Camera"];

impl RandomPolicy {
    pub fn new(seed: u64) -> RandomPolicy {
        RandomPolicy { rng: Rng::new(seed) }
    }

    pub fn decide(&mut self, obs: &Observation) -> Action {
        let clickable: Vec<&UiNode> = obs.ui_tree.iter().filter(|n| n.clickable && n.bounds.w > 0).collect();
        let (w, h) = (obs.width as f32, obs.height as f32);
        let roll = self.rng.below(100);
        match roll {
            0..=59 if !clickable.is_empty() => {
                let n = *self.rng.pick(&clickable);
                let (x, y) = n.bounds.center();
                Action::click_at(x.floor(), y.floor())
            }
            0..=69 => Action::click_at((self.rng.f32() * w).floor(), (self.rng.f32() * h).floor()),
            70..=77 => Action::Type { text: self.rng.pick(&WORDS).to_string(), element: None, clear: self.rng.chance(0.3) },
            78..=84 => {
                let direction = if self.rng.chance(0.7) { Direction::Down } else { Direction::Up };
                Action::Scroll { at: Some(Point((w / 2.0).floor(), (h / 2.0).floor())), element: None, direction, amount: 1 }
            }
            85..=89 => Action::Back,
            90..=92 => Action::Home,
            93..=95 => Action::OpenApp { name: self.rng.pick(&APPS).to_string() },
            96..=97 => Action::Answer { text: self.rng.pick(&WORDS).to_string() },
            _ => {
                let status = *self.rng.pick(&[TerminateStatus::Success, TerminateStatus::Failure, TerminateStatus::Infeasible]);
                Action::Terminate { status }
            }
        }
    }
}

#[async_trait]
impl Policy for RandomPolicy {
    async fn act(&mut self, input: &PolicyInput<'_>) -> Result<PolicyOutput, PolicyError> {
        let action = self.decide(input.observation);
        Ok(PolicyOutput { raw: input.prompt.encode(&action, input.observation), ..Default::default() })
    }
}
