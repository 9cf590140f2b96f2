//! Redaction of secrets (API keys, webhook signing secrets) in every text that leaves the suite.
//!
//! A target may echo a secret in any form, so the redactor matches secrets in a *decoded view*
//! of the text: JSON string escapes (`\u005f`, `\/`), percent-encoding (`%5F`) and HTML/XML
//! character references (`&#x2f;`, `&amp;`) are read as the characters they stand for, and the
//! matched span of the original text is replaced. Base64 forms of each secret are registered
//! beside it. A text that was cut (an excerpt's edge, or a byte that was not UTF-8 shown as
//! U+FFFD) may end in a prefix of a secret, or start with its suffix: 8 or more such characters
//! at an edge are redacted too.
//!
//! Excerpts are always taken redacted-first ([`Redactor::excerpt`]): redacting after the cut
//! would leave the part of a secret that straddles the cut.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, RwLock};

use base64::Engine;

/// The placeholder shown instead of the run's API key.
pub(crate) const API_KEY_PLACEHOLDER: &str = "<API_KEY>";
/// How the run's key without its last character (the near-miss wrong key) is shown.
pub(crate) const NEAR_MISS_PLACEHOLDER: &str = "<API_KEY without its last character>";
/// The placeholder shown instead of any other secret.
pub(crate) const SECRET_PLACEHOLDER: &str = "<REDACTED>";

/// Characters of a secret that, met at a cut edge, are redacted as a piece of it.
pub(crate) const EDGE_MIN: usize = 8;

/// A Standard Webhooks signing secret as text: `whsec_` and base64 (JSON may escape its `/`).
static SIGNING_SECRET: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(r"whsec_(?:[A-Za-z0-9+/=_-]|\\/)+").expect("a valid pattern")
});

/// How a signing secret starts, and the characters of its base64 part.
const SIGNING_PREFIX: &str = "whsec_";

fn is_signing_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '+' | '/' | '=' | '_' | '-')
}

/// The redactor of the process: every run registers its secrets here, and every check that
/// puts target text into a finding redacts with it before cutting.
static GLOBAL: LazyLock<Redactor> = LazyLock::new(Redactor::default);

/// One registered secret: the value as matched (in the decoded view) and its placeholder.
#[derive(Debug, Clone)]
struct Secret {
    chars: Vec<char>,
    text: String,
    placeholder: &'static str,
}

/// The maps of the redactor: looked up once per character of every text that leaves the suite
/// (most of a run's echoing target's time went to SipHash; the keys are the suite's own secrets,
/// so a hash without per-process keys will do).
type Map<K, V> = HashMap<K, V, foldhash::fast::FixedState>;

/// The registered secrets, indexed by their first and last [`EDGE_MIN`] characters, so that
/// matching costs one look-up per character of the text however many secrets a run has seen.
#[derive(Debug, Default)]
struct Secrets {
    list: Vec<Secret>,
    /// Where each secret's text is in `list`: registering one already known costs one look-up,
    /// however many secrets the process has seen (a process that runs the catalog hundreds of
    /// times, as the self-test does, registers hundreds of thousands).
    index: Map<String, usize>,
    heads: Map<[char; EDGE_MIN], Vec<usize>>,
    tails: Map<[char; EDGE_MIN], Vec<usize>>,
    /// Secrets shorter than [`EDGE_MIN`] (4 to 7 characters), matched one by one.
    short: Vec<usize>,
    longest: usize,
    /// First and last characters of the secrets: most positions of a text are passed over on
    /// one table look-up, without hashing a window.
    firsts: CharSet,
    lasts: CharSet,
}

/// A set of characters: a table for ASCII, one flag for the rest.
#[derive(Debug)]
struct CharSet {
    ascii: [bool; 128],
    other: bool,
}

impl Default for CharSet {
    fn default() -> Self {
        CharSet {
            ascii: [false; 128],
            other: false,
        }
    }
}

impl CharSet {
    fn insert(&mut self, c: char) {
        match self.ascii.get_mut(c as usize) {
            Some(slot) => *slot = true,
            None => self.other = true,
        }
    }

    fn contains(&self, c: char) -> bool {
        self.ascii.get(c as usize).copied().unwrap_or(self.other)
    }
}

