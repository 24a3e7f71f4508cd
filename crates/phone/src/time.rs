//! Virtual calendar time: minutes since 1970-01-01 00:00 (local, no time zones), with the
//! civil-date arithmetic apps and verifiers need. Nothing here reads the host clock.

/// Minutes since the epoch.
pub type Minutes = i64;

pub const DAY: Minutes = 24 * 60;

const WEEKDAYS: [&str; 7] = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// Days since the epoch for a civil date (proleptic Gregorian).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// Civil date (year, month, day) for days since the epoch.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

pub fn at(y: i64, m: u32, d: u32, hour: u32, minute: u32) -> Minutes {
    days_from_civil(y, m, d) * DAY + hour as i64 * 60 + minute as i64
}

/// 0 = Monday.
pub fn weekday(t: Minutes) -> usize {
    ((t.div_euclid(DAY) + 3).rem_euclid(7)) as usize
}

pub fn weekday_name(t: Minutes) -> &'static str {
    WEEKDAYS[weekday(t)]
}

/// `2026-03-05`
pub fn date_iso(t: Minutes) -> String {
    let (y, m, d) = civil_from_days(t.div_euclid(DAY));
    format!("{y:04}-{m:02}-{d:02}")
}

/// `14:30`
pub fn time_hm(t: Minutes) -> String {
    let m = t.rem_euclid(DAY);
    format!("{:02}:{:02}", m / 60, m % 60)
}

/// `Thursday 5 Mar`
pub fn date_human(t: Minutes) -> String {
    let (_, m, d) = civil_from_days(t.div_euclid(DAY));
    format!("{} {} {}", weekday_name(t), d, MONTHS[m as usize - 1])
}

/// `Thu 5 Mar, 14:30`
pub fn short(t: Minutes) -> String {
    let (_, m, d) = civil_from_days(t.div_euclid(DAY));
    format!("{} {} {}, {}", &weekday_name(t)[..3], d, MONTHS[m as usize - 1], time_hm(t))
}

/// Parses `YYYY-MM-DD` into the minute at midnight.
pub fn parse_date(s: &str) -> Option<Minutes> {
    let mut parts = s.trim().split('-');
    let y: i64 = parts.next()?.parse().ok()?;
    let m: u32 = parts.next()?.parse().ok()?;
    let d: u32 = parts.next()?.parse().ok()?;
    // Years outside 1..=9999 are no dates a phone shows (and would overflow the day count).
    if parts.next().is_some() || !(1..=12).contains(&m) || d == 0 || d > 31 || !(1..=9999).contains(&y) {
        return None;
    }
    let t = days_from_civil(y, m, d);
    // Reject 2026-02-30 and the like: the round trip must give the same date.
    (civil_from_days(t) == (y, m, d)).then_some(t * DAY)
}

/// Finds every time of day written in free text (`14:30`, `2:30 pm`, `3pm`, `3 PM`) and
/// returns them as minutes after midnight.
pub fn times_in_text(text: &str) -> Vec<i64> {
    let lower = text.to_lowercase();
    let chars: Vec<char> = lower.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() || (i > 0 && (chars[i - 1].is_ascii_digit() || chars[i - 1] == ':')) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && chars[i].is_ascii_digit() {
            i += 1;
        }
        let hour: i64 = chars[start..i].iter().collect::<String>().parse().unwrap_or(99);
        let mut minute = 0;
        let mut has_minutes = false;
        if i + 2 < chars.len() + 1 && i < chars.len() && chars[i] == ':' {
            let ms = i + 1;
            let mut me = ms;
            while me < chars.len() && chars[me].is_ascii_digit() {
                me += 1;
            }
            if me - ms == 2 {
                minute = chars[ms..me].iter().collect::<String>().parse().unwrap_or(99);
                has_minutes = true;
                i = me;
            }
        }
        let rest: String = chars[i..].iter().collect::<String>();
        let rest = rest.trim_start();
        let meridiem = if rest.starts_with("am") || rest.starts_with("a.m") {
            Some(false)
        } else if rest.starts_with("pm") || rest.starts_with("p.m") {
            Some(true)
        } else {
            None
        };
        let hour = match meridiem {
            Some(pm) if (1..=12).contains(&hour) => (hour % 12) + if pm { 12 } else { 0 },
            Some(_) => 99,
            None if has_minutes => hour,
            None => 99, // a bare number is not a time
        };
        if hour < 24 && minute < 60 {
            out.push(hour * 60 + minute);
        }
    }
    out
}

