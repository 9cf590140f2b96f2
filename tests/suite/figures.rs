//! Every figure of the README and of docs/ is generated from the code or a run, or is a dated
//! measurement: the docs cannot drift from the suite they describe.
//!
//! - `<!-- generated:NAME -->…<!-- /generated:NAME -->` holds what [`figure`] computes for NAME
//!   from the code, the catalog and the records (trial, fault and variant counts, record lines,
//!   the faults a variant hides), or from a run of the binary against the embedded reference.
//!   The test compares them; `UPDATE_SNAPSHOTS=1 cargo test --test suite figures` rewrites them.
//! - `<!-- measured:YYYY-MM-DD -->…<!-- /measured -->` holds what a run measured on a machine
//!   (bench times, CI timings): the text inside says "measured on YYYY-MM-DD" where a reader sees
//!   it, and the test checks the block is dated and well formed. `measured:pending` marks a
//!   measurement still to be made, and says "not yet measured".
//! - Outside these blocks, no number reads as a figure of the suite (`N trials`, `N faults`,
//!   `N requests`, `N s`, ...): the test names the page and line of each, but for the constants
//!   of [`CONSTANTS`], each with what holds it.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use conformance_reference::{CATALOG, PENDING, PROFILE_VARIANTS, VARIANTS};
use regex::Regex;

/// The pages whose figures are held: the README and every page of docs/.
fn pages() -> Vec<(String, String)> {
    let root = crate::common::sources::root();
    let mut names = vec!["README.md".to_string()];
    let mut docs: Vec<String> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    docs.sort();
    names.extend(docs);
    names
        .into_iter()
        .map(|n| {
            let text =
                std::fs::read_to_string(root.join(&n)).unwrap_or_else(|e| panic!("{n}: {e}"));
            (n, text)
        })
        .collect()
}

/// One marked block of a page: where its content starts and ends (bytes), its first line, and
/// what it holds.
#[derive(Debug)]
struct Block {
    kind: Kind,
    line: usize,
    content: std::ops::Range<usize>,
}

#[derive(Debug, PartialEq)]
enum Kind {
    Generated(String),
    Measured(String),
}

static OPEN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"<!-- (generated|measured):([A-Za-z0-9_.-]+) -->").expect("a regex")
});
static DATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$").unwrap());

/// The blocks of `text`, or what is wrong with their markers (`page:line: ...`).
fn blocks(page: &str, text: &str) -> Result<Vec<Block>, Vec<String>> {
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    let mut out = Vec::new();
    let mut wrong = Vec::new();
    let mut from = 0;
    while let Some(c) = OPEN.captures_at(text, from) {
        let open = c.get(0).expect("the match");
        let (kind, name) = (&c[1], c[2].to_string());
        let close = if kind == "generated" {
            format!("<!-- /generated:{name} -->")
        } else {
            "<!-- /measured -->".to_string()
        };
        let Some(len) = text[open.end()..].find(&close) else {
            wrong.push(format!(
                "{page}:{}: `{}` is never closed by `{close}`",
                line_of(open.start()),
                open.as_str()
            ));
            break;
        };
        let content = open.end()..open.end() + len;
        let starts_line = open.start() == 0 || text[..open.start()].ends_with('\n');
        if starts_line && !text[content.clone()].starts_with('\n') {
            wrong.push(format!(
                "{page}:{}: `{}` begins a line: Markdown reads such a line as raw HTML (put a \
                 word before it, or give the block lines of its own)",
                line_of(open.start()),
                open.as_str()
            ));
        }
        if let Some(inner) = OPEN.find(&text[content.clone()]) {
            wrong.push(format!(
                "{page}:{}: `{}` opens inside another block",
                line_of(open.end() + inner.start()),
                inner.as_str()
            ));
        }
        out.push(Block {
            kind: if kind == "generated" {
                Kind::Generated(name)
            } else {
                Kind::Measured(name)
            },
            line: line_of(open.start()),
            content: content.clone(),
        });
        from = content.end + close.len();
    }
    let stray = Regex::new(r"<!-- /(generated:[A-Za-z0-9_.-]+|measured) -->").unwrap();
    let closes = stray.find_iter(text).count();
    if wrong.is_empty() && closes != out.len() {
        wrong.push(format!(
            "{page}: {closes} closing markers for {} blocks",
            out.len()
        ));
    }
    if wrong.is_empty() {
        Ok(out)
    } else {
        Err(wrong)
    }
}