impl Secrets {
    fn insert(&mut self, secret: Secret) {
        let i = self.list.len();
        let n = secret.chars.len();
        if n >= EDGE_MIN {
            let head: [char; EDGE_MIN] = secret.chars[..EDGE_MIN].try_into().expect("8 chars");
            let tail: [char; EDGE_MIN] = secret.chars[n - EDGE_MIN..].try_into().expect("8 chars");
            self.heads.entry(head).or_default().push(i);
            self.tails.entry(tail).or_default().push(i);
        } else {
            self.short.push(i);
        }
        self.longest = self.longest.max(n);
        if let (Some(first), Some(last)) = (secret.chars.first(), secret.chars.last()) {
            self.firsts.insert(*first);
            self.lasts.insert(*last);
        }
        self.index.insert(secret.text.clone(), i);
        self.list.push(secret);
    }
}

/// Replaces secrets in any text that leaves the suite. Cheap to clone; clones share the list, so
/// a secret seen mid-run (a webhook signing secret) is redacted everywhere from then on.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Arc<RwLock<Secrets>>,
}

impl Redactor {
    /// The redactor of the process, shared by every run in it.
    pub fn global() -> Redactor {
        GLOBAL.clone()
    }

    /// Registers the run's API key.
    pub fn api_key(&self, key: &str) {
        self.add_with_encodings(key, API_KEY_PLACEHOLDER);
    }

    /// Registers a part of the run's key (the near-miss key, which is all of it but its last
    /// character): shown as [`NEAR_MISS_PLACEHOLDER`].
    pub fn api_key_part(&self, part: &str) {
        self.add_with_encodings(part, NEAR_MISS_PLACEHOLDER);
    }

    /// Registers another secret.
    pub fn secret(&self, value: &str) {
        self.add_with_encodings(value, SECRET_PLACEHOLDER);
    }

    /// The secret and the stable parts of its base64 encodings (standard and URL-safe, at each
    /// of the three alignments a secret can have inside a longer encoded text).
    fn add_with_encodings(&self, value: &str, placeholder: &'static str) {
        self.add(value, placeholder);
        if value.len() < EDGE_MIN {
            return;
        }
        for offset in 0..3usize {
            let mut bytes = vec![0u8; offset];
            bytes.extend_from_slice(value.as_bytes());
            for engine in [
                &base64::engine::general_purpose::STANDARD_NO_PAD,
                &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            ] {
                let encoded = engine.encode(&bytes);
                // The first group mixes the alignment bytes in; the last group mixes in what
                // follows the secret, unless it ends on a group boundary.
                let head = if offset > 0 { 4 } else { 0 };
                let tail = if bytes.len() % 3 == 0 { 0 } else { 4 };
                if encoded.len() > head + tail + EDGE_MIN {
                    self.add(&encoded[head..encoded.len() - tail], placeholder);
                }
            }
        }
    }

    fn add(&self, value: &str, placeholder: &'static str) {
        let mut secrets = self.secrets.write().unwrap_or_else(|e| e.into_inner());
        // Very short values would redact ordinary text; keys are never that short.
        if let Some(known) = secrets
            .index
            .get(value)
            .copied()
            .and_then(|i| secrets.list.get_mut(i))
        {
            // The run's key shows as the run's key, however it was registered first.
            if placeholder == API_KEY_PLACEHOLDER {
                known.placeholder = placeholder;
            }
            return;
        }
        if value.chars().count() >= 4 {
            secrets.insert(Secret {
                chars: value.chars().collect(),
                text: value.to_string(),
                placeholder,
            });
        }
    }

    /// Registers every webhook signing secret (`whsec_...`) in an answer's body, and its base64
    /// part, whatever field holds it: a secret the target hands out is never shown again.
    pub(crate) fn secrets_in(&self, body: &[u8]) {
        let text = if body.windows(6).any(|w| w == b"whsec_") {
            String::from_utf8_lossy(body).into_owned()
        } else if body.windows(5).any(|w| w == b"whsec") {
            // An escaped form (`whsec\u005f`, `whsec%5F`, `whsec&#x5f;`): read as it decodes.
            decode(&String::from_utf8_lossy(body))
                .iter()
                .map(|u| u.ch)
                .collect()
        } else {
            return;
        };
        for m in SIGNING_SECRET.find_iter(&text) {
            let secret = m.as_str().replace("\\/", "/");
            self.secret(m.as_str());
            self.secret(&secret);
            self.secret(&secret["whsec_".len()..]);
        }
    }

