//! Runs the learning recipe on the sim backend with default settings:
//! `cargo run --release -p guigym-learner --example recipe`.

use std::sync::Arc;

use guigym_learner::recipe::{run, LearnerConfig};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), String> {
    // The quickstart's suites; GUIGYM_TRAIN / GUIGYM_TEST pick others (`train`, `test`).
    let train_suite = std::env::var("GUIGYM_TRAIN").unwrap_or_else(|_| "core-train".into());
    let test_suite = std::env::var("GUIGYM_TEST").unwrap_or_else(|_| "core-test".into());
    let train = guigym_benchmark_phone::suite(&train_suite).ok_or("no such train suite")?;
    let test = guigym_benchmark_phone::suite(&test_suite).ok_or("no such test suite")?;
    // Tune on validation figures, not on the test suite's.
    let validation = guigym_benchmark_phone::suite("core-validation").ok_or("no validation suite")?;
    let provider = Arc::new(guigym_sim::SimProvider { screen: guigym_core::Screen::PHONE, benchmarks: guigym_benchmark_phone::hosted() });
    // Overrides as JSON, e.g. '{"rl_lr": 0.01, "rl_rounds": 40}'.
    let config: LearnerConfig = match std::env::args().nth(1) {
        Some(json) => serde_json::from_str(&json).map_err(|e| e.to_string())?,
        None => LearnerConfig::default(),
    };
    let report = run(&config, &train, &validation, &test, provider, None, None, false, &|l| println!("{l}")).await?;
    println!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    Ok(())
}
