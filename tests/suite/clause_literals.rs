//! Every clause the code can cite is one of `schemas/clauses.yaml`: a clause literal of the crates' sources
//! (a string holding " > ", or the first argument of `Finding::new`) and the clause of every
//! fault of the reference's catalog. An unknown clause fails with its file and line; the route
//! table and the case files are checked when they load.

use conformance_contract::{CLAUSES_YAML, Clauses};

/// The string literals of Rust source: (byte offset, text between the quotes, escapes kept),
/// raw strings included; comments and character literals are skipped.
fn literals(text: &str) -> Vec<(usize, String)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'\'' => {
                // A character literal ('x', '\n', '"') or a lifetime ('a).
                if b.get(i + 1) == Some(&b'\\') {
                    i += 2;
                    while i < b.len() && b[i] != b'\'' {
                        i += 1;
                    }
                    i += 1;
                } else if b.get(i + 2) == Some(&b'\'') {
                    i += 3;
                } else {
                    i += 1;
                }
            }
            b'r' if (b.get(i + 1) == Some(&b'"') || b.get(i + 1) == Some(&b'#'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let mut j = i + 1;
                let mut hashes = 0;
                while b.get(j) == Some(&b'#') {
                    hashes += 1;
                    j += 1;
                }
                if b.get(j) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let start = j + 1;
                let close = format!("\"{}", "#".repeat(hashes));
                let end = text[start..].find(&close).map_or(b.len(), |e| start + e);
                out.push((start, text[start..end].to_string()));
                i = end + close.len();
            }
            b'"' => {
                let start = i + 1;
                let mut j = start;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                out.push((start, text[start..j.min(b.len())].to_string()));
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// Whether the literal at `offset` is a clause: it holds " > " (every heading path does), or it
/// is the first argument of `Finding::new`.
fn is_clause(text: &str, offset: usize, literal: &str) -> bool {
    if literal.is_empty() || literal.contains('{') {
        return false;
    }
    literal.contains(" > ") || text[..offset - 1].trim_end().ends_with("Finding::new(")
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset].matches('\n').count() + 1
}

/// `file:line: clause` of every clause literal of the crates' sources that the catalog lacks.
fn unknown_literals(clauses: &Clauses) -> (usize, Vec<String>) {
    let (mut seen, mut unknown) = (0, Vec::new());
    for (rel, text) in crate::common::sources::all() {
        for (offset, literal) in literals(&text) {
            if !is_clause(&text, offset, &literal) {
                continue;
            }
            seen += 1;
            // The catalog holds the clause as written; a Rust literal escapes `\` and `"`.
            let clause = literal.replace("\\\\", "\\").replace("\\\"", "\"");
            if !clauses.contains(&clause) {
                unknown.push(format!("{rel}:{}: `{clause}`", line_of(&text, offset)));
            }
        }
    }
    (seen, unknown)
}

#[test]
fn every_clause_literal_of_src_is_in_the_catalog() {
    let clauses = Clauses::parse(CLAUSES_YAML).expect("schemas/clauses.yaml parses");
    let (seen, unknown) = unknown_literals(&clauses);
    assert!(
        seen >= 100,
        "only {seen} clause literals found in the crates' sources: the scan is broken"
    );
    assert!(
        unknown.is_empty(),
        "clauses not in schemas/clauses.yaml:\n{}",
        unknown.join("\n")
    );
}

#[test]
fn every_fault_of_the_reference_breaks_a_catalogued_clause() {
    let clauses = Clauses::parse(CLAUSES_YAML).expect("schemas/clauses.yaml parses");
    let file = "crates/reference/src/faults.rs";
    let text = crate::common::sources::read(std::path::Path::new(file));
    let unknown: Vec<String> = conformance_reference::CATALOG
        .iter()
        .filter(|f| !clauses.contains(f.clause))
        .map(|f| {
            let line = text
                .find(&format!("\"{}\"", f.name))
                .map_or(0, |o| line_of(&text, o));
            format!("{file}:{line}: fault `{}` cites `{}`", f.name, f.clause)
        })
        .collect();
    assert!(
        unknown.is_empty(),
        "faults citing clauses not in schemas/clauses.yaml:\n{}",
        unknown.join("\n")
    );
}

#[test]
fn the_scan_reads_literals_as_rust_writes_them() {
    let src = "// \"Not > a clause\"\nlet c = '\"'; Finding::new(\n    \"Limits\", \"x\", r#\"A > \"B\"#, \"Errors > Rules > 9\");";
    let found: Vec<(usize, String)> = literals(src)
        .into_iter()
        .filter(|(o, l)| is_clause(src, *o, l))
        .map(|(o, l)| (line_of(src, o), l))
        .collect();
    assert_eq!(
        found,
        vec![
            (3, "Limits".to_string()),
            (3, "A > \"B".to_string()),
            (3, "Errors > Rules > 9".to_string()),
        ]
    );
}