    /// The text with every secret replaced, in any of the forms the module doc names.
    pub fn redact(&self, text: &str) -> String {
        let out = if text.contains("whsec_") {
            SIGNING_SECRET
                .replace_all(text, SECRET_PLACEHOLDER)
                .into_owned()
        } else {
            text.to_string()
        };
        let secrets = self.secrets.read().unwrap_or_else(|e| e.into_inner());
        if secrets.list.is_empty() && !out.contains("whsec") {
            return out;
        }
        // A large text (a whole report) is redacted line by line, so the decoded view stays
        // small; a secret never spans lines in any form the module names.
        if out.len() > 64 * 1024 && out.contains('\n') {
            return out
                .split_inclusive('\n')
                .map(|line| redact_spans(line, &secrets))
                .collect();
        }
        redact_spans(&out, &secrets)
    }

    /// At most `limit` characters of `text`, redacted before the cut (so a secret straddling the
    /// cut is gone whole), with `… (N bytes in all)` when it was cut.
    pub fn excerpt(&self, text: &str, limit: usize) -> String {
        match self.cut(text, limit) {
            (cut, true) => format!("{cut}… ({} bytes in all)", text.len()),
            (cut, false) => cut,
        }
    }

    /// The start of `text` that [`Redactor::cut`] at `limit` reads, not redacted, and whether
    /// it is shorter than `text`: what to keep of a text that may be shown cut at `limit` later.
    pub(crate) fn head(&self, text: &str, limit: usize) -> (String, bool) {
        let end = self.window_end(text, limit);
        (text[..end].to_string(), end < text.len())
    }

    /// Where the window ends that holds every form of a secret starting before `limit`
    /// characters: an escaped character takes up to 12 characters (`&#x1F600;`, a surrogate
    /// pair).
    fn window_end(&self, text: &str, limit: usize) -> usize {
        let longest = self.secrets.read().map(|s| s.longest).unwrap_or(0);
        let window_chars = limit + 12 * longest.max(64) + 16;
        text.char_indices()
            .nth(window_chars)
            .map_or(text.len(), |(i, _)| i)
    }

    /// At most `limit` characters of `text`, redacted before the cut, and whether it was cut.
    pub fn cut(&self, text: &str, limit: usize) -> (String, bool) {
        let window_end = self.window_end(text, limit);
        let redacted = self.redact(&text[..window_end]);
        if window_end == text.len() && redacted.chars().nth(limit).is_none() {
            return (redacted, false);
        }
        // The end of the cut is an edge: a piece of a secret before it is redacted.
        let cut: String = redacted.chars().take(limit).collect();
        (self.redact(&cut), true)
    }
}

/// The global redactor's [`Redactor::excerpt`]: for checks that put target text into findings.
pub fn excerpt(text: &str, limit: usize) -> String {
    GLOBAL.excerpt(text, limit)
}

/// Each pass replaces the spans found in the decoded view; a second pass catches what a first
/// replacement made adjacent (bounded: two passes).
fn redact_spans(text: &str, secrets: &Secrets) -> String {
    let mut out = text.to_string();
    for _ in 0..2 {
        let spans = find_spans(&out, secrets);
        if spans.is_empty() {
            break;
        }
        out = replace_spans(&out, &spans);
    }
    out
}

/// One character of the decoded view and the byte span of the original text it came from.
struct Unit {
    ch: char,
    start: usize,
    end: usize,
}

/// Reads `text` as the characters it stands for: JSON escapes, percent-encoding, HTML/XML
/// character references; anything else as itself.
fn decode(text: &str) -> Vec<Unit> {
    let bytes = text.as_bytes();
    let mut units = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        if let Some((ch, len)) = decode_escape(text, i) {
            units.push(Unit {
                ch,
                start: i,
                end: i + len,
            });
            i += len;
            continue;
        }
        let ch = text[i..].chars().next().unwrap_or('\u{FFFD}');
        let len = ch.len_utf8().max(1);
        units.push(Unit {
            ch,
            start: i,
            end: i + len,
        });
        i += len;
    }
    units
}

fn hex(s: &str) -> Option<u32> {
    u32::from_str_radix(s, 16).ok()
}

