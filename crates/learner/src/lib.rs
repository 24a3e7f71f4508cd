//! A small policy that learns on a CPU: a linear scorer over candidate actions, in plain Rust.
//!
//! At each step it lists what it could do on the current screen (tap each clickable element,
//! type each string the instruction contains, answer with each time or phone number on the
//! screen, terminate, go back or home), describes each candidate with hashed features of the
//! instruction, the screen and the recent history, and samples from a softmax over their
//! scores. The chosen action goes out through the harness codec like any model's reply, so the
//! same harness and rollout path measure and train it.
//!
//! Training is the MAI-Gym recipe in miniature: behaviour cloning of walkthroughs, then
//! group-relative policy gradients with a k3 KL penalty to the warm-up policy (`recipe`).

pub mod recipe;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use async_trait::async_trait;
use guigym_core::{Action, Observation, Point, Rng, TaskSpec, TerminateStatus};
use guigym_harness::{Policy, PolicyError, PolicyFactory, PolicyInput, PolicyOutput};

/// Weights are indexed by feature hashes modulo this.
pub const DIM: usize = 1 << 18;

/// One candidate action with its feature indices.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub action: Action,
    pub features: Vec<u32>,
}

fn hash(parts: &[&str]) -> u32 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes() {
            h ^= b as u64;
            h = h.wrapping_mul(0x100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    (h % DIM as u64) as u32
}

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric()).filter(|w| w.len() > 1).map(str::to_lowercase).collect()
}

/// The kind of a piece of text, for features that must generalize across values.
fn text_kind(s: &str) -> &'static str {
    let digits = s.chars().filter(char::is_ascii_digit).count();
    if s.len() == 10 && s.as_bytes().get(4) == Some(&b'-') {
        "date"
    } else if s.len() == 5 && s.as_bytes().get(2) == Some(&b':') {
        "time"
    } else if digits >= 7 {
        "phone"
    } else if s.split_whitespace().count() == 2 && s.split_whitespace().all(|w| w.chars().next().is_some_and(char::is_uppercase)) {
        "name"
    } else {
        "text"
    }
}

/// Strings an instruction offers for typing: quoted text, text after "with:", names, phone
/// numbers, dates, times.
pub fn strings_in(instruction: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: &str| {
        let s = s.trim().trim_end_matches(['.', ',']).to_string();
        if !s.is_empty() && !out.contains(&s) {
            out.push(s);
        }
    };
    for (i, part) in instruction.split('"').enumerate() {
        if i % 2 == 1 {
            push(part);
        }
    }
    if let Some((_, rest)) = instruction.split_once("with: ") {
        push(rest);
    }
    let tokens: Vec<&str> = instruction.split_whitespace().collect();
    for w in tokens.windows(2) {
        let clean = |t: &str| t.trim_matches(|c: char| !c.is_alphanumeric()).to_string();
        let (a, b) = (clean(w[0]), clean(w[1]));
        let cap = |t: &str| t.len() > 1 && t.chars().next().is_some_and(char::is_uppercase) && t.chars().skip(1).all(char::is_lowercase);
        if cap(&a) && cap(&b) && !["Add", "Send", "Delete", "Change", "Text", "Create", "Reply", "What", "The"].contains(&a.as_str()) {
            push(&format!("{a} {b}"));
        }
        // Possessive names: "Ana Ruiz's".
        let b2 = w[1].trim_end_matches("'s");
        if cap(&a) && cap(&clean(b2)) && w[1].ends_with("'s") {
            push(&format!("{a} {}", clean(b2)));
        }
    }
    // Phone numbers: "+1 555 123 4567" runs of digit groups.
    let mut i = 0;
    while i < tokens.len() {
        if tokens[i].starts_with('+') && tokens[i][1..].chars().all(|c| c.is_ascii_digit()) {
            let mut j = i + 1;
            while j < tokens.len() && tokens[j].trim_end_matches(['.', ',']).chars().all(|c| c.is_ascii_digit()) {
                j += 1;
            }
            push(&tokens[i..j].join(" "));
            i = j;
        } else {
            i += 1;
        }
    }
    for t in &tokens {
        let t = t.trim_end_matches(['.', ',', '?']);
        if text_kind(t) == "date" || text_kind(t) == "time" {
            push(t);
        }
    }
    out
}

