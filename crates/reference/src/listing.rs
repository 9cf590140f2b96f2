//! `serve --list-faults` and `serve --list-variants`: the catalogs one entry a line, or with
//! `--markdown` as the README's tables (tests/docs.rs holds the README equal to them).

use super::faults::{CATALOG, Fault, FaultInfo, PENDING};
use super::variants::{PROFILE_VARIANTS, VARIANTS, VariantInfo};

/// The fault catalog, one fault a line: its name, then the clause it breaks, and for a fault of a
/// blind set, which set (and, while it is pending, that it is not yet in the catalog); a header
/// of `#` lines first says what the count and the marks mean.
pub fn fault_lines() -> String {
    fault_header() + &fault_entries()
}

/// What `--list-faults` lists: the catalog's count (the README's) and its groups explained.
fn fault_header() -> String {
    let blind = CATALOG.iter().filter(|f| f.blind_set.is_some()).count();
    format!(
        "# {} faults of the catalog, one a line: the name (`--fault NAME`), then the clause it breaks.\n\
         # `cargo test` requires each to be caught by the trials and checks snapshots/fault-catches.txt records.\n\
         # (blind set K): {blind} of them were written from the contract, the readings and the reference alone,\n\
         #   without the suite's checks or cases: a measure of the suite on defects nobody wrote a check for.\n\
         # (blind set K, not yet in the catalog): {} more, listed last, that no mechanism of the suite\n\
         #   catches yet; they can be switched on, and are not counted among the {}.\n",
        CATALOG.len(),
        PENDING.len(),
        CATALOG.len()
    )
}

/// The catalog's faults, then the pending ones, one a line.
fn fault_entries() -> String {
    let width = CATALOG
        .iter()
        .chain(PENDING)
        .map(|f| f.name.len())
        .max()
        .unwrap_or(0);
    let line = |f: &FaultInfo, pending: bool| {
        let set = match (f.blind_set, pending) {
            (Some(n), false) => format!("  (blind set {n})"),
            (Some(n), true) => format!("  (blind set {n}, not yet in the catalog)"),
            (None, _) => String::new(),
        };
        format!("{:width$}  {}{set}\n", f.name, f.clause)
    };
    CATALOG
        .iter()
        .map(|f| line(f, false))
        .chain(PENDING.iter().map(|f| line(f, true)))
        .collect()
}

/// The variant catalog, one variant a line: its name, the READINGS section, `demands:` for the
/// demanding family and `profile:` for the profile variants, and what the reference does.
pub fn variant_lines() -> String {
    let width = VARIANTS
        .iter()
        .chain(PROFILE_VARIANTS)
        .map(|v| v.name.len())
        .max()
        .unwrap_or(0);
    VARIANTS
        .iter()
        .chain(PROFILE_VARIANTS)
        .map(|v| {
            let family = if v.variant.profile() {
                "profile: "
            } else if v.variant.demanding() {
                "demands: "
            } else {
                ""
            };
            format!(
                "{:width$}  READINGS {}  {family}{}\n",
                v.name, v.reading, v.description
            )
        })
        .collect()
}

/// The README's fault tables, one per group of the catalog (faults of answers; of effects and
/// side effects; of what the suite sends; of the kinds of defect a rule allows), separated by a
/// blank line.
pub fn fault_tables() -> String {
    let groups = [
        FaultGroup::Answers,
        FaultGroup::Effects,
        FaultGroup::Sends,
        FaultGroup::Kinds,
    ];
    let tables: Vec<String> = groups
        .iter()
        .map(|g| {
            let rows: Vec<&FaultInfo> = CATALOG.iter().filter(|f| group(f.fault) == *g).collect();
            let mut t = String::from(
                "| fault | clause it breaks | what the reference does |\n|---|---|---|\n",
            );
            for f in rows {
                t.push_str(&format!(
                    "| `{}` | {} | {} |\n",
                    f.name,
                    cell(f.clause),
                    cell(f.description)
                ));
            }
            t
        })
        .collect();
    tables.join("\n")
}

/// The variant tables of docs/reference.md: the variants of what the reference answers, the
/// demanding ones (what it accepts), and the profile variants, separated by a blank line.
pub fn variant_tables() -> String {
    let table = |rows: Vec<&VariantInfo>| {
        let mut t =
            String::from("| variant | READINGS | what the reference does |\n|---|---|---|\n");
        for v in rows {
            t.push_str(&variant_row(v));
        }
        t
    };
    let answers = VARIANTS.iter().filter(|v| !v.variant.demanding()).collect();
    let demands = VARIANTS.iter().filter(|v| v.variant.demanding()).collect();
    let profiles = PROFILE_VARIANTS.iter().collect();
    format!(
        "{}\n{}\n{}",
        table(answers),
        table(demands),
        table(profiles)
    )
}

fn variant_row(v: &VariantInfo) -> String {
    format!(
        "| `{}` | {} | {} |\n",
        v.name,
        cell(v.reading),
        cell(v.description)
    )
}

/// The groups of the fault catalog, in catalog order: the README gives each a table of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FaultGroup {
    /// Faults of what the reference answers.
    Answers,
    /// Faults of effects read back and side effects watched (issue 16): the catalog's section
    /// from `available-search-buys` on.
    Effects,
    /// Faults of what the suite sends (issue 15): those of a demanding variant's family.
    Sends,
    /// Faults of the kinds of defect no trial tried before (issue 30, `docs/defect-kinds.md`):
    /// the catalog's section from `custom-field-type-unchecked` on.
    Kinds,
}

fn group(f: Fault) -> FaultGroup {
    if f.family().is_some() {
        FaultGroup::Sends
    } else if f >= Fault::CustomFieldTypeUnchecked {
        FaultGroup::Kinds
    } else if f >= Fault::AvailableSearchBuys {
        FaultGroup::Effects
    } else {
        FaultGroup::Answers
    }
}

/// A table cell: a `|` of the text would end the cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}
