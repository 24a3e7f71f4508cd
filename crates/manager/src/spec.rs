//! Env specs (what kind of instance a client asks for) and the backends that can host them.

use std::collections::BTreeMap;
use std::sync::Arc;

use guigym_core::EnvProvider;
use serde::{Deserialize, Serialize};

/// What kind of instance a client asks for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvSpec {
    pub backend: String,
    #[serde(default = "mobile")]
    pub platform: String,
    #[serde(default = "width")]
    pub width: u32,
    #[serde(default = "height")]
    pub height: u32,
}

fn mobile() -> String {
    "mobile".into()
}
fn width() -> u32 {
    1080
}
fn height() -> u32 {
    2400
}

impl EnvSpec {
    pub fn sim() -> EnvSpec {
        EnvSpec { backend: "sim".into(), platform: mobile(), width: width(), height: height() }
    }

    /// A short stable name, for metrics and pool listings.
    pub fn key(&self) -> String {
        format!("{}/{}/{}x{}", self.backend, self.platform, self.width, self.height)
    }
}

/// Makes a provider for a spec, or says why the spec cannot be served.
pub type ProviderFactory = Arc<dyn Fn(&EnvSpec) -> Result<Arc<dyn EnvProvider>, String> + Send + Sync>;

/// The backends a worker can host, by name.
#[derive(Clone, Default)]
pub struct Backends {
    factories: BTreeMap<String, ProviderFactory>,
}

impl Backends {
    pub fn new() -> Backends {
        Backends::default()
    }

    pub fn with(mut self, name: &str, factory: ProviderFactory) -> Backends {
        self.factories.insert(name.to_string(), factory);
        self
    }

    pub fn names(&self) -> Vec<String> {
        self.factories.keys().cloned().collect()
    }

    /// A provider for the spec, or a message naming what is wrong with it.
    pub fn provider(&self, spec: &EnvSpec) -> Result<Arc<dyn EnvProvider>, String> {
        let f = self
            .factories
            .get(&spec.backend)
            .ok_or_else(|| format!("unknown backend \"{}\"; this worker hosts: {}", spec.backend, self.names().join(", ")))?;
        if !(200..=8000).contains(&spec.width) || !(200..=8000).contains(&spec.height) {
            return Err(format!("screen {}x{} is out of range (200..=8000)", spec.width, spec.height));
        }
        f(spec)
    }
}
