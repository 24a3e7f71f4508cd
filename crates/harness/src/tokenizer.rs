//! A byte-level BPE tokenizer read from a Hugging Face `tokenizer.json` (the Qwen2 family's
//! format): special tokens split first, then the Qwen pre-tokenizer (written out by hand,
//! since its regex needs a look-ahead), bytes mapped to the GPT-2 alphabet, merges by rank.
//! The NFC normalizer step is skipped: prompts here are NFC already.
//!
//! `prompt_keys` turns a prompt into the token sequence an inference engine would cache,
//! images included (each image's pad tokens carry the image's hash, so two different
//! screenshots never share a cached prefix).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::Deserialize;

use crate::prompt::Prompt;

#[derive(Debug, thiserror::Error)]
pub enum TokenizerError {
    #[error("tokenizer {path}: {message}")]
    Load { path: String, message: String },
    #[error("no tokenizer found: pass --tokenizer PATH, set GUIGYM_TOKENIZER, or run ./scripts/setup.sh to fetch Qwen's into {0}")]
    Missing(String),
}

/// Where `scripts/setup.sh` puts Qwen's tokenizer.
pub fn default_path() -> PathBuf {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    cache.join("guigym").join("qwen-tokenizer.json")
}

/// The tokenizer named by `explicit`, `$GUIGYM_TOKENIZER`, or the default cache path.
pub fn locate(explicit: Option<&Path>) -> Result<PathBuf, TokenizerError> {
    let path = explicit.map(Path::to_path_buf).or_else(|| std::env::var_os("GUIGYM_TOKENIZER").map(PathBuf::from)).unwrap_or_else(default_path);
    if path.exists() {
        Ok(path)
    } else {
        Err(TokenizerError::Missing(default_path().display().to_string()))
    }
}

#[derive(Deserialize)]
struct File {
    added_tokens: Vec<Added>,
    model: Model,
}

#[derive(Deserialize)]
struct Added {
    id: u32,
    content: String,
}

#[derive(Deserialize)]
struct Model {
    vocab: HashMap<String, u32>,
    merges: Vec<Merge>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Merge {
    Joined(String),
    Pair(String, String),
}

pub struct Tokenizer {
    /// Token id of each single byte.
    byte_ids: [u32; 256],
    /// (left, right) → (rank, merged id).
    merges: HashMap<(u32, u32), (u32, u32)>,
    /// Special tokens, longest first.
    special: Vec<(String, u32)>,
    cache: Mutex<HashMap<String, Vec<u32>>>,
}

/// GPT-2's byte → printable character table.
fn byte_to_char() -> [char; 256] {
    let mut table = ['\0'; 256];
    let mut extra = 0u32;
    for b in 0..256u32 {
        let printable = (0x21..=0x7e).contains(&b) || (0xa1..=0xac).contains(&b) || (0xae..=0xff).contains(&b);
        table[b as usize] = if printable {
            char::from_u32(b).unwrap_or('\0')
        } else {
            extra += 1;
            char::from_u32(255 + extra).unwrap_or('\0')
        };
    }
    table
}

impl Tokenizer {
    pub fn load(path: &Path) -> Result<Tokenizer, TokenizerError> {
        let shown = path.display().to_string();
        let err = |message: String| TokenizerError::Load { path: shown.clone(), message };
        let text = std::fs::read_to_string(path).map_err(|e| err(e.to_string()))?;
        let file: File = serde_json::from_str(&text).map_err(|e| err(format!("not a tokenizer.json: {e}")))?;
        let table = byte_to_char();
        let mut byte_ids = [0u32; 256];
        for (b, c) in table.iter().enumerate() {
            byte_ids[b] = *file.model.vocab.get(&c.to_string()).ok_or_else(|| err(format!("byte {b} has no token")))?;
        }
        let mut merges = HashMap::with_capacity(file.model.merges.len());
        for (rank, m) in file.model.merges.iter().enumerate() {
            let (a, b) = match m {
                Merge::Pair(a, b) => (a.as_str(), b.as_str()),
                Merge::Joined(s) => s.split_once(' ').ok_or_else(|| err(format!("merge {rank} is not a pair: {s:?}")))?,
            };
            let (Some(&ia), Some(&ib), Some(&merged)) = (file.model.vocab.get(a), file.model.vocab.get(b), file.model.vocab.get(&format!("{a}{b}"))) else {
                return Err(err(format!("merge {rank} names unknown tokens")));
            };
            merges.insert((ia, ib), (rank as u32, merged));
        }
        let mut special: Vec<(String, u32)> = file.added_tokens.into_iter().map(|a| (a.content, a.id)).collect();
        special.sort_by_key(|(s, _)| std::cmp::Reverse(s.len()));
        Ok(Tokenizer { byte_ids, merges, special, cache: Mutex::new(HashMap::new()) })
    }