/// A figure the code gives, and how a block holding it is compared: exactly, or with what a run
/// may vary (ports, ids, times, a request count within 5%) taken out.
struct Figure {
    text: String,
    varies: bool,
}

fn exact(text: impl Into<String>) -> Figure {
    Figure {
        text: text.into(),
        varies: false,
    }
}

/// What a block of a run's output may differ in from one run to the next: the loopback port, the
/// run id, the seed, the times and the rate, the cleanup's counts; the request counts are
/// compared apart.
fn steady(text: &str) -> String {
    static VARYING: LazyLock<Vec<(Regex, &str)>> = LazyLock::new(|| {
        [
            (r"127\.0\.0\.1:[0-9]+", "127.0.0.1:PORT"),
            (r"\br[0-9a-f]{7}\b", "RUN"),
            (r"seed [0-9]+…?", "seed N…"),
            (r" {2,}", " "),
            (r"[0-9]+(\.[0-9]+)? ?s\b", "T s"),
            (r"[0-9]+ requests/s", "R requests/s"),
            (r"\b[0-9]+ requests\b", "N requests"),
            (r"requests: [0-9]+ sent", "requests: N sent"),
            // What the cleanup meets depends on the random sequences' draws.
            (r"[0-9]+ removed", "N removed"),
            (
                r"[0-9]+ ([a-z]+(, [0-9]+ [a-z]+)*( and [0-9]+ [a-z]+)? )?left without",
                "N left without",
            ),
        ]
        .into_iter()
        .map(|(re, to)| (Regex::new(re).expect("a regex"), to))
        .collect()
    });
    VARYING.iter().fold(text.to_string(), |t, (re, to)| {
        re.replace_all(&t, *to).into_owned()
    })
}

/// The request counts of a run's output, in order (rates left out).
fn request_counts(text: &str) -> Vec<u64> {
    static RATE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[0-9]+ requests/s").expect("a regex"));
    static COUNT: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?:requests: ([0-9]+) sent|\b([0-9]+) requests\b)").expect("a regex")
    });
    let text = RATE.replace_all(text, "R");
    COUNT
        .captures_iter(&text)
        .filter_map(|c| c.get(1).or(c.get(2)))
        .filter_map(|m| m.as_str().parse().ok())
        .collect()
}

/// Whether the content of a block is the figure: exactly, or (for a run's output) with the same
/// steady text and request counts within 5%. A default run's count moves by up to 3.5% either
/// side of its middle from run to run (the relations walk whole collections, whose size depends
/// on what the trials running beside them have created; the sequences read lists too): ten runs
/// on 2026-11-27 sent 1,695 to 1,803 requests.
fn holds(content: &str, figure: &Figure) -> bool {
    if !figure.varies {
        return content == figure.text;
    }
    let (ours, theirs) = (request_counts(content), request_counts(&figure.text));
    steady(content) == steady(&figure.text)
        && ours.len() == theirs.len()
        && ours
            .iter()
            .zip(&theirs)
            .all(|(a, b)| a * 100 <= b * 105 && a * 100 >= b * 95)
}

/// Every figure the docs may hold, by name. Those that need a run of the binary are computed once.
fn figures() -> &'static BTreeMap<&'static str, Figure> {
    static FIGURES: LazyLock<BTreeMap<&'static str, Figure>> = LazyLock::new(compute);
    &FIGURES
}

