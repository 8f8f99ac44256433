//! Dates and times: `formatdate` and `timeadd` (go-cty
//! `cty/function/stdlib/datetime.go` and `datetime_rfc3339.go`), `timecmp`, `timestamp`
//! and `plantimestamp` (Terraform `internal/lang/funcs/datetime.go`).
//!
//! Timestamps are RFC 3339 (`2006-01-02T15:04:05Z`, an optional fraction of a second, a
//! `Z` or `±hh:mm` offset), read strictly as cty reads them and written as Go's
//! `time.RFC3339` layout writes them (no fraction). The calendar arithmetic is here
//! (days from the civil date and back) rather than in a dependency.

use std::time::{SystemTime, UNIX_EPOCH};

use super::{string_arg, Ctx};
use crate::eval::value::Value;

/// An instant with the UTC offset it was written with.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Time {
    /// Seconds since 1970-01-01T00:00:00Z.
    secs: i64,
    nanos: u32,
    /// The offset east of UTC, in seconds.
    offset: i32,
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date of a day number ([`days_from_civil`]'s inverse).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The days of `month` (1–12) of `year`, in the proleptic Gregorian calendar.
pub(super) fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The local calendar fields of a time.
struct Fields {
    year: i64,
    month: u32,
    day: u32,
    hour: u32,
    minute: u32,
    second: u32,
    /// 0 for Sunday.
    weekday: u32,
}

impl Time {
    fn fields(self) -> Fields {
        let local = self.secs + i64::from(self.offset);
        let days = local.div_euclid(86_400);
        let rest = local.rem_euclid(86_400) as u32;
        let (year, month, day) = civil_from_days(days);
        Fields {
            year,
            month,
            day,
            hour: rest / 3600,
            minute: rest / 60 % 60,
            second: rest % 60,
            weekday: (days + 4).rem_euclid(7) as u32,
        }
    }

    /// The offset as `+hh:mm` (or with `colon` false, `+hhmm`).
    fn offset_text(self, colon: bool) -> String {
        let sign = if self.offset < 0 { '-' } else { '+' };
        let abs = self.offset.unsigned_abs();
        let (h, m) = (abs / 3600, abs / 60 % 60);
        if colon {
            format!("{sign}{h:02}:{m:02}")
        } else {
            format!("{sign}{h:02}{m:02}")
        }
    }

    /// Go's `time.RFC3339` layout.
    fn rfc3339(self) -> String {
        let f = self.fields();
        let zone = if self.offset == 0 {
            "Z".to_string()
        } else {
            self.offset_text(true)
        };
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}{zone}",
            f.year, f.month, f.day, f.hour, f.minute, f.second
        )
    }

    fn now() -> Time {
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        Time {
            secs: i64::try_from(since.as_secs()).unwrap_or(i64::MAX),
            nanos: since.subsec_nanos(),
            offset: 0,
        }
    }
}