/// Times and phone numbers shown on screen: what retrieval answers are made of.
fn answers_on(obs: &Observation) -> Vec<String> {
    let mut out = Vec::new();
    for n in &obs.ui_tree {
        for piece in n.text.split(['·', '–']) {
            let p = piece.trim();
            if (text_kind(p) == "phone" || text_kind(p) == "time") && !out.iter().any(|o: &String| o == p) {
                out.push(p.to_string());
            }
        }
    }
    out
}

/// Two words that share a stem: one contains the other, or their first four letters match.
fn related(a: &str, b: &str) -> bool {
    let (a, b) = (a.to_lowercase(), b.to_lowercase());
    let stem = |w: &str| w.chars().take(4).collect::<String>();
    a.chars().count() >= 4 && b.chars().count() >= 4 && (a.contains(&b) || b.contains(&a) || stem(&a) == stem(&b))
}

/// What the policy remembers of the attempt so far.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Memory {
    pub last_kind: String,
    pub last_element: String,
    pub typed: Vec<String>,
    pub steps: u32,
    /// Facts read on earlier screens (text, where it was read), for tasks that carry a fact
    /// from one app to another.
    pub facts: Vec<(String, String)>,
}

const MAX_FACTS: usize = 16;
const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/// Times (`17:00`), ISO dates and day-month dates (`Monday 1 Jun` → `2026-06-01`, the year
/// from the observation's clock) written in a text.
pub fn times_and_dates(text: &str, year: &str) -> Vec<String> {
    let mut out = Vec::new();
    let tokens: Vec<&str> = text.split(|c: char| c.is_whitespace() || c == ',' || c == '(' || c == ')').filter(|t| !t.is_empty()).collect();
    for (i, raw) in tokens.iter().enumerate() {
        let t = raw.trim_end_matches(['.', ';']);
        if let Some((h, m)) = t.split_once(':') {
            if (1..=2).contains(&h.len()) && m.len() == 2 && h.chars().chain(m.chars()).all(|c| c.is_ascii_digit()) {
                out.push(format!("{:0>2}:{m}", h));
            }
        } else if text_kind(t) == "date" {
            out.push(t.to_string());
        } else if let (Ok(day), Some(month)) = (t.parse::<u32>(), tokens.get(i + 1)) {
            let month = month.to_lowercase();
            if let Some(m) = MONTHS.iter().position(|x| month.starts_with(x)) {
                if (1..=31).contains(&day) && year.len() == 4 {
                    out.push(format!("{year}-{:02}-{day:02}", m + 1));
                }
            }
        }
    }
    out
}

impl Memory {
    /// Notes what a screen shows that a later step may need: times and dates anywhere, and
    /// short labelled texts (`location`, `phone`) or texts that share words with the task.
    pub fn read(&mut self, instruction: &str, obs: &Observation) {
        let year = obs.time.get(..4).unwrap_or("");
        let iwords = words(instruction);
        for n in obs.ui_tree.iter().filter(|n| !n.clickable && !n.editable && !n.text.is_empty()) {
            let mut found: Vec<(String, String)> = times_and_dates(&n.text, year).into_iter().map(|f| (f, "clock".to_string())).collect();
            let labelled = !n.id.is_empty() && !n.id.contains('/') && !n.id.contains('.') && n.id != "status_bar" && n.id != "toast";
            let short = n.text.split_whitespace().count() <= 4 && !n.text.contains('\n');
            let shares = words(&n.text).iter().any(|w| w.len() > 3 && iwords.contains(w));
            if short && (labelled || shares) {
                found.push((n.text.clone(), if labelled { n.id.clone() } else { "shared".into() }));
            }
            for f in found {
                if !self.facts.iter().any(|(t, _)| *t == f.0) {
                    self.facts.push(f);
                }
            }
        }
        if self.facts.len() > MAX_FACTS {
            let extra = self.facts.len() - MAX_FACTS;
            self.facts.drain(..extra);
        }
    }

