//! Pages of a list: `maxResults`, opaque `pageToken`s, and the list body.
//!
//! A token carries only the offset of the next page; clients resend their query with it, so the
//! filters need not be encoded. The token is masked so that clients treat it as opaque.

use serde_json::{Map, Value, json};

use super::faults::{Fault, FaultSet};

const TOKEN_PREFIX: &str = "p1";
const TOKEN_MASK: u64 = 0x5eed_c0de_7a11_ab1e;

/// The page size when a fault makes lists deaf to `maxResults`.
const IGNORED_MAX_RESULTS_SIZE: usize = 10;

/// Why a list refuses its paging parameters; the text is the message of the 400 it answers.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PageQueryError {
    #[error("query parameter maxResults must be an integer from {min} to {max}, got '{value}'")]
    MaxResults {
        value: String,
        min: usize,
        max: usize,
    },
    #[error("query parameter pageToken '{token}' is not a token this service issued")]
    ForeignToken { token: String },
    /// A keyset token whose item left the filtered set.
    #[error("query parameter pageToken '{token}' has expired")]
    ExpiredToken { token: String },
}

pub(crate) fn encode_token(offset: usize) -> String {
    format!("{TOKEN_PREFIX}{:016x}", offset as u64 ^ TOKEN_MASK)
}

/// The offset a token stands for, or `None` for anything this instance did not produce.
pub(crate) fn decode_token(token: &str) -> Option<usize> {
    let hex = token.strip_prefix(TOKEN_PREFIX)?;
    if hex.len() != 16 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let masked = u64::from_str_radix(hex, 16).ok()?;
    usize::try_from(masked ^ TOKEN_MASK).ok()
}

/// Reads `maxResults`: an integer from 1 to `max`, `default` when absent.
pub(crate) fn max_results(
    value: Option<&str>,
    default: usize,
    max: usize,
) -> Result<usize, PageQueryError> {
    max_results_in(value, default, 1..=max)
}

/// Reads `maxResults` within `range` (a boundary fault may move the stated one).
pub(crate) fn max_results_in(
    value: Option<&str>,
    default: usize,
    range: std::ops::RangeInclusive<usize>,
) -> Result<usize, PageQueryError> {
    let Some(value) = value else {
        return Ok(default);
    };
    match value.parse::<usize>() {
        Ok(n) if range.contains(&n) => Ok(n),
        _ => Err(PageQueryError::MaxResults {
            value: value.to_string(),
            min: *range.start(),
            max: *range.end(),
        }),
    }
}

/// Reads `pageToken`: absent means the first page.
pub(crate) fn page_token(value: Option<&str>) -> Result<usize, PageQueryError> {
    match value {
        None => Ok(0),
        Some(token) => decode_token(token).ok_or_else(|| PageQueryError::ForeignToken {
            token: token.to_string(),
        }),
    }
}

/// One page cut from the matching items.
#[derive(Debug, PartialEq)]
pub(crate) struct Page<T> {
    pub items: Vec<T>,
    pub total: usize,
    pub next_token: Option<String>,
}

/// Cuts the page of `size` items at `offset`; the token is null on the page holding the last item.
pub(crate) fn paginate<T: Clone>(
    matching: &[T],
    size: usize,
    offset: usize,
    faults: &FaultSet,
) -> Page<T> {
    let size = if faults.has(Fault::MaxResultsIgnored) {
        IGNORED_MAX_RESULTS_SIZE
    } else {
        size
    }
    .max(1);
    let total = matching.len();
    let repeat = faults.has(Fault::DuplicateAcrossPages) && offset > 0;
    let start = if repeat { offset - 1 } else { offset }.min(total);
    let end = start.saturating_add(size).min(total);
    // With the repeat fault and pages of one, the next page must still move past the repeat.
    let next_offset = if repeat && end - start <= 1 {
        end + 1
    } else {
        end
    };
    let next_token = if end < total {
        Some(encode_token(next_offset))
    } else if faults.has(Fault::LastPageTokenNotNull) && end > start {
        Some(encode_token(total))
    } else {
        None
    };
    Page {
        items: matching[start..end].to_vec(),
        total,
        next_token,
    }
}

/// `{data, totalItems, nextPageToken}`.
pub(crate) fn list_body(page: Page<Value>, faults: &FaultSet) -> Value {
    let mut body = Map::new();
    body.insert("data".into(), Value::Array(page.items));
    if !faults.has(Fault::ListWithoutTotalItems) {
        body.insert("totalItems".into(), json!(page.total));
    }
    body.insert("nextPageToken".into(), json!(page.next_token));
    Value::Object(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(total: usize, size: usize, faults: &FaultSet) -> Vec<Vec<usize>> {
        let items: Vec<usize> = (0..total).collect();
        let mut pages = Vec::new();
        let mut offset = 0;
        for _ in 0..100 {
            let page = paginate(&items, size, offset, faults);
            pages.push(page.items);
            match page.next_token.as_deref().and_then(decode_token) {
                Some(next) => offset = next,
                None => return pages,
            }
        }
        panic!("walk did not end")
    }

    #[test]
    fn tokens_round_trip_and_refuse_strangers() {
        for offset in [0, 1, 10, 12345, usize::MAX] {
            assert_eq!(decode_token(&encode_token(offset)), Some(offset));
        }
        for bad in [
            "",
            "p1",
            "abc",
            "p1zzzzzzzzzzzzzzzz",
            "p10000",
            "x15eedc0de7a11ab1e",
        ] {
            assert_eq!(decode_token(bad), None, "{bad}");
        }
    }

    #[test]
    fn walk_sees_everything_once_and_ends_with_null() {
        let clean = FaultSet::default();
        assert_eq!(walk(25, 10, &clean).concat(), (0..25).collect::<Vec<_>>());
        assert_eq!(
            walk(20, 10, &clean).len(),
            2,
            "a full last page has a null token"
        );
        assert_eq!(walk(0, 10, &clean), vec![Vec::<usize>::new()]);
    }

    #[test]
    fn faults_change_only_their_part_of_the_walk() {
        let last = FaultSet::new([Fault::LastPageTokenNotNull]);
        let pages = walk(20, 10, &last);
        assert_eq!(pages.len(), 3);
        assert!(pages[2].is_empty());

        let dup = FaultSet::new([Fault::DuplicateAcrossPages]);
        let pages = walk(25, 10, &dup);
        assert_eq!(pages[1].first(), pages[0].last());
        let mut seen = pages.concat();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen, (0..25).collect::<Vec<_>>());
        assert_eq!(walk(3, 1, &dup).concat(), vec![0, 0, 1, 2]);

        let ignored = FaultSet::new([Fault::MaxResultsIgnored]);
        assert_eq!(walk(25, 3, &ignored)[0].len(), 10);
    }

    #[test]
    fn max_results_is_range_checked() {
        assert_eq!(max_results(None, 10, 50), Ok(10));
        assert_eq!(max_results(Some("50"), 10, 50), Ok(50));
        for bad in ["0", "51", "-1", "abc", "2.5", ""] {
            assert!(max_results(Some(bad), 10, 50).is_err(), "{bad}");
        }
    }

    #[test]
    fn refusals_read_as_the_400_message() {
        let refused = max_results(Some("51"), 10, 50).map_err(|e| e.to_string());
        assert_eq!(
            refused,
            Err("query parameter maxResults must be an integer from 1 to 50, got '51'".into())
        );
        let refused = page_token(Some("abc")).map_err(|e| e.to_string());
        assert_eq!(
            refused,
            Err("query parameter pageToken 'abc' is not a token this service issued".into())
        );
    }
}
