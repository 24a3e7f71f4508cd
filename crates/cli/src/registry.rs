//! What this binary can run, in one place: its backends (with the platforms and benchmarks
//! each hosts), its benchmarks (with their suites) and its policies. Every command (eval,
//! collect, train, tasks, serve, worker) looks them up here, so adding one is one entry.

use std::sync::Arc;

use anyhow::{anyhow, bail};
use guigym_core::Screen;
use guigym_core::{Benchmark, Catalogue, EnvProvider, Platform, TaskSpec};
use guigym_desktop::{DesktopBenchmark, DesktopBenchmarks};
use guigym_harness::openai::{OpenAiConfig, OpenAiFactory};
use guigym_harness::{PolicyFactory, PolicyKind};
use guigym_manager::{Backends, EnvSpec};
use guigym_phone::benchmark::{PhoneBenchmark, PhoneBenchmarks};
use guigym_web::{PageBenchmark, PageBenchmarks};

/// A backend this binary hosts.
pub struct Backend {
    pub name: &'static str,
    pub about: &'static str,
    pub platforms: &'static [Platform],
    /// The screen its instances get unless asked otherwise.
    pub screen: Screen,
    /// Whether it hosts a benchmark (by name).
    pub hosts: fn(&str) -> bool,
    /// Why it cannot run on this machine, if it cannot.
    pub missing: fn() -> Option<String>,
    /// Its instances of one screen size.
    pub provider: fn(Screen) -> Arc<dyn EnvProvider>,
}