    /// Remembers an action taken on a screen.
    pub fn update(&mut self, action: &Action, obs: &Observation) {
        self.steps += 1;
        self.last_kind = kind(action);
        self.last_element = match action {
            Action::Click { at: Some(p), .. } => node_at(obs, *p).map(|id| id.split(':').next().unwrap_or("").to_string()).unwrap_or_default(),
            _ => String::new(),
        };
        if let Action::Type { text, .. } = action {
            self.typed.push(text.clone());
        }
    }
}

/// The topmost clickable node under a point.
fn node_at(obs: &Observation, p: Point) -> Option<&str> {
    obs.ui_tree.iter().rev().find(|n| n.clickable && n.bounds.w > 0 && n.bounds.contains(p.0, p.1)).map(|n| n.id.as_str())
}

fn kind(a: &Action) -> String {
    match a {
        Action::Terminate { status } => format!("terminate_{status:?}").to_lowercase(),
        other => other.name().to_string(),
    }
}

/// The candidates of a screen, with their features.
pub fn candidates(instruction: &str, obs: &Observation, memory: &Memory) -> Vec<Candidate> {
    let screen = obs.screen.split(':').next().unwrap_or("");
    let iwords = words(instruction);
    let focused = obs.ui_tree.iter().find(|n| n.focused).map(|n| n.id.as_str()).unwrap_or("none");
    let mut out = Vec::new();
    let mut add = |action: Action, extra: Vec<u32>| {
        let k = kind(&action);
        let mut f = vec![hash(&["kind", &k]), hash(&["kind×screen", &k, screen]), hash(&["kind×last", &k, &memory.last_kind])];
        f.push(hash(&["kind×laststep", &k, &memory.last_kind, &memory.last_element]));
        f.extend(extra);
        out.push(Candidate { action, features: f });
    };
    for n in obs.ui_tree.iter().filter(|n| n.clickable && n.bounds.w > 0 && n.bounds.h > 0) {
        let prefix = n.id.split(':').next().unwrap_or("");
        let label = words(&format!("{} {}", n.text, n.hint));
        let overlap = label.iter().filter(|w| iwords.contains(w)).count();
        let mut f = vec![
            hash(&["el", prefix, screen]),
            hash(&["el-last", prefix, &memory.last_element]),
            hash(&["el-focus", prefix, focused]),
            hash(&["el-overlap", prefix, &overlap.min(3).to_string(), screen]),
            hash(&["el-overlap-any", &overlap.min(3).to_string()]),
        ];
        for w in &label {
            if iwords.contains(w) {
                f.push(hash(&["label-in-instr", prefix]));
            }
            f.push(hash(&["label", w, screen]));
        }
        for w in &iwords {
            f.push(hash(&["instr×el", w, prefix]));
            // Which app icon or tab a word points to ("email" → app:Mail).
            if !n.id.chars().any(|c| c.is_ascii_digit()) {
                f.push(hash(&["instr×id", w, &n.id]));
            }
        }
        // Words that are the same but for an ending ("message" / "Messages", "mail" / "email").
        let fuzzy = label.iter().any(|l| iwords.iter().any(|w| related(l, w)));
        f.push(hash(&["label-fuzzy", prefix, &fuzzy.to_string()]));
        f.push(hash(&["label-fuzzy-any", &fuzzy.to_string()]));
        f.push(hash(&["id", &n.id, screen]));
        let (x, y) = n.bounds.center();
        add(Action::Click { at: Some(Point(x.floor(), y.floor())), element: None }, f);
    }
    let typed_now = obs.ui_tree.iter().filter(|n| n.editable).map(|n| n.text.clone()).collect::<Vec<_>>();
    let from_instruction = strings_in(instruction);
    for (fact, source) in &memory.facts {
        if from_instruction.contains(fact) {
            continue;
        }
        let tk = text_kind(fact);
        let done = memory.typed.contains(fact) || typed_now.contains(fact);
        add(
            Action::Type { text: fact.clone(), element: None, clear: true },
            vec![
                hash(&["fact", tk, source, focused]),
                hash(&["fact-done", &done.to_string()]),
                hash(&["fact", tk, focused, &done.to_string()]),
                hash(&["fact-screen", tk, screen]),
            ],
        );
    }
    for s in from_instruction {
        let tk = text_kind(&s);
        let done = memory.typed.contains(&s) || typed_now.contains(&s);
        let f = vec![
            hash(&["type", tk, focused]),
            hash(&["type-done", &done.to_string()]),
            hash(&["type", tk, focused, &done.to_string()]),
            hash(&["type-screen", tk, screen]),
        ];
        add(Action::Type { text: s, element: None, clear: true }, f);
    }
    for a in answers_on(obs) {
        let f = vec![hash(&["answer", text_kind(&a), screen])];
        let mut words_near = Vec::new();
        for w in &iwords {
            words_near.push(hash(&["answer×instr", w, text_kind(&a)]));
        }
        let mut f = f;
        f.extend(words_near);
        add(Action::Answer { text: a }, f);
    }
    let verb = iwords.first().cloned().unwrap_or_default();
    for status in [TerminateStatus::Success, TerminateStatus::Infeasible] {
        let s = format!("{status:?}");
        add(Action::Terminate { status }, vec![hash(&["term", &s, &verb, screen]), hash(&["term-steps", &s, &memory.steps.min(3).to_string()])]);
    }
    add(Action::Home, vec![hash(&["home", screen, &memory.last_kind])]);
    add(Action::Back, vec![hash(&["back", screen])]);
    out
}

