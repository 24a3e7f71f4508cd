//! `guigym dash` over a real store: runs, a run's families and attempts with filters, a
//! trajectory with its screenshots and the actions drawn on them, two runs compared, a
//! training run's rounds, and bad requests answered without a crash.

#![allow(clippy::unwrap_used)]

mod common;

use common::{guigym, temp, Served};

fn get(url: &str) -> (u16, String) {
    let out = std::process::Command::new("curl").args(["-s", "-o", "-", "-w", "\n%{http_code}", url]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let (body, code) = text.rsplit_once('\n').unwrap();
    (code.trim().parse().unwrap(), body.to_string())
}

#[test]
fn the_dashboard_shows_runs_trajectories_comparisons_and_training() {
    let dir = temp("dash");
    let store = common::dashboard_store(&dir);
    let dash = Served::start(&["dash", "--port", "0", "--store", store.to_str().unwrap()]);
    let url = format!("{}/dash", dash.url);

    let (code, runs) = get(&url);
    assert_eq!(code, 200);
    assert!(runs.contains("href=\"/dash/runs/1\"") && runs.contains("href=\"/dash/runs/2\"") && runs.contains("random"));
    let (_, only_random) = get(&format!("{url}?policy=random"));
    assert!(only_random.contains("/dash/runs/2") && !only_random.contains("/dash/runs/1\""));
    assert!(runs.contains("<th>harness</th>") && runs.contains("canonical · ui_tree"), "each run's harness in a few words");
    let (_, on_web) = get(&format!("{url}?backend=web"));
    assert!(!on_web.contains("/dash/runs/1\""), "filtered by backend");

    // The golden run: families and attempts, all successes; no failure to filter to.
    let (_, run) = get(&format!("{url}/runs/1"));
    assert!(run.contains("by family") && run.contains("contacts.add"));
    let attempt: String = run.split("href=\"/dash/attempts/").nth(1).unwrap().split('"').next().unwrap().to_string();
    let (_, failures) = get(&format!("{url}/runs/1?outcome=failure"));
    assert!(!failures.contains("/dash/attempts/"), "the golden run has no failure");
    let count = |outcome: &str| get(&format!("{url}/runs/2?outcome={outcome}")).1.matches("href=\"/dash/attempts/").count();
    assert_eq!(count("failure") + count("false%20completion"), 4, "random taps fail every task, some claiming success");
    let (_, searched) = get(&format!("{url}/runs/1?q=no-such-text-anywhere"));
    assert!(!searched.contains("href=\"/dash/attempts/"), "text search filters by the model's output");
    let (_, escaped) = get(&format!("{url}/runs/1?q=%3Cscript%3E"));
    assert!(escaped.contains("&lt;script&gt;") && !escaped.contains("value=\"<script>"), "text is escaped");

    // A trajectory: screenshots, the action drawn on each, the verdict's checks.
    let (code, trajectory) = get(&format!("{url}/attempts/{attempt}"));
    assert_eq!(code, 200);
    assert!(trajectory.contains("<img src=\"/dash/blobs/") && trajectory.contains("<circle"), "screenshots with the tap marked");
    assert!(trajectory.contains("verdict") && trajectory.contains("class=ok>yes"), "named checks");
    assert!(trajectory.contains("ArrowRight"), "keyboard navigation");
    let blob: String = trajectory.split("/dash/blobs/").nth(1).unwrap().split('"').next().unwrap().to_string();
    let png = std::process::Command::new("curl").args(["-s", &format!("{url}/blobs/{blob}")]).output().unwrap().stdout;
    assert_eq!(&png[1..4], b"PNG");

    // The two runs side by side: every attempt flipped to failure.
    assert_eq!(get(&format!("{url}/compare?a=1&b=999")).0, 404, "a run that does not exist");
    let (_, compared) = get(&format!("{url}/compare?a=1&b=2"));
    assert!(compared.contains("0 attempts flipped to success, 4 flipped to failure"), "{compared}");

    // Training rounds: a table and a plot.
    let (_, training) = get(&format!("{url}/train"));
    assert!(training.contains("/dash/train/tiny"));
    let (code, rounds) = get(&format!("{url}/train/tiny"));
    assert_eq!(code, 200);
    assert!(rounds.contains("<polyline") && rounds.contains("mean_reward"));
    for figure in ["advantage_abs_mean", "budget_min", "budget_mean", "budget_max", "staleness_max"] {
        assert!(rounds.contains(figure), "rounds record {figure}");
    }
    // Figures beyond [0, 1] (attempt budgets) are plotted too, each on its own scale.
    assert!(rounds.contains(">budget_max</text>"), "budget_max has its plot");

    // Bad requests: clear answers, no crash.
    assert_eq!(get(&format!("{url}/attempts/999999")).0, 404);
    assert_eq!(get(&format!("{url}/blobs/not-a-hash")).0, 400);
    assert_eq!(get(&format!("{url}/train/nope")).0, 404);
    assert_eq!(get(&url).0, 200, "still serving");
    let _ = std::fs::remove_dir_all(dir);
}

/// `guigym serve` mounts the fleet page (and, with `--store`, the store's pages) for operators:
/// refused without the credential, shown after signing in (a cookie), with the workers and the
/// instances by state.
#[test]
fn the_fleet_page_is_the_operators() {
    let store = temp("fleet-store");
    let server = Served::start(&["serve", "--port", "0", "--token", "c", "--operator-token", "op", "--store", store.to_str().unwrap()]);
    let (code, _) = get(&format!("{}/dash/fleet", server.url));
    assert_eq!(code, 401);
    assert_eq!(get(&format!("{}/dash", server.url)).0, 401, "the store's pages too");
    let with_token = std::process::Command::new("curl")
        .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "authorization: Bearer op", &format!("{}/dash", server.url)])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&with_token.stdout), "200", "serve --store mounts the runs pages for operators");
    let jar = temp("fleet-cookies").join("jar");
    let login = std::process::Command::new("curl")
        .args([
            "-s",
            "-L",
            "-c",
            jar.to_str().unwrap(),
            "-b",
            jar.to_str().unwrap(),
            "-o",
            "-",
            "-w",
            "\n%{http_code}",
            &format!("{}/dash/login?token=op", server.url),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&login.stdout).to_string();
    let (body, code) = text.rsplit_once('\n').unwrap();
    assert_eq!(code.trim(), "200", "{body}");
    assert!(body.contains("workers") && body.contains("leased") && body.contains("guigym_leases_granted_total"));
    // An instance created for a lease shows in the plots over time (the interval since the
    // last snapshot included).
    let (code, _) = common::http("POST", &format!("{}/v1/leases", server.url), Some("c"), Some(&serde_json::json!({"spec": {"backend": "sim"}, "count": 1})));
    assert_eq!(code, 200);
    let page = std::process::Command::new("curl").args(["-s", "-b", jar.to_str().unwrap(), &format!("{}/dash/fleet", server.url)]).output().unwrap();
    let page = String::from_utf8_lossy(&page.stdout);
    let over_time = page.split("<h2>over time</h2>").nth(1).expect("the page plots the figures over time");
    assert!(over_time.contains("mean latency") && over_time.contains(">create</text>") && over_time.contains("<polyline"), "{over_time}");
    let wrong = std::process::Command::new("curl")
        .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-H", "cookie: guigym_token=nope", &format!("{}/dash/fleet", server.url)])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&wrong.stdout), "401");
}

