//! What this binary can run, as one value built in one place (`Registry::builtin`, called by
//! `main`) and passed to every command: its backends (with the benchmarks each hosts), the
//! catalogue of every benchmark (suites, tasks) and its policies. Adding a backend, a
//! benchmark or a policy is one entry here; a test builds a `Registry` of its own.

use std::sync::Arc;

use anyhow::{anyhow, bail};
use guigym_core::{Benchmark, Catalogue, EnvProvider, Platform, Screen, TaskSpec};
use guigym_desktop::{DesktopBenchmark, DesktopBenchmarks};
use guigym_harness::openai::{OpenAiConfig, OpenAiFactory};
use guigym_harness::{PolicyFactory, PolicyKind};
use guigym_manager::{Backends, EnvSpec};
use guigym_phone::benchmark::{PhoneBenchmark, PhoneBenchmarks};
use guigym_web::{PageBenchmark, PageBenchmarks};

/// Instances of one backend at a screen size, on one named device where it drives devices
/// (a backend without devices refuses a name); the error says why none can be made.
pub type MakeProvider = Arc<dyn Fn(Screen, Option<&str>) -> Result<Arc<dyn EnvProvider>, String> + Send + Sync>;

/// A backend's instances that depend on the screen alone.
fn by_screen(make: impl Fn(Screen) -> Arc<dyn EnvProvider> + Send + Sync + 'static) -> MakeProvider {
    Arc::new(move |screen, device| match device {
        None => Ok(make(screen)),
        Some(device) => Err(format!("this backend has no devices to choose from (asked for {device:?})")),
    })
}

/// A backend this binary hosts.
pub struct Backend {
    pub name: &'static str,
    pub about: &'static str,
    pub platforms: &'static [Platform],
    /// The screen its instances get unless asked otherwise.
    pub screen: Screen,
    /// The benchmarks it hosts, by name.
    pub hosts: Vec<String>,
    /// Why it cannot run on this machine, if it cannot.
    pub missing: fn() -> Option<String>,
    /// What is wrong with the settings this process was given for it (its environment, the
    /// files that names), if they were given: `serve` checks them at start and stops there,
    /// rather than failing every lease.
    pub settings: fn() -> Result<(), String>,
    /// Its instances of one screen size.
    pub provider: MakeProvider,
}

impl Backend {
    pub fn hosts(&self, benchmark: &str) -> bool {
        self.hosts.iter().any(|h| h == benchmark)
    }

    /// The platform a manager is asked for when this backend's instances are wanted.
    pub fn platform(&self) -> Platform {
        self.platforms.first().copied().unwrap_or(Platform::Mobile)
    }
}

/// A policy by name.
pub struct Policy {
    pub name: &'static str,
    pub about: &'static str,
    pub build: fn(PolicySettings) -> anyhow::Result<Arc<dyn PolicyFactory>>,
}

/// What a policy may be given beside its name: a model server's settings (`openai`), learned
/// weights (`learned`). A policy refuses settings it needs and lacks.
#[derive(Default)]
pub struct PolicySettings {
    pub openai: Option<OpenAiConfig>,
    pub weights: Option<std::path::PathBuf>,
}