fn compute() -> BTreeMap<&'static str, Figure> {
    let (_, cases) = crate::common::catalog();
    let trials = cases.len();
    let faults = CATALOG.len();
    let boundary = CATALOG.iter().filter(|f| f.boundary).count();
    let demanding = VARIANTS.iter().filter(|v| v.variant.demanding()).count();
    let record = crate::common::catches::Record::read().expect("the catch record reads");
    let waivers = waivers();
    let waived = |kind: &str| waivers.iter().filter(|k| *k == kind).count();
    let proven_by_waiver = waivers.iter().filter(|k| *k != "uncited").count();
    let with_fault: std::collections::BTreeSet<&str> = CATALOG.iter().map(|f| f.clause).collect();
    let blind = |set: u8| {
        CATALOG
            .iter()
            .chain(PENDING)
            .filter(|f| f.blind_set == Some(set))
            .count()
    };
    let joined = CATALOG.iter().filter(|f| f.blind_set.is_some()).count();
    let mut out = BTreeMap::new();
    out.insert("trials", exact(trials.to_string()));
    out.insert("faults", exact(faults.to_string()));
    out.insert("boundary-faults", exact(boundary.to_string()));
    out.insert("variants", exact(VARIANTS.len().to_string()));
    out.insert(
        "profile-variant-count",
        exact(format!("{} profile variants", PROFILE_VARIANTS.len())),
    );
    out.insert(
        "profile-variants",
        exact(
            PROFILE_VARIANTS
                .iter()
                .map(|v| format!("`{}` ({})", v.name, v.description))
                .collect::<Vec<_>>()
                .join("; "),
        ),
    );
    out.insert(
        "variant-families",
        exact(format!(
            "{} variants in all, {} of what a target may answer and {demanding} of what it may demand",
            VARIANTS.len(),
            VARIANTS.len() - demanding
        )),
    );
    out.insert(
        "record-lines",
        exact(format!(
            "{} lines for {faults} faults",
            record.always.len() + record.sometimes.len()
        )),
    );
    out.insert("sometimes-lines", exact(record.sometimes.len().to_string()));
    let summary = defects_summary();
    let number = |after: &str| -> usize {
        summary
            .split(after)
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("`{after}N` in {summary}"))
    };
    out.insert(
        "own-defect-later",
        exact((number("Of the ") - number("; for ")).to_string()),
    );
    out.insert("defects-per-fault", exact(summary));
    out.insert(
        "clauses",
        exact(format!(
            "of the {} clauses a check can cite, {} have a fault, and the other {proven_by_waiver} a \
             written waiver in `schemas/clause-waivers.yaml` ({} whose rules have faults of \
             their own, {} restated by a clause that has one, {} proven by the hostile targets \
             instead, and {} *unproven*: no fault shows it failing yet)",
            with_fault.len() + proven_by_waiver,
            with_fault.len(),
            match waived("heading") {
                1 => "1 heading".to_string(),
                n => format!("{n} headings"),
            },
            match waived("restated") {
                1 => "1 rule".to_string(),
                n => format!("{n} rules"),
            },
            waived("hostile"),
            waived("unproven"),
        )),
    );
    out.insert("uncited-clauses", exact(waived("uncited").to_string()));
    out.insert(
        "uncited-claim",
        exact(format!(
            "The other {} clauses of `schemas/clauses.yaml` no check can cite; each has an `uncited` waiver saying why",
            waived("uncited")
        )),
    );
    out.insert("hidden-faults", exact(hidden_faults()));
    out.insert(
        "blind-faults",
        exact({
            let sets: Vec<u8> = (1..=u8::MAX).take_while(|s| blind(*s) > 0).collect();
            let each: Vec<String> = sets
                .iter()
                .map(|s| format!("{} in blind set {s}", blind(*s)))
                .collect();
            let listed = match each.split_last() {
                Some((last, [])) => last.clone(),
                Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
                None => "none".into(),
            };
            format!(
                "{}; {joined} of them have joined the catalog, {} wait to join it",
                listed.replacen(" in blind set", " faults in blind set", 1),
                PENDING.len()
            )
        }),
    );
    out.insert(
        "progress-line",
        exact(format!(
            "\n```\nprogress: 212 of {trials} trials done, 3 failed, 10 s, 2270 requests (227 requests/s)\n```\n"
        )),
    );
    out.insert("three-fault-run", exact(three_fault_run(trials)));
    let run = default_run();
    out.insert(
        "default-run",
        Figure {
            text: run,
            varies: true,
        },
    );
    let (line, found, requests) = discovery();
    out.insert(
        "discovery-summary",
        Figure {
            text: format!("\n```\n{line}\n```\n"),
            varies: true,
        },
    );
    out.insert(
        "discovery-found",
        Figure {
            text: format!("{found} fixtures in {requests} requests"),
            varies: true,
        },
    );
    out
}