/// Every calendar day written in text, as day numbers: ISO dates (`2026-05-04`) and month
/// names with a day (`May 4`, `4 May 2026`, `May 4th`). A missing year is taken from `near`.
pub fn dates_in_text(text: &str, near: Minutes) -> Vec<i64> {
    let (near_year, _, _) = civil_from_days(near.div_euclid(DAY));
    let words: Vec<String> =
        text.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()).map(|w| w.trim_matches('.').to_lowercase()).collect();
    let month_of =
        |w: &str| MONTHS.iter().position(|m| w.len() <= 9 && w.chars().all(char::is_alphabetic) && w.starts_with(&m.to_lowercase())).map(|i| i as u32 + 1);
    let day_of = |w: &str| {
        let n = w.trim_end_matches("st").trim_end_matches("nd").trim_end_matches("rd").trim_end_matches("th");
        n.parse::<u32>().ok().filter(|d| (1..=31).contains(d))
    };
    let year_of = |w: Option<&String>| w.and_then(|w| w.parse::<i64>().ok()).filter(|y| (1900..2200).contains(y));
    let mut out = Vec::new();
    for (k, w) in words.iter().enumerate() {
        if let Some(t) = parse_date(w) {
            out.push(t.div_euclid(DAY));
            continue;
        }
        let Some(m) = month_of(w) else { continue };
        // `May 4 [2026]` or `4 May [2026]`.
        let (d, year) = if let Some(d) = words.get(k + 1).and_then(|n| day_of(n)) {
            (d, year_of(words.get(k + 2)))
        } else if let Some(d) = k.checked_sub(1).and_then(|p| day_of(&words[p])) {
            (d, year_of(words.get(k + 1)))
        } else {
            continue;
        };
        let y = year.unwrap_or(near_year);
        let day = days_from_civil(y, m, d);
        if (1..=31).contains(&d) && civil_from_days(day) == (y, m, d) {
            out.push(day);
        }
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn dates_out_of_range_are_no_dates() {
        assert_eq!(parse_date("99999999999999-01-01"), None, "a 14-digit year must not overflow");
        assert_eq!(parse_date("-9223372036854775808-01-01"), None);
        assert_eq!(parse_date("2026-01-99999999999"), None);
        assert_eq!(parse_date("0-01-01"), None);
        assert!(parse_date("2026-05-04").is_some());
        assert!(parse_date("9999-12-31").is_some());
    }

    use super::*;

    #[test]
    fn civil_round_trip_and_weekdays() {
        for days in [-1000, 0, 19000, 20500, 22000] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        // 2026-11-29 is a Sunday.
        let t = at(2026, 11, 29, 9, 0);
        assert_eq!(weekday_name(t), "Sunday");
        assert_eq!(date_iso(t), "2026-11-29");
        assert_eq!(time_hm(t), "09:00");
        assert_eq!(short(t), "Sun 29 Nov, 09:00");
    }

    #[test]
    fn parses_dates_strictly() {
        assert_eq!(parse_date("2026-03-05"), Some(at(2026, 3, 5, 0, 0)));
        assert_eq!(parse_date("2026-02-30"), None);
        assert_eq!(parse_date("5 March"), None);
        assert_eq!(parse_date("2026-13-01"), None);
    }

    #[test]
    fn finds_times_in_many_spellings() {
        assert_eq!(times_in_text("The meeting is at 14:30."), vec![870]);
        assert_eq!(times_in_text("see you at 2:30 pm"), vec![870]);
        assert_eq!(times_in_text("3pm or 9 AM"), vec![900, 540]);
        assert_eq!(times_in_text("room 12, floor 3"), Vec::<i64>::new());
        assert_eq!(times_in_text("12am 12pm"), vec![0, 720]);
        assert_eq!(times_in_text("25:00 and 7:5"), Vec::<i64>::new());
    }
}
