//! What the rules say an input reads as, written apart from the code under
//! test (no shared helper, other arithmetic): the targets compare the code's
//! answers with these.

use core::fmt::Debug;

use chrono::{NaiveDate, NaiveTime};
use flakeid_core::{FlakeId, IdError};

/// A canonical decimal string (ASCII digits, no sign, no leading zero but
/// `"0"` itself): `None` if `s` is not one, `Some(None)` for one above
/// `u64::MAX`.
pub(crate) fn canonical_decimal(s: &str) -> Option<Option<u64>> {
    let digits = s.as_bytes();
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    if digits.len() > 1 && digits[0] == b'0' {
        return None;
    }
    // u64::MAX has 20 digits; a longer canonical string is larger.
    if digits.len() > 20 {
        return Some(None);
    }
    let value = digits
        .iter()
        .fold(0u128, |acc, d| acc * 10 + u128::from(d - b'0'));
    Some(u64::try_from(value).ok())
}

/// `text` read as digits of `alphabet` (each character's index is its
/// value; `alias` maps a character to another before the lookup), skipping
/// `skip`: `None` if a character is not a digit, else the digit count and
/// the value (`None` above `u64::MAX`).
pub(crate) fn digits_value(
    text: &str,
    alphabet: &str,
    alias: fn(char) -> char,
    skip: Option<char>,
) -> Option<(usize, Option<u64>)> {
    let mut count = 0usize;
    let mut value: Option<u128> = Some(0);
    for c in text.chars() {
        if Some(c) == skip {
            continue;
        }
        let digit = alphabet.find(alias(c))?;
        // `find` on a char boundary of an ASCII alphabet: the index is the value.
        count += 1;
        value = value
            .and_then(|v| v.checked_mul(alphabet.len() as u128))
            .and_then(|v| v.checked_add(digit as u128));
    }
    Some((count, value.and_then(|v| u64::try_from(v).ok())))
}

/// Crockford's base32 alphabet and its aliases (case, `I`/`L` for `1`, `O` for `0`).
pub(crate) const CROCKFORD: &str = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
pub(crate) const BASE62: &str = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

pub(crate) fn crockford_alias(c: char) -> char {
    match c.to_ascii_uppercase() {
        'I' | 'L' => '1',
        'O' => '0',
        // `U` stays `U`, which the alphabet lacks.
        other => other,
    }
}

pub(crate) fn no_alias(c: char) -> char {
    c
}

/// What converting a value to an ID type must give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expect {
    Id(i64),
    Zero,
    Negative,
    TooLarge,
    Field,
    Text,
}

impl Expect {
    /// The kind of `result`, to compare with what was expected.
    pub(crate) fn of<I: FlakeId>(result: &Result<I, IdError>) -> Expect {
        match result {
            Ok(id) => Expect::Id(id.get()),
            Err(IdError::Zero { .. }) => Expect::Zero,
            Err(IdError::Negative { .. }) => Expect::Negative,
            Err(IdError::TooLarge { .. }) => Expect::TooLarge,
            Err(IdError::Field { .. }) => Expect::Field,
            Err(IdError::Text { .. }) => Expect::Text,
            Err(other) => panic!("an IdError of an unknown kind: {other:?}"),
        }
    }

    /// What `I::from_u64(value)` must give: 1 up to the type's largest ID,
    /// and, at or above the type's cut-over, only what its scheme accepts.
    pub(crate) fn from_u64<I: FlakeId>(value: u64) -> Expect {
        let max = I::scheme().max_id().min(i64::MAX as u64);
        if value == 0 {
            Expect::Zero
        } else if value > max {
            Expect::TooLarge
        } else if I::CUT_OVER.is_none_or(|k| value >= k) && I::scheme().check(value).is_err() {
            Expect::Field
        } else {
            Expect::Id(value as i64)
        }
    }

    pub(crate) fn from_i64<I: FlakeId>(value: i64) -> Expect {
        if value < 0 {
            Expect::Negative
        } else {
            Expect::from_u64::<I>(value as u64)
        }
    }

    /// What `s.parse::<I>()` must give: canonical decimal text only.
    pub(crate) fn from_str<I: FlakeId>(s: &str) -> Expect {
        match canonical_decimal(s) {
            None => Expect::Text,
            // Above u64::MAX: the decoder refuses it as text.
            Some(None) => Expect::Text,
            Some(Some(v)) => Expect::from_u64::<I>(v),
        }
    }
}

