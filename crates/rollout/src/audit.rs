//! Mutation testing of verifiers (`guigym tasks audit`). `validate` replays the one golden
//! route; the audit asks whether a verifier tells right from wrong. For each task it derives
//! from the walkthrough and the task's parameters
//! - *alternatives* that are still right and must pass (the answer inside a sentence or in
//!   another accepted format, a typo typed and corrected, repeated blocks in another order, an
//!   item found by searching instead of scrolling), and
//! - *mutants* that are wrong and must fail (success claimed without acting, the task done
//!   then reported infeasible, a hedged or wrong answer, the step that completed it dropped or
//!   undone by tapping it again, another value
//!   typed, a side effect in another app, a contradicting extra message, the user asked too
//!   late).
//!
//! Each case names the rule it tests. A passing mutant is a false positive (a reward an RL
//! policy would learn to hack); a failing alternative is a false negative.

use std::collections::BTreeMap;

use guigym_core::{Action, AuditCase, Benchmark, Env, EnvError, ObserveOptions, Platform, TaskSpec, TerminateStatus};
use guigym_harness::GoldenPolicy;
use serde::Serialize;

/// A case whose verdict was wrong.
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    pub task_id: String,
    pub family: String,
    pub rule: String,
    /// `false_negative` (a right solution failed) or `false_positive` (a wrong one passed).
    pub kind: String,
    pub detail: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Tally {
    pub alternatives: usize,
    pub mutants: usize,
    pub false_negatives: usize,
    pub false_positives: usize,
    /// Cases that could not be played as derived (a step the screen refused): not judged.
    pub inert: usize,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct AuditReport {
    pub tasks: usize,
    pub overall: Tally,
    pub by_family: BTreeMap<String, Tally>,
    pub by_rule: BTreeMap<String, Tally>,
    pub findings: Vec<Finding>,
    /// Cases that could not be played, with the refused step.
    pub inert: Vec<Finding>,
}

impl AuditReport {
    /// A case whose actions were not all applied: it says nothing about the verifier.
    pub fn add_inert(&mut self, task: &TaskSpec, case: &AuditCase, detail: String) {
        for t in [&mut self.overall, self.by_family.entry(task.family.clone()).or_default(), self.by_rule.entry(case.rule.to_string()).or_default()] {
            t.inert += 1;
        }
        self.inert.push(Finding { task_id: task.id.clone(), family: task.family.clone(), rule: case.rule.to_string(), kind: "inert".into(), detail });
    }

    pub fn add(&mut self, task: &TaskSpec, case: &AuditCase, passed: bool, detail: String) {
        for t in [&mut self.overall, self.by_family.entry(task.family.clone()).or_default(), self.by_rule.entry(case.rule.to_string()).or_default()] {
            if case.must_pass {
                t.alternatives += 1;
                t.false_negatives += usize::from(!passed);
            } else {
                t.mutants += 1;
                t.false_positives += usize::from(passed);
            }
        }
        if passed != case.must_pass {
            self.findings.push(Finding {
                task_id: task.id.clone(),
                family: task.family.clone(),
                rule: case.rule.to_string(),
                kind: if case.must_pass { "false_negative" } else { "false_positive" }.to_string(),
                detail,
            });
        }
    }

    /// A plain-text table per family, then per rule.
    pub fn table(&self) -> String {
        let row = |name: &str, t: &Tally| {
            format!("{:<34} {:>6} {:>7} {:>6} {:>6} {:>6}\n", name, t.alternatives, t.mutants, t.false_negatives, t.false_positives, t.inert)
        };
        let mut out = format!("{:<34} {:>6} {:>7} {:>6} {:>6} {:>6}\n", "family", "alts", "mutants", "FN", "FP", "inert");
        for (f, t) in &self.by_family {
            out.push_str(&row(f, t));
        }
        out.push_str(&format!("{:<34} {:>6} {:>7} {:>6} {:>6} {:>6}\n", "rule", "alts", "mutants", "FN", "FP", "inert"));
        for (r, t) in &self.by_rule {
            out.push_str(&row(r, t));
        }
        out.push_str(&row("overall", &self.overall));
        for f in self.findings.iter().take(30) {
            out.push_str(&format!("{} {} [{}]: {}\n", f.kind, f.task_id, f.rule, f.detail));
        }
        if self.findings.len() > 30 {
            out.push_str(&format!("… and {} more (see --json)\n", self.findings.len() - 30));
        }
        out
    }
}

fn terminate(status: TerminateStatus) -> Action {
    Action::Terminate { status }
}

/// Another value of the same shape: a digit changed (`12 Elm Street` → `13 Elm Street`,
/// `14:30` → `14:31`), else the words in another order, else the letters reversed.
fn other_value(text: &str) -> String {
    if let Some(i) = text.char_indices().rev().find(|(_, c)| c.is_ascii_digit()).map(|(i, _)| i) {
        let d = text.as_bytes()[i] - b'0';
        let mut out = text.to_string();
        out.replace_range(i..=i, &((d + 1) % 10).to_string());
        return out;
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() > 1 {
        return words.into_iter().rev().collect::<Vec<_>>().join(" ");
    }
    let reversed: String = text.chars().rev().collect();
    if reversed == text {
        format!("{text}x")
    } else {
        reversed
    }
}

/// Independent repetitions done in another order: where the walkthrough is blocks that each
/// start the same way and end with `back` (three contacts added, three people texted), the
/// blocks in reverse order.
fn blocks_reordered(body: &[Action]) -> Option<Vec<Action>> {
    let ends: Vec<usize> = body.iter().enumerate().filter(|(_, a)| **a == Action::Back).map(|(i, _)| i).collect();
    let first = *ends.first()?;
    // The blocks: from the first block's start (the action after the app was opened) to each `back`.
    let start = body[..first]
        .iter()
        .rposition(|a| matches!(a, Action::OpenApp { .. }) || matches!(a, Action::Click { element: Some(e), .. } if e.starts_with("app:")))?
        + 1;
    let mut blocks = Vec::new();
    let mut from = start;
    for &end in &ends {
        blocks.push(body[from..=end].to_vec());
        from = end + 1;
    }
    let same_start = blocks.iter().all(|b| b.first() == blocks[0].first());
    if blocks.len() < 2 || !same_start || from != body.len() {
        return None;
    }
    blocks.reverse();
    Some([body[..start].to_vec(), blocks.concat()].concat())
}

/// The cases of one task any walkthrough gives, played as a person at the task's platform
/// would: a typo is corrected on a phone's touch keyboard by clearing the field and typing it
/// again, at a desktop's keyboard by erasing it with Backspace (in a terminal or a document,
/// "clear the field" means nothing, or erases the whole document). Then the cases only the
/// task's benchmark knows how to make (`Benchmark::audit_cases`).
pub fn cases(task: &TaskSpec, benchmark: &dyn Benchmark, platform: Platform) -> Vec<AuditCase> {
    let (body, status) = task.walkthrough_body();
    let feasible = status != Some(TerminateStatus::Infeasible);
    let done = |mut a: Vec<Action>, s: TerminateStatus| {
        a.push(terminate(s));
        a
    };
    let end = status.unwrap_or(TerminateStatus::Success);
    let mut out = vec![AuditCase { rule: "walkthrough", must_pass: true, actions: task.walkthrough.clone() }];

    // Alternatives.
    if let Some(i) = body.iter().position(|a| matches!(a, Action::Type { text, .. } if !text.is_empty())) {
        if let Action::Type { text, element, clear } = &body[i] {
            let mut a = body.clone();
            // The typo goes before a final Enter: typed after it, it lands in the next field
            // (the next cell of a sheet), which the correction never reaches.
            let before_enter = text.trim_end_matches('\n');
            // A digit after digits: a numeric field (a spin button) refuses a letter, and the
            // correction would then take a digit of the answer instead.
            let slip = if before_enter.ends_with(|c: char| c.is_ascii_digit()) { '7' } else { 'q' };
            let typo = Action::Type { text: format!("{before_enter}{slip}"), element: element.clone(), clear: *clear };
            let corrected = match platform {
                Platform::Desktop => {
                    let mut c = vec![typo, Action::Key { keys: vec!["backspace".into()] }];
                    if before_enter.len() < text.len() {
                        c.push(Action::Type { text: text[before_enter.len()..].to_string(), element: None, clear: false });
                    }
                    c
                }
                Platform::Mobile | Platform::Web => vec![typo, Action::Type { text: text.clone(), element: None, clear: true }],
            };
            a.splice(i..=i, corrected);
            out.push(AuditCase { rule: "typo_corrected", must_pass: true, actions: done(a, end) });
        }
    }
    if let Some(reordered) = blocks_reordered(&body) {
        out.push(AuditCase { rule: "blocks_reordered", must_pass: true, actions: done(reordered, end) });
    }

    // Mutants.
    out.push(AuditCase { rule: "claim_without_acting", must_pass: false, actions: vec![terminate(TerminateStatus::Success)] });
    if feasible {
        out.push(AuditCase { rule: "done_then_infeasible", must_pass: false, actions: done(body.clone(), TerminateStatus::Infeasible) });
        out.push(AuditCase { rule: "done_then_failure", must_pass: false, actions: done(body.clone(), TerminateStatus::Failure) });
    } else {
        out.push(AuditCase { rule: "infeasible_reported_done", must_pass: false, actions: done(body.clone(), TerminateStatus::Success) });
        // Saying why it cannot be done is right; saying it was done is a false claim.
        let say = |text: &str| done([body.clone(), vec![Action::Answer { text: text.into() }]].concat(), TerminateStatus::Infeasible);
        out.push(AuditCase { rule: "infeasible_explained", must_pass: true, actions: say("This cannot be done: there is no such item here.") });
        out.push(AuditCase { rule: "infeasible_false_claim", must_pass: false, actions: say("Done, it is all taken care of.") });
    }
    let answers = body.iter().any(|a| matches!(a, Action::Answer { .. }));
    // A task may leave the typed value to the agent (`typed_value_free`: how much darker): then
    // another value is another right solution, not a mutant.
    let free = task.params.get("typed_value_free").and_then(serde_json::Value::as_bool).unwrap_or(false);
    if !answers && feasible && !free {
        if let Some(i) = body.iter().rposition(|a| matches!(a, Action::Type { text, .. } if !text.is_empty())) {
            if let Action::Type { text, element, .. } = &body[i] {
                let mut a = body.clone();
                a[i] = Action::Type { text: other_value(text), element: element.clone(), clear: true };
                out.push(AuditCase { rule: "other_value_typed", must_pass: false, actions: done(a, end) });
            }
        }
    }
    out.extend(benchmark.audit_cases(task));
    out
}

/// Plays actions as validation does (`GoldenPolicy`: elements scrolled into view, tapped at
/// their centre), and dismisses a pop-up that covers the next target. Returns the first step
/// the screen refused, if any.
async fn play(env: &mut dyn Env, actions: &[Action]) -> Result<Option<String>, EnvError> {
    let mut player = GoldenPolicy::new(actions.to_vec());
    let mut played = 0;
    // Every action may take a few scrolls to reach; the bound keeps a stuck case finite.
    for _ in 0..actions.len() * 16 + 16 {
        if played >= actions.len() {
            break;
        }
        let obs = env.observe(ObserveOptions::default()).await?;
        let target = match actions[played].target() {
            Ok(Some(guigym_core::action::Target::Element(id))) => Some(id.to_string()),
            _ => None,
        };
        let offered = |id: &str| obs.ui_tree.iter().any(|n| n.id == id && (n.clickable || n.editable));
        if let Some(t) = &target {
            if t != "popup_dismiss" && !offered(t) && offered("popup_dismiss") {
                env.step(&Action::click_element("popup_dismiss")).await?;
                continue;
            }
        }
        let action = player.decide(&obs);
        let scrolling = matches!(action, Action::Scroll { .. }) && !matches!(actions[played], Action::Scroll { .. });
        let outcome = env.step(&action).await?;
        if scrolling {
            continue;
        }
        if outcome.invalid && !matches!(action, Action::Terminate { .. }) {
            return Ok(Some(format!("{} was refused: {}", actions[played].to_json(), outcome.feedback)));
        }
        played += 1;
    }
    Ok(None)
}

/// Mutants found by playing the walkthrough: the step that completed the task (the first
/// after which the verifier says yes) dropped, and the last item tapped up to then (`contact:3`,
/// `product:20`, `order:2`) swapped for the next one of its kind, so the task is done on the
/// wrong item.
async fn played_mutants(env: &mut dyn Env, task: &TaskSpec) -> Result<Vec<AuditCase>, EnvError> {
    let (body, status) = task.walkthrough_body();
    if status != Some(TerminateStatus::Success) || task.params.get("answer").is_some() {
        return Ok(Vec::new());
    }
    for k in 0..body.len() {
        // The walkthrough up to step k, played afresh: the first prefix that completes it.
        env.reset(task).await?;
        if play(env, &body[..=k]).await?.is_some() {
            return Ok(Vec::new());
        }
        if env.evaluate().await?.success {
            let mut out = Vec::new();
            let mut dropped = body.clone();
            dropped.remove(k);
            dropped.push(terminate(TerminateStatus::Success));
            out.push(AuditCase { rule: "completing_step_dropped", must_pass: false, actions: dropped });
            // Done, then undone: where the completing tap flipped an element's state (a switch,
            // a checkbox, a like), the same tap again flips it back.
            if let Action::Click { element: Some(id), .. } = &body[k] {
                if flips(env, task, &body[..k], id).await? {
                    let mut twice = body.clone();
                    twice.insert(k + 1, body[k].clone());
                    twice.push(terminate(TerminateStatus::Success));
                    out.push(AuditCase { rule: "done_then_undone", must_pass: false, actions: twice });
                }
            }
            // Only where the tapped item is the task's target: in one app, with no answer and
            // no fact carried over from another item (a swapped source would still give the
            // right result from the walkthrough's hard-coded text).
            let single_target = task.apps.len() == 1 && !body.iter().any(|a| matches!(a, Action::Answer { .. }));
            let item = body[..=k].iter().rposition(|a| matches!(a, Action::Click { element: Some(e), .. } if numbered(e).is_some())).filter(|_| single_target);
            if let Some(i) = item {
                if let Action::Click { element: Some(e), .. } = &body[i] {
                    if let Some((prefix, n)) = numbered(e) {
                        let mut swapped = body.clone();
                        swapped[i] = Action::click_element(format!("{prefix}:{}", n + 1));
                        swapped.push(terminate(TerminateStatus::Success));
                        out.push(AuditCase { rule: "wrong_item", must_pass: false, actions: swapped });
                    }
                }
            }
            return Ok(out);
        }
    }
    Ok(Vec::new())
}

/// Search instead of scroll: where the walkthrough taps an item (`product:24`) on a screen with
/// a search field, the item's name typed into the search first, then the same tap. The name is
/// read from the screen once the item has been scrolled into view.
async fn search_instead_of_scroll(env: &mut dyn Env, task: &TaskSpec) -> Result<Option<AuditCase>, EnvError> {
    let (body, status) = task.walkthrough_body();
    let Some(end) = status else { return Ok(None) };
    env.reset(task).await?;
    for (i, action) in body.iter().enumerate() {
        let obs = env.observe(ObserveOptions::default()).await?;
        let target = match action {
            Action::Click { element: Some(e), .. } if numbered(e).is_some() => Some(e.clone()),
            _ => None,
        };
        let searchable = obs.ui_tree.iter().any(|n| n.id == "search" && n.editable);
        if let (Some(target), true) = (target, searchable) {
            // Scroll it into view as a person would, to read its name.
            let mut finder = GoldenPolicy::new(vec![action.clone()]);
            for _ in 0..32 {
                let obs = env.observe(ObserveOptions::default()).await?;
                if let Some(node) = obs.node(&target).filter(|n| n.bounds.h > 0) {
                    let name = node.text.split(" · ").next().unwrap_or("").trim().to_string();
                    if name.is_empty() {
                        return Ok(None);
                    }
                    let actions = [body[..i].to_vec(), Action::fill_field("search", &name), body[i..].to_vec(), vec![terminate(end)]].concat();
                    return Ok(Some(AuditCase { rule: "search_instead_of_scroll", must_pass: true, actions }));
                }
                let step = finder.decide(&obs);
                if !matches!(step, Action::Scroll { .. }) {
                    return Ok(None);
                }
                env.step(&step).await?;
            }
            return Ok(None);
        }
        if play(env, std::slice::from_ref(action)).await?.is_some() {
            return Ok(None);
        }
    }
    Ok(None)
}

/// Whether tapping element `id` after `before` flips its state (checked, selected, label).
async fn flips(env: &mut dyn Env, task: &TaskSpec, before: &[Action], id: &str) -> Result<bool, EnvError> {
    env.reset(task).await?;
    if play(env, before).await?.is_some() {
        return Ok(false);
    }
    // A switch's checked state, a tab's selection, a button's label ("Like" → "Unlike").
    let state = |obs: &guigym_core::Observation| obs.ui_tree.iter().find(|n| n.id == id).map(|n| (n.checked, n.selected, n.text.clone()));
    let was = state(&env.observe(ObserveOptions::default()).await?);
    if play(env, &[Action::click_element(id)]).await?.is_some() {
        return Ok(false);
    }
    let now = state(&env.observe(ObserveOptions::default()).await?);
    Ok(was.is_some() && now.is_some() && was != now)
}

/// `contact:3` → (`contact`, 3): an element that names one item of a kind.
fn numbered(id: &str) -> Option<(&str, u32)> {
    let (prefix, n) = id.rsplit_once(':')?;
    Some((prefix, n.parse().ok()?))
}

/// Runs every case of a task on an instance and adds the verdicts to the report.
pub async fn audit_task(env: &mut dyn Env, task: &TaskSpec, benchmark: &dyn Benchmark, platform: Platform, report: &mut AuditReport) -> Result<(), EnvError> {
    report.tasks += 1;
    let mut all = cases(task, benchmark, platform);
    all.extend(played_mutants(env, task).await?);
    all.extend(search_instead_of_scroll(env, task).await?);
    for case in all {
        env.reset(task).await?;
        if let Some(refused) = play(env, &case.actions).await? {
            report.add_inert(task, &case, refused);
            continue;
        }
        let verdict = env.evaluate().await?;
        let detail = if verdict.success { "the verifier accepted it".to_string() } else { verdict.first_failure().unwrap_or_else(|| "failed".into()) };
        report.add(task, &case, verdict.success, detail);
    }
    Ok(())
}