/// A task played by hand in the browser: each action stored as a step, the episode judged and
/// stored as a run with policy `human`.
#[test]
fn a_task_played_by_hand_is_judged_and_stored_as_a_human_run() {
    let dir = temp("dash-play");
    let store = dir.join("store");
    let dash = Served::start(&["dash", "--port", "0", "--store", store.to_str().unwrap()]);
    let (code, pick) = get(&format!("{}/dash/play", dash.url));
    assert_eq!(code, 200);
    assert!(pick.contains("/dash/play/start?task=contacts.delete/0"));
    let start = std::process::Command::new("curl")
        .args(["-s", "-L", "-o", "/dev/null", "-w", "%{url_effective}", &format!("{}/dash/play/start?task=contacts.delete/0", dash.url)])
        .output()
        .unwrap();
    let game = String::from_utf8_lossy(&start.stdout).to_string();
    assert!(game.contains("/dash/play/"), "{game}");
    // The page names its screen and its actions by absolute paths (it is served without a
    // trailing slash), and they resolve.
    let (_, board) = get(&game);
    let sid = game.rsplit('/').next().unwrap();
    assert!(board.contains(&format!("src=\"/dash/play/{sid}/screen.png\"")) && board.contains(&format!("'/dash/play/{sid}/act'")), "{board}");
    let (_, screen) = get(&format!("{}/dash/play/{sid}/screen.png", dash.url));
    assert!(screen.contains("PNG"));
    let task: serde_json::Value = serde_json::from_slice(&guigym().args(["tasks", "show", "contacts.delete/0"]).output().unwrap().stdout).unwrap();
    let post = |body: &str| {
        let out = std::process::Command::new("curl")
            .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-d", body, &format!("{game}/act")])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).to_string()
    };
    let (_, live) = get(&format!("{}/dash", dash.url));
    assert!(live.contains("reloads every 5 s"), "a run still going: the page follows it");
    assert_eq!(post("not an action"), "200", "garbage is an invalid step, not an error");
    assert_eq!(post(r#"{"action":"key","keys":["zzz"]}"#), "200");
    assert!(get(&game).1.contains("unknown key"), "a key the phone does not have is an invalid step");
    for action in task["walkthrough"].as_array().unwrap() {
        assert_eq!(post(&action.to_string()), "200");
    }
    assert_eq!(post("{\"action\":\"back\"}"), "409", "the game is over");
    let (_, over) = get(&game);
    assert!(over.contains("solved") && over.contains("/dash/attempts/"), "{over}");
    let (_, runs) = get(&format!("{}/dash?policy=human", dash.url));
    assert!(!runs.contains("reloads every 5 s"), "nothing is going any more");
    assert!(runs.contains("play") && runs.contains("100.0 %"), "{runs}");
    let attempt: String = over.split("/dash/attempts/").nth(1).unwrap().split('"').next().unwrap().to_string();
    let (_, trajectory) = get(&format!("{}/dash/attempts/{attempt}", dash.url));
    assert!(trajectory.contains("<img src=\"/dash/blobs/") && trajectory.contains("invalid"), "the steps, the invalid one included");
    // `collect` turns the game into training data: its actions replayed through the harness.
    let run: String = over.split(">run ").nth(1).unwrap().split(' ').next().unwrap().to_string();
    common::assert_human_run_collects(&store, &run, &dir.join("collected"));
    let sft = std::fs::read_to_string(dir.join("collected/sft.jsonl")).unwrap();
    assert!(!sft.contains("zzz"), "the invalid steps are not replayed, so not trained on");
    let _ = std::fs::remove_dir_all(dir);
}

/// A desktop task played by hand: the game runs on the desktop backend at its own screen size
/// (1920×1080), takes clicks, typing and key chords, is judged, and `collect --replay` plays
/// it again on a fresh desktop.
#[test]
#[ignore = "full tier: the desktop (Xvfb, mousepad)"]
fn a_desktop_task_played_by_hand_is_judged_and_collected() {
    let dir = temp("dash-play-desktop");
    let store = dir.join("store");
    let dash = Served::start(&["dash", "--port", "0", "--store", store.to_str().unwrap()]);
    let start = std::process::Command::new("curl")
        .args(["-s", "-L", "-o", "/dev/null", "-w", "%{url_effective}", &format!("{}/dash/play/start?task=text.write/0", dash.url)])
        .output()
        .unwrap();
    let game = String::from_utf8_lossy(&start.stdout).to_string();
    let png = std::process::Command::new("curl").args(["-s", &format!("{game}/screen.png")]).output().unwrap().stdout;
    assert_eq!(&png[16..24], &[0, 0, 7, 128, 0, 0, 4, 56], "the desktop's own 1920×1080 screen");
    let task: serde_json::Value = serde_json::from_slice(&guigym().args(["tasks", "show", "text.write/0"]).output().unwrap().stdout).unwrap();
    for action in task["walkthrough"].as_array().unwrap() {
        let out = std::process::Command::new("curl")
            .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-d", &action.to_string(), &format!("{game}/act")])
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "200", "{action}");
    }
    let (_, over) = get(&game);
    assert!(over.contains("solved") && !over.contains("not solved"), "{over}");
    let run: String = over.split(">run ").nth(1).unwrap().split(' ').next().unwrap().to_string();
    common::assert_human_run_collects(&store, &run, &dir.join("collected"));

    // A game in play when the dashboard is stopped: its desktop's processes end with it.
    let mut dash = dash;
    let started = std::process::Command::new("curl")
        .args(["-s", "-o", "/dev/null", "-w", "%{http_code}", &format!("{}/dash/play/start?task=text.write/0", dash.url)])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&started.stdout), "303");
    let children = common::children_of(dash.child.id());
    assert!(!children.is_empty(), "the game's display and applications run under the dashboard");
    common::stop_leaving_nothing_behind(&mut dash, &children);
    let _ = std::fs::remove_dir_all(dir);
}

/// `guigym serve` stopped with SIGTERM ends its worker's instances: the browser it started
/// for a leased web instance does not outlive it.
#[test]
#[ignore = "full tier: Chromium"]
fn a_stopped_server_leaves_no_browser_behind() {
    let mut serve = Served::start(&["serve", "--port", "0", "--token", "c"]);
    let (code, _) = common::http("POST", &format!("{}/v1/leases", serve.url), Some("c"), Some(&serde_json::json!({"spec": {"backend": "web"}, "count": 1})));
    assert_eq!(code, 200);
    let children = common::children_of(serve.child.id());
    assert!(!children.is_empty(), "the web instance's browser runs under the server");
    common::stop_leaving_nothing_behind(&mut serve, &children);
}