/// A strict RFC 3339 timestamp, or the reason it is not one (cty's wording).
fn parse_timestamp(text: &str) -> Result<Time, String> {
    let refuse = |why: String| format!("not a valid RFC3339 timestamp: {why}");
    let b = text.as_bytes();
    // Each numeric field: its position, width, name and range.
    let field =
        |start: usize, width: usize, what: &str, min: u32, max: u32| -> Result<u32, String> {
            let Some(digits) = text.get(start..start + width) else {
                return Err(refuse(format!("end of string before {what}")));
            };
            if !digits.bytes().all(|c| c.is_ascii_digit()) {
                return Err(refuse(format!("cannot use {digits:?} as {what}")));
            }
            let n: u32 = digits.parse().unwrap_or(0);
            if n < min || n > max {
                return Err(refuse(format!("{what} out of range")));
            }
            Ok(n)
        };
    let separator = |at: usize, want: u8| -> Result<(), String> {
        match b.get(at) {
            Some(c) if *c == want => Ok(()),
            Some(_) if want == b'T' => Err(refuse("missing required time introducer 'T'".into())),
            Some(_) => Err(refuse(format!(
                "found {:?} where {:?} is expected",
                text.get(at..at + 1).unwrap_or("?"),
                char::from(want)
            ))),
            None => Err(refuse(format!(
                "end of string where {:?} is expected",
                char::from(want).to_string()
            ))),
        }
    };
    let year = i64::from(field(0, 4, "year", 0, 9999)?);
    separator(4, b'-')?;
    let month = field(5, 2, "month", 1, 12)?;
    separator(7, b'-')?;
    let day = field(8, 2, "day of month", 1, 31)?;
    if day > days_in_month(year, month) {
        return Err(refuse("day of month out of range".into()));
    }
    separator(10, b'T')?;
    if b.get(12) == Some(&b':') {
        return Err(refuse("hour must have exactly two digits".into()));
    }
    let hour = field(11, 2, "hour", 0, 23)?;
    separator(13, b':')?;
    let minute = field(14, 2, "minute", 0, 59)?;
    separator(16, b':')?;
    let second = field(17, 2, "second", 0, 59)?;
    let mut rest = &text[19..];
    let mut nanos = 0u32;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(refuse("cannot use \".\" as UTC offset".into()));
        }
        let kept = &fraction[..digits.min(9)];
        nanos = kept.parse::<u32>().unwrap_or(0) * 10u32.pow(9 - kept.len() as u32);
        rest = &fraction[digits..];
    } else if rest.starts_with(',') {
        return Err(refuse("sub-second separator must be a period".into()));
    }
    let offset = match rest {
        "Z" => 0,
        "" => return Err(refuse("end of string before UTC offset".into())),
        zone if zone.len() == 6
            && (zone.starts_with('+') || zone.starts_with('-'))
            && zone.as_bytes()[3] == b':' =>
        {
            let hours: u32 = zone[1..3]
                .parse()
                .map_err(|_| refuse(format!("cannot use {zone:?} as UTC offset")))?;
            let minutes: u32 = zone[4..6]
                .parse()
                .map_err(|_| refuse(format!("cannot use {zone:?} as UTC offset")))?;
            if hours >= 24 {
                return Err(refuse("timezone hour out of range".into()));
            }
            if minutes >= 60 {
                return Err(refuse("timezone minute out of range".into()));
            }
            let secs = (hours * 3600 + minutes * 60) as i32;
            if zone.starts_with('-') {
                -secs
            } else {
                secs
            }
        }
        zone => return Err(refuse(format!("cannot use {zone:?} as UTC offset"))),
    };
    let local =
        days_from_civil(year, month, day) * 86_400 + i64::from(hour * 3600 + minute * 60 + second);
    Ok(Time {
        secs: local - i64::from(offset),
        nanos,
        offset,
    })
}

/// A Go duration (`1h30m`, `-1.5s`, `300ms`) in nanoseconds, as `time.ParseDuration`
/// reads it.
fn parse_duration(text: &str) -> Result<i128, String> {
    let invalid = || format!("time: invalid duration {text:?}");
    let (negative, mut rest) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    let mut total: i128 = 0;
    while !rest.is_empty() {
        let whole_len = rest.bytes().take_while(u8::is_ascii_digit).count();
        let whole = &rest[..whole_len];
        rest = &rest[whole_len..];
        let mut fraction = "";
        if let Some(after) = rest.strip_prefix('.') {
            let len = after.bytes().take_while(u8::is_ascii_digit).count();
            fraction = &after[..len];
            rest = &after[len..];
        }
        if whole.is_empty() && fraction.is_empty() {
            return Err(invalid());
        }
        let unit_len = rest
            .char_indices()
            .find(|(_, c)| *c == '.' || c.is_ascii_digit())
            .map_or(rest.len(), |(i, _)| i);
        let unit = &rest[..unit_len];
        rest = &rest[unit_len..];
        let scale: i128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            "" => return Err(format!("time: missing unit in duration {text:?}")),
            other => return Err(format!("time: unknown unit {other:?} in duration {text:?}")),
        };
        if whole.len() > 30 {
            return Err(invalid());
        }
        let mut value: i128 = whole.parse::<i128>().unwrap_or(0) * scale;
        let mut place = scale;
        for digit in fraction.bytes().take(30) {
            place /= 10;
            value += i128::from(digit - b'0') * place;
        }
        total += value;
        if total > i128::from(i64::MAX) {
            return Err(invalid());
        }
    }
    Ok(if negative { -total } else { total })
}