/// The policies: scripted ones for checking tasks and harnesses, the built-in learner's, and any
/// OpenAI-compatible model server.
pub const POLICIES: &[Policy] = &[
    Policy { name: "golden", about: "plays each task's walkthrough", build: |_| Ok(Arc::new(PolicyKind::Golden)) },
    Policy { name: "random", about: "seeded taps and typing", build: |_| Ok(Arc::new(PolicyKind::Random)) },
    Policy {
        name: "learned",
        about: "the built-in learner's policy, greedy, with the weights `guigym train` saved (--weights OUTPUT/checkpoint/model.f32)",
        build: |settings| {
            let path = settings
                .weights
                .ok_or_else(|| anyhow!("the learned policy needs its weights: --weights FILE (a `guigym train` run's OUTPUT/checkpoint/model.f32)"))?;
            let model = guigym_learner::Model::load(&path).map_err(|e| anyhow!(e))?;
            // Greedy, as the recipe measures held-out success: the same weights give the same figure.
            Ok(Arc::new(guigym_learner::LearnedFactory::new(model, true, 0)))
        },
    },
    Policy {
        name: "openai",
        about: "an OpenAI-compatible chat server (--base-url)",
        build: |settings| {
            let config = settings.openai.ok_or_else(|| anyhow!("the openai policy needs its settings (a base URL at least)"))?;
            if config.base_urls.is_empty() {
                bail!("the openai policy needs at least one base URL (e.g. http://127.0.0.1:8000/v1)");
            }
            Ok(Arc::new(OpenAiFactory::new(config).map_err(|e| anyhow!(e))?))
        },
    },
];

/// Everything this binary can run.
pub struct Registry {
    /// The backends, the default first.
    pub backends: Vec<Backend>,
    /// Every benchmark, with the backends that host each.
    pub catalogue: Arc<Catalogue>,
    pub policies: &'static [Policy],
}

