//! Behaviour of the simulated phone through the `Env` trait: exact reset, invalid actions as
//! feedback, side-effect detection, verifier isolation.

#![allow(clippy::unwrap_used)]

use guigym_apps::tasks;
use guigym_core::{Action, Env, ObserveOptions, Point, TaskSpec};
use guigym_sim::SimEnv;
use guigym_ui::Screen;

fn smoke() -> Vec<TaskSpec> {
    tasks::suite("smoke").expect("smoke suite")
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread().build().expect("runtime").block_on(f)
}

#[test]
fn reset_is_exact_across_resets_and_instances() {
    block_on(async {
        for task in smoke().iter().step_by(3) {
            let mut a = SimEnv::new(Screen::PHONE);
            a.reset(task).await.unwrap();
            let first = a.state_hash().await.unwrap();
            // Dirty the instance, then reset again: same hash.
            for _ in 0..3 {
                a.step(&Action::OpenApp { name: "Mail".into() }).await.unwrap();
                a.step(&Action::click_at(540.0, 700.0)).await.unwrap();
                a.reset(task).await.unwrap();
                assert_eq!(a.state_hash().await.unwrap(), first, "{}", task.id);
            }
            // A fresh instance that served another task first: same hash.
            let mut b = SimEnv::new(Screen::PHONE);
            b.reset(&smoke()[0]).await.unwrap();
            b.step(&Action::Home).await.unwrap();
            b.reset(task).await.unwrap();
            assert_eq!(b.state_hash().await.unwrap(), first, "{}", task.id);
            // And the observation after reset is identical too.
            let oa = a.observe(ObserveOptions::default()).await.unwrap();
            let ob = b.observe(ObserveOptions::default()).await.unwrap();
            assert_eq!(oa, ob);
        }
    });
}

#[test]
fn different_tasks_start_from_different_states() {
    block_on(async {
        let suite = smoke();
        let mut env = SimEnv::new(Screen::PHONE);
        env.reset(&suite[0]).await.unwrap();
        let a = env.state_hash().await.unwrap();
        env.reset(&suite[1]).await.unwrap();
        assert_ne!(a, env.state_hash().await.unwrap());
    });
}

#[test]
fn invalid_actions_become_feedback_and_change_nothing() {
    block_on(async {
        let task = &smoke()[0];
        let mut env = SimEnv::new(Screen::PHONE);
        env.reset(task).await.unwrap();
        env.step(&Action::OpenApp { name: "Contacts".into() }).await.unwrap();
        let before = env.state().unwrap().clone();
        let cases = [
            (Action::click_at(5000.0, 10.0), "off screen"),
            (Action::click_element("no-such-thing"), "no element"),
            (Action::Click { at: None, element: None }, "needs"),
            (Action::Type { text: "x".into(), element: None, clear: false }, "no text field is focused"),
            (Action::OpenApp { name: "Teleporter".into() }, "no app named"),
            (Action::click_at(f32::NAN, 3.0), "off screen"),
        ];
        for (action, expect) in cases {
            let out = env.step(&action).await.expect("an invalid action is not an error");
            assert!(out.invalid, "{action:?}");
            assert!(out.feedback.contains(expect), "{action:?}: {}", out.feedback);
            let obs = env.observe(ObserveOptions::default()).await.unwrap();
            assert!(obs.feedback.unwrap_or_default().starts_with("invalid action"));
            let now = env.state().unwrap();
            assert_eq!(now.data, before.data);
            assert_eq!(now.ui, before.ui);
        }
    });
}

#[test]
fn taps_land_through_hit_testing() {
    block_on(async {
        let task = &smoke()[0];
        let mut env = SimEnv::new(Screen::PHONE);
        let obs = env.reset(task).await.unwrap();
        let icon = obs.node("app:Calendar").expect("home shows the Calendar icon");
        let (x, y) = icon.bounds.center();
        let out = env.step(&Action::Click { at: Some(Point(x, y)), element: None }).await.unwrap();
        assert!(!out.invalid, "{}", out.feedback);
        let obs = env.observe(ObserveOptions::default()).await.unwrap();
        assert_eq!(obs.app.as_deref(), Some("Calendar"));
        assert_eq!(obs.screen, "Calendar/agenda");
        // Back from an app's root goes home.
        env.step(&Action::Back).await.unwrap();
        assert_eq!(env.observe(ObserveOptions::default()).await.unwrap().screen, "home");
    });
}