/// `timestamp()`: the current time in UTC.
pub(super) fn timestamp(_: &Ctx<'_>, _: Vec<Value>) -> Result<Value, String> {
    Ok(Value::String(Time::now().rfc3339()))
}

/// `plantimestamp()`: the time the plan was made; outside a plan, now.
pub(super) fn plantimestamp(_: &Ctx<'_>, _: Vec<Value>) -> Result<Value, String> {
    Ok(Value::String(Time::now().rfc3339()))
}

/// `timeadd(timestamp, duration)`: the timestamp moved by the duration, in its own
/// offset.
pub(super) fn timeadd(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let time = parse_timestamp(&string_arg(&args, 0)?)?;
    let duration = parse_duration(&string_arg(&args, 1)?)?;
    let total = i128::from(time.nanos) + duration.rem_euclid(1_000_000_000);
    let secs = i128::from(time.secs) + duration.div_euclid(1_000_000_000) + total / 1_000_000_000;
    let moved = Time {
        secs: i64::try_from(secs).map_err(|_| "the resulting time is out of range".to_string())?,
        nanos: (total % 1_000_000_000) as u32,
        offset: time.offset,
    };
    Ok(Value::String(moved.rfc3339()))
}

/// `timecmp(a, b)`: -1, 0 or 1 as `a` is before, at or after `b`.
pub(super) fn timecmp(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let a = parse_timestamp(&string_arg(&args, 0)?)?;
    let b = parse_timestamp(&string_arg(&args, 1)?)?;
    let order = (a.secs, a.nanos).cmp(&(b.secs, b.nanos));
    Ok(Value::Number(order as i8 as f64))
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// `formatdate(spec, timestamp)`: the timestamp written by `spec`, whose letters are
/// verbs in runs (`YYYY`, `MM`, `DD`, `EEE`, `hh`, `HH`, `mm`, `ss`, `aa`, `ZZZ`, …),
/// whose `'quoted'` text is literal (`''` is a quote) and whose other characters are
/// copied.
pub(super) fn formatdate(_: &Ctx<'_>, args: Vec<Value>) -> Result<Value, String> {
    let spec = string_arg(&args, 0)?;
    let time = parse_timestamp(&string_arg(&args, 1)?)?;
    let f = time.fields();
    let chars: Vec<char> = spec.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            if chars.get(i + 1) == Some(&'\'') {
                out.push('\'');
                i += 2;
                continue;
            }
            let mut j = i + 1;
            let mut closed = false;
            while j < chars.len() {
                if chars[j] == '\'' {
                    if chars.get(j + 1) == Some(&'\'') {
                        out.push('\'');
                        j += 2;
                        continue;
                    }
                    closed = true;
                    break;
                }
                out.push(chars[j]);
                j += 1;
            }
            if !closed {
                return Err("unterminated literal '".into());
            }
            i = j + 1;
            continue;
        }
        if !c.is_ascii_alphabetic() {
            out.push(c);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|x| **x == c).count();
        let token: String = chars[i..i + run].iter().collect();
        i += run;
        let bad = |what: &str| format!("invalid date format verb {token:?}: {what}");
        match (c, run) {
            ('Y', 2) => out.push_str(&format!("{:02}", f.year.rem_euclid(100))),
            ('Y', 4) => out.push_str(&format!("{:04}", f.year)),
            ('Y', _) => return Err(bad("year must either be \"YY\" or \"YYYY\"")),
            ('M', 1) => out.push_str(&f.month.to_string()),
            ('M', 2) => out.push_str(&format!("{:02}", f.month)),
            ('M', 3) => out.push_str(&MONTHS[f.month as usize - 1][..3]),
            ('M', 4) => out.push_str(MONTHS[f.month as usize - 1]),
            ('M', _) => return Err(bad("month must be \"M\", \"MM\", \"MMM\", or \"MMMM\"")),
            ('D', 1) => out.push_str(&f.day.to_string()),
            ('D', 2) => out.push_str(&format!("{:02}", f.day)),
            ('D', _) => return Err(bad("day of month must either be \"D\" or \"DD\"")),
            ('E', 3) => out.push_str(&WEEKDAYS[f.weekday as usize][..3]),
            ('E', 4) => out.push_str(WEEKDAYS[f.weekday as usize]),
            ('E', _) => return Err(bad("day of week must either be \"EEE\" or \"EEEE\"")),
            ('h', 1) => out.push_str(&f.hour.to_string()),
            ('h', 2) => out.push_str(&format!("{:02}", f.hour)),
            ('h', _) => return Err(bad("24-hour must either be \"h\" or \"hh\"")),
            ('H', n @ (1 | 2)) => {
                let h = match f.hour % 12 {
                    0 => 12,
                    h => h,
                };
                out.push_str(&if n == 1 {
                    h.to_string()
                } else {
                    format!("{h:02}")
                });
            }
            ('H', _) => return Err(bad("12-hour must either be \"H\" or \"HH\"")),
            ('A' | 'a', 2) => {
                let text = if f.hour < 12 { "AM" } else { "PM" };
                out.push_str(&if c == 'a' {
                    text.to_lowercase()
                } else {
                    text.to_string()
                });
            }
            ('A' | 'a', _) => return Err(bad(&format!("must be \"{c}{c}\""))),
            ('m', 1) => out.push_str(&f.minute.to_string()),
            ('m', 2) => out.push_str(&format!("{:02}", f.minute)),
            ('m', _) => return Err(bad("minute must either be \"m\" or \"mm\"")),
            ('s', 1) => out.push_str(&f.second.to_string()),
            ('s', 2) => out.push_str(&format!("{:02}", f.second)),
            ('s', _) => return Err(bad("second must either be \"s\" or \"ss\"")),
            ('Z', 1) if time.offset == 0 => out.push('Z'),
            ('Z', 1) => out.push_str(&time.offset_text(true)),
            ('Z', 3) if time.offset == 0 => out.push_str("UTC"),
            ('Z', 3 | 4) => out.push_str(&time.offset_text(false)),
            ('Z', 5) => out.push_str(&time.offset_text(true)),
            ('Z', _) => return Err(bad("timezone must be Z, ZZZZ, or ZZZZZ")),
            _ => return Err(format!("invalid date format verb {token:?}")),
        }
    }
    Ok(Value::String(out))
}

