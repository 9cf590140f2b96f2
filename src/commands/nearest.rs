//! "Did you mean": the known name nearest to a mistyped one (a fault, a variant, an area), by
//! the edit distance clap itself uses for its subcommands, so that a typo gets one short line.

/// The name of `known` nearest to `given`, when it is near enough to be the name meant: at most
/// a third of the longer name's characters edited (at least 2).
pub fn nearest<'a>(given: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|k| (strsim::levenshtein(given, k), k))
        .filter(|(d, k)| *d <= (given.chars().count().max(k.chars().count()) / 3).max(2))
        .min()
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_gets_the_name_meant_and_nonsense_gets_none() {
        let known = [
            "contacts",
            "tasks",
            "webhook-wrong-secret",
            "webhook-malformed-signature",
        ];
        assert_eq!(nearest("contact", known), Some("contacts"));
        assert_eq!(
            nearest("webhook-wrong-secrt", known),
            Some("webhook-wrong-secret")
        );
        assert_eq!(nearest("tsaks", known), Some("tasks"));
        assert_eq!(nearest("nothing-like-it", known), None);
    }
}
