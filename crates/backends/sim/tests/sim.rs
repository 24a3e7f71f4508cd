//! Behaviour of the simulated phone through the `Env` trait: exact reset, invalid actions as
//! feedback, side-effect detection, verifier isolation.

#![allow(clippy::unwrap_used)]

use guigym_benchmark_phone as tasks;
use guigym_core::Screen;
use guigym_core::{Action, Env, ObserveOptions, Point, TaskSpec};
use guigym_sim::SimEnv;

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
            let mut a = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
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
            let mut b = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
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

/// Instances on one task share its initial state and its app data until they write: what one
/// does (its golden, an edit to every app's data, a staged reset) reaches no other instance,
/// and every verdict is the one an instance alone would get.
#[test]
fn instances_on_one_task_share_nothing_they_change() {
    block_on(async {
        for task in smoke().iter().step_by(4) {
            let mut alone = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
            alone.reset(task).await.unwrap();
            let fresh = alone.state_hash().await.unwrap();
            let fresh_verdict = alone.evaluate().await.unwrap();
            drop(alone);

            let mut a = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
            let mut b = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
            a.reset(task).await.unwrap();
            b.reset(task).await.unwrap();
            let (da, db) = (&a.state().unwrap().data, &b.state().unwrap().data);
            assert!(da.contacts.same_copy(&db.contacts) && da.emails.same_copy(&db.emails), "{}: instances on one task share its data", task.id);
            a.apply_golden().await.unwrap();
            assert!(a.evaluate().await.unwrap().success, "{}", task.id);
            assert_eq!(b.state_hash().await.unwrap(), fresh, "{}: the golden of another instance reached this one", task.id);
            assert_eq!(b.evaluate().await.unwrap(), fresh_verdict, "{}", task.id);

            // Every table changed in one instance (a copy made on first write), none in the other.
            let data = &mut a.state_mut().unwrap().data;
            data.contacts.items.clear();
            data.emails.items.clear();
            data.events.items.clear();
            data.notes.items.clear();
            data.threads.items.clear();
            data.balance_cents += 1;
            assert_eq!(b.state_hash().await.unwrap(), fresh, "{}", task.id);
            assert!(!a.evaluate().await.unwrap().success, "{}", task.id);

            // A staged reset edits its own copy of the initial state, not the shared one.
            a.reset_staged(task, |s| s.data.contacts.items.clear()).unwrap();
            let mut c = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
            c.reset(task).await.unwrap();
            assert_eq!(c.state_hash().await.unwrap(), fresh, "{}: a staged reset reached another instance", task.id);
            // And a reset after all that is exact.
            a.reset(task).await.unwrap();
            assert_eq!(a.state_hash().await.unwrap(), fresh, "{}", task.id);
            assert_eq!(a.evaluate().await.unwrap(), fresh_verdict, "{}", task.id);
        }
    });
}