/// Checks that `got` is what was expected, and that an accepted ID prints
/// back in its canonical forms and a refusal names the type.
pub(crate) fn assert_id<I: FlakeId>(got: &Result<I, IdError>, want: Expect, input: &dyn Debug) {
    assert_eq!(
        Expect::of(got),
        want,
        "{} from {input:?}: got {got:?}",
        I::NAME
    );
    match got {
        Ok(id) => assert_canonical(*id),
        Err(e) => {
            assert_eq!(type_name(e), I::NAME, "{input:?}");
            // The messages come from one generic formatter: checked for one
            // type, the fuzzer's time goes to the parsers.
            if I::NAME == FORMATTED {
                let message = e.to_string();
                assert!(
                    message.contains(I::NAME),
                    "the refusal of {input:?} does not name {}: {message}",
                    I::NAME
                );
            }
        }
    }
}

/// The ID type whose refusals' messages the checks format and read.
pub(crate) const FORMATTED: &str = "TwitterId";

/// The type an [`IdError`] names.
pub(crate) fn type_name(e: &IdError) -> &'static str {
    match e {
        IdError::Zero { type_name }
        | IdError::Negative { type_name, .. }
        | IdError::TooLarge { type_name, .. }
        | IdError::Field { type_name, .. }
        | IdError::Text { type_name, .. } => type_name,
        other => panic!("an IdError of an unknown kind: {other:?}"),
    }
}

/// An ID prints as decimal, base62 and Crockford text that reads back as
/// the same ID, and decodes without panicking.
pub(crate) fn assert_canonical<I: FlakeId>(id: I) {
    let decimal = id.to_string();
    assert_eq!(decimal, id.get().to_string());
    assert_eq!(decimal.parse::<I>(), Ok(id), "{decimal}");
    assert_eq!(I::from_base62(&id.to_base62()), Ok(id), "{decimal}");
    assert_eq!(I::from_crockford(&id.to_crockford()), Ok(id), "{decimal}");
    let decoded = id.decode();
    assert_eq!(decoded.id, id.get() as u64);
    assert!(decoded.to_string().starts_with(&decimal), "{decoded}");
}

/// Unix milliseconds of an RFC 3339 date-time as flakeid reads one
/// (`YYYY-MM-DD`, `T`, `t` or a space, `HH:MM:SS`, an optional fraction of
/// which milliseconds count, `Z`, `z` or `±HH:MM`; no leap second; not
/// before 1970), with chrono's calendar.
pub(crate) fn rfc3339_millis(s: &str) -> Option<u64> {
    fn number(part: &str, len: usize) -> Option<u32> {
        (part.len() == len && part.bytes().all(|b| b.is_ascii_digit())).then(|| {
            part.bytes()
                .fold(0u32, |acc, b| acc * 10 + u32::from(b - b'0'))
        })
    }
    let date = s.get(..10)?;
    let rest = s.get(10..)?.strip_prefix(['T', 't', ' '])?;
    let mut ymd = date.split('-');
    let (year, month, day) = (
        number(ymd.next()?, 4)?,
        number(ymd.next()?, 2)?,
        number(ymd.next()?, 2)?,
    );
    if ymd.next().is_some() {
        return None;
    }
    let time = rest.get(..8)?;
    let rest = rest.get(8..)?;
    let mut hms = time.split(':');
    let (hour, minute, second) = (
        number(hms.next()?, 2)?,
        number(hms.next()?, 2)?,
        number(hms.next()?, 2)?,
    );
    if hms.next().is_some() {
        return None;
    }
    let (fraction, zone) = match rest.strip_prefix('.') {
        Some(after) => {
            let n = after.bytes().take_while(u8::is_ascii_digit).count();
            if n == 0 {
                return None;
            }
            after.split_at(n)
        }
        None => ("", rest),
    };
    let millis: i64 = format!("{fraction:0<3}")[..3].parse().ok()?;
    let offset_minutes: i64 = match zone {
        "Z" | "z" => 0,
        _ => {
            let (sign, hm) = (zone.get(..1)?, zone.get(1..)?);
            let (h, m) = hm.split_once(':')?;
            let (h, m) = (number(h, 2)?, number(m, 2)?);
            if h > 23 || m > 59 {
                return None;
            }
            let total = i64::from(h * 60 + m);
            match sign {
                "+" => total,
                "-" => -total,
                _ => return None,
            }
        }
    };
    let date = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?;
    // NaiveTime takes no second 60 (leap seconds are written as nanoseconds).
    let time = NaiveTime::from_hms_opt(hour, minute, second)?;
    let utc = date.and_time(time).and_utc().timestamp_millis() + millis - offset_minutes * 60_000;
    u64::try_from(utc).ok()
}