/// The kind of every waiver of `schemas/clause-waivers.yaml`.
fn waivers() -> Vec<String> {
    let text =
        std::fs::read_to_string(crate::common::sources::root().join("schemas/clause-waivers.yaml"))
            .expect("the waivers");
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("kind:"))
        .map(|k| k.trim().to_string())
        .collect()
}

/// The sentence the defects record states in its header (the self-test writes it from the runs).
fn defects_summary() -> String {
    let text = std::fs::read_to_string(crate::common::defects::path()).expect("the defects record");
    text.lines()
        .find_map(|l| l.strip_prefix("# Of the "))
        .map(|rest| format!("Of the {rest}"))
        .expect("the defects record states its figures in its header")
}

/// The faults a variant would hide, each with the variants the self-test leaves off for it.
fn hidden_faults() -> String {
    let name = |v| {
        VARIANTS
            .iter()
            .find(|i| i.variant == v)
            .map(|i| format!("`{}`", i.name))
            .expect("a variant of the catalog")
    };
    let hidden: Vec<String> = CATALOG
        .iter()
        .filter(|f| !f.fault.hidden_by().is_empty())
        .map(|f| {
            let by: Vec<String> = f.fault.hidden_by().iter().map(|v| name(*v)).collect();
            format!("`{}` (without {})", f.name, by.join(" and "))
        })
        .collect();
    format!(
        "{} faults are run with every variant but those that would hide them: {}",
        hidden.len(),
        hidden.join(", ")
    )
}

/// The three-fault run of the README and docs/reports.md: the defects as the snapshot of the
/// terminal's defect list holds them, and the counts they imply.
fn three_fault_run(trials: usize) -> String {
    let snap = std::fs::read_to_string(
        crate::common::sources::root().join("snapshots/defects-terminal.snap"),
    )
    .expect("snapshots/defects-terminal.snap");
    let lines: Vec<&str> = snap
        .splitn(3, "---\n")
        .nth(2)
        .expect("an insta snapshot")
        .lines()
        .collect();
    let head = lines.first().expect("the defects' first line");
    let failed: usize = head
        .split(" defects in ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("`N defects in M failed trials`");
    let defects = head.split(' ').next().expect("N defects");
    let passed = trials - failed;
    // The terminal's tail: libtest's summary, one cleanup line, the requests, the `serve`
    // command of the same reference, the defects with their curls, the verdict.
    format!(
        "\n```\ntest result: FAILED. {passed} passed; {failed} failed; 0 ignored; 0 measured; 0 filtered out; finished in 4.10s\n\n\
         cleanup (run rb5f1412): 13 removed, 0 already gone, 0 could not be removed, 91 contacts left without a delete endpoint (tagged with the run id)\n\
         requests: … sent in 4.40 s\n\
         reproduce against the same reference: workspace-conformance serve --listen 127.0.0.1:[port] --fault missing-auth-accepted --fault duplicate-across-pages --fault wrong-content-type --profile-out reference-profile.json & export WORKSPACE_API_KEY=\"$(jq -r .apiKey reference-profile.json)\"\n\
         {}\nverdict: FAILED: {defects} defects in {failed} failed trials, {passed} passed, 0 ignored\n```\n",
        lines.join("\n")
    )
}

/// The default run of the binary against the embedded reference, as the README shows it: its
/// first line, the first case's line, the summary, the cleanup, the requests and the verdict.
fn default_run() -> String {
    let out = crate::common::binary::run(&[]);
    assert!(
        out.status.success(),
        "the default run failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let line = |prefix: &str| {
        text.lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("the default run printed no line `{prefix}`:\n{text}"))
    };
    static SEED: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"seed ([0-9]{4})[0-9]+").expect("a regex"));
    let first = SEED.replace(line("certifying "), "seed $1…");
    format!(
        "\n```\n{first}\n\n{}\n{}\n...\n{}\n\n{}\n{}\n{}\n```\n",
        line("running "),
        line("test v1.contacts.create.returns-201-with-contact "),
        line("test result:"),
        line("cleanup "),
        line("requests:"),
        line("verdict:")
    )
}

