//! Ids of a missing resource, derived from one the target served: where the contract states no
//! id shape (contacts, READINGS 5.1) and no request can delete one (a target without the activity
//! hook), an id of the target's own shape that it does not know is made by changing characters of
//! one it issued, each within the alphabet of its kind (digits, lower-case and upper-case letters
//! as the served id shows them). A target may answer an id of a shape it never issues with a 404
//! before its handler (READINGS 6.8), so the shape is kept: the length, the separators, and at
//! each changed place a character of the same kind the served id already uses.

/// How many derived ids a precondition tries before it gives up.
pub(crate) const TRIES: usize = 5;

/// How many characters of the served id each derived id changes (the last ones that can change:
/// in ids made of a time and a counter or of random bits, the least structured part).
const CHANGED: usize = 4;

/// Up to `n` distinct ids derived from `served`: the same length, the same characters but at the
/// last few places that can change (a letter or digit whose kind the served id shows with at
/// least two characters), where each has another character of that kind. Empty when no place
/// can change.
pub(crate) fn missing_ids(served: &str, n: usize) -> Vec<String> {
    let chars: Vec<char> = served.chars().collect();
    let alphabet = |c: char| -> Vec<char> {
        let mut out: Vec<char> = chars
            .iter()
            .copied()
            .filter(|d| kind(*d).is_some() && kind(*d) == kind(c))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    };
    let places: Vec<usize> = (0..chars.len())
        .rev()
        .filter(|&i| kind(chars[i]).is_some() && alphabet(chars[i]).len() >= 2)
        .take(CHANGED)
        .collect();
    if places.is_empty() {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    // Bounded: each attempt shifts every place by a different step within its alphabet.
    for attempt in 0..n * 4 {
        if out.len() == n {
            break;
        }
        let mut id = chars.clone();
        for (t, &i) in places.iter().enumerate() {
            let letters = alphabet(chars[i]);
            let at = letters.iter().position(|l| *l == chars[i]).unwrap_or(0);
            let step = 1 + (attempt + t) % (letters.len() - 1);
            id[i] = letters[(at + step) % letters.len()];
        }
        let id: String = id.into_iter().collect();
        if id != served && !out.contains(&id) {
            out.push(id);
        }
    }
    out
}

/// The kind of an id character that may change: a digit, a lower-case or an upper-case ASCII
/// letter; none for a separator or anything else, which stays.
fn kind(c: char) -> Option<u8> {
    match c {
        '0'..='9' => Some(0),
        'a'..='z' => Some(1),
        'A'..='Z' => Some(2),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alphabet(id: &str) -> std::collections::BTreeSet<char> {
        id.chars().collect()
    }

    #[test]
    fn a_derived_id_keeps_the_length_the_alphabet_and_the_separators() {
        for served in [
            "65f1c0a2b3d4e5f601234567",
            "3f2b8c1e-9a4d-4e7f-b6c5-0d1e2f3a4b5c",
            "CT42",
            "17",
            "ab_CD-19",
        ] {
            let ids = missing_ids(served, TRIES);
            assert!(!ids.is_empty(), "{served}");
            for id in &ids {
                assert_ne!(id, served);
                assert_eq!(id.chars().count(), served.chars().count(), "{id}");
                assert!(
                    alphabet(id).is_subset(&alphabet(served)),
                    "{served} -> {id}"
                );
                for (a, b) in served.chars().zip(id.chars()) {
                    assert_eq!(kind(a), kind(b), "{served} -> {id}");
                    if kind(a).is_none() {
                        assert_eq!(a, b, "{served} -> {id}: a separator moved");
                    }
                }
            }
            let distinct: std::collections::BTreeSet<&String> = ids.iter().collect();
            assert_eq!(distinct.len(), ids.len(), "{ids:?}");
        }
        assert_eq!(missing_ids("65f1c0a2b3d4e5f601234567", TRIES).len(), TRIES);
    }

    #[test]
    fn an_id_with_no_place_that_can_change_gives_none() {
        assert!(missing_ids("", TRIES).is_empty());
        assert!(missing_ids("7", TRIES).is_empty());
        assert!(missing_ids("aaaa-1111", TRIES).is_empty());
        assert!(missing_ids("--", TRIES).is_empty());
    }
}
