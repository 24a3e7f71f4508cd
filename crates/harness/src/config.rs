//! The harness configuration: everything that shapes what a model sees and how its answer is
//! read. It is stored with every run, so a score always names the harness that produced it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::codec::Codec;

/// The system prompt used when a config names none. `{action_space}`, `{coordinates}`,
/// `{width}` and `{height}` are filled in per request.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You operate a phone for a user. Each turn you see the \
current screen and the result of your last action. Reply with a short thought, then exactly one \
action.\n\nScreen: {width}x{height}. Coordinates: {coordinates}.\n\n{action_space}";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObservationMode {
    Screenshot,
    UiTree,
    Both,
}

impl ObservationMode {
    pub fn screenshots(self) -> bool {
        matches!(self, ObservationMode::Screenshot | ObservationMode::Both)
    }
    pub fn ui_tree(self) -> bool {
        matches!(self, ObservationMode::UiTree | ObservationMode::Both)
    }
}

/// Which earlier steps a prompt carries, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum HistoryPolicy {
    /// Windows of `k` steps overlapping by `o`: inside a window the prompt only grows; at a
    /// boundary the observations of earlier steps fold into text placeholders, so the prefix
    /// changes once every `k - o` steps.
    Window { k: u32, o: u32 },
    /// Keep the observations of the last `k` steps; older ones fold (the prefix changes every
    /// step).
    LastK { k: u32 },
    /// Keep every observation.
    Full,
    /// Only the current observation.
    None,
}

impl Default for HistoryPolicy {
    fn default() -> HistoryPolicy {
        HistoryPolicy::Window { k: 10, o: 2 }
    }
}

/// How coordinates in the model's output relate to the image it saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoordinateSpace {
    /// Pixels of the image as the model saw it (after resizing).
    Pixels,
    /// 0..1000 over each axis (Qwen-VL style).
    Norm1000,
}

/// Where images are resized under the pixel budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResizeAt {
    /// Send the original PNG; the server's processor resizes it (vLLM, SGLang do). The
    /// harness computes the same size to count tokens and map coordinates back, and sends its
    /// `min_pixels`/`max_pixels` as `mm_processor_kwargs`, so the server resizes to the size
    /// the prompt states.
    Server,
    /// Resize here and send the smaller PNG: the model sees exactly the size the prompt
    /// states, whatever the server's processor settings (the default).
    Client,
}

/// The largest image budget a harness config may ask for.
pub const MAX_IMAGE_PIXELS: u32 = 64 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImagePolicy {
    /// The model's image size is at most this many pixels (Qwen-VL `max_pixels`).
    pub max_pixels: u32,
    pub min_pixels: u32,
    /// Sides are rounded to multiples of this (28 for Qwen-VL: 14-px patches merged 2×2).
    pub factor: u32,
    pub resize_at: ResizeAt,
}

impl Default for ImagePolicy {
    fn default() -> ImagePolicy {
        ImagePolicy { max_pixels: 1280 * 28 * 28, min_pixels: 4 * 28 * 28, factor: 28, resize_at: ResizeAt::Client }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HarnessConfig {
    /// Format version of this config.
    pub version: u32,
    pub system_prompt: String,
    pub observation: ObservationMode,
    pub image: ImagePolicy,
    pub history: HistoryPolicy,
    pub codec: Codec,
    pub coordinates: CoordinateSpace,
    /// Merge consecutive messages of one role (the task line and the first observation), so
    /// user and assistant turns alternate strictly, as many chat templates require.
    pub strict_alternation: bool,
}

impl Default for HarnessConfig {
    fn default() -> HarnessConfig {
        HarnessConfig {
            version: 1,
            system_prompt: DEFAULT_SYSTEM_PROMPT.to_string(),
            observation: ObservationMode::UiTree,
            image: ImagePolicy::default(),
            history: HistoryPolicy::default(),
            codec: Codec::CANONICAL,
            coordinates: CoordinateSpace::Pixels,
            strict_alternation: true,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("harness config {path}: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("harness config {path}: {message}")]
    Parse { path: String, message: String },
    #[error("harness config {path}: {message}")]
    Invalid { path: String, message: String },
}

impl HarnessConfig {
    /// Reads a config from a JSON or YAML file (by extension); unknown fields are rejected,
    /// errors name the file, the line and the field.
    pub fn load(path: &Path) -> Result<HarnessConfig, ConfigError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Io { path: shown.clone(), source })?;
        let yaml = matches!(path.extension().and_then(|e| e.to_str()), Some("yaml" | "yml"));
        let config: HarnessConfig = if yaml {
            serde_saphyr::from_str(&text).map_err(|e| ConfigError::Parse { path: shown.clone(), message: e.to_string() })?
        } else {
            serde_json::from_str(&text).map_err(|e| ConfigError::Parse { path: shown.clone(), message: e.to_string() })?
        };
        config.check().map_err(|message| ConfigError::Invalid { path: shown, message })?;
        Ok(config)
    }

    /// Rejects settings that cannot work together.
    pub fn check(&self) -> Result<(), String> {
        if self.version != 1 {
            return Err(format!("version: {} is not supported (this build reads version 1)", self.version));
        }
        match self.history {
            HistoryPolicy::Window { k, o } if k == 0 || o >= k => return Err(format!("history: window needs k > 0 and o < k, got k = {k}, o = {o}")),
            HistoryPolicy::LastK { k: 0 } => return Err("history: last_k needs k > 0".into()),
            _ => {}
        }
        let i = &self.image;
        if !(1..=1024).contains(&i.factor) {
            return Err(format!("image: factor must be within 1..=1024, got {}", i.factor));
        }
        if (i.max_pixels as u64) < (i.factor as u64) * (i.factor as u64) {
            return Err("image: max_pixels must hold at least one factor×factor patch".into());
        }
        // Beyond 64 megapixels no model takes an image, and the resize would need gigabytes.
        if i.max_pixels > MAX_IMAGE_PIXELS {
            return Err(format!("image: max_pixels {} is above {MAX_IMAGE_PIXELS}", i.max_pixels));
        }
        if i.min_pixels > i.max_pixels {
            return Err(format!("image: min_pixels {} is above max_pixels {}", i.min_pixels, i.max_pixels));
        }
        Ok(())
    }
}