/// Discovery against a fresh `serve`: its summary line, how many fixtures it found, in how many
/// requests.
fn discovery() -> (String, usize, u64) {
    let served = crate::common::binary::serve("figures-discover", &[]);
    let profile: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&served.profile).expect("the profile"))
            .expect("a JSON profile");
    let key = profile["apiKey"].as_str().expect("apiKey");
    let out_file = served.profile.with_file_name("discovered.json");
    let out = crate::common::binary::run(&[
        "discover",
        "--target",
        &served.url,
        "--api-key",
        key,
        "--out",
        out_file.to_str().expect("a UTF-8 path"),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    let summary = text
        .lines()
        .find(|l| l.contains(" found, ") && l.contains(" missing"))
        .unwrap_or_else(|| panic!("no summary line in discover's output:\n{text}"))
        .to_string();
    let found = summary
        .split(' ')
        .next()
        .and_then(|n| n.parse().ok())
        .expect("`N found`");
    let requests = request_counts(&summary)
        .last()
        .copied()
        .expect("`N requests`");
    (summary, found, requests)
}

/// What is wrong with the generated blocks of `text`: a name no figure has, or a content that is
/// not the figure's (with how to regenerate it).
fn check_generated(page: &str, text: &str, figures: &BTreeMap<&str, Figure>) -> Vec<String> {
    let blocks = match blocks(page, text) {
        Ok(b) => b,
        Err(wrong) => return wrong,
    };
    let mut wrong = Vec::new();
    for b in blocks {
        let Kind::Generated(name) = &b.kind else {
            continue;
        };
        let content = &text[b.content.clone()];
        match figures.get(name.as_str()) {
            None => wrong.push(format!(
                "{page}:{}: no figure is named `{name}` (tests/suite/figures.rs names them)",
                b.line
            )),
            Some(figure) if !holds(content, figure) => wrong.push(format!(
                "{page}:{}: `{name}` reads {content:?}; the code gives {:?} \
                 (rewrite with `UPDATE_SNAPSHOTS=1 cargo test --test suite figures`)",
                b.line, figure.text
            )),
            Some(_) => {}
        }
    }
    wrong
}

/// `text` with every generated block rewritten to its figure (those that hold are left as they
/// are, so that a run's output is not rewritten for its times alone).
fn regenerate(page: &str, text: &str, figures: &BTreeMap<&str, Figure>) -> String {
    let blocks = blocks(page, text).unwrap_or_else(|w| panic!("{}", w.join("\n")));
    let mut out = String::new();
    let mut at = 0;
    for b in blocks {
        let Kind::Generated(name) = &b.kind else {
            continue;
        };
        let Some(figure) = figures.get(name.as_str()) else {
            continue;
        };
        if holds(&text[b.content.clone()], figure) {
            continue;
        }
        out.push_str(&text[at..b.content.start]);
        out.push_str(&figure.text);
        at = b.content.end;
    }
    out.push_str(&text[at..]);
    out
}

/// What is wrong with the measured blocks of `text`: a marker's date that is no date, or a
/// block that does not say, where a reader sees it, when it was measured.
fn check_measured(page: &str, text: &str) -> Vec<String> {
    let blocks = match blocks(page, text) {
        Ok(b) => b,
        Err(wrong) => return wrong,
    };
    let mut wrong = Vec::new();
    for b in blocks {
        let Kind::Measured(date) = &b.kind else {
            continue;
        };
        let content = &text[b.content.clone()];
        if date == "pending" {
            if !content.contains("not yet measured") {
                wrong.push(format!(
                    "{page}:{}: a pending measurement says \"not yet measured\"",
                    b.line
                ));
            }
        } else if !DATE.is_match(date) {
            wrong.push(format!(
                "{page}:{}: `measured:{date}` is not a date (YYYY-MM-DD)",
                b.line
            ));
        } else if !content.contains(&format!("measured on {date}")) {
            wrong.push(format!(
                "{page}:{}: the block measured on {date} does not say so (\"measured on {date}\")",
                b.line
            ));
        }
    }
    wrong
}

/// Numbers that read as figures of the suite: counts of what it has and does, and durations.
static FIGURE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"requests: [0-9]+|\b[1-9][0-9,]* (?:passed|failed|ignored)\b|\b[0-9][0-9,]*(?:\.[0-9]+)?(?:\s+(?:trials?|faults?|requests?|variants?|clauses?|fixtures?|defects?|lines|mutants?|seconds|minutes|MB)\b|\s?(?:ms|s|min)\b|%)",
    )
    .expect("a regex")
});

