//! Pure text transformations some faults apply to what the reference stores or answers: each is
//! what a library, a pattern or a column of a real stack does to a value, kept here so that the
//! route modules only decide where it applies. Nothing here names another module of the crate.

use time::OffsetDateTime;

/// Precomposed Latin-1 letters, by combining mark and uppercase base: the lowercase letter is the
/// uppercase one plus 0x20 (`ÿ` apart, which has no uppercase in Latin-1).
const COMPOSED: &[(char, char, char)] = &[
    ('\u{0300}', 'A', 'À'),
    ('\u{0300}', 'E', 'È'),
    ('\u{0300}', 'I', 'Ì'),
    ('\u{0300}', 'O', 'Ò'),
    ('\u{0300}', 'U', 'Ù'),
    ('\u{0301}', 'A', 'Á'),
    ('\u{0301}', 'E', 'É'),
    ('\u{0301}', 'I', 'Í'),
    ('\u{0301}', 'O', 'Ó'),
    ('\u{0301}', 'U', 'Ú'),
    ('\u{0301}', 'Y', 'Ý'),
    ('\u{0302}', 'A', 'Â'),
    ('\u{0302}', 'E', 'Ê'),
    ('\u{0302}', 'I', 'Î'),
    ('\u{0302}', 'O', 'Ô'),
    ('\u{0302}', 'U', 'Û'),
    ('\u{0303}', 'A', 'Ã'),
    ('\u{0303}', 'N', 'Ñ'),
    ('\u{0303}', 'O', 'Õ'),
    ('\u{0308}', 'A', 'Ä'),
    ('\u{0308}', 'E', 'Ë'),
    ('\u{0308}', 'I', 'Ï'),
    ('\u{0308}', 'O', 'Ö'),
    ('\u{0308}', 'U', 'Ü'),
    ('\u{030A}', 'A', 'Å'),
    ('\u{0327}', 'C', 'Ç'),
];

/// The precomposed letter of `base` followed by the combining `mark`, where Latin-1 has one.
fn compose(base: char, mark: char) -> Option<char> {
    if base == 'y' && mark == '\u{0308}' {
        return Some('ÿ');
    }
    let upper = base.to_ascii_uppercase();
    let (.., composed) = COMPOSED
        .iter()
        .find(|(m, b, _)| *m == mark && *b == upper)?;
    if base.is_ascii_lowercase() {
        char::from_u32(u32::from(*composed) + 0x20)
    } else {
        Some(*composed)
    }
}

/// Canonical composition (NFC) of the Latin letters Latin-1 precomposes: a letter followed by a
/// combining grave, acute, circumflex, tilde, diaeresis, ring or cedilla becomes one character.
pub(crate) fn nfc_latin(text: &str) -> String {
    let mut out: Vec<char> = Vec::with_capacity(text.len());
    for c in text.chars() {
        match out.last().and_then(|base| compose(*base, c)) {
            Some(composed) => {
                out.pop();
                out.push(composed);
            }
            None => out.push(c),
        }
    }
    out.into_iter().collect()
}

/// A UTF-8 text written over a latin1 connection into a UTF-8 column: each byte of its UTF-8
/// form read back as a character of its own (`é` becomes `Ã©`).
pub(crate) fn latin1_double_encoded(text: &str) -> String {
    text.bytes().map(char::from).collect()
}

/// JavaScript's `.replace(/0+Z$/, 'Z')` on an ISO timestamp: the zeros before the `Z` go, so a
/// whole second keeps a bare `.` (`10:00:00.000Z` becomes `10:00:00.Z`).
pub(crate) fn trailing_zeros_trimmed(timestamp: &str) -> Option<String> {
    let body = timestamp.strip_suffix('Z')?;
    Some(format!("{}Z", body.trim_end_matches('0')))
}

/// A `yyyy-MM-dd'T'HH:...` timestamp as the pattern `kk` (hours 1 to 24) writes it: hour 00 reads
/// 24 on the same date.
pub(crate) fn hour_one_to_24(timestamp: &str) -> Option<String> {
    let hour = timestamp.get(11..13)?;
    (timestamp.as_bytes().get(10) == Some(&b'T') && hour == "00")
        .then(|| format!("{}24{}", &timestamp[..11], &timestamp[13..]))
}

/// A UTC timestamp written with the ISO week-based year (`%G`) in place of the calendar year:
/// differs only in the days of a week that straddles the new year.
pub(crate) fn week_based_year(timestamp: &str, at: OffsetDateTime) -> String {
    let utc = at.to_offset(time::UtcOffset::UTC);
    let (week_year, _, _) = utc.date().to_iso_week_date();
    match timestamp.get(4..) {
        Some(rest) if week_year != utc.year() => format!("{week_year:04}{rest}"),
        _ => timestamp.to_string(),
    }
}

