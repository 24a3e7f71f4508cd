//! Token accounting of a recorded trajectory under a harness config: prompt tokens per
//! request, what an engine's prefix cache would serve, and the training tokens of packing
//! (one sequence per window, against one per step). The same replay serves the harness
//! benchmark and, later, training-data packing.

use std::sync::Arc;
use std::time::Instant;

use guigym_core::Observation;

use crate::config::{HarnessConfig, HistoryPolicy};
use crate::prefix::PrefixCache;
use crate::prompt::Episode;
use crate::tokenizer::Tokenizer;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Replay {
    pub steps: usize,
    /// Prompt tokens of each request.
    pub prompt_tokens: Vec<usize>,
    /// Of those, served from the prefix cache (longest common prefix with the previous
    /// request of the trajectory).
    pub cached_tokens: Vec<usize>,
    /// Tokens of the replies (with their end-of-turn token).
    pub response_tokens: Vec<usize>,
    /// Training tokens with one sequence per step: every prompt plus its reply.
    pub per_step_training_tokens: usize,
    /// Training tokens with one sequence per window (window history only; otherwise equal to
    /// per-step).
    pub packed_training_tokens: usize,
    /// Harness time per step: building the prompt and parsing the reply.
    pub overhead_ms: Vec<f64>,
}

/// Replays (observation, reply) pairs through a fresh episode under `config`.
pub fn replay(config: &HarnessConfig, instruction: &str, steps: &[(Observation, String)], tokenizer: &Tokenizer) -> Replay {
    let mut episode = Episode::new(Arc::new(config.clone()), instruction);
    let mut cache = PrefixCache::default();
    let mut out = Replay { steps: steps.len(), ..Replay::default() };
    // (window index, tokens of that window's latest prompt + reply)
    let mut windows: Vec<(u32, usize)> = Vec::new();
    for (obs, reply) in steps {
        let start = Instant::now();
        let prompt = episode.prompt(obs);
        let _ = episode.parse(reply, obs, &prompt);
        episode.record(reply);
        out.overhead_ms.push(start.elapsed().as_secs_f64() * 1e3);

        let keys = tokenizer.prompt_keys(&prompt);
        let reply_tokens = tokenizer.encode(reply).len() + 1;
        out.cached_tokens.push(cache.request(&keys));
        out.prompt_tokens.push(keys.len());
        out.response_tokens.push(reply_tokens);
        out.per_step_training_tokens += keys.len() + reply_tokens;
        let window = match config.history {
            HistoryPolicy::Window { .. } => prompt.window.map(|w| w.0),
            _ => None,
        };
        match (window, windows.last_mut()) {
            (Some(w), Some(last)) if last.0 == w => last.1 = keys.len() + reply_tokens,
            (Some(w), _) => windows.push((w, keys.len() + reply_tokens)),
            (None, _) => out.packed_training_tokens += keys.len() + reply_tokens,
        }
    }
    out.packed_training_tokens += windows.iter().map(|w| w.1).sum::<usize>();
    out
}