/// The character an escape at byte `i` stands for, and its length in bytes.
fn decode_escape(text: &str, i: usize) -> Option<(char, usize)> {
    let rest = &text[i..];
    let b = rest.as_bytes();
    match b.first()? {
        b'\\' => match b.get(1)? {
            b'u' => {
                let code = hex(rest.get(2..6)?)?;
                if (0xD800..0xDC00).contains(&code) && rest.get(6..8) == Some("\\u") {
                    let low = hex(rest.get(8..12)?)?;
                    if (0xDC00..0xE000).contains(&low) {
                        let c = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
                        return Some((char::from_u32(c)?, 12));
                    }
                }
                Some((char::from_u32(code).unwrap_or('\u{FFFD}'), 6))
            }
            b'/' => Some(('/', 2)),
            b'\\' => Some(('\\', 2)),
            b'"' => Some(('"', 2)),
            b'\'' => Some(('\'', 2)),
            b'n' => Some(('\n', 2)),
            b't' => Some(('\t', 2)),
            b'r' => Some(('\r', 2)),
            _ => None,
        },
        b'%' => {
            let code = hex(rest.get(1..3)?)?;
            (code < 0x80).then(|| (char::from_u32(code).unwrap_or('\u{FFFD}'), 3))
        }
        b'&' => {
            let end = rest.bytes().take(12).position(|b| b == b';')?;
            let name = &rest[1..end];
            let ch = match name {
                "amp" => '&',
                "lt" => '<',
                "gt" => '>',
                "quot" => '"',
                "apos" => '\'',
                _ => {
                    let num = name.strip_prefix('#')?;
                    let code = match num.strip_prefix(['x', 'X']) {
                        Some(h) => hex(h)?,
                        None => num.parse().ok()?,
                    };
                    char::from_u32(code)?
                }
            };
            Some((ch, end + 1))
        }
        _ => None,
    }
}

/// Byte spans of the original text to replace, with their placeholders, sorted and disjoint.
fn find_spans(text: &str, secrets: &Secrets) -> Vec<(usize, usize, &'static str)> {
    let units = decode(text);
    let chars: Vec<char> = units.iter().map(|u| u.ch).collect();
    let len = chars.len();
    let mut covered = vec![false; len];
    let mut spans: Vec<(usize, usize, &'static str)> = Vec::new();
    let mut mark = |from: usize, to: usize, placeholder: &'static str, covered: &mut Vec<bool>| {
        if from >= to || covered[from..to].iter().any(|c| *c) {
            return;
        }
        covered[from..to].iter_mut().for_each(|c| *c = true);
        spans.push((units[from].start, units[to - 1].end, placeholder));
    };
    let window = |at: usize| -> Option<[char; EDGE_MIN]> {
        chars.get(at..at + EDGE_MIN).and_then(|w| w.try_into().ok())
    };
    // A signing secret in any form the decoded view reads (`whsec\u005f...`, `whsec%5F...`), known
    // or not: a target may echo one in an answer that ends before the suite has read the answer
    // that handed it out.
    let prefix: Vec<char> = SIGNING_PREFIX.chars().collect();
    let mut i = 0;
    while i + prefix.len() < len {
        if chars[i..i + prefix.len()] != prefix[..] {
            i += 1;
            continue;
        }
        let mut end = i + prefix.len();
        while end < len && is_signing_char(chars[end]) {
            end += 1;
        }
        if end > i + prefix.len() {
            mark(i, end, SECRET_PLACEHOLDER, &mut covered);
        }
        i = end;
    }
    // Whole secrets anywhere: leftmost, and the longest of those starting there.
    let mut i = 0;
    while i < len {
        if !secrets.firsts.contains(chars[i]) {
            i += 1;
            continue;
        }
        let mut best: Option<&Secret> = None;
        let candidates = window(i)
            .and_then(|w| secrets.heads.get(&w))
            .into_iter()
            .flatten()
            .chain(secrets.short.iter());
        for &c in candidates {
            let s = &secrets.list[c];
            let n = s.chars.len();
            if i + n <= len
                && chars[i..i + n] == s.chars[..]
                && best.is_none_or(|b| b.chars.len() < n)
            {
                best = Some(s);
            }
        }
        match best {
            Some(s) => {
                mark(i, i + s.chars.len(), s.placeholder, &mut covered);
                i += s.chars.len();
            }
            None => i += 1,
        }
    }
    // Pieces of secrets at edges: the ends of the text and every U+FFFD or `…` (a cut).
    let mut edges = vec![0usize, len];
    for (i, c) in chars.iter().enumerate() {
        if *c == '\u{FFFD}' || *c == '…' {
            edges.push(i);
            edges.push(i + 1);
        }
    }
    let reach = secrets.longest.saturating_sub(1);
    for &edge in &edges {
        // A prefix of a secret ending at the edge: its first 8 characters start at `p`.
        let from = edge.saturating_sub(reach);
        for p in from..edge.saturating_sub(EDGE_MIN - 1) {
            if !secrets.firsts.contains(chars[p]) {
                continue;
            }
            let Some(ids) = window(p).and_then(|w| secrets.heads.get(&w)) else {
                continue;
            };
            let k = edge - p;
            if let Some(s) = ids
                .iter()
                .map(|&c| &secrets.list[c])
                .find(|s| k < s.chars.len() && chars[p..edge] == s.chars[..k])
            {
                mark(p, edge, s.placeholder, &mut covered);
                break;
            }
        }
        // A suffix of a secret starting at the edge: its last 8 characters end at `q`.
        let to = (edge + reach).min(len);
        for q in ((edge + EDGE_MIN)..=to).rev() {
            if !secrets.lasts.contains(chars[q - 1]) {
                continue;
            }
            let Some(ids) = window(q - EDGE_MIN).and_then(|w| secrets.tails.get(&w)) else {
                continue;
            };
            let k = q - edge;
            if let Some(s) = ids.iter().map(|&c| &secrets.list[c]).find(|s| {
                let n = s.chars.len();
                k < n && chars[edge..q] == s.chars[n - k..]
            }) {
                mark(edge, q, s.placeholder, &mut covered);
                break;
            }
        }
    }
    spans.sort_by_key(|s| s.0);
    spans
}