#[cfg(test)]
mod tests {
    use crate::eval::functions::tests::{b, check, n, s, Case};

    /// Cases from go-cty `cty/function/stdlib/datetime_test.go` and Terraform
    /// `internal/lang/funcs/datetime_test.go`.
    #[test]
    fn datetime_functions() {
        let cases: &[Case] = &[
            (
                "formatdate(\"DD MMM YYYY hh:mm ZZZ\", \"2018-01-02T23:12:01Z\")",
                Ok(s("02 Jan 2018 23:12 UTC")),
            ),
            (
                "formatdate(\"EEEE, DD-MMM-YY hh:mm:ss ZZZ\", \"2018-01-02T23:12:01Z\")",
                Ok(s("Tuesday, 02-Jan-18 23:12:01 UTC")),
            ),
            (
                "formatdate(\"EEE, DD MMM YYYY hh:mm:ss ZZZ\", \"2018-01-02T23:12:01-08:00\")",
                Ok(s("Tue, 02 Jan 2018 23:12:01 -0800")),
            ),
            (
                "formatdate(\"MMM DD, YYYY\", \"2018-01-02T23:12:01Z\")",
                Ok(s("Jan 02, 2018")),
            ),
            (
                "formatdate(\"HH:mmaa\", \"2018-01-02T23:12:01Z\")",
                Ok(s("11:12pm")),
            ),
            (
                "formatdate(\"H:mmAA\", \"2018-01-02T00:12:01Z\")",
                Ok(s("12:12AM")),
            ),
            (
                "formatdate(\"h:m:s\", \"2018-01-02T03:04:05Z\")",
                Ok(s("3:4:5")),
            ),
            (
                "formatdate(\"M/D/YYYY\", \"2018-01-02T23:12:01Z\")",
                Ok(s("1/2/2018")),
            ),
            (
                "formatdate(\"MMMM\", \"2018-09-02T23:12:01Z\")",
                Ok(s("September")),
            ),
            (
                "formatdate(\"YYYY-MM-DD'T'hh:mm:ssZ\", \"2018-01-02T23:12:01Z\")",
                Ok(s("2018-01-02T23:12:01Z")),
            ),
            (
                "formatdate(\"YYYY-MM-DD'T'hh:mm:ssZ\", \"2018-01-02T23:12:01+05:30\")",
                Ok(s("2018-01-02T23:12:01+05:30")),
            ),
            (
                "formatdate(\"ZZZZ ZZZZZ\", \"2018-01-02T23:12:01+05:30\")",
                Ok(s("+0530 +05:30")),
            ),
            (
                "formatdate(\"'quoted' ''\", \"2018-01-02T23:12:01Z\")",
                Ok(s("quoted '")),
            ),
            (
                "formatdate(\"'it''s' YYYY\", \"2018-01-02T23:12:01Z\")",
                Ok(s("it's 2018")),
            ),
            (
                "formatdate(\"EEE\", \"2000-02-29T00:00:00Z\")",
                Ok(s("Tue")),
            ),
            (
                "formatdate(\"EEEE\", \"1969-12-31T23:59:59Z\")",
                Ok(s("Wednesday")),
            ),
            (
                "formatdate(\"YYY\", \"2018-01-02T23:12:01Z\")",
                Err("invalid date format verb \"YYY\": year must either be \"YY\" or \"YYYY\""),
            ),
            (
                "formatdate(\"DDD\", \"2018-01-02T23:12:01Z\")",
                Err("day of month must either be \"D\" or \"DD\""),
            ),
            (
                "formatdate(\"q\", \"2018-01-02T23:12:01Z\")",
                Err("invalid date format verb \"q\""),
            ),
            (
                "formatdate(\"'unterminated\", \"2018-01-02T23:12:01Z\")",
                Err("unterminated literal '"),
            ),
            (
                "formatdate(\"YYYY\", \"2018-01-02\")",
                Err("not a valid RFC3339 timestamp: end of string where \"T\" is expected"),
            ),
            (
                "formatdate(\"YYYY\", \"2018-01-02T23:12:01\")",
                Err("not a valid RFC3339 timestamp: end of string before UTC offset"),
            ),
            (
                "formatdate(\"YYYY\", \"2018-01-02 23:12:01Z\")",
                Err("missing required time introducer 'T'"),
            ),
            (
                "formatdate(\"YYYY\", \"2018-01-02T1:12:01Z\")",
                Err("hour must have exactly two digits"),
            ),
            (
                "formatdate(\"YYYY\", \"2018-13-02T23:12:01Z\")",
                Err("month out of range"),
            ),
            (
                "formatdate(\"YYYY\", \"2019-02-29T23:12:01Z\")",
                Err("day of month out of range"),
            ),
            (
                "formatdate(\"YYYY\", \"2018-01-02T23:12:01,5Z\")",
                Err("sub-second separator must be a period"),
            ),
            (
                "formatdate(\"YYYY\", \"2018-01-02T23:12:01+25:00\")",
                Err("timezone hour out of range"),
            ),
            (
                "formatdate(\"YYYY\", \"x\")",
                Err("not a valid RFC3339 timestamp"),
            ),
            (
                "timeadd(\"2017-11-22T00:00:00Z\", \"1s\")",
                Ok(s("2017-11-22T00:00:01Z")),
            ),
            (
                "timeadd(\"2017-11-22T00:00:00Z\", \"10m1s\")",
                Ok(s("2017-11-22T00:10:01Z")),
            ),
            (
                "timeadd(\"2017-11-22T00:00:00Z\", \"-1h\")",
                Ok(s("2017-11-21T23:00:00Z")),
            ),
            (
                "timeadd(\"2017-11-22T00:00:00Z\", \"1.5h\")",
                Ok(s("2017-11-22T01:30:00Z")),
            ),
            (
                "timeadd(\"2017-11-22T00:00:00.5Z\", \"500ms\")",
                Ok(s("2017-11-22T00:00:01Z")),
            ),
            (
                "timeadd(\"2017-11-22T00:00:00+01:00\", \"24h\")",
                Ok(s("2017-11-23T00:00:00+01:00")),
            ),
            (
                "timeadd(\"2017-12-31T23:00:00Z\", \"1h\")",
                Ok(s("2018-01-01T00:00:00Z")),
            ),
            (
                "timeadd(\"2020-02-28T12:00:00Z\", \"24h\")",
                Ok(s("2020-02-29T12:00:00Z")),
            ),
            (
                "timeadd(\"2017-11-22T00:00:00Z\", \"0\")",
                Ok(s("2017-11-22T00:00:00Z")),
            ),
            (
                "timeadd(\"2017-11-22T00:00:00Z\", \"1\")",
                Err("time: missing unit in duration \"1\""),
            ),
            (
                "timeadd(\"2017-11-22T00:00:00Z\", \"1d\")",
                Err("time: unknown unit \"d\" in duration \"1d\""),
            ),
            (
                "timeadd(\"2017-11-22T00:00:00Z\", \"\")",
                Err("time: invalid duration \"\""),
            ),
            (
                "timeadd(\"2017-11-22T00:00:00Z\", \"9999999999h\")",
                Err("time: invalid duration"),
            ),
            (
                "timeadd(\"2017-11-22 00:00:00Z\", \"1h\")",
                Err("not a valid RFC3339 timestamp"),
            ),
            (
                "timecmp(\"2017-11-22T00:00:00Z\", \"2017-11-22T00:00:00Z\")",
                Ok(n(0.0)),
            ),
            (
                "timecmp(\"2017-11-22T00:00:00Z\", \"2017-11-22T01:00:00Z\")",
                Ok(n(-1.0)),
            ),
            (
                "timecmp(\"2017-11-22T01:00:00Z\", \"2017-11-22T00:00:00Z\")",
                Ok(n(1.0)),
            ),
            (
                "timecmp(\"2017-11-22T01:00:00+01:00\", \"2017-11-22T00:00:00Z\")",
                Ok(n(0.0)),
            ),
            (
                "timecmp(\"2017-11-22T00:00:00.1Z\", \"2017-11-22T00:00:00Z\")",
                Ok(n(1.0)),
            ),
            (
                "timecmp(\"x\", \"2017-11-22T00:00:00Z\")",
                Err("not a valid RFC3339 timestamp"),
            ),
            ("length(timestamp())", Ok(n(20.0))),
            ("timecmp(timestamp(), \"2020-01-01T00:00:00Z\")", Ok(n(1.0))),
            ("endswith(plantimestamp(), \"Z\")", Ok(b(true))),
        ];
        check(cases);
    }

    #[test]
    fn the_calendar_round_trips() {
        for days in [-800_000, -1, 0, 1, 59, 365, 11_016, 2_932_896] {
            let (y, m, d) = super::civil_from_days(days);
            assert_eq!(super::days_from_civil(y, m, d), days, "{y}-{m}-{d}");
        }
    }
}