    pub fn special_id(&self, token: &str) -> Option<u32> {
        self.special.iter().find(|(s, _)| s == token).map(|(_, id)| *id)
    }

    /// Token ids of a text; added tokens written in it (`<|im_start|>`, `<tool_call>`…) are
    /// recognized.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::with_capacity(text.len() / 3);
        let mut rest = text;
        while !rest.is_empty() {
            // The earliest added token; at equal positions the longest (the list is sorted so).
            let next = self
                .special
                .iter()
                .filter_map(|(s, id)| rest.find(s.as_str()).map(|i| (i, s.len(), *id)))
                .min_by_key(|(i, len, _)| (*i, std::cmp::Reverse(*len)));
            match next {
                Some((i, len, id)) => {
                    self.encode_ordinary(&rest[..i], &mut out);
                    out.push(id);
                    rest = &rest[i + len..];
                }
                None => {
                    self.encode_ordinary(rest, &mut out);
                    rest = "";
                }
            }
        }
        out
    }

    fn encode_ordinary(&self, text: &str, out: &mut Vec<u32>) {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        for piece in pre_tokenize(text) {
            if let Some(ids) = cache.get(piece) {
                out.extend_from_slice(ids);
                continue;
            }
            let ids = self.bpe(piece.as_bytes());
            out.extend_from_slice(&ids);
            if cache.len() < 200_000 {
                cache.insert(piece.to_string(), ids);
            }
        }
    }

    fn bpe(&self, bytes: &[u8]) -> Vec<u32> {
        let mut ids: Vec<u32> = bytes.iter().map(|b| self.byte_ids[*b as usize]).collect();
        loop {
            let best = ids.windows(2).filter_map(|w| self.merges.get(&(w[0], w[1])).map(|(rank, merged)| (*rank, w[0], w[1], *merged))).min_by_key(|m| m.0);
            let Some((_, a, b, merged)) = best else { break };
            let mut next = Vec::with_capacity(ids.len());
            let mut i = 0;
            while i < ids.len() {
                if i + 1 < ids.len() && ids[i] == a && ids[i + 1] == b {
                    next.push(merged);
                    i += 2;
                } else {
                    next.push(ids[i]);
                    i += 1;
                }
            }
            ids = next;
        }
        ids
    }

    /// The token sequence of a prompt in the Qwen chat template, ending with the assistant
    /// header, as cache keys: text tokens are their ids; image pad tokens carry their image's
    /// hash (top bit set), so only the same image matches.
    pub fn prompt_keys(&self, prompt: &Prompt) -> Vec<u64> {
        // The same token sequence training packs, with each image's pad tokens keyed by the
        // image's hash instead of the shared pad id.
        let tp = crate::packing::tokenize(self, prompt);
        let mut keys: Vec<u64> = tp.ids.iter().map(|&i| u64::from(i)).collect();
        for (start, len, hash) in &tp.images {
            let h = u64::from_str_radix(&hash[..15.min(hash.len())], 16).unwrap_or(0) | (1 << 63);
            keys[*start..start + len].fill(h);
        }
        keys
    }
}