#[test]
fn screenshots_only_when_asked() {
    block_on(async {
        let mut env = SimEnv::new(Screen { width: 540, height: 1200 });
        let obs = env.reset(&smoke()[0]).await.unwrap();
        assert!(obs.screenshot.is_none());
        let obs = env.observe(ObserveOptions { screenshot: true }).await.unwrap();
        let shot = obs.screenshot.expect("screenshot");
        assert_eq!((shot.width, shot.height), (540, 1200));
        assert_eq!(&shot.png[1..4], b"PNG");
    });
}

/// Golden plus one extra deletion: the task is done, but something else changed.
#[test]
fn side_effects_fail_the_verifier() {
    block_on(async {
        for task in smoke().iter().filter(|t| !t.family.starts_with("contacts.delete")) {
            let mut env = SimEnv::new(Screen::PHONE);
            env.reset(task).await.unwrap();
            env.apply_golden().await.unwrap();
            assert!(env.evaluate().await.unwrap().success, "{}", task.id);
            // Delete a contact the task does not touch.
            let state = env.state_mut().unwrap();
            let victim = *state.data.contacts.items.keys().next().unwrap();
            let touched = task.params.get("contact_id").and_then(|v| v.as_u64()) == Some(victim as u64);
            if touched {
                continue;
            }
            state.data.contacts.items.remove(&victim);
            let v = env.evaluate().await.unwrap();
            assert!(!v.success, "{}", task.id);
            assert_eq!(v.unexpected_side_effects, vec![format!("contacts/items/{victim}")], "{}", task.id);
        }
    });
}

/// The fact a cross-app task relays lives in the other app: change it there and the
/// verifier follows.
#[test]
fn cross_app_verifier_reads_the_fact_from_the_other_app() {
    block_on(async {
        let task = tasks::find_task("cross.mail_time_to_message/0").unwrap();
        let email_id = task.params["source_id"].as_u64().unwrap() as u32;
        let phone = task.params["phone"].as_str().unwrap().to_string();
        let name = task.params["name"].as_str().unwrap().to_string();
        let mut env = SimEnv::new(Screen::PHONE);
        env.reset(&task).await.unwrap();
        let body = env.state().unwrap().data.emails.get(email_id).unwrap().body.clone();
        let original = guigym_apps::time::times_in_text(&body)[0];
        let original_hm = guigym_apps::time::time_hm(original);
        assert_ne!(original_hm, "23:59");

        // Stage a world where the email gives another time.
        let restage = |env: &mut SimEnv| {
            env.reset_staged(&task, |s| {
                let e = s.data.emails.get_mut(email_id).unwrap();
                e.body = e.body.replace(&original_hm, "23:59");
            })
        };
        restage(&mut env).unwrap();
        guigym_apps::apps::messages::send(env.state_mut().unwrap(), &name, &phone, &format!("It starts at {original_hm}"));
        let v = env.evaluate().await.unwrap();
        assert!(!v.success, "the old time no longer matches the email");
        assert!(v.checks.iter().any(|c| c.name == "mentions_start_time" && !c.passed));

        restage(&mut env).unwrap();
        guigym_apps::apps::messages::send(env.state_mut().unwrap(), &name, &phone, "It starts at 11:59 pm");
        assert!(env.evaluate().await.unwrap().success, "the new time, in another spelling, matches");
    });
}

#[test]
fn unknown_family_is_a_bad_task_not_a_panic() {
    block_on(async {
        let mut task = smoke()[0].clone();
        task.family = "nope.nothing".into();
        let mut env = SimEnv::new(Screen::PHONE);
        let err = env.reset(&task).await.unwrap_err();
        assert!(!err.is_infra());
        assert!(err.to_string().contains("unknown task family"));
        assert!(env.evaluate().await.is_err(), "evaluate before reset is an error, not a panic");
    });
}

#[test]
fn malformed_task_params_fail_the_verifier_with_a_named_check() {
    block_on(async {
        let mut task = tasks::find_task("contacts.edit_phone/0").unwrap();
        task.params = serde_json::json!({ "contact_id": "seven" });
        let mut env = SimEnv::new(Screen::PHONE);
        env.reset(&task).await.unwrap();
        let v = env.evaluate().await.unwrap();
        assert!(!v.success);
        assert_eq!(v.checks[0].name, "params");
    });
}
