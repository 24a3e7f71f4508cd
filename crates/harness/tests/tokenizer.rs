//! Our BPE gives exactly the ids of Hugging Face's `tokenizers` on Qwen's tokenizer.json.
//! The expected ids (fixtures/qwen_tokens.json) were produced by `tokenizers` 0.23.3 in
//! Python. The tokenizer file is fetched by `scripts/setup.sh`.

#![allow(clippy::unwrap_used)]

use guigym_harness::tokenizer::{locate, Tokenizer};

#[test]
fn matches_hugging_face_ids() {
    let path = locate(None).unwrap_or_else(|e| panic!("{e}"));
    let tok = Tokenizer::load(&path).unwrap();
    let cases: Vec<(String, Vec<u32>)> = serde_json::from_str(include_str!("fixtures/qwen_tokens.json")).unwrap();
    assert!(cases.len() >= 10);
    for (text, ids) in cases {
        assert_eq!(tok.encode(&text), ids, "{text:?}");
    }
}