/// The linear scorer.
#[derive(Debug, Clone)]
pub struct Model {
    pub w: Vec<f32>,
}

impl Default for Model {
    fn default() -> Model {
        Model { w: vec![0.0; DIM] }
    }
}

impl Model {
    /// Weights as the recipe saves them (`DIM` little-endian f32s).
    pub fn load(path: &std::path::Path) -> Result<Model, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        if bytes.len() != DIM * 4 {
            return Err(format!("{}: {} bytes, expected {} (the learned policy's weights, OUTPUT/checkpoint/model.f32)", path.display(), bytes.len(), DIM * 4));
        }
        Ok(Model { w: bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect() })
    }

    pub fn score(&self, c: &Candidate) -> f32 {
        c.features.iter().map(|i| self.w[*i as usize]).sum()
    }

    /// Softmax probabilities over candidates.
    pub fn probs(&self, cands: &[Candidate]) -> Vec<f32> {
        let scores: Vec<f32> = cands.iter().map(|c| self.score(c)).collect();
        let m = scores.iter().cloned().fold(f32::MIN, f32::max);
        let e: Vec<f32> = scores.iter().map(|s| (s - m).exp()).collect();
        let z: f32 = e.iter().sum();
        e.iter().map(|x| x / z.max(1e-12)).collect()
    }

    /// Adds `scale · ∇ log π(chosen)` to the weights.
    pub fn step_logprob(&mut self, cands: &[Candidate], chosen: usize, scale: f32) {
        let p = self.probs(cands);
        for (j, c) in cands.iter().enumerate() {
            let g = if j == chosen { 1.0 } else { 0.0 } - p[j];
            for i in &c.features {
                self.w[*i as usize] += scale * g;
            }
        }
    }
}

/// One decision, kept for training.
#[derive(Debug, Clone)]
pub struct Decision {
    pub candidates: Vec<Candidate>,
    pub chosen: usize,
}

/// The policy: samples (or picks the best, greedy) from the model; a sampling one records its
/// decisions per trajectory so the trainer can credit them.
pub struct LearnedPolicy {
    model: Arc<RwLock<Model>>,
    greedy: bool,
    rng: Rng,
    memory: Memory,
    log: Arc<Mutex<HashMap<String, Vec<Decision>>>>,
}

