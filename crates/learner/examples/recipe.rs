//! Runs the learning recipe on the sim backend with default settings:
//! `cargo run --release -p guigym-learner --example recipe`.

use std::sync::Arc;

use guigym_learner::recipe::{run, LearnerConfig};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), String> {
    let train = guigym_apps::tasks::suite("train").ok_or("no train split")?;
    let test = guigym_apps::tasks::suite("test").ok_or("no test split")?;
    let provider = Arc::new(guigym_sim::SimProvider::default());
    // Overrides as JSON, e.g. '{"rl_lr": 0.01, "rl_rounds": 40}'.
    let config: LearnerConfig = match std::env::args().nth(1) {
        Some(json) => serde_json::from_str(&json).map_err(|e| e.to_string())?,
        None => LearnerConfig::default(),
    };
    let report = run(&config, &train, &test, provider, None, &|l| println!("{l}")).await?;
    println!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    Ok(())
}