/// The phone benchmarks the phone backends (sim, web) host.
pub fn phone_benchmarks() -> PhoneBenchmarks {
    PhoneBenchmarks::new([&guigym_benchmark_phone::CATALOGUE as &'static dyn PhoneBenchmark])
}

/// The desktop benchmarks the desktop backend hosts: our catalogue, and OSWorld's tasks once
/// imported (`tasks import osworld`).
pub fn desktop_benchmarks() -> DesktopBenchmarks {
    DesktopBenchmarks::new([&guigym_benchmark_desktop::DESKTOP as &'static dyn DesktopBenchmark, &guigym_benchmark_osworld::OSWORLD])
}

/// The page benchmarks the web backend hosts.
pub fn page_benchmarks() -> PageBenchmarks {
    PageBenchmarks::new([&guigym_benchmark_miniwob::MINIWOB as &'static dyn PageBenchmark])
}

fn phone_benchmark(name: &str) -> bool {
    phone_benchmarks().find(name).is_some()
}

/// The backends, the default first.
pub const BACKENDS: &[Backend] = &[
    Backend {
        name: "sim",
        about: "the simulated phone, in-process",
        platforms: &[Platform::Mobile],
        screen: Screen::PHONE,
        hosts: phone_benchmark,
        missing: || None,
        provider: |screen| Arc::new(guigym_sim::SimProvider { screen, benchmarks: phone_benchmarks() }),
    },
    Backend {
        name: "web",
        about: "real headless Chromium: the phone's apps as pages, and MiniWoB++",
        platforms: &[Platform::Mobile],
        screen: Screen::PHONE,
        hosts: |name| page_benchmarks().find(name).is_some() || phone_benchmark(name),
        missing: || {
            guigym_web::find_chromium()
                .is_none()
                .then(|| "the web backend needs Chromium: install Debian's `chromium` package (apt-get install chromium) or run ./scripts/setup.sh".into())
        },
        provider: |screen| Arc::new(guigym_web::WebProvider::new(screen, phone_benchmarks(), page_benchmarks())),
    },
    Backend {
        name: "desktop",
        about: "real Linux applications on a virtual X server (Xvfb): LibreOffice, a text editor, a terminal, a file manager",
        platforms: &[Platform::Desktop],
        screen: Screen { width: guigym_desktop::DEFAULT_SIZE.0, height: guigym_desktop::DEFAULT_SIZE.1 },
        hosts: |name| desktop_benchmarks().find(name).is_some(),
        missing: guigym_desktop::missing,
        provider: |screen| Arc::new(guigym_desktop::DesktopProvider::new(screen.width, screen.height, desktop_benchmarks())),
    },
];

/// The backends' names, as the command line accepts them.
pub fn backend_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(BACKENDS.iter().map(|b| clap::builder::PossibleValue::new(b.name).help(b.about)))
}

pub fn backend(name: &str) -> anyhow::Result<&'static Backend> {
    let known: Vec<String> = BACKENDS.iter().map(|b| format!("{} ({})", b.name, b.about)).collect();
    BACKENDS.iter().find(|b| b.name == name).ok_or_else(|| anyhow!("unknown backend \"{name}\"; backends: {}", known.join(", ")))
}

fn names<'a>(it: impl Iterator<Item = &'a str>) -> String {
    it.collect::<Vec<_>>().join(", ")
}

/// In-process instances of a backend, checking first that it can run here.
/// What a manager is asked for: an instance of a backend, on its platform, at a screen size.
pub fn env_spec(name: &str, screen: Screen) -> anyhow::Result<guigym_manager::EnvSpec> {
    let b = backend(name)?;
    let platform = b.platforms.first().copied().unwrap_or(Platform::Mobile);
    Ok(guigym_manager::EnvSpec { backend: b.name.into(), platform, width: screen.width, height: screen.height })
}

pub fn provider(name: &str, screen: Screen) -> anyhow::Result<Arc<dyn EnvProvider>> {
    let b = backend(name)?;
    if let Some(why) = (b.missing)() {
        bail!(why);
    }
    Ok((b.provider)(screen))
}

/// The same backends as a worker hosts them (by env spec), with every benchmark's tasks by id.
pub fn worker_backends() -> Backends {
    let with_tasks = Backends::new().with_tasks(Arc::new(find_task));
    BACKENDS.iter().fold(with_tasks, |all, b| {
        all.with(
            b.name,
            b.platforms,
            Arc::new(move |spec: &EnvSpec| {
                if let Some(why) = (b.missing)() {
                    return Err(why);
                }
                Ok((b.provider)(Screen { width: spec.width, height: spec.height }))
            }),
        )
    })
}

/// Every benchmark: the phone's, MiniWoB++, the desktop's catalogue, and OSWorld's tasks once
/// imported (`tasks import osworld`).
pub fn benchmarks() -> Vec<&'static dyn Benchmark> {
    let phone = phone_benchmarks().iter().map(|b| b as &'static dyn Benchmark).collect::<Vec<_>>();
    let pages = page_benchmarks().iter().map(|b| b as &'static dyn Benchmark).collect::<Vec<_>>();
    let desktop = desktop_benchmarks().iter().map(|b| b as &'static dyn Benchmark).collect::<Vec<_>>();
    phone.into_iter().chain(pages).chain(desktop).collect()
}

/// The benchmarks with the backends that host each: what suites and tasks are looked up in.
pub fn catalogue() -> Catalogue {
    Catalogue::new(benchmarks(), |name| BACKENDS.iter().filter(|b| (b.hosts)(name)).map(|b| b.name.to_string()).collect())
}

/// A suite's tasks and the benchmark they belong to (`benchmark:suite`, or a suite's own name
/// where only one benchmark has it).
pub fn suite(name: &str) -> anyhow::Result<(&'static dyn Benchmark, Vec<TaskSpec>)> {
    catalogue().suite(name).map_err(|e| anyhow!(e))
}

/// A suite's tasks.
pub fn suite_tasks(name: &str) -> anyhow::Result<Vec<TaskSpec>> {
    Ok(suite(name)?.1)
}

/// One task by id, from whichever benchmark has it.
pub fn find_task(id: &str) -> Option<TaskSpec> {
    catalogue().task(id)
}

/// The backend to run a benchmark on: the one asked for, which must host it, or else the
/// first that does.
pub fn backend_for(asked: Option<&str>, benchmark: &str) -> anyhow::Result<&'static str> {
    let hosting = || names(BACKENDS.iter().filter(|b| (b.hosts)(benchmark)).map(|b| b.name));
    match asked {
        Some(name) if (backend(name)?.hosts)(benchmark) => Ok(backend(name)?.name),
        Some(name) => bail!("the {name} backend does not host benchmark \"{benchmark}\"; backends that do: {}", hosting()),
        None => BACKENDS.iter().find(|b| (b.hosts)(benchmark)).map(|b| b.name).ok_or_else(|| anyhow!("no backend hosts benchmark \"{benchmark}\"")),
    }
}

/// The policies: `golden` (plays each task's walkthrough), `random` (seeded taps and typing),
/// `openai` (an OpenAI-compatible chat server, configured by `openai`).
pub const POLICIES: &[&str] = &["golden", "random", "openai"];

pub fn policy(name: &str, openai: Option<OpenAiConfig>) -> anyhow::Result<Arc<dyn PolicyFactory>> {
    Ok(match name {
        "golden" => Arc::new(PolicyKind::Golden),
        "random" => Arc::new(PolicyKind::Random),
        "openai" => {
            let config = openai.ok_or_else(|| anyhow!("the openai policy needs its settings (a base URL at least)"))?;
            if config.base_urls.is_empty() {
                bail!("the openai policy needs at least one base URL (e.g. http://127.0.0.1:8000/v1)");
            }
            Arc::new(OpenAiFactory::new(config).map_err(|e| anyhow!(e))?)
        }
        other => bail!("unknown policy \"{other}\"; policies: {}", POLICIES.join(", ")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_suites_resolve_by_either_name() {
        let (bare, bare_tasks) = suite("smoke").unwrap();
        let (qualified, qualified_tasks) = suite("phone:smoke").unwrap();
        assert_eq!(bare.name(), qualified.name());
        assert_eq!(bare_tasks.iter().map(|t| &t.id).collect::<Vec<_>>(), qualified_tasks.iter().map(|t| &t.id).collect::<Vec<_>>());
        assert!(!bare_tasks.is_empty());
        assert_eq!(suite("desktop:desktop-smoke").unwrap().0.name(), "desktop");
        assert_eq!(catalogue().hosts("phone"), ["sim".to_string(), "web".to_string()]);
    }
}
