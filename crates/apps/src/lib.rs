//! The simulated phone's contents: mocked apps, the device shell, worlds and task families
//! with their verifiers.
//!
//! Invariant: everything here is pure and deterministic. Apps are functions of a serde state;
//! they know nothing of pixels, clocks, threads or HTTP. A verifier reads states and the
//! episode log, never pixels.

pub mod apps;
pub mod shell;
pub mod state;
pub mod tasks;
pub mod time;
pub mod world;

pub use state::DeviceState;
pub use tasks::{catalog, family, suite, EpisodeLog, Family, SUITES};
pub use world::World;

/// Lowercase, trimmed, inner whitespace collapsed, trailing punctuation dropped: how names
/// and short texts are compared.
pub fn normalize(s: &str) -> String {
    let words: Vec<&str> = s.split_whitespace().collect();
    words.join(" ").to_lowercase().trim_end_matches(['.', '!', '?', ',', ';']).trim_matches(['"', '\'']).to_string()
}

/// The digits of a phone number.
pub fn digits(s: &str) -> String {
    s.chars().filter(char::is_ascii_digit).collect()
}

/// Whether text looks like a phone number: digits with spaces, dashes, dots, parentheses
/// and a leading plus, 7 to 15 digits.
pub fn is_phone(s: &str) -> bool {
    let s = s.trim();
    let ok_chars = s.chars().enumerate().all(|(i, c)| c.is_ascii_digit() || " -.()".contains(c) || (c == '+' && i == 0));
    ok_chars && (7..=15).contains(&digits(s).len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_and_checks_phones() {
        assert_eq!(normalize("  See you   at 5! "), "see you at 5");
        assert_eq!(digits("+1 555 123 4567"), "15551234567");
        assert!(is_phone("+1 (555) 123-4567"));
        assert!(!is_phone("555"));
        assert!(!is_phone("call me"));
    }
}