/// The digest in hex, as a helper that writes `hexdigest()` does.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Java's `OffsetDateTime.toString()` of a `...T10:00:00.000Z` timestamp: the fraction goes when
/// it is zero, and the seconds too when they are zero as well (`2026-01-10T09:00Z`).
pub(crate) fn java_offset_date_time(timestamp: &str) -> Option<String> {
    let body = timestamp.strip_suffix('Z')?;
    let body = body.strip_suffix(".000").unwrap_or(body);
    let body = match body.strip_suffix(":00") {
        Some(minutes) if minutes.len() == 16 => minutes,
        _ => body,
    };
    Some(format!("{body}Z"))
}

/// JavaScript's `Date.prototype.toUTCString()`, the HTTP-date format of RFC 7231
/// (`Sat, 10 Jan 2026 09:00:00 GMT`).
pub(crate) fn http_date(at: OffsetDateTime) -> String {
    let utc = at.to_offset(time::UtcOffset::UTC);
    let weekday = match utc.weekday() {
        time::Weekday::Monday => "Mon",
        time::Weekday::Tuesday => "Tue",
        time::Weekday::Wednesday => "Wed",
        time::Weekday::Thursday => "Thu",
        time::Weekday::Friday => "Fri",
        time::Weekday::Saturday => "Sat",
        time::Weekday::Sunday => "Sun",
    };
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS[usize::from(u8::from(utc.month())) - 1];
    format!(
        "{weekday}, {:02} {month} {:04} {:02}:{:02}:{:02} GMT",
        utc.day(),
        utc.year(),
        utc.hour(),
        utc.minute(),
        utc.second()
    )
}

/// Python's `str()` of the value `json.loads` would give: dicts and lists in Python's literal
/// syntax, strings in single quotes, `None`, `True` and `False`.
pub(crate) fn python_repr(value: &serde_json::Value) -> String {
    use serde_json::Value;
    match value {
        Value::Null => "None".to_string(),
        Value::Bool(true) => "True".to_string(),
        Value::Bool(false) => "False".to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => python_str(s),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(python_repr).collect();
            format!("[{}]", inner.join(", "))
        }
        Value::Object(map) => {
            let inner: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", python_str(k), python_repr(v)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
    }
}

/// A Python `repr` of a string: single quotes, unless the text holds one and no double quote.
fn python_str(text: &str) -> String {
    let quote = if text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::with_capacity(text.len() + 2);
    out.push(quote);
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn composes_the_latin_letters() {
        assert_eq!(nfc_latin("cafe\u{0301}-17"), "café-17");
        assert_eq!(nfc_latin("E\u{0301}lodie Nun\u{0303}ez"), "Élodie Nuñez");
        assert_eq!(nfc_latin("plain"), "plain");
        assert_eq!(nfc_latin("\u{0301}x"), "\u{0301}x");
    }

    #[test]
    fn stack_quirks_write_what_they_write() {
        assert_eq!(latin1_double_encoded("José"), "JosÃ©");
        assert_eq!(
            trailing_zeros_trimmed("2026-02-02T10:00:00.000Z").as_deref(),
            Some("2026-02-02T10:00:00.Z")
        );
        assert_eq!(
            trailing_zeros_trimmed("2026-02-02T10:00:00.500Z").as_deref(),
            Some("2026-02-02T10:00:00.5Z")
        );
        assert_eq!(
            hour_one_to_24("2026-01-06T00:25:00.000Z").as_deref(),
            Some("2026-01-06T24:25:00.000Z")
        );
        assert_eq!(hour_one_to_24("2026-01-06T10:25:00.000Z"), None);
        let at = datetime!(2030-12-31 09:00 UTC);
        assert_eq!(
            week_based_year("2030-12-31T09:00:00.000Z", at),
            "2031-12-31T09:00:00.000Z"
        );
        let at = datetime!(2027-01-01 09:00 UTC);
        assert_eq!(
            week_based_year("2027-01-01T09:00:00.000Z", at),
            "2026-01-01T09:00:00.000Z"
        );
        let at = datetime!(2026-03-04 09:00 UTC);
        assert_eq!(
            week_based_year("2026-03-04T09:00:00.000Z", at),
            "2026-03-04T09:00:00.000Z"
        );
        assert_eq!(hex(&[0x3f, 0x9a]), "3f9a");
    }

    #[test]
    fn other_stacks_write_what_they_write() {
        assert_eq!(
            java_offset_date_time("2026-01-10T09:00:00.000Z").as_deref(),
            Some("2026-01-10T09:00Z")
        );
        assert_eq!(
            java_offset_date_time("2026-01-10T09:00:15.000Z").as_deref(),
            Some("2026-01-10T09:00:15Z")
        );
        assert_eq!(
            java_offset_date_time("2026-01-10T09:00:00.120Z").as_deref(),
            Some("2026-01-10T09:00:00.120Z")
        );
        assert_eq!(
            http_date(datetime!(2026-01-10 09:00:05 UTC)),
            "Sat, 10 Jan 2026 09:00:05 GMT"
        );
        let value =
            serde_json::json!({"data": [{"id": "US1", "n": null, "ok": true, "q": "it's"}]});
        assert_eq!(
            python_repr(&value),
            "{'data': [{'id': 'US1', 'n': None, 'ok': True, 'q': \"it's\"}]}"
        );
    }
}