fn replace_spans(text: &str, spans: &[(usize, usize, &'static str)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for &(start, end, placeholder) in spans {
        if start < at {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(placeholder);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// A JSON value on one line, redacted, then cut at 200 characters. A large value is never
/// written whole: serialising stops after [`SHOWN_BYTES`].
pub(crate) fn compact(v: &serde_json::Value) -> String {
    let text = bounded_json(v, SHOWN_BYTES);
    match Redactor::global().cut(&text, 200) {
        (cut, true) => format!("{cut}…"),
        (cut, false) => cut,
    }
}

/// Bytes of a value serialised for a message, at most.
pub(crate) const SHOWN_BYTES: usize = 16 * 1024;

/// The first `cap` bytes of a value's JSON text (lossy at a cut inside a character).
pub(crate) fn bounded_json(v: &serde_json::Value, cap: usize) -> String {
    struct Capped {
        buf: Vec<u8>,
        cap: usize,
    }
    impl std::io::Write for Capped {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let room = self.cap - self.buf.len();
            if room == 0 {
                return Err(std::io::ErrorKind::WriteZero.into());
            }
            let n = b.len().min(room);
            self.buf.extend_from_slice(&b[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut w = Capped {
        buf: Vec::new(),
        cap,
    };
    // An error only says the cap was reached: what was written is the start of the text.
    let _ = serde_json::to_writer(&mut w, v);
    String::from_utf8_lossy(&w.buf).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";

    fn redactor() -> Redactor {
        let r = Redactor::default();
        r.api_key(KEY);
        r
    }

    #[test]
    fn the_near_miss_key_is_redacted_and_the_key_never_shows_a_character() {
        let r = redactor();
        let near = &KEY[..KEY.len() - 1];
        r.api_key_part(near);
        assert_eq!(
            r.redact(&format!("k={KEY};")),
            format!("k={API_KEY_PLACEHOLDER};")
        );
        assert_eq!(
            r.redact(&format!("k={near};")),
            format!("k={NEAR_MISS_PLACEHOLDER};")
        );
    }

    #[test]
    fn a_signing_secret_in_any_answer_is_redacted_everywhere() {
        let r = Redactor::default();
        r.secrets_in(br#"{"data":{"id":"7","signingKey":"whsec_MfKQ9r8GKYq\/TwjUPD8ILPZIo2La"}}"#);
        assert_eq!(
            r.redact("key whsec_MfKQ9r8GKYq/TwjUPD8ILPZIo2La raw MfKQ9r8GKYq/TwjUPD8ILPZIo2La"),
            format!("key {SECRET_PLACEHOLDER} raw {SECRET_PLACEHOLDER}")
        );
        assert_eq!(
            r.redact("other whsec_C2FVsBQIhrscChlQ=="),
            format!("other {SECRET_PLACEHOLDER}")
        );
        assert_eq!(r.redact("no secret here"), "no secret here");
    }

    #[test]
    fn a_signing_secret_never_seen_is_redacted_in_its_escaped_forms() {
        // An echo of a secret can reach an output before the answer that handed it out.
        let r = Redactor::default();
        for text in [
            r#"{"echo":"whsec\u005fMfKQ9r8GKYq\/TwjUPD8ILPZIo2LaLbY3 x"}"#,
            "whsec%5FMfKQ9r8GKYq%2FTwjUPD8ILPZIo2LaLbY3 x",
            "whsec&#x5f;MfKQ9r8GKYq/TwjUPD8ILPZIo2LaLbY3 x",
        ] {
            let out = r.redact(text);
            assert!(
                !out.contains("MfKQ9r8G") && !out.contains("LaLbY3"),
                "{out}"
            );
            assert!(out.contains(SECRET_PLACEHOLDER), "{out}");
        }
        // Read from an answer in an escaped form, it is registered: its base64 part alone is
        // redacted from then on.
        r.secrets_in(br#"{"secret":"whsec\u005fQm9vYmFyYmF6cXV4MTIz"}"#);
        assert_eq!(r.redact("Qm9vYmFyYmF6cXV4MTIz"), SECRET_PLACEHOLDER);
    }

    #[test]
    fn every_echo_form_of_a_key_is_redacted() {
        let r = redactor();
        let escaped_u: String = KEY
            .chars()
            .map(|c| {
                if c == '_' {
                    "\\u005f".to_string()
                } else {
                    c.to_string()
                }
            })
            .collect();
        let all_escaped: String = KEY
            .chars()
            .map(|c| format!("\\u{:04X}", c as u32))
            .collect();
        let percent: String = KEY.bytes().map(|b| format!("%{b:02x}")).collect();
        let html: String = KEY.chars().map(|c| format!("&#x{:x};", c as u32)).collect();
        let b64 = base64::engine::general_purpose::STANDARD.encode(format!("user:{KEY}"));
        let b64url = base64::engine::general_purpose::URL_SAFE.encode(format!("ab{KEY}xyz"));
        for form in [
            KEY.to_string(),
            format!("text/html; charset=\"{KEY}\""),
            format!("application/problem+json; key={KEY}"),
            escaped_u,
            all_escaped,
            percent,
            html,
            format!("Basic {b64}"),
            b64url,
        ] {
            let shown = r.redact(&format!("<<{form}>>"));
            assert!(shown.contains(API_KEY_PLACEHOLDER), "{form} -> {shown}");
            assert!(!shown.contains("4eC39HqLyj"), "{form} -> {shown}");
            assert!(!shown.contains("LyjWDarjtT1"), "{form} -> {shown}");
        }
    }

    #[test]
    fn a_key_straddling_an_excerpts_cut_is_gone_whole() {
        let r = redactor();
        let text = format!("{}{KEY}{}", "x".repeat(590), "y".repeat(100));
        let cut = r.excerpt(&text, 600);
        assert!(!cut.contains("sk_live_4"), "{cut}");
        assert!(cut.starts_with(&"x".repeat(590)));
        assert!(cut.ends_with(" (722 bytes in all)"), "{cut}");
    }

    #[test]
    fn a_piece_of_a_key_at_an_edge_is_redacted() {
        let r = redactor();
        // The target itself sent only the start of the key (a cut body), or a byte that was
        // not UTF-8 split it.
        let prefix = &KEY[..22];
        assert_eq!(
            r.redact(&format!("body ends {prefix}")),
            format!("body ends {API_KEY_PLACEHOLDER}")
        );
        let split = format!("ct {}\u{FFFD}{}", &KEY[..12], &KEY[13..]);
        let shown = r.redact(&split);
        assert!(!shown.contains(&KEY[..12]), "{shown}");
        assert!(!shown.contains(&KEY[13..]), "{shown}");
        // Short pieces and ordinary text stay.
        assert_eq!(r.redact("sk_live"), "sk_live");
        assert_eq!(r.redact("plain text"), "plain text");
    }

    #[test]
    fn excerpts_of_short_texts_are_whole() {
        let r = redactor();
        assert_eq!(r.excerpt("short", 600), "short");
        assert_eq!(r.excerpt(&format!("a {KEY} b"), 600), "a <API_KEY> b");
    }
}
