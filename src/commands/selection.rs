//! The trials a run selects: the selection options, then libtest's filters. Nothing chosen is a
//! setup mistake (a typo of an area or a filter), never a pass.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use crate::cli::RunArgs;
use crate::error::{Error, NothingSelected};
use conformance_suite::cases::Case;
use conformance_suite::catalog;

/// The cases the selection options keep, and the names of those libtest will run of them (its
/// filter, --skip, --exact, --ignored).
pub fn select_trials(
    args: &RunArgs,
    cases: Vec<Arc<Case>>,
) -> Result<(Vec<Arc<Case>>, HashSet<String>), Error> {
    let known_areas: BTreeSet<String> = cases.iter().map(|c| c.area.clone()).collect();
    // A mistyped area is a mistake even where another area selects trials (`--list` excepted,
    // which only shows what a selection keeps).
    if let Some(name) = args.areas.iter().find(|a| !known_areas.contains(*a)) {
        if !args.test.list {
            return Err(Error::UnknownArea {
                name: name.clone(),
                nearest: super::nearest::nearest(name, known_areas.iter().map(String::as_str))
                    .map(str::to_string),
                areas: known_areas.iter().cloned().collect(),
            });
        }
    }
    let cases = catalog::select(
        cases,
        &catalog::Selection {
            areas: args.areas.clone(),
            tags: args.tags.clone(),
            read_only: args.read_only,
            partition: args.partition,
        },
    );
    let chosen: HashSet<String> = cases
        .iter()
        .filter(|c| {
            !args
                .test
                .libtest()
                .is_filtered_out(&libtest_mimic::Trial::test(c.name.clone(), || Ok(())))
        })
        .map(|c| c.name.clone())
        .collect();
    if chosen.is_empty() && !args.test.list {
        return Err(Error::NothingSelected(nothing_selected(args, &known_areas)));
    }
    // A re-run of a target's result certifies that target: discovery applies to it.
    if args.discover && args.target.is_none() && args.rerun.is_none() {
        return Err(Error::DiscoverWithoutTarget);
    }
    Ok((cases, chosen))
}

/// What the selection keeps of `all` before `--partition` (the options, then libtest's filter),
/// counted and fingerprinted, with the partition: the parts of one split share the fingerprint.
pub fn identity(args: &RunArgs, all: Vec<Arc<Case>>) -> conformance_suite::report::SelectionOut {
    let whole = catalog::select(
        all,
        &catalog::Selection {
            areas: args.areas.clone(),
            tags: args.tags.clone(),
            read_only: args.read_only,
            partition: None,
        },
    );
    let filter = args.test.libtest();
    let mut names: Vec<&str> = whole
        .iter()
        .filter(|c| !filter.is_filtered_out(&libtest_mimic::Trial::test(c.name.clone(), || Ok(()))))
        .map(|c| c.name.as_str())
        .collect();
    names.sort_unstable();
    let mut hash = hmac_sha256::Hash::new();
    hash.update(env!("CARGO_PKG_VERSION").as_bytes());
    for n in &names {
        hash.update(b"\n");
        hash.update(n.as_bytes());
    }
    let digest: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
    conformance_suite::report::SelectionOut {
        options: options(args),
        partition: args.partition.map(|(k, n)| format!("{k}/{n}")),
        trials: names.len(),
        catalog: digest,
    }
}

/// Per clause, the trials of `all` (the whole catalog) citing it that are not `chosen`: the
/// clause matrix says such a clause was not reached, never that it is not covered.
pub fn not_selected(all: &[Arc<Case>], chosen: &HashSet<String>) -> BTreeMap<String, usize> {
    let mut out: BTreeMap<String, usize> = BTreeMap::new();
    for case in all.iter().filter(|c| !chosen.contains(&c.name)) {
        for clause in conformance_suite::report::coverage::cited(case) {
            *out.entry(clause).or_default() += 1;
        }
    }
    out
}

/// The options that narrow the selection before `--partition`, as the user wrote them: what a
/// result's selection names (`compare` tells results of another selection by them).
fn options(args: &RunArgs) -> Vec<String> {
    let mut given = Vec::new();
    for a in &args.areas {
        given.push(format!("--area {a}"));
    }
    for t in &args.tags {
        given.push(format!("--tag {t}"));
    }
    if args.read_only {
        given.push("--read-only".into());
    }
    if let Some(f) = &args.test.filter {
        given.push(format!("the filter `{f}`"));
    }
    for s in &args.test.skip {
        given.push(format!("--skip {s}"));
    }
    if args.test.exact {
        given.push("--exact".into());
    }
    given
}

/// Why nothing is selected: the options that narrowed the selection.
fn nothing_selected(args: &RunArgs, known: &BTreeSet<String>) -> NothingSelected {
    let mut given = options(args);
    if let Some((k, n)) = args.partition {
        given.push(format!("--partition {k}/{n}"));
    }
    if args.test.ignored {
        given.push("--ignored (no trial is marked ignored)".into());
    }
    NothingSelected {
        given,
        areas: known.iter().cloned().collect(),
    }
}
