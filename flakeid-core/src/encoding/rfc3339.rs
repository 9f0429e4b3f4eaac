//! RFC 3339 date-times (UTC, milliseconds): how decoded IDs print their
//! time, and how an epoch is read from the environment.

use core::fmt::{self, Display};
use std::time::SystemTime;

/// `t` as an RFC 3339 UTC time with milliseconds, `YYYY-MM-DDTHH:MM:SS.mmmZ`,
/// as [`Decoded`](crate::Decoded)'s `Display` writes it, or with
/// nanoseconds (`.nnnnnnnnnZ`) for a time between two milliseconds. (Times
/// before 1970 cannot come from a layout; they are written in `SystemTime`'s
/// `Debug` form.)
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// use flakeid_core::encoding::format_rfc3339;
/// let t = UNIX_EPOCH + Duration::from_millis(1_462_015_105_796);
/// assert_eq!(format_rfc3339(t), "2016-04-30T11:18:25.796Z");
/// assert_eq!(format_rfc3339(t + Duration::from_nanos(500)), "2016-04-30T11:18:25.796000500Z");
/// ```
pub fn format_rfc3339(t: SystemTime) -> String {
    struct Rfc3339(SystemTime);
    impl Display for Rfc3339 {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write_rfc3339(f, self.0)
        }
    }
    Rfc3339(t).to_string()
}

/// Writes `t` as `YYYY-MM-DDTHH:MM:SS.mmmZ`, or `.nnnnnnnnnZ` between two
/// milliseconds (see [`format_rfc3339`]).
pub(crate) fn write_rfc3339(f: &mut fmt::Formatter<'_>, t: SystemTime) -> fmt::Result {
    let Ok(d) = t.duration_since(SystemTime::UNIX_EPOCH) else {
        return write!(f, "{t:?}");
    };
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, day) = civil_from_days(days);
    write!(
        f,
        "{y:04}-{m:02}-{day:02}T{:02}:{:02}:{:02}.",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
    )?;
    match d.subsec_nanos() {
        nanos if nanos % 1_000_000 == 0 => write!(f, "{:03}Z", nanos / 1_000_000),
        nanos => write!(f, "{nanos:09}Z"),
    }
}

/// Parses an RFC 3339 date-time into Unix milliseconds; `None` for anything else.
pub(crate) fn parse_rfc3339(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let num = |range: core::ops::Range<usize>| -> Option<i64> {
        let part = b.get(range)?;
        if part.is_empty() || !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        core::str::from_utf8(part).ok()?.parse().ok()
    };
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return None;
    }
    if b[13] != b':' || b[16] != b':' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    let mut i = 19;
    let mut millis = 0i64;
    if b[i] == b'.' {
        let start = i + 1;
        i = start;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let digits = &b[start..i];
        if digits.is_empty() {
            return None;
        }
        // Milliseconds are the resolution; finer digits are truncated.
        for k in 0..3 {
            millis = millis * 10 + digits.get(k).map_or(0, |d| i64::from(d - b'0'));
        }
    }
    let offset_minutes = match b.get(i..)? {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let digits = [*h1, *h2, *m1, *m2];
            if !digits.iter().all(u8::is_ascii_digit) {
                return None;
            }
            let h = i64::from(h1 - b'0') * 10 + i64::from(h2 - b'0');
            let m = i64::from(m1 - b'0') * 10 + i64::from(m2 - b'0');
            if h > 23 || m > 59 {
                return None;
            }
            let total = h * 60 + m;
            if *sign == b'-' { -total } else { total }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3_600 + minute * 60 + second - offset_minutes * 60;
    let ms = secs.checked_mul(1_000)?.checked_add(millis)?;
    u64::try_from(ms).ok()
}

/// Proleptic Gregorian date of a day count since 1970-01-01 (Howard
/// Hinnant's `civil_from_days`, for non-negative counts).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z % 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
#[path = "../../tests/unit/encoding_rfc3339.rs"]
mod tests;