#[test]
fn different_tasks_start_from_different_states() {
    block_on(async {
        let suite = smoke();
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
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
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
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

/// A dialog takes the keyboard from the field under it, as on a phone: typing goes nowhere
/// until it is closed (Chromium's page did so while the native phone typed into the hidden field).
#[test]
fn a_field_under_an_open_dialog_takes_no_typing() {
    block_on(async {
        let task = smoke().into_iter().find(|t| {
            let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
            env.reset_sync(t).is_ok() && env.state().unwrap().ui.look.ads
        });
        let task = task.expect("a smoke world with ads");
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        env.reset(&task).await.unwrap();
        env.step(&Action::OpenApp { name: "Contacts".into() }).await.unwrap();
        let field = env.observe(ObserveOptions::default()).await.unwrap().ui_tree.into_iter().find(|n| n.editable).expect("a field on Contacts");
        for action in
            [Action::click_element(field.id.clone()), Action::Type { text: "Ada".into(), element: None, clear: true }, Action::click_element("ad_banner")]
        {
            let out = env.step(&action).await.unwrap();
            assert!(!out.invalid, "{action:?}: {}", out.feedback);
        }
        let out = env.step(&Action::Type { text: "more".into(), element: None, clear: false }).await.unwrap();
        assert!(out.invalid && out.feedback.contains("no text field is focused"), "{}", out.feedback);
        assert_eq!(env.state().unwrap().ui.fields.get(&field.id).map(String::as_str), Some("Ada"));
        env.step(&Action::click_element("ad_close")).await.unwrap();
        let out = env.step(&Action::Type { text: "more".into(), element: None, clear: false }).await.unwrap();
        assert!(!out.invalid, "the field has the keyboard again once the dialog is closed: {}", out.feedback);
        assert_eq!(env.state().unwrap().ui.fields.get(&field.id).map(String::as_str), Some("Adamore"));
    });
}

#[test]
fn taps_land_through_hit_testing() {
    block_on(async {
        let task = &smoke()[0];
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
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

/// The phone's frame as an agent reads it: every screen ends with the navigation bar (a container,
/// left out of the text tree), a screen's main action is a floating button at the right, and what
/// an action did shows as a snackbar's text until the next action.
#[test]
fn screens_end_with_the_navigation_bar_and_report_in_a_snackbar() {
    block_on(async {
        let task = tasks::suite("all").unwrap().into_iter().find(|t| t.id == "calendar.create/1").unwrap();
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        let mut obs = env.reset(&task).await.unwrap();
        let (body, _) = task.walkthrough_body();
        for (i, action) in body.iter().enumerate() {
            let nav = obs.ui_tree.last().unwrap();
            assert_eq!((nav.id.as_str(), nav.role.as_str()), ("nav_bar", "container"), "step {i}");
            assert_eq!(nav.bounds.y + nav.bounds.h, Screen::PHONE.height as i32);
            assert!(!obs.ui_text().contains("nav_bar"));
            if obs.screen == "Calendar/agenda" {
                let fab = obs.node("new").expect("the agenda's main action");
                assert!(fab.clickable && fab.bounds.x > Screen::PHONE.width as i32 / 3, "{fab:?}");
            }
            assert!(!env.step(action).await.unwrap().invalid, "step {i}");
            obs = env.observe(ObserveOptions::default()).await.unwrap();
        }
        let toast = obs.node("toast").expect("saving says so");
        assert_eq!((toast.role.as_str(), toast.text.as_str()), ("text", "Event saved"));
        env.step(&Action::Back).await.unwrap();
        assert!(env.observe(ObserveOptions::default()).await.unwrap().node("toast").is_none(), "gone at the next action");
    });
}

#[test]
fn screenshots_only_when_asked() {
    block_on(async {
        let mut env = SimEnv::new(Screen { width: 540, height: 1200 }, guigym_benchmark_phone::hosted());
        let obs = env.reset(&smoke()[0]).await.unwrap();
        assert!(obs.screenshot.is_none());
        let obs = env.observe(ObserveOptions { screenshot: true }).await.unwrap();
        let shot = obs.screenshot.expect("screenshot");
        assert_eq!((shot.width, shot.height), (540, 1200));
        assert_eq!(&shot.png()[1..4], b"PNG");
    });
}

/// Every screen of some smoke tasks' walkthroughs, rendered where no glyph was cached yet (a new
/// thread) and again where all were: the same pixels; and the PNG made from them decodes to them.
#[test]
fn screenshots_are_the_same_pixels_with_a_cold_or_warm_glyph_cache_and_as_png() {
    fn screens(task: &TaskSpec) -> Vec<guigym_core::Screenshot> {
        block_on(async {
            let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
            env.reset(task).await.unwrap();
            let mut out = vec![env.observe(ObserveOptions { screenshot: true }).await.unwrap().screenshot.unwrap()];
            for action in &task.walkthrough {
                env.step(action).await.unwrap();
                out.push(env.observe(ObserveOptions { screenshot: true }).await.unwrap().screenshot.unwrap());
            }
            out
        })
    }
    for task in smoke().into_iter().step_by(5) {
        let cold = std::thread::spawn({
            let task = task.clone();
            move || screens(&task)
        })
        .join()
        .unwrap();
        let warm = screens(&task);
        assert_eq!(cold.len(), warm.len());
        for (i, (a, b)) in cold.iter().zip(&warm).enumerate() {
            assert!(a.rgba().is_some() && a.rgba() == b.rgba(), "{} screen {i}: pixels differ", task.id);
            let (w, h, decoded) = guigym_core::screenshot::decode_png(b.png()).unwrap();
            assert_eq!((w, h), (b.width, b.height));
            assert!(decoded == b.rgba().unwrap(), "{} screen {i}: the PNG is not the pixels", task.id);
        }
    }
}

/// Golden plus one extra deletion: the task is done, but something else changed.
#[test]
fn side_effects_fail_the_verifier() {
    block_on(async {
        for task in smoke().iter().filter(|t| !t.family.starts_with("contacts.delete")) {
            let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
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
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        env.reset(&task).await.unwrap();
        let body = env.state().unwrap().data.emails.get(email_id).unwrap().body.clone();
        let original = guigym_phone::time::times_in_text(&body)[0];
        let original_hm = guigym_phone::time::time_hm(original);
        assert_ne!(original_hm, "23:59");

        // Stage a world where the email gives another time.
        let restage = |env: &mut SimEnv| {
            env.reset_staged(&task, |s| {
                let e = s.data.emails.get_mut(email_id).unwrap();
                e.body = e.body.replace(&original_hm, "23:59");
            })
        };
        restage(&mut env).unwrap();
        guigym_phone::apps::messages::send(env.state_mut().unwrap(), &name, &phone, &format!("It starts at {original_hm}"));
        let v = env.evaluate().await.unwrap();
        assert!(!v.success, "the old time no longer matches the email");
        assert!(v.checks.iter().any(|c| c.name.starts_with("threads/") && !c.passed), "{:?}", v.checks);

        restage(&mut env).unwrap();
        guigym_phone::apps::messages::send(env.state_mut().unwrap(), &name, &phone, "It starts at 11:59 pm");
        assert!(env.evaluate().await.unwrap().success, "the new time, in another spelling, matches");
    });
}

#[test]
fn unknown_family_is_a_bad_task_not_a_panic() {
    block_on(async {
        let mut task = smoke()[0].clone();
        task.family = "nope.nothing".into();
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
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
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        env.reset(&task).await.unwrap();
        let v = env.evaluate().await.unwrap();
        assert!(!v.success);
        assert_eq!(v.checks[0].name, "params");
    });
}

/// A change the task did not ask for, in each app: the verifier names it as a side effect.
#[test]
fn every_app_rejects_side_effects() {
    use guigym_phone::state::*;
    let perturb = |app: &str, s: &mut guigym_phone::DeviceState| match app {
        "Contacts" => {
            let _ = s.data.contacts.insert(Contact { name: "Zed".into(), phone: "+1 555 000 0000".into(), email: String::new() });
        }
        "Messages" => {
            let _ = s.data.threads.insert(Thread { name: "Zed".into(), phone: "+1 555 000 0000".into(), messages: vec![] });
        }
        "Mail" => {
            let e = s.data.emails.items.values().next().cloned().unwrap();
            s.data.emails.insert(Email { subject: "Spam".into(), ..e });
        }
        "Calendar" => {
            let _ = s.data.events.insert(Event { title: "Extra".into(), start: 0, duration_min: 30, location: String::new() });
        }
        "Notes" => {
            let _ = s.data.notes.insert(Note { title: "Extra".into(), body: String::new(), pinned: false });
        }
        "Files" => {
            let _ = s.data.files.insert(FileEntry { name: "x.txt".into(), folder: "Documents".into(), size_kb: 1, starred: false });
        }
        "Settings" => s.data.settings.airplane_mode = !s.data.settings.airplane_mode,
        "Clock" => {
            let _ = s.data.alarms.insert(Alarm { minute_of_day: 1, label: "Extra".into(), enabled: true });
        }
        "Shop" => std::sync::Arc::make_mut(&mut s.data.products).items.values_mut().for_each(|p| p.price_cents += 1),
        "Food" => std::sync::Arc::make_mut(&mut s.data.restaurants).items.values_mut().for_each(|r| r.cuisine = "Fusion".into()),
        "Ride" => {
            let first = s.data.rides.items.values().next().cloned().unwrap();
            let _ = s.data.rides.insert(first);
        }
        "Trains" => s.data.passengers.push("Zed Extra".into()),
        "Bank" => {
            let first = s.data.transactions.items.values().next().cloned().unwrap();
            let _ = s.data.transactions.insert(first);
        }
        "Maps" => std::sync::Arc::make_mut(&mut s.data.places).items.values_mut().for_each(|p| p.walk_min += 1),
        "Reviews" => {
            let _ = s.data.reviews.insert(Review { place: "Cafe Lumen".into(), author: "Zed".into(), stars: 1, text: "Extra".into() });
        }
        "Social" => s.data.posts.items.values_mut().for_each(|p| p.likes += 1),
        "Music" => {
            let _ = s.data.playlists.insert(Playlist { name: "Extra".into(), songs: vec![] });
        }
        other => panic!("no perturbation for {other}"),
    };
    block_on(async {
        for app in guigym_phone::apps::APPS {
            let f = tasks::catalog().iter().find(|f| f.apps().contains(&app.name)).unwrap_or_else(|| panic!("no family uses {}", app.name));
            let task = tasks::task(*f, 0).unwrap();
            let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
            env.reset(&task).await.unwrap();
            env.apply_golden().await.unwrap();
            assert!(env.evaluate().await.unwrap().success, "{}", task.id);
            perturb(app.name, env.state_mut().unwrap());
            let v = env.evaluate().await.unwrap();
            assert!(!v.success, "{} with an extra change in {}", task.id, app.name);
            assert!(!v.unexpected_side_effects.is_empty(), "{}: {:?}", task.id, v);
        }
    });
}

/// Catalogue cross-app tasks read their fact in the source app: stage another fact there and
/// the old answer fails while the new one passes.
#[test]
fn catalogue_cross_app_facts_follow_the_source_app() {
    block_on(async {
        // Messages → Bank: the amount asked for.
        let task = tasks::find_task("cross.debt_to_bank/0").unwrap();
        let thread = task.params["thread"].as_u64().unwrap() as u32;
        let (to, cents) = (task.params["to"].as_str().unwrap().to_string(), task.params["cents"].as_i64().unwrap());
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        let stage = |env: &mut SimEnv| {
            env.reset_staged(&task, |s| {
                let m = s.data.threads.get_mut(thread).unwrap().messages.iter_mut().rev().find(|m| !m.from_me).unwrap();
                m.text = "Could you send me $7.25 for the parking?".into();
            })
        };
        stage(&mut env).unwrap();
        guigym_phone::apps::bank::transfer(env.state_mut().unwrap(), &to, cents, "");
        assert!(!env.evaluate().await.unwrap().success, "the old amount no longer matches the message");
        stage(&mut env).unwrap();
        guigym_phone::apps::bank::transfer(env.state_mut().unwrap(), &to, 725, "");
        assert!(env.evaluate().await.unwrap().success, "the staged amount matches");

        // Calendar → Ride: the event's place.
        let task = tasks::find_task("cross.event_ride/0").unwrap();
        let event = task.params["event"].as_u64().unwrap() as u32;
        let old = task.params["place"].as_str().unwrap().to_string();
        let other = guigym_phone::world::WORLD_PLACES.iter().find(|p| **p != old).unwrap().to_string();
        let stage = |env: &mut SimEnv| env.reset_staged(&task, |s| s.data.events.get_mut(event).unwrap().location = other.clone());
        stage(&mut env).unwrap();
        guigym_phone::apps::ride::book(env.state_mut().unwrap(), &old, "Standard");
        assert!(!env.evaluate().await.unwrap().success);
        stage(&mut env).unwrap();
        guigym_phone::apps::ride::book(env.state_mut().unwrap(), &other, "Standard");
        assert!(env.evaluate().await.unwrap().success);

        // Mail → Trains: the travel date.
        let task = tasks::find_task("cross.trip_train/0").unwrap();
        let mail = task.params["mail"].as_u64().unwrap() as u32;
        let day = task.params["day"].as_i64().unwrap();
        let later = day + 2 * guigym_phone::time::DAY;
        let stage = |env: &mut SimEnv| {
            env.reset_staged(&task, |s| {
                let e = s.data.emails.get_mut(mail).unwrap();
                e.body = format!("Please travel on {} instead.", guigym_phone::time::date_iso(later));
            })
        };
        for (d, ok) in [(day, false), (later, true)] {
            stage(&mut env).unwrap();
            let mut p = task.params.clone();
            p["day"] = serde_json::json!(d);
            guigym_benchmark_phone::everyday::train_book_golden(&p, env.state_mut().unwrap());
            assert_eq!(env.evaluate().await.unwrap().success, ok, "booking for {}", guigym_phone::time::date_iso(d));
        }
    });
}

/// A world's look varies by seed; a pop-up captures touches until it is dismissed, and the
/// walkthrough of such a world dismisses it.
#[test]
fn looks_vary_and_popups_must_be_dismissed() {
    let looks: Vec<_> = (0..60).map(|seed| guigym_phone::DeviceState::from_world(&guigym_phone::World::generate(seed)).ui.look).collect();
    assert!(looks.iter().any(|l| l.reversed_lists) && looks.iter().any(|l| !l.reversed_lists));
    assert!(looks.iter().any(|l| l.ads) && looks.iter().any(|l| l.zoom_pct > 100) && looks.iter().any(|l| l.zoom_pct < 100));
    let themes: std::collections::BTreeSet<usize> = looks.iter().map(|l| l.theme).collect();
    assert!(themes.len() >= 3);

    let task = tasks::catalog()
        .iter()
        .flat_map(|f| (0..25).filter_map(|i| tasks::task(*f, i)))
        .find(|t| t.walkthrough.iter().any(|a| a == &Action::click_element("popup_dismiss")))
        .expect("some world greets with a pop-up");
    let at = task.walkthrough.iter().position(|a| a == &Action::click_element("popup_dismiss")).unwrap();
    let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
    env.reset_sync(&task).unwrap();
    for a in &task.walkthrough[..at] {
        env.step_sync(a).unwrap();
    }
    let obs = env.observe_sync(ObserveOptions::default()).unwrap();
    assert!(obs.ui_tree.iter().any(|n| n.id == "popup"), "the pop-up is on screen");
    // Anything but the pop-up's buttons is out of reach.
    let next = &task.walkthrough[at + 1];
    if let Action::Click { element: Some(e), .. } = next {
        let out = env.step_sync(&Action::click_element(e.clone())).unwrap();
        assert!(out.invalid, "{e} is under the pop-up");
    }
    assert!(!env.step_sync(&Action::click_element("popup_dismiss")).unwrap().invalid);
    let obs = env.observe_sync(ObserveOptions::default()).unwrap();
    assert!(!obs.ui_tree.iter().any(|n| n.id == "popup"));
}

/// Text an agent may type: empty, numeric edge cases, dates and times out of range, unicode,
/// control characters, the longest a field holds.
fn evil_texts() -> Vec<String> {
    let mut v: Vec<String> = [
        "",
        " ",
        "\n",
        "0",
        "-1",
        "-0",
        "1e309",
        "NaN",
        "inf",
        "99999999999999999999",
        "18446744073709551616",
        "-9223372036854775808",
        "9223372036854775807",
        "1,000,000,000,000.999",
        "$-0.00",
        "0.0000001",
        "2026-02-30",
        "99999999999999-01-01",
        "0000-00-00",
        "-5-01-01",
        "12:99",
        "25:00",
        "99:99",
        "-1:-1",
        "٣٤٥",
        "🙂🙂🙂",
        "a\u{0}b",
        "e\u{301}",
        "ｔｅｓｔ",
        "﷽",
        "<script>alert(1)</script>",
        "'; DROP TABLE x; --",
        "%s%n",
        "../../etc/passwd",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.push("9".repeat(2000));
    v.push("界".repeat(2000));
    v
}

/// Types every evil text into every field of every second smoke task (from `first`) and
/// submits it every way the screen offers; the number of submissions tried.
fn fuzz_forms(first: usize) -> usize {
    block_on(async {
        let texts = evil_texts();
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        let mut tried = 0usize;
        for task in smoke().into_iter().skip(first).step_by(2) {
            env.reset(&task).await.unwrap();
            for action in task.walkthrough.clone() {
                let obs = env.observe(ObserveOptions::default()).await.unwrap();
                let fields: Vec<String> = obs.ui_tree.iter().filter(|n| n.editable).map(|n| n.id.clone()).collect();
                for field in &fields {
                    for text in &texts {
                        let saved = env.state().cloned().unwrap();
                        env.step(&Action::Type { text: text.clone(), element: Some(field.clone()), clear: true }).await.unwrap();
                        // Submit it every way the screen offers.
                        let after = env.observe(ObserveOptions::default()).await.unwrap();
                        let buttons: Vec<String> = after.ui_tree.iter().filter(|n| n.clickable).map(|n| n.id.clone()).take(12).collect();
                        let typed = env.state().cloned().unwrap();
                        for b in &buttons {
                            env.step(&Action::click_element(b.clone())).await.unwrap();
                            env.step(&Action::Key { keys: vec!["enter".into()] }).await.unwrap();
                            *env.state_mut().unwrap() = typed.clone();
                            tried += 1;
                        }
                        // And the verifier reads whatever the last submission stored.
                        if let Some(b) = buttons.last() {
                            env.step(&Action::click_element(b.clone())).await.unwrap();
                            let verdict = env.evaluate().await;
                            assert!(verdict.is_ok(), "{}: the verifier failed after {text:?} in {field} and {b}: {verdict:?}", task.id);
                        }
                        *env.state_mut().unwrap() = saved;
                    }
                }
                env.step(&action).await.unwrap();
            }
        }
        tried
    })
}

// Two halves of the smoke suite, so the test runner gives each a core.
#[test]
fn nothing_an_agent_types_makes_any_app_panic_even_tasks() {
    let tried = fuzz_forms(0);
    assert!(tried > 5_000, "the fuzzing reached forms: {tried} submissions");
}

#[test]
fn nothing_an_agent_types_makes_any_app_panic_odd_tasks() {
    let tried = fuzz_forms(1);
    assert!(tried > 5_000, "the fuzzing reached forms: {tried} submissions");
}

#[test]
fn invalid_actions_change_nothing() {
    block_on(async {
        for task in smoke() {
            let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
            env.reset(&task).await.unwrap();
            // Walk halfway, so forms and dialogs are open.
            for action in task.walkthrough.iter().take(task.walkthrough.len() / 2) {
                env.step(action).await.unwrap();
            }
            let obs = env.observe(ObserveOptions::default()).await.unwrap();
            let field = obs.ui_tree.iter().find(|n| n.editable).map(|n| n.id.clone());
            let not_a_field = obs.ui_tree.iter().find(|n| n.clickable && !n.editable).map(|n| n.id.clone());
            let mut invalid = vec![
                Action::click_element("no-such-element"),
                Action::click_at(-5.0, 99999.0),
                Action::Type { text: "x".into(), element: Some("no-such-field".into()), clear: true },
                Action::Key { keys: vec![] },
                Action::Scroll { at: Some(Point(1.0, 1.0)), element: Some("nothing".into()), direction: guigym_core::Direction::Down, amount: 3 },
            ];
            if let Some(f) = &field {
                // Overlong text with `clear`: rejected before the field is cleared.
                invalid.push(Action::Type { text: "y".repeat(5000), element: Some(f.clone()), clear: true });
            }
            if let Some(b) = &not_a_field {
                invalid.push(Action::Type { text: "x".into(), element: Some(b.clone()), clear: false });
            }
            for action in invalid {
                let before = env.state_hash().await.unwrap();
                let outcome = env.step(&action).await.unwrap();
                assert!(outcome.invalid, "{}: {action:?} was accepted", task.id);
                assert_eq!(env.state_hash().await.unwrap(), before, "{}: {action:?} changed the state", task.id);
            }
        }
    });
}

#[test]
fn doing_the_task_then_reporting_it_infeasible_fails() {
    block_on(async {
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        let mut checked = 0;
        for task in smoke() {
            let Some(guigym_core::Action::Terminate { status: guigym_core::TerminateStatus::Success }) = task.walkthrough.last() else { continue };
            env.reset(&task).await.unwrap();
            for action in &task.walkthrough[..task.walkthrough.len() - 1] {
                env.step(action).await.unwrap();
            }
            env.step(&guigym_core::Action::Terminate { status: guigym_core::TerminateStatus::Infeasible }).await.unwrap();
            let v = env.evaluate().await.unwrap();
            assert!(!v.success, "{}: the task was done, then reported infeasible, and passed", task.id);
            assert!(v.checks.iter().any(|c| c.name == "ended_as_feasible" && !c.passed), "{}", task.id);
            checked += 1;
        }
        assert!(checked > 60, "{checked}");
    });
}

/// Plays a task's walkthrough without its final terminate, then `extra`, then terminates with
/// success, and returns the verdict.
fn play_with(task_id: &str, edit: impl FnOnce(Vec<Action>) -> Vec<Action>) -> guigym_core::Verdict {
    play_all(task_id, |mut walk| {
        walk.pop();
        let mut walk = edit(walk);
        walk.push(Action::Terminate { status: guigym_core::TerminateStatus::Success });
        walk
    })
}

/// Plays `edit` of a task's whole walkthrough and returns the verdict.
fn play_all(task_id: &str, edit: impl FnOnce(Vec<Action>) -> Vec<Action>) -> guigym_core::Verdict {
    let task = tasks::find_task(task_id).unwrap();
    let walk = edit(task.walkthrough.clone());
    block_on(async {
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        env.reset(&task).await.unwrap();
        for a in &walk {
            // Scroll the element into view first, as the golden player does.
            if let Action::Click { element: Some(e), .. } = a {
                for direction in [guigym_core::Direction::Down, guigym_core::Direction::Up] {
                    for _ in 0..40 {
                        let obs = env.observe(ObserveOptions::default()).await.unwrap();
                        if obs.ui_tree.iter().any(|n| &n.id == e) {
                            break;
                        }
                        // The main list: the largest scrollable (not a row of tabs).
                        let scrollables = obs.ui_tree.iter().filter(|n| n.scrollable);
                        let Some(list) = scrollables.max_by_key(|n| n.bounds.w * n.bounds.h).map(|n| n.id.clone()) else { break };
                        env.step(&Action::Scroll { at: None, element: Some(list), direction, amount: 1 }).await.unwrap();
                    }
                }
            }
            let out = env.step(a).await.unwrap();
            if out.invalid {
                eprintln!("{task_id}: {a:?} was invalid: {}", out.feedback);
            }
        }
        env.evaluate().await.unwrap()
    })
}

fn type_into(field: &str, text: &str) -> Action {
    Action::Type { text: text.into(), element: Some(field.into()), clear: true }
}

#[test]
fn extra_or_contradicting_messages_fail() {
    let contradict = |mut w: Vec<Action>| {
        w.push(type_into("compose", "Actually no, I am too busy, sorry"));
        w.push(Action::click_element("send"));
        w
    };
    assert!(play_with("messages.send/0", |w| w).success);
    assert!(!play_with("messages.send/0", contradict).success, "messages.send: a contradicting second message passed");
    assert!(
        !play_with("long.broadcast/0", |mut w| {
            w.push(Action::click_element("thread:1"));
            w.push(type_into("compose", "Sorry, wrong person"));
            w.push(Action::click_element("send"));
            w
        })
        .success
    );
    // A reply that says the text and then contradicts it.
    assert!(
        !play_with("mail.reply/0", |w| {
            w.into_iter()
                .map(|a| match a {
                    Action::Type { text, .. } if text == "Could we move it by an hour?" => {
                        Action::Type { text: "Could we move it by an hour? Never mind, keep it.".into(), element: None, clear: false }
                    }
                    other => other,
                })
                .collect()
        })
        .success
    );
}

#[test]
fn a_recipient_typed_as_a_number_is_that_contact() {
    // Wen Okafor's number typed instead of the name (without the country code).
    let v = play_with("cross.code_to_message/0", |w| {
        w.into_iter()
            .map(|a| match a {
                Action::Type { text, .. } if text == "Wen Okafor" => Action::Type { text: "555 285 9246".into(), element: None, clear: true },
                other => other,
            })
            .collect()
    });
    assert!(v.success, "{:?}", v.first_failure());
}

#[test]
fn collections_compare_as_multisets_unless_an_order_is_asked_for() {
    let swap = |a: &str, b: &str| {
        let (a, b) = (a.to_string(), b.to_string());
        move |w: Vec<Action>| -> Vec<Action> {
            w.into_iter()
                .map(|x| match x {
                    Action::Click { element: Some(e), at: None } if e == a => Action::click_element(b.clone()),
                    Action::Click { element: Some(e), at: None } if e == b => Action::click_element(a.clone()),
                    other => other,
                })
                .collect()
        }
    };
    // Garlic bread tapped before Pepperoni: the same order.
    let v = play_with("food.order/0", swap("dish:1", "dish:2"));
    assert!(v.success, "{:?}", v.first_failure());
    // Shopping list items added in another order: the same order.
    let v = play_with("long.shopping_list/0", |w| {
        // The list's blocks (a product opened, added, back), the first two swapped.
        let starts: Vec<usize> =
            w.iter().enumerate().filter(|(_, a)| matches!(a, Action::Click { element: Some(e), .. } if e.starts_with("product:"))).map(|(i, _)| i).collect();
        let end_of = |i: usize| (i..w.len()).find(|k| w[*k] == Action::Back).unwrap() + 1;
        let (first, second) = (starts[0]..end_of(starts[0]), starts[1]..end_of(starts[1]));
        let mut out = w[..first.start].to_vec();
        out.extend_from_slice(&w[second.clone()]);
        out.extend_from_slice(&w[first]);
        out.extend_from_slice(&w[second.end..]);
        out
    });
    assert!(v.success, "{:?}", v.first_failure());
    // The playlist instruction says "in this order": another order fails.
    assert!(play_with("long.playlist/0", |w| w).success);
    assert!(!play_with("long.playlist/0", swap("song:15", "song:1")).success);
}

#[test]
fn a_stated_return_reason_is_checked() {
    assert!(play_with("shop.return/0", |w| w).success);
    // "no longer needed" is reason:2; any other reason fails.
    let other = play_with("shop.return/0", |w| {
        w.into_iter().map(|a| if a == Action::click_element("reason:2") { Action::click_element("reason:0") } else { a }).collect()
    });
    assert!(!other.success, "another return reason passed");
}

#[test]
fn an_infeasible_task_fails_on_a_substitute() {
    assert!(play_all("infeasible.missing_song/0", |w| w).success);
    let substitute = play_all("infeasible.missing_song/0", |_| {
        vec![
            Action::click_element("app:Music"),
            Action::click_element("song:1"),
            Action::click_element("play"),
            Action::Terminate { status: guigym_core::TerminateStatus::Infeasible },
        ]
    });
    assert!(!substitute.success, "playing another song, then reporting infeasible, passed");
    assert!(substitute.checks.iter().any(|c| c.name == "changed_nothing" && !c.passed));
}

#[test]
fn asking_the_user_after_acting_is_too_late() {
    assert!(play_all("ask.transfer_amount/0", |w| w).success);
    let late = play_all("ask.transfer_amount/0", |mut w| {
        let ask = w.remove(0);
        let end = w.len() - 1;
        w.insert(end, ask);
        // Without the answer, the amount comes from the instruction's context: type it anyway.
        w
    });
    assert!(!late.success, "asking after the transfer passed");
    assert!(late.checks.iter().any(|c| c.name == "asked_first" && !c.passed), "{:?}", late.checks);
}

/// Replaces the walkthrough's first action equal to `from` with `to`.
fn replacing(from: Action, to: Action) -> impl FnOnce(Vec<Action>) -> Vec<Action> {
    move |w| {
        let mut done = false;
        w.into_iter()
            .map(|a| {
                if !done && a == from {
                    done = true;
                    to.clone()
                } else {
                    a
                }
            })
            .collect()
    }
}

#[test]
fn graded_from_outside_curly_quotes_dotted_times_negations_and_failure_reports() {
    // A phone keyboard's apostrophe is an apostrophe.
    let curly = play_with(
        "cross.walk_time_message/0",
        replacing(
            Action::Type { text: "I'm 32 minutes away".into(), element: None, clear: true },
            Action::Type { text: "I\u{2019}m 32 minutes away".into(), element: None, clear: true },
        ),
    );
    assert!(curly.success, "{:?}", curly.first_failure());
    // "14.00" is 14:00 when a time is asked for.
    let dotted = play_with("info.event_time/0", replacing(Action::Answer { text: "14:00".into() }, Action::Answer { text: "14.00".into() }));
    assert!(dotted.success, "{:?}", dotted.first_failure());
    // Naming the value only to deny it is no answer.
    let negated =
        play_with("info.song_artist/0", replacing(Action::Answer { text: "Lena Marsh".into() }, Action::Answer { text: "Not Lena Marsh; it's Lena".into() }));
    assert!(!negated.success);
    // Done, then reported as failed: the agent's report counts.
    let failed = play_all("messages.send/0", |mut w| {
        w.pop();
        w.push(Action::Terminate { status: guigym_core::TerminateStatus::Failure });
        w
    });
    assert!(!failed.success);
}

#[test]
fn order_keys_are_on_screen() {
    block_on(async {
        // Shop orders show their date, so "most recent" never depends on list order.
        let task = tasks::find_task("shop.return/0").unwrap();
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        env.reset(&task).await.unwrap();
        for a in &task.walkthrough[..2] {
            env.step(a).await.unwrap();
        }
        let obs = env.observe(ObserveOptions::default()).await.unwrap();
        let rows: Vec<&guigym_core::UiNode> = obs.ui_tree.iter().filter(|n| n.id.starts_with("order:")).collect();
        assert!(!rows.is_empty());
        for r in rows {
            assert!(r.text.split_whitespace().any(|w| guigym_phone::time::parse_date(w).is_some()), "{}", r.text);
        }
        // Playlist entries show their position.
        let task = tasks::find_task("long.playlist/0").unwrap();
        env.reset(&task).await.unwrap();
        let state = env.state_mut().unwrap();
        let (pid, _) = state.data.playlists.iter().find(|(_, p)| p.songs.len() >= 2).expect("a playlist with songs");
        for a in [Action::OpenApp { name: "Music".into() }, Action::click_element("tab_playlists"), Action::click_element(format!("playlist:{pid}"))] {
            let obs = env.observe(ObserveOptions::default()).await.unwrap();
            if obs.ui_tree.iter().any(|n| n.id == "popup_dismiss" && n.clickable) {
                env.step(&Action::click_element("popup_dismiss")).await.unwrap();
            }
            env.step(&a).await.unwrap();
        }
        let obs = env.observe(ObserveOptions::default()).await.unwrap();
        let entries: Vec<&str> = obs.ui_tree.iter().filter(|n| n.id.starts_with("entry:")).map(|n| n.text.as_str()).collect();
        assert!(entries.len() >= 2 && entries.iter().any(|t| t.starts_with("1. ")), "{entries:?}");
    });
}

/// Rewrites every text the walkthrough types that `map` recognises.
fn retyping(map: impl Fn(&str) -> Option<String>) -> impl FnOnce(Vec<Action>) -> Vec<Action> {
    move |w| {
        w.into_iter()
            .map(|a| match a {
                Action::Type { text, element, clear } => Action::Type { text: map(&text).unwrap_or(text), element, clear },
                other => other,
            })
            .collect()
    }
}

/// `+1 555 123 4567` as `(555) 123-4567`.
fn us_style(phone: &str) -> String {
    let d = guigym_phone::digits(phone);
    let d = &d[d.len() - 10..];
    format!("({}) {}-{}", &d[..3], &d[3..6], &d[6..])
}

/// The four core apps' families and the catalogue's judge by the same rules.
#[test]
fn one_set_of_judging_rules_for_every_family() {
    // A phone number written another way is the same number, whether typed into a contact or
    // given as an answer.
    let task = tasks::find_task("contacts.edit_phone/0").unwrap();
    let phone = task.params["phone"].as_str().unwrap().to_string();
    let v = play_with("contacts.edit_phone/0", retyping(|t| (t == phone).then(|| us_style(t))));
    assert!(v.success, "{:?}", v.first_failure());
    let task = tasks::find_task("info.contact_phone/0").unwrap();
    let phone = task.params["answer"]["value"].as_str().unwrap().to_string();
    let said = format!("It's {}.", us_style(&phone));
    let v = play_with("info.contact_phone/0", replacing(Action::Answer { text: phone.clone() }, Action::Answer { text: said }));
    assert!(v.success, "{:?}", v.first_failure());
    // A location nobody asked for is unrequested content, in calendar.create as in the
    // relative-date families.
    for id in ["calendar.create/0", "date.friday_after_next/0"] {
        let v = play_with(id, |mut w| {
            let at = w.iter().position(|a| *a == Action::click_element("save")).unwrap();
            w.insert(at, type_into("location", "Main Hall"));
            w
        });
        assert!(!v.success, "{id}: an extra location passed");
    }
}

/// A message that relays a fact may say it in a sentence and in any format, but must say
/// that fact and no rival one.
#[test]
fn relayed_facts_are_judged_like_answers() {
    let task = tasks::find_task("cross.mail_time_to_message/0").unwrap();
    let sent = task.walkthrough.iter().find_map(|a| match a {
        Action::Type { text, .. } if text.contains(" starts at ") => Some(text.clone()),
        _ => None,
    });
    let sent = sent.unwrap();
    let hm = sent.rsplit(' ').next().unwrap().trim_end_matches('.').to_string();
    let minutes = guigym_phone::time::times_in_text(&hm)[0];
    let twelve = format!("{}:{:02} {}", (minutes / 60 + 11) % 12 + 1, minutes % 60, if minutes >= 720 { "pm" } else { "am" });
    let in_a_sentence = format!("Hi! It begins at {twelve}, see you there");
    let v = play_with("cross.mail_time_to_message/0", retyping(|t| (t == sent).then(|| in_a_sentence.clone())));
    assert!(v.success, "{in_a_sentence:?}: {:?}", v.first_failure());
    let hedged = format!("It starts at {hm} or maybe 23:15");
    assert!(!play_with("cross.mail_time_to_message/0", retyping(|t| (t == sent).then(|| hedged.clone()))).success);
    let wrong = sent.replace(&hm, "23:15");
    assert!(!play_with("cross.mail_time_to_message/0", retyping(|t| (t == sent).then(|| wrong.clone()))).success);

    let task = tasks::find_task("cross.event_place_to_message/0").unwrap();
    let sent = task.walkthrough.iter().find_map(|a| match a {
        Action::Type { text, .. } if text.contains(" is at ") => Some(text.clone()),
        _ => None,
    });
    let sent = sent.unwrap();
    let place = sent.split(" is at ").nth(1).unwrap().trim_end_matches('.').to_string();
    let v = play_with("cross.event_place_to_message/0", retyping(|t| (t == sent).then(|| format!("It's at {place}!"))));
    assert!(v.success, "{:?}", v.first_failure());
    let state = tasks::initial_state(&task).unwrap();
    let other = state.data.events.items.values().map(|e| e.location.clone()).find(|l| !l.is_empty() && *l != place).unwrap();
    let both = format!("It's at {place} or {other}");
    assert!(!play_with("cross.event_place_to_message/0", retyping(|t| (t == sent).then(|| both.clone()))).success);
}

/// The Shop offers a tab for every category its products have.
#[test]
fn every_shop_category_has_a_tab() {
    block_on(async {
        let task = tasks::find_task("shop.buy/0").unwrap();
        let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
        env.reset(&task).await.unwrap();
        env.step(&Action::click_element("app:Shop")).await.unwrap();
        let tree = env.observe(ObserveOptions::default()).await.unwrap().ui_tree;
        let categories: std::collections::BTreeSet<String> = env.state().unwrap().data.products.items.values().map(|p| p.category.clone()).collect();
        assert!(categories.len() > 5, "{categories:?}");
        for c in &categories {
            assert!(tree.iter().any(|n| n.role == "tab" && n.id == *c && n.clickable), "no tab for {c}");
            let out = env.step(&Action::click_element(c.clone())).await.unwrap();
            assert!(!out.invalid, "{c}: {}", out.feedback);
        }
    });
}

/// The fourth outside round: an answer may name what the question is about ("City Rain is by
/// Nova Lane."), and an infeasible task's answer may say why in any words ("too low").
#[test]
fn an_answer_may_name_its_subject_and_explain_impossibility_in_its_own_words() {
    let task = tasks::find_task("info.song_artist/46").unwrap();
    let (artist, title) = (task.params["answer"]["value"].as_str().unwrap().to_string(), task.params["answer"]["about"][0].as_str().unwrap().to_string());
    let v = play_with("info.song_artist/46", replacing(Action::Answer { text: artist.clone() }, Action::Answer { text: format!("{title} is by {artist}.") }));
    assert!(v.success, "{:?}", v.first_failure());
    let v = play_all("infeasible.overdraft/43", |mut w| {
        let end = w.len() - 1;
        w.insert(end, Action::Answer { text: "Your balance is too low to send that amount.".into() });
        w
    });
    assert!(v.success, "{:?}", v.first_failure());
    let v = play_all("infeasible.overdraft/43", |mut w| {
        let end = w.len() - 1;
        w.insert(end, Action::Answer { text: "Sent it.".into() });
        w
    });
    assert!(!v.success, "a false claim on an infeasible task passed");
}

/// No label is clipped: on every screen the smoke walkthroughs visit, in every world's look,
/// each button's and tab's label fits its box on one line.
#[test]
fn labels_fit_their_buttons_and_tabs() {
    block_on(async {
        let mut clipped = Vec::new();
        for task in smoke() {
            let mut env = SimEnv::new(Screen::PHONE, guigym_benchmark_phone::hosted());
            env.reset(&task).await.unwrap();
            let zoom = env.state().unwrap().ui.look.zoom_pct as f32 / 100.0;
            let scale = Screen::PHONE.scale() * zoom;
            for a in &task.walkthrough {
                // Scroll the target into view first, as the golden player does.
                if let Action::Click { element: Some(e), .. } = a {
                    for _ in 0..15 {
                        let obs = env.observe(ObserveOptions::default()).await.unwrap();
                        if obs.ui_tree.iter().any(|n| &n.id == e) {
                            break;
                        }
                        let Some(list) = obs.ui_tree.iter().find(|n| n.scrollable).map(|n| n.id.clone()) else { break };
                        env.step(&Action::Scroll { at: None, element: Some(list), direction: guigym_core::Direction::Down, amount: 3 }).await.unwrap();
                    }
                }
                let obs = env.observe(ObserveOptions::default()).await.unwrap();
                for n in obs.ui_tree.iter().filter(|n| (n.role == "button" || n.role == "tab") && n.bounds.w > 0 && n.bounds.h >= (40.0 * scale) as i32) {
                    let fits = guigym_ui::layout::chars_per_line(guigym_ui::TextStyle::Body, n.bounds.w as f32, scale);
                    if n.text.chars().count() > fits {
                        clipped.push(format!("{}: {} {:?} ({} px hold {fits})", task.id, n.id, n.text, n.bounds.w));
                    }
                }
                if env.step(a).await.unwrap().done {
                    break;
                }
            }
        }
        clipped.sort();
        clipped.dedup();
        assert!(clipped.is_empty(), "{} clipped labels:\n{}", clipped.len(), clipped.join("\n"));
    });
}