/// Numbers that read as figures but are constants the code or the contract fixes, with what
/// holds each: (the phrase as written, why it needs no block).
const CONSTANTS: &[(&str, &str)] = &[
    (
        "88%",
        "the share of faults that must give one defect, held by tests/suite/self_test.rs",
    ),
    (
        "95%",
        "the share of faults whose first defect must cite their own clause, held by tests/suite/self_test.rs",
    ),
    (
        "5s",
        "a mistyped fixture value in an error example (docs/profile.md)",
    ),
    (
        "10 s",
        "the default --timeout and the progress line's period, stated by --help",
    ),
    ("10 seconds", "the default --timeout, stated by --help"),
    (
        "2 s",
        "the timeout the hostile-target examples give (tests/suite/hostile.rs)",
    ),
    (
        "5 s",
        "a bound the tests assert (an unreachable target, the default run's target)",
    ),
    ("30 s", "3 × the default --timeout"),
    ("60 ms", "the reference's retry spacing of deliveries"),
    ("250 ms", "the read-again period of a queued send"),
    (
        "400 ms",
        "the delay of the variants webhook-delivery-delay and messages-listed-late",
    ),
    ("480 ms", "the delay of the variant webhook-delivery-delay"),
    (
        "50 ms",
        "the bench's DELAY_MS and the reachability probe's pause",
    ),
    ("95 s", "the bench's target at 10 requests per second"),
    ("100 MB", "the bench's target for peak memory"),
    ("300 MB", "the bound tests/suite/webhooks.rs asserts"),
    ("2 MB", "the deliveries tests/suite/webhooks.rs fires"),
    (
        "7 MB",
        "the answers of the hostile target (tests/suite/hostile.rs)",
    ),
    (
        "5.1 ms",
        "an example failure's answer time (snapshots/explanation.snap)",
    ),
    ("50%", "the bench's target for the client's rate"),
    ("90%", "the share tests/suite/common/defects.rs requires"),
    ("64 requests", "the client's most requests in flight"),
    ("48 trials", "the default --test-threads"),
    (
        "10 requests",
        "the real service's documented limit (--rate 10)",
    ),
    ("1 defect", "a count of the defects sentence's kinds"),
    ("3 or more", "a count of the defects sentence's kinds"),
];

/// The figures of `text` outside generated and measured blocks, as `page:line: phrase`.
fn loose_figures(page: &str, text: &str) -> Vec<String> {
    let blocks = blocks(page, text).unwrap_or_default();
    let inside = |at: usize| {
        blocks
            .iter()
            .any(|b| b.content.start <= at && at < b.content.end)
    };
    let mut out = Vec::new();
    let mut offset = 0;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        for m in FIGURE.find_iter(line) {
            let phrase = m.as_str().trim_end();
            let constant = CONSTANTS
                .iter()
                .any(|(c, _)| phrase == *c || phrase.starts_with(&format!("{c} ")));
            if !constant && !inside(offset + m.start()) {
                out.push(format!("{page}:{}: `{phrase}`", n + 1));
            }
        }
        offset += line.len();
    }
    out
}

