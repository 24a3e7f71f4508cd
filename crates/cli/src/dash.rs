//! `guigym dash`: the dashboard (`guigym_serve::dash`) over a store, playing by hand on this
//! binary's backends.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;
use guigym_serve::dash::{Dash, Instances};

use crate::registry::Registry;

#[derive(Args)]
pub struct DashArgs {
    #[command(flatten)]
    store: crate::StoreArgs,
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Port (0 picks a free one; the address is printed)
    #[arg(long, default_value_t = 8090)]
    port: u16,
}

/// The dashboard's view of the registry and a store.
pub fn dash(registry: &Arc<Registry>, store: Arc<guigym_rollout::Store>) -> Dash {
    let instances: Instances = Arc::new({
        let registry = registry.clone();
        move |task| {
            let backend = registry.backend_for(None, &task.benchmark).map_err(|e| e.to_string())?;
            // The backend's own screen: a phone's for the phone, a desktop's for the desktop.
            let provider = registry.provider(backend.name, backend.screen).map_err(|e| e.to_string())?;
            Ok((backend.name.to_string(), provider))
        }
    });
    Dash { store, catalogue: registry.catalogue.clone(), instances }
}

pub async fn run(registry: Arc<Registry>, args: DashArgs) -> anyhow::Result<ExitCode> {
    let store = Arc::new(crate::commands::open_store(&args.store)?);
    let listener = tokio::net::TcpListener::bind((args.host.as_str(), args.port)).await.with_context(|| format!("binding {}:{}", args.host, args.port))?;
    let url = format!("http://{}", listener.local_addr()?);
    let (app, play) = guigym_serve::dash::app(dash(&registry, store));
    crate::serve::announce(&url);
    axum::serve(listener, app).with_graceful_shutdown(crate::serve::stop_requested()).await?;
    // The games' instances (a desktop's display, a browser) end with the dashboard.
    play.end_all("the dashboard stopped").await;
    Ok(ExitCode::SUCCESS)
}