#[async_trait]
impl Policy for LearnedPolicy {
    async fn act(&mut self, input: &PolicyInput<'_>) -> Result<PolicyOutput, PolicyError> {
        self.memory.read(input.instruction, input.observation);
        let cands = candidates(input.instruction, input.observation, &self.memory);
        let probs = self.model.read().map(|m| m.probs(&cands)).unwrap_or_default();
        let chosen = if self.greedy {
            probs.iter().enumerate().max_by(|a, b| a.1.total_cmp(b.1)).map(|(i, _)| i).unwrap_or(0)
        } else {
            let r = self.rng.f32();
            let mut acc = 0.0;
            probs
                .iter()
                .position(|p| {
                    acc += p;
                    r < acc
                })
                .unwrap_or(probs.len().saturating_sub(1))
        };
        let action = cands[chosen].action.clone();
        self.memory.update(&action, input.observation);
        // Only sampled decisions are trained on: a greedy policy (held-out evaluation, `eval
        // --policy learned`) keeps none, or a long eval would hold every screen's candidates.
        if !self.greedy {
            if let Ok(mut log) = self.log.lock() {
                log.entry(input.trajectory_id.to_string()).or_default().push(Decision { candidates: cands, chosen });
            }
        }
        Ok(PolicyOutput { raw: input.prompt.encode(&action, input.observation), ..Default::default() })
    }
}

/// Makes learned policies that share one model and one decision log.
pub struct LearnedFactory {
    pub model: Arc<RwLock<Model>>,
    pub greedy: bool,
    pub log: Arc<Mutex<HashMap<String, Vec<Decision>>>>,
    pub seed: u64,
}

impl LearnedFactory {
    pub fn new(model: Model, greedy: bool, seed: u64) -> LearnedFactory {
        LearnedFactory { model: Arc::new(RwLock::new(model)), greedy, log: Arc::new(Mutex::new(HashMap::new())), seed }
    }

    /// Takes the decisions recorded so far.
    pub fn take_log(&self) -> HashMap<String, Vec<Decision>> {
        self.log.lock().map(|mut l| std::mem::take(&mut *l)).unwrap_or_default()
    }
}

impl PolicyFactory for LearnedFactory {
    fn name(&self) -> String {
        if self.greedy { "learned-greedy" } else { "learned" }.to_string()
    }

    fn for_attempt(&self, task: &TaskSpec, attempt: u32) -> Box<dyn Policy> {
        Box::new(LearnedPolicy {
            model: self.model.clone(),
            greedy: self.greedy,
            rng: Rng::derive(self.seed ^ attempt as u64, &task.id),
            memory: Memory::default(),
            log: self.log.clone(),
        })
    }
}

/// The index of the candidate that does what `action` does (the walkthrough's step), if any.
pub fn matching(cands: &[Candidate], action: &Action, obs: &Observation) -> Option<usize> {
    cands.iter().position(|c| match (&c.action, action) {
        (Action::Click { at: Some(p), .. }, Action::Click { at: Some(q), .. }) => {
            let target = node_at(obs, *q);
            target.is_some() && node_at(obs, *p) == target
        }
        (Action::Type { text: a, .. }, Action::Type { text: b, .. }) => a == b,
        (Action::Answer { text: a }, Action::Answer { text: b }) => a == b,
        (a, b) => a == b,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_come_from_the_instruction() {
        let s = strings_in("Add a new contact named Ana Ruiz with the phone number +1 555 201 3344.");
        assert!(s.contains(&"Ana Ruiz".to_string()), "{s:?}");
        assert!(s.contains(&"+1 555 201 3344".to_string()), "{s:?}");
        let s = strings_in("Create a calendar event \"Yoga class\" on 2026-03-05 at 18:30.");
        assert!(s.contains(&"Yoga class".to_string()) && s.contains(&"2026-03-05".to_string()) && s.contains(&"18:30".to_string()), "{s:?}");
        assert!(strings_in("Change Ana Ruiz's phone number to +1 555 1").contains(&"Ana Ruiz".to_string()));
    }

    #[test]
    fn times_and_dates_are_read_off_screen_text() {
        let found = times_and_dates("Let's meet on Monday 1 Jun at 9:30 at Cafe Lumen (2026-06-02).", "2026");
        assert_eq!(found, vec!["2026-06-01", "09:30", "2026-06-02"]);
    }

    #[test]
    fn the_gradient_raises_the_chosen_candidate() {
        let c = |f: u32| Candidate { action: Action::Back, features: vec![f] };
        let cands = vec![c(1), c(2), c(3)];
        let mut m = Model::default();
        let before = m.probs(&cands)[1];
        m.step_logprob(&cands, 1, 0.5);
        assert!(m.probs(&cands)[1] > before);
    }
}