fn is_letter(c: char) -> bool {
    c.is_alphabetic()
}

fn is_number(c: char) -> bool {
    c.is_numeric()
}

fn is_newline(c: char) -> bool {
    c == '\r' || c == '\n'
}

/// Splits text as Qwen2's pre-tokenizer regex does:
/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`,
/// trying the alternatives in order at each position.
pub fn pre_tokenize(text: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let n = chars.len();
    let at = |i: usize| chars.get(i).map(|c| c.1);
    let byte = |i: usize| if i < n { chars[i].0 } else { text.len() };
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        let c = chars[i].1;
        let end = contraction(&chars, i)
            .or_else(|| {
                // [^\r\n\p{L}\p{N}]?\p{L}+
                let mut j = i;
                if !is_newline(c) && !is_letter(c) && !is_number(c) && at(i + 1).is_some_and(is_letter) {
                    j += 1;
                }
                if at(j).is_some_and(is_letter) {
                    while at(j).is_some_and(is_letter) {
                        j += 1;
                    }
                    Some(j)
                } else {
                    None
                }
            })
            .or_else(|| is_number(c).then_some(i + 1))
            .or_else(|| {
                //  ?[^\s\p{L}\p{N}]+[\r\n]*
                let mut j = i;
                if c == ' ' {
                    j += 1;
                }
                let other = |x: char| !x.is_whitespace() && !is_letter(x) && !is_number(x);
                if !at(j).is_some_and(other) {
                    return None;
                }
                while at(j).is_some_and(other) {
                    j += 1;
                }
                while at(j).is_some_and(is_newline) {
                    j += 1;
                }
                Some(j)
            })
            .or_else(|| {
                if !c.is_whitespace() {
                    return None;
                }
                let mut run_end = i;
                while at(run_end).is_some_and(char::is_whitespace) {
                    run_end += 1;
                }
                // \s*[\r\n]+ : up to and including the last newline of the run.
                if let Some(last_nl) = (i..run_end).rev().find(|&k| is_newline(chars[k].1)) {
                    return Some(last_nl + 1);
                }
                // \s+(?!\S) : the run, less its last char when a non-space follows.
                if run_end == n {
                    Some(run_end)
                } else if run_end - i >= 2 {
                    Some(run_end - 1)
                } else {
                    Some(run_end) // \s+
                }
            })
            .unwrap_or(i + 1);
        out.push(&text[byte(i)..byte(end)]);
        i = end;
    }
    out
}

fn contraction(chars: &[(usize, char)], i: usize) -> Option<usize> {
    if chars[i].1 != '\'' {
        return None;
    }
    let lower = |k: usize| chars.get(k).map(|c| c.1.to_ascii_lowercase());
    for suffix in ["re", "ve", "ll", "s", "t", "m", "d"] {
        if suffix.chars().enumerate().all(|(o, s)| lower(i + 1 + o) == Some(s)) {
            return Some(i + 1 + suffix.len());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pre_tokenizer_follows_the_regex() {
        assert_eq!(pre_tokenize("Hello world"), vec!["Hello", " world"]);
        assert_eq!(pre_tokenize("it's 2024!"), vec!["it", "'s", " ", "2", "0", "2", "4", "!"]);
        assert_eq!(pre_tokenize("a  b"), vec!["a", " ", " b"]);
        assert_eq!(pre_tokenize("x\n\n  y"), vec!["x", "\n\n", " ", " y"]);
        assert_eq!(pre_tokenize("end   "), vec!["end", "   "]);
        assert_eq!(pre_tokenize("(ok) [id]"), vec!["(ok", ")", " [", "id", "]"]);
        assert_eq!(pre_tokenize("café au lait"), vec!["café", " au", " lait"]);
    }
}