#[test]
fn every_generated_figure_is_what_the_code_gives() {
    let figures = figures();
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut wrong = Vec::new();
    let mut seen = 0;
    for (page, text) in pages() {
        seen += blocks(&page, &text)
            .map(|b| {
                b.iter()
                    .filter(|b| matches!(b.kind, Kind::Generated(_)))
                    .count()
            })
            .unwrap_or(0);
        if update {
            let new = regenerate(&page, &text, figures);
            if new != text {
                std::fs::write(crate::common::sources::root().join(&page), new).expect("write");
            }
        } else {
            wrong.extend(check_generated(&page, &text, figures));
        }
    }
    assert!(seen >= 10, "only {seen} generated blocks in the docs");
    assert!(
        wrong.is_empty(),
        "figures that drifted:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn every_measured_figure_is_dated() {
    let mut wrong = Vec::new();
    let mut seen = 0;
    for (page, text) in pages() {
        seen += blocks(&page, &text)
            .map(|b| {
                b.iter()
                    .filter(|b| matches!(b.kind, Kind::Measured(_)))
                    .count()
            })
            .unwrap_or(0);
        wrong.extend(check_measured(&page, &text));
    }
    assert!(seen >= 3, "only {seen} measured blocks in the docs");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_figure_stands_outside_a_block() {
    let mut loose = Vec::new();
    for (page, text) in pages() {
        loose.extend(loose_figures(&page, &text));
    }
    assert!(
        loose.is_empty(),
        "figures outside a generated or measured block (generate them in tests/suite/figures.rs, \
         or put a measurement in a dated block):\n{}",
        loose.join("\n")
    );
}

/// The checks can fail: a figure changed in one page, a figure written outside a block, an
/// undated measurement and a broken marker are each refused, naming the page and line.
#[test]
fn changing_a_figure_in_a_page_fails_the_check() {
    let figures = figures();
    let trials = &figures["trials"].text;
    let page = "docs/self-proof.md";
    let readme =
        std::fs::read_to_string(crate::common::sources::root().join(page)).expect("the page");
    let marked = format!("<!-- generated:trials -->{trials}<!-- /generated:trials -->");
    assert!(
        readme.contains(&marked),
        "{page} states the trial count in a block"
    );
    assert!(check_generated(page, &readme, figures).is_empty());
    let one_more = (trials.parse::<usize>().expect("a count") + 1).to_string();
    let changed = readme.replacen(
        &marked,
        &format!("<!-- generated:trials -->{one_more}<!-- /generated:trials -->"),
        1,
    );
    let wrong = check_generated(page, &changed, figures);
    assert!(
        wrong.len() == 1
            && wrong[0].starts_with(&format!("{page}:"))
            && wrong[0].contains("`trials`"),
        "{wrong:?}"
    );
    // The rewrite restores it.
    assert_eq!(regenerate(page, &changed, figures), readme);
    // A run's output holds its trial count exactly, its request count within 5%.
    let run = &figures["default-run"].text;
    let more_trials = run.replace(&format!(" {trials} "), &format!(" {one_more} "));
    assert!(!holds(&more_trials, &figures["default-run"]));
    let requests = request_counts(run)[0];
    let doubled = run.replace(
        &format!("requests: {requests} sent"),
        &format!("requests: {} sent", requests * 2),
    );
    assert!(!holds(&doubled, &figures["default-run"]));
    // A figure typed outside a block.
    let typed = format!("{readme}\nThe default run has {one_more} trials.\n");
    let loose = loose_figures(page, &typed);
    assert_eq!(
        loose,
        vec![format!(
            "{page}:{}: `{one_more} trials`",
            typed.lines().count()
        )]
    );
    // A measurement without its date, and a marker never closed.
    let undated = "It <!-- measured:2026-11-26 -->took 12 s<!-- /measured -->";
    assert_eq!(check_measured("p.md", undated).len(), 1);
    let dated =
        "It <!-- measured:2026-11-26 -->took 12 s (measured on 2026-11-26)<!-- /measured -->";
    assert!(check_measured("p.md", dated).is_empty());
    assert!(loose_figures("p.md", dated).is_empty());
    assert_eq!(
        check_measured("p.md", "It <!-- measured:26-11-2026 -->x<!-- /measured -->").len(),
        1
    );
    assert!(blocks("p.md", "It <!-- generated:trials -->1").is_err());
}
