//! The simulated phone: the device state, the shell, 17 mocked apps, the worlds their data is
//! drawn from, and the interface through which benchmarks (the catalogue in `guigym_benchmark_phone`,
//! others) set up and judge tasks on it.
//!
//! Invariant: everything here is pure and deterministic. Apps are functions of a serde state;
//! they know nothing of pixels, clocks, threads or HTTP. A verifier reads states and the
//! episode log, never pixels.

pub mod apps;
pub mod benchmark;
pub mod install;
pub mod shell;
pub mod state;
pub mod time;
pub mod world;

pub use state::DeviceState;
pub use world::World;

/// Lowercase, trimmed, inner whitespace collapsed, trailing punctuation dropped: how names
/// and short texts are compared.
pub fn normalize(s: &str) -> String {
    let s = plain_punctuation(s);
    let words: Vec<&str> = s.split_whitespace().collect();
    words.join(" ").to_lowercase().trim_end_matches(['.', '!', '?', ',', ';']).trim_matches(['"', '\'']).to_string()
}

/// Typographic quotes and dashes as the plain ones (a phone keyboard types ’ for ').
pub fn plain_punctuation(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\u{2018}' | '\u{2019}' | '\u{201B}' => '\'',
            '\u{201C}' | '\u{201D}' => '"',
            '\u{2013}' | '\u{2014}' => '-',
            c => c,
        })
        .collect()
}

/// Whether two phone numbers are one: the same digits, or `short` lacking at most a
/// three-digit country code (`555 123 4567` for `+1 555 123 4567`).
pub fn same_phone(short: &str, full: &str) -> bool {
    let (a, p) = (digits(short), digits(full));
    a.len() >= 7 && (a == p || p.ends_with(&a) && p.len() - a.len() <= 3)
}

/// A phone number as a key: its digits, without a country code (the last ten digits of a
/// longer number), so every way of writing one number gives one key.
pub fn phone_key(s: &str) -> String {
    let d = digits(s);
    if d.len() > 10 {
        d[d.len() - 10..].to_string()
    } else {
        d
    }
}

/// Cents as money: `$12.50`, `-$3.00`.
pub fn money(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    format!("{sign}${}.{:02}", cents.abs() / 100, cents.abs() % 100)
}

/// Money typed by a person (`12.5`, `$12.50`, `12,50`, `USD 12`) in cents.
pub fn parse_money(s: &str) -> Option<i64> {
    let t: String = s.trim().trim_start_matches("USD").trim_end_matches("USD").trim().trim_start_matches('$').trim().replace(',', ".");
    let (whole, frac) = t.split_once('.').unwrap_or((&t, ""));
    if whole.is_empty() || !whole.chars().all(|c| c.is_ascii_digit()) || frac.len() > 2 || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let whole: i64 = whole.parse().ok()?;
    let frac: i64 = if frac.is_empty() { 0 } else { format!("{frac:0<2}").parse().ok()? };
    whole.checked_mul(100)?.checked_add(frac)
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
