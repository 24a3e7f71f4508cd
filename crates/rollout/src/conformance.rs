//! `check_env`: the contract every backend keeps, checked through the `Env` trait alone, so
//! the same suite runs against the sim, the web backend, an `EnvClient` through the manager,
//! and any backend added later (in the spirit of Gymnasium's environment checker).
//!
//! The contract: operations before a reset fail with a clear error; reset is exact (the state
//! hash is the same across resets and across instances); observe is pure; an invalid action
//! is a step with `invalid: true` that leaves the state hash unchanged; evaluate is
//! deterministic and changes nothing; once terminated, a step changes nothing; release is
//! idempotent; a verifier that panics is an infrastructure failure, never a verdict or a
//! crash.

use guigym_core::{Action, Direction, Env, EnvError, EnvProvider, ObserveOptions, Point, TaskSpec, TerminateStatus};

/// Checks `provider`'s instances against the contract on `tasks` (a handful is enough: each
/// is reset, dirtied and compared). `panicking` is a task whose verifier panics
/// (`guigym_benchmark_phone::verifier_panic_task`), for backends that host the catalogue.
/// Returns every broken rule, each naming the task and what was seen.
pub async fn check_env(provider: &dyn EnvProvider, tasks: &[TaskSpec], panicking: Option<&TaskSpec>) -> Result<(), Vec<String>> {
    let mut broken = Vec::new();
    let mut fail = |rule: &str, detail: String| broken.push(format!("{rule}: {detail}"));
    let infra = |e: EnvError| format!("could not run the check: {e}");

    // Before any reset.
    match provider.create().await {
        Ok(mut fresh) => {
            let ops = [
                ("observe", fresh.observe(ObserveOptions::default()).await.err()),
                ("step", fresh.step(&Action::Back).await.err()),
                ("evaluate", fresh.evaluate().await.err()),
                ("state_hash", fresh.state_hash().await.err()),
            ];
            for (op, err) in ops {
                match err {
                    None => fail("operations before reset fail", format!("{op} succeeded before any reset")),
                    Some(e) if !e.to_string().to_lowercase().contains("reset") => {
                        fail("operations before reset fail clearly", format!("{op}: {e:?} does not say a reset is needed"))
                    }
                    Some(_) => {}
                }
            }
            release_twice(fresh.as_mut(), &mut fail).await;
        }
        Err(e) => fail("create", infra(e)),
    }

    let (mut a, mut b) = match (provider.create().await, provider.create().await) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            fail("create", infra(e));
            return Err(broken);
        }
    };
    for task in tasks {
        if let Err(e) = check_task(a.as_mut(), b.as_mut(), task, &mut fail).await {
            fail(&task.id, infra(e));
        }
    }
    if let Some(task) = panicking {
        match a.reset(task).await {
            Ok(_) => match a.evaluate().await {
                Err(EnvError::Infra(_)) => {}
                other => fail("a verifier panic is an infrastructure failure", format!("{}: evaluate gave {other:?}", task.id)),
            },
            Err(e) => fail("a verifier panic is an infrastructure failure", infra(e)),
        }
    }
    release_twice(a.as_mut(), &mut fail).await;
    release_twice(b.as_mut(), &mut fail).await;
    if broken.is_empty() {
        Ok(())
    } else {
        Err(broken)
    }
}

async fn release_twice(env: &mut dyn Env, fail: &mut impl FnMut(&str, String)) {
    for n in ["first", "second"] {
        if let Err(e) = env.release().await {
            fail("release is idempotent", format!("the {n} release failed: {e}"));
        }
    }
}