impl Registry {
    /// The backends and benchmarks this binary ships: the simulated phone (sim), the same
    /// apps and MiniWoB++ in Chromium (web), the Linux desktop with our catalogue and
    /// OSWorld's tasks once imported (desktop).
    pub fn builtin() -> Registry {
        let phone = PhoneBenchmarks::new([&guigym_benchmark_phone::CATALOGUE as &'static dyn PhoneBenchmark]);
        let pages = PageBenchmarks::new([&guigym_benchmark_miniwob::MINIWOB as &'static dyn PageBenchmark]);
        let desktop = DesktopBenchmarks::new([&guigym_benchmark_desktop::DESKTOP as &'static dyn DesktopBenchmark, &guigym_benchmark_osworld::OSWORLD]);
        let names = |b: Vec<&str>| b.into_iter().map(String::from).collect::<Vec<_>>();
        let backends = vec![
            Backend {
                name: "sim",
                about: "the simulated phone, in-process",
                platforms: &[Platform::Mobile],
                screen: Screen::PHONE,
                hosts: names(phone.names()),
                missing: || None,
                settings: || Ok(()),
                provider: by_screen({
                    let phone = phone.clone();
                    move |screen| Arc::new(guigym_sim::SimProvider { screen, benchmarks: phone.clone() })
                }),
            },
            Backend {
                name: "web",
                about: "real headless Chromium: the phone's apps as pages, and MiniWoB++",
                platforms: &[Platform::Mobile],
                screen: Screen::PHONE,
                hosts: names(pages.names().into_iter().chain(phone.names()).collect()),
                missing: || {
                    guigym_web::find_chromium().is_none().then(|| {
                        "the web backend needs Chromium: install Debian's `chromium` package (apt-get install chromium) or run ./scripts/setup.sh".into()
                    })
                },
                settings: || Ok(()),
                provider: by_screen({
                    let (phone, pages) = (phone.clone(), pages.clone());
                    move |screen| Arc::new(guigym_web::WebProvider::new(screen, phone.clone(), pages.clone()))
                }),
            },
            Backend {
                name: "desktop",
                about: "real Linux applications on a virtual X server (Xvfb): LibreOffice, a text editor, a terminal, a file manager",
                platforms: &[Platform::Desktop],
                screen: Screen { width: guigym_desktop::DEFAULT_SIZE.0, height: guigym_desktop::DEFAULT_SIZE.1 },
                hosts: names(desktop.names()),
                missing: guigym_desktop::missing,
                settings: || Ok(()),
                provider: by_screen({
                    let desktop = desktop.clone();
                    move |screen| Arc::new(guigym_desktop::DesktopProvider::new(screen.width, screen.height, desktop.clone()))
                }),
            },
            Backend {
                name: "android",
                about: "Android devices over ADB (GUIGYM_ANDROID_CONFIG=FILE, or GUIGYM_ANDROID_DEVICES=SERIAL[,HOST:PORT…]): phones, emulators, ReDroid, or `guigym adb-device` (GUIGYM_ANDROID_CONTROL=its control URL)",
                platforms: &[Platform::Mobile],
                screen: Screen::PHONE,
                hosts: names(phone.names()),
                missing: android_missing,
                settings: android_settings,
                provider: android_provider(),
            },
        ];
        let benchmarks: Vec<&'static dyn Benchmark> = (phone.iter().map(|b| b as &'static dyn Benchmark))
            .chain(pages.iter().map(|b| b as &'static dyn Benchmark))
            .chain(desktop.iter().map(|b| b as &'static dyn Benchmark))
            .collect();
        Registry::new(backends, benchmarks, POLICIES)
    }

    /// A registry of these backends, benchmarks and policies; the catalogue says which
    /// backends host each benchmark.
    pub fn new(backends: Vec<Backend>, benchmarks: Vec<&'static dyn Benchmark>, policies: &'static [Policy]) -> Registry {
        let catalogue = Catalogue::new(benchmarks, |name| backends.iter().filter(|b| b.hosts(name)).map(|b| b.name.to_string()).collect());
        Registry { backends, catalogue: Arc::new(catalogue), policies }
    }

    pub fn backend(&self, name: &str) -> anyhow::Result<&Backend> {
        self.backends.iter().find(|b| b.name == name).ok_or_else(|| {
            let known: Vec<String> = self.backends.iter().map(|b| format!("{} ({})", b.name, b.about)).collect();
            anyhow!("unknown backend \"{name}\"; backends: {}", known.join(", "))
        })
    }

    /// What a manager is asked for: an instance of a backend, on its platform, at a screen size.
    pub fn env_spec(&self, name: &str, screen: Screen) -> anyhow::Result<EnvSpec> {
        let b = self.backend(name)?;
        Ok(EnvSpec { backend: b.name.into(), platform: b.platform(), width: screen.width, height: screen.height, device: None })
    }

    /// In-process instances of a backend, checking first that it can run here.
    pub fn provider(&self, name: &str, screen: Screen) -> anyhow::Result<Arc<dyn EnvProvider>> {
        let b = self.backend(name)?;
        if let Some(why) = (b.missing)() {
            bail!(why);
        }
        (b.provider)(screen, None).map_err(|e| anyhow!(e))
    }

    /// Every backend's given settings, checked (a process that hosts them calls this first).
    pub fn check_settings(&self) -> anyhow::Result<()> {
        for b in &self.backends {
            (b.settings)().map_err(|e| anyhow!("the {} backend's settings: {e}", b.name))?;
        }
        Ok(())
    }

    /// The same backends as a worker hosts them (by env spec), with every benchmark's tasks by id.
    pub fn worker_backends(&self) -> Backends {
        let catalogue = self.catalogue.clone();
        let with_tasks = Backends::new().with_tasks(Arc::new(move |id: &str| catalogue.task(id)));
        self.backends.iter().fold(with_tasks, |all, b| {
            let (missing, provider) = (b.missing, b.provider.clone());
            all.with(
                b.name,
                b.platforms,
                Arc::new(move |spec: &EnvSpec| {
                    if let Some(why) = missing() {
                        return Err(why);
                    }
                    provider(Screen { width: spec.width, height: spec.height }, spec.device.as_deref())
                }),
            )
        })
    }

    /// A suite's tasks and the benchmark they belong to (`benchmark:suite`, or a suite's own
    /// name where only one benchmark has it).
    pub fn suite(&self, name: &str) -> anyhow::Result<(&'static dyn Benchmark, Vec<TaskSpec>)> {
        self.catalogue.suite(name).map_err(|e| anyhow!(e))
    }

    /// A suite's tasks.
    pub fn suite_tasks(&self, name: &str) -> anyhow::Result<Vec<TaskSpec>> {
        Ok(self.suite(name)?.1)
    }

    /// One task by id, from whichever benchmark has it.
    pub fn find_task(&self, id: &str) -> Option<TaskSpec> {
        self.catalogue.task(id)
    }

    /// The backend to run a benchmark on: the one asked for, which must host it, or else the
    /// first that does.
    pub fn backend_for(&self, asked: Option<&str>, benchmark: &str) -> anyhow::Result<&Backend> {
        match asked {
            Some(name) => {
                let b = self.backend(name)?;
                if !b.hosts(benchmark) {
                    bail!("the {name} backend does not host benchmark \"{benchmark}\"; backends that do: {}", self.catalogue.hosts(benchmark).join(", "));
                }
                Ok(b)
            }
            None => self.backends.iter().find(|b| b.hosts(benchmark)).ok_or_else(|| anyhow!("no backend hosts benchmark \"{benchmark}\"")),
        }
    }

    /// A policy by name, given its settings.
    pub fn policy(&self, name: &str, settings: PolicySettings) -> anyhow::Result<Arc<dyn PolicyFactory>> {
        match self.policies.iter().find(|p| p.name == name) {
            Some(p) => (p.build)(settings),
            None => bail!("unknown policy \"{name}\"; policies: {}", self.policies.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")),
        }
    }
}

/// The android backend's devices: the file `GUIGYM_ANDROID_CONFIG` names, or else the serials in
/// `GUIGYM_ANDROID_DEVICES` (through the adb server `GUIGYM_ADB_SERVER`, judged by the
/// control API `GUIGYM_ANDROID_CONTROL` where it is set). Read once in a process: every lease
/// and provider after that sees the same devices.
fn android_config() -> Result<guigym_android::AndroidConfig, String> {
    static READ: std::sync::OnceLock<Result<guigym_android::AndroidConfig, String>> = std::sync::OnceLock::new();
    READ.get_or_init(|| {
        let set = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        match (set("GUIGYM_ANDROID_CONFIG"), set("GUIGYM_ANDROID_DEVICES")) {
            (Some(_), Some(_)) => Err("set GUIGYM_ANDROID_CONFIG or GUIGYM_ANDROID_DEVICES, not both: the file lists the devices".into()),
            (Some(_), None) if set("GUIGYM_ANDROID_CONTROL").is_some() || set("GUIGYM_ADB_SERVER").is_some() => {
                Err("GUIGYM_ANDROID_CONTROL and GUIGYM_ADB_SERVER go with GUIGYM_ANDROID_DEVICES; with GUIGYM_ANDROID_CONFIG, set `control` and `adb_server` in the file".into())
            }
            (Some(path), None) => guigym_android::AndroidConfig::load(std::path::Path::new(&path)).map_err(|e| format!("GUIGYM_ANDROID_CONFIG: {e}")),
            (None, Some(serials)) => {
                let config = guigym_android::AndroidConfig::from_serials(&serials, set("GUIGYM_ANDROID_CONTROL"), set("GUIGYM_ADB_SERVER"));
                config.check().map_err(|e| format!("GUIGYM_ANDROID_DEVICES: {e}"))?;
                Ok(config)
            }
            (None, None) => Err("the android backend needs devices: set GUIGYM_ANDROID_CONFIG=FILE (README: Android over ADB) or GUIGYM_ANDROID_DEVICES=SERIAL[,HOST:PORT…] (and GUIGYM_ANDROID_CONTROL=URL for `guigym adb-device`'s tasks)".into()),
        }
    })
    .clone()
}

/// The android backend's settings, where any were given: the devices file read and checked,
/// and the devices' pool made (a `direct` route's host key loaded).
fn android_settings() -> Result<(), String> {
    let given = ["GUIGYM_ANDROID_CONFIG", "GUIGYM_ANDROID_DEVICES"].iter().any(|v| std::env::var_os(v).is_some_and(|v| !v.is_empty()));
    if !given {
        return Ok(());
    }
    android_pool().map(drop)
}

/// Why the android backend cannot run here, if it cannot: its devices are not set, or they are
/// reached through an adb server that does not answer.
fn android_missing() -> Option<String> {
    let config = match android_config() {
        Ok(config) => config,
        Err(why) => return Some(why),
    };
    if config.devices.iter().all(|d| d.route == guigym_android::Route::Direct) {
        return None;
    }
    let server = &config.adb_server;
    let reachable = std::net::ToSocketAddrs::to_socket_addrs(server.as_str())
        .map(|mut addrs| addrs.any(|a| std::net::TcpStream::connect_timeout(&a, std::time::Duration::from_secs(2)).is_ok()));
    match reachable {
        Ok(true) => None,
        Ok(false) => Some(format!(
            "no adb server answers at {server}: start one with `adb start-server` (Debian's adb; ./scripts/setup.sh installs it), set GUIGYM_ADB_SERVER, or reach the devices with `route: direct`"
        )),
        Err(e) => Some(format!("the adb server's address {server:?}: {e}")),
    }
}

/// The android backend's devices, made into one pool on first use.
fn android_pool() -> Result<Arc<guigym_android::AndroidProvider>, String> {
    static POOL: std::sync::OnceLock<Result<Arc<guigym_android::AndroidProvider>, String>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        let apps = guigym_phone::apps::APPS.iter().map(|a| a.name.to_string()).collect();
        android_config().and_then(|config| guigym_android::AndroidProvider::new(&config, apps)).map(Arc::new)
    })
    .clone()
}

/// The android backend's instances: every provider (one per screen size or named device)
/// hands out the same devices, each to one instance at a time.
fn android_provider() -> MakeProvider {
    Arc::new(move |_screen, device| {
        let all = android_pool()?;
        Ok(match device {
            None => all,
            Some(serial) => Arc::new(all.only(serial)?),
        })
    })
}

pub fn backend_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(Registry::builtin().backends.iter().map(|b| clap::builder::PossibleValue::new(b.name).help(b.about)))
}

/// The policies' names, as the command line offers them.
pub fn policy_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(POLICIES.iter().map(|p| clap::builder::PossibleValue::new(p.name).help(p.about)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_suites_resolve_by_either_name() {
        let registry = Registry::builtin();
        let (bare, bare_tasks) = registry.suite("smoke").unwrap();
        let (qualified, qualified_tasks) = registry.suite("phone:smoke").unwrap();
        assert_eq!(bare.name(), qualified.name());
        assert_eq!(bare_tasks.iter().map(|t| &t.id).collect::<Vec<_>>(), qualified_tasks.iter().map(|t| &t.id).collect::<Vec<_>>());
        assert!(!bare_tasks.is_empty());
        assert_eq!(registry.suite("desktop:desktop-smoke").unwrap().0.name(), "desktop");
        assert_eq!(registry.catalogue.hosts("phone"), ["sim", "web", "android"].map(String::from));
    }

    #[test]
    fn a_backend_is_chosen_among_those_that_host_the_benchmark() {
        let registry = Registry::builtin();
        assert_eq!(registry.backend_for(None, "phone").unwrap().name, "sim");
        assert_eq!(registry.backend_for(None, "miniwob").unwrap().name, "web");
        assert_eq!(registry.backend_for(Some("web"), "phone").unwrap().name, "web");
        let refused = registry.backend_for(Some("sim"), "osworld").err().map(|e| e.to_string()).unwrap_or_default();
        assert!(refused.contains("does not host") && refused.contains("desktop"), "{refused}");
        let unknown = registry.policy("nope", PolicySettings::default()).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(unknown.contains("golden, random, learned, openai"), "{unknown}");
    }
}
