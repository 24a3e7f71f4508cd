//! Env specs (what kind of instance a client asks for) and the backends that can host them.

use std::collections::BTreeMap;
use std::sync::Arc;

use guigym_core::{EnvProvider, Platform};
use serde::{Deserialize, Serialize};

/// What kind of instance a client asks for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvSpec {
    pub backend: String,
    #[serde(default = "mobile")]
    pub platform: Platform,
    #[serde(default = "width")]
    pub width: u32,
    #[serde(default = "height")]
    pub height: u32,
    /// One device by name, for backends that drive real devices (an Android serial); the
    /// worker must have been given it. Other backends refuse a spec that names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<String>,
}

fn mobile() -> Platform {
    Platform::Mobile
}
fn width() -> u32 {
    1080
}
fn height() -> u32 {
    2400
}

impl EnvSpec {
    pub fn sim() -> EnvSpec {
        EnvSpec { backend: "sim".into(), platform: mobile(), width: width(), height: height(), device: None }
    }

    /// The limits every spec obeys before any worker sees it: a screen of 200 to 4096 pixels a
    /// side and at most 4096 × 2560 in all (a screenshot's pixels are held several times while
    /// it is encoded), names of up to 32 characters of `[a-z0-9_-]`.
    pub fn check(&self) -> Result<(), String> {
        const SIDE: std::ops::RangeInclusive<u32> = 200..=4096;
        if !SIDE.contains(&self.width) || !SIDE.contains(&self.height) {
            return Err(format!("screen {}x{} is out of range: each side 200..=4096", self.width, self.height));
        }
        if self.width as u64 * self.height as u64 > 4096 * 2560 {
            return Err(format!("screen {}x{} has more than 4096 x 2560 pixels", self.width, self.height));
        }
        let name = &self.backend;
        if name.is_empty() || name.len() > 32 || !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_') {
            return Err(format!("backend {name:?} must be 1 to 32 characters of a-z, 0-9, - and _"));
        }
        if let Some(device) = &self.device {
            if device.is_empty() || device.len() > 256 || device.chars().any(|c| c.is_whitespace() || c.is_control()) {
                let shown: String = device.chars().take(64).collect();
                return Err(format!("device {shown:?}{} must be 1 to 256 characters without spaces", if shown.len() < device.len() { "…" } else { "" }));
            }
        }
        Ok(())
    }

    /// A short stable name, for metrics and pool listings.
    pub fn key(&self) -> String {
        let key = format!("{}/{}/{}x{}", self.backend, self.platform, self.width, self.height);
        match &self.device {
            Some(device) => format!("{key}/{device}"),
            None => key,
        }
    }
}

/// Makes a provider for a spec, or says why the spec cannot be served.
pub type ProviderFactory = Arc<dyn Fn(&EnvSpec) -> Result<Arc<dyn EnvProvider>, String> + Send + Sync>;

/// Finds a task of the benchmarks a worker hosts by its id.
pub type TaskResolver = Arc<dyn Fn(&str) -> Option<guigym_core::TaskSpec> + Send + Sync>;

/// The backends a worker can host, by name, with the platforms each serves, and the tasks of
/// their benchmarks by id (so a client may reset to a task by id).
#[derive(Clone, Default)]
pub struct Backends {
    factories: BTreeMap<String, (Vec<Platform>, ProviderFactory)>,
    tasks: Option<TaskResolver>,
}

impl Backends {
    pub fn new() -> Backends {
        Backends::default()
    }

    /// Adds a backend serving `platforms`.
    pub fn with(mut self, name: &str, platforms: &[Platform], factory: ProviderFactory) -> Backends {
        self.factories.insert(name.to_string(), (platforms.to_vec(), factory));
        self
    }

    /// Lets clients name tasks by id.
    pub fn with_tasks(mut self, resolver: TaskResolver) -> Backends {
        self.tasks = Some(resolver);
        self
    }

    /// A task by id, where this worker knows the benchmarks' tasks.
    pub fn task(&self, id: &str) -> Option<guigym_core::TaskSpec> {
        self.tasks.as_ref().and_then(|find| find(id))
    }

    pub fn names(&self) -> Vec<String> {
        self.factories.keys().cloned().collect()
    }

    /// Whether a spec names a backend and platform this registry serves, within the limits
    /// every spec obeys; the message names what is wrong. Creates nothing.
    pub fn check(&self, spec: &EnvSpec) -> Result<(), String> {
        spec.check()?;
        let (platforms, _) =
            self.factories.get(&spec.backend).ok_or_else(|| format!("unknown backend \"{}\"; hosted: {}", spec.backend, self.names().join(", ")))?;
        if !platforms.contains(&spec.platform) {
            let served: Vec<&str> = platforms.iter().map(|p| p.name()).collect();
            return Err(format!("the {} backend serves platform {}, not \"{}\"", spec.backend, served.join(", "), spec.platform));
        }
        Ok(())
    }

    /// A provider for the spec, or a message naming what is wrong with it.
    pub fn provider(&self, spec: &EnvSpec) -> Result<Arc<dyn EnvProvider>, String> {
        self.check(spec)?;
        let (_, factory) = &self.factories[&spec.backend];
        factory(spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_is_part_of_the_key_and_must_be_a_name() {
        let mut spec = EnvSpec::sim();
        assert_eq!(spec.key(), "sim/mobile/1080x2400");
        assert!(!serde_json::to_string(&spec).unwrap().contains("device"), "a spec without a device reads as before");
        spec.device = Some("emulator-5554".into());
        assert_eq!(spec.key(), "sim/mobile/1080x2400/emulator-5554");
        assert!(spec.check().is_ok());
        for bad in ["", "a b", "x\n", &"d".repeat(257)] {
            spec.device = Some(bad.into());
            assert!(spec.check().unwrap_err().contains("device"), "{bad:?}");
        }
    }
}