async fn check_task(a: &mut dyn Env, b: &mut dyn Env, task: &TaskSpec, fail: &mut impl FnMut(&str, String)) -> Result<(), EnvError> {
    let id = &task.id;
    // Exact reset, across resets and instances.
    a.reset(task).await?;
    let start = a.state_hash().await?;
    let first_obs = a.observe(ObserveOptions::default()).await?;
    for action in task.walkthrough.iter().take(3) {
        a.step(action).await?;
    }
    a.reset(task).await?;
    if a.state_hash().await? != start {
        fail("reset is exact", format!("{id}: the state hash after a second reset differs"));
    }
    let again = a.observe(ObserveOptions::default()).await?;
    if again.ui_tree != first_obs.ui_tree {
        fail("reset is exact", format!("{id}: the screen after a second reset differs: {}", first_difference(&first_obs.ui_tree, &again.ui_tree)));
    }
    b.reset(task).await?;
    if b.state_hash().await? != start {
        fail("reset is exact", format!("{id}: another instance starts from another state"));
    }

    // Walk into the task, so forms and lists are on screen.
    for action in task.walkthrough.iter().take(task.walkthrough.len() / 2) {
        a.step(action).await?;
    }

    // Observe is pure.
    let before = a.state_hash().await?;
    let o1 = a.observe(ObserveOptions::default()).await?;
    let o2 = a.observe(ObserveOptions { screenshot: true }).await?;
    if a.state_hash().await? != before {
        fail("observe is pure", format!("{id}: observing changed the state"));
    }
    if o1.ui_tree != o2.ui_tree {
        fail("observe is pure", format!("{id}: two observations of one state differ: {}", first_difference(&o1.ui_tree, &o2.ui_tree)));
    }

    // Invalid actions change nothing.
    let field = o1.ui_tree.iter().find(|n| n.editable).map(|n| n.id.clone());
    let mut invalid = vec![
        Action::click_element("no-such-element"),
        Action::Type { text: "x".into(), element: Some("no-such-field".into()), clear: true },
        Action::Key { keys: vec![] },
        Action::Scroll { at: None, element: Some("no-such-list".into()), direction: Direction::Down, amount: 2 },
        Action::OpenApp { name: "No Such App".into() },
    ];
    if o1.width > 0 && o1.height > 0 {
        invalid.push(Action::Click { at: Some(Point(-10.0, o1.height as f32 * 4.0)), element: None });
    }
    if let Some(f) = field {
        invalid.push(Action::Type { text: "y".repeat(20_000), element: Some(f), clear: true });
    }
    for action in invalid {
        let before = a.state_hash().await?;
        let outcome = a.step(&action).await?;
        if !outcome.invalid {
            fail("invalid actions are invalid", format!("{id}: {} was accepted ({})", short(&action), outcome.feedback));
        }
        if a.state_hash().await? != before {
            fail("invalid actions change nothing", format!("{id}: {} changed the state", short(&action)));
        }
    }

    // Evaluate is deterministic and changes nothing.
    let before = a.state_hash().await?;
    let v1 = a.evaluate().await?;
    let v2 = a.evaluate().await?;
    if v1 != v2 {
        fail("evaluate is deterministic", format!("{id}: two verdicts of one state differ"));
    }
    if a.state_hash().await? != before {
        fail("evaluate changes nothing", format!("{id}: evaluating changed the state"));
    }

    // After terminate, nothing moves.
    a.step(&Action::Terminate { status: TerminateStatus::Failure }).await?;
    let ended = a.state_hash().await?;
    let after = a.step(&Action::Home).await?;
    if !(after.invalid && after.done) {
        fail("steps after terminate are refused", format!("{id}: a step after terminate gave {after:?}"));
    }
    if a.state_hash().await? != ended {
        fail("steps after terminate change nothing", format!("{id}: a step after terminate changed the state"));
    }
    Ok(())
}

/// The first node where two UI trees differ, for the message.
fn first_difference(a: &[guigym_core::UiNode], b: &[guigym_core::UiNode]) -> String {
    match a.iter().zip(b).position(|(x, y)| x != y) {
        Some(i) => format!("node {i}: {:?} vs {:?}", a[i], b[i]),
        None => format!("{} nodes vs {}", a.len(), b.len()),
    }
}

fn short(action: &Action) -> String {
    action.to_json().chars().take(80).collect()
}
