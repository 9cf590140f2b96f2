//! `merge`: the JSON results of `--partition 1/3`, `2/3` and `3/3` against one `serve` give the
//! totals and clause matrix of one unpartitioned run; a missing part makes the merged verdict
//! incomplete and names it; parts of different runs, a part given twice and a whole run are
//! refused (exit 2), naming the file.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::binary::{BIN, serve, temp_dir};
use serde_json::Value;

fn certify(served: &common::binary::Served, extra: &[&str], json: &Path) -> Output {
    let out = Command::new(BIN)
        .args(["--target", &served.url, "--profile"])
        .arg(&served.profile)
        .arg("--json")
        .arg(json)
        .args(extra)
        .env_remove("WORKSPACE_API_KEY")
        .output()
        .expect("the binary runs");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{extra:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn merge(args: &[&Path]) -> Output {
    Command::new(BIN)
        .arg("merge")
        .args(args)
        .output()
        .expect("the binary runs")
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("a JSON result")).expect("JSON")
}

/// Each clause's id, status and the trials behind it.
fn matrix(result: &Value) -> Vec<(String, String, Vec<String>)> {
    result["clauses"]
        .as_array()
        .expect("clauses")
        .iter()
        .map(|c| {
            let trials = c["trials"]
                .as_array()
                .expect("trials")
                .iter()
                .map(|t| t.as_str().unwrap_or_default().to_string())
                .collect();
            (
                c["id"].as_str().unwrap_or_default().to_string(),
                c["status"].as_str().unwrap_or_default().to_string(),
                trials,
            )
        })
        .collect()
}

#[test]
fn three_parts_merge_into_the_unpartitioned_run() {
    let served = serve("merge", &[]);
    let dir = temp_dir("merge-parts");
    let whole = dir.join("whole.json");
    certify(&served, &[], &whole);
    let parts: Vec<PathBuf> = (1..=3)
        .map(|k| dir.join(format!("part-{k}.json")))
        .collect();
    for (k, part) in parts.iter().enumerate() {
        certify(&served, &["--partition", &format!("{}/3", k + 1)], part);
    }
    let (json, junit, html) = (
        dir.join("merged.json"),
        dir.join("junit.xml"),
        dir.join("report.html"),
    );
    let out = Command::new(BIN)
        .arg("merge")
        .args(&parts)
        .arg("--json")
        .arg(&json)
        .arg("--junit")
        .arg(&junit)
        .arg("--report")
        .arg(&html)
        .output()
        .expect("merge runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout
            .trim_end()
            .lines()
            .last()
            .unwrap_or_default()
            .starts_with("verdict: PASSED"),
        "{stdout}"
    );
    let (whole, merged) = (read(&whole), read(&json));
    assert_eq!(merged["totals"], whole["totals"], "the totals of one run");
    assert_eq!(merged["verdict"], "passed");
    let (m, w) = (matrix(&merged), matrix(&whole));
    assert_eq!(m.len(), w.len(), "one row per clause");
    let differ: Vec<String> = m
        .iter()
        .zip(&w)
        // Statuses are the matrix; the trials behind a verified clause may differ, since a
        // setup shared by a run's trials runs in whichever trial comes to it first, and its
        // answers verify what they show in that trial (another one in each part).
        .filter(|(a, b)| a.1 != b.1 || (a.1 != "verified" && a.2 != b.2))
        .map(|(a, b)| {
            let only = |x: &[String], y: &[String]| -> Vec<String> {
                x.iter().filter(|t| !y.contains(t)).cloned().collect()
            };
            format!(
                "{}: merged {} / whole {}; only merged {:?}; only whole {:?}",
                a.0,
                a.1,
                b.1,
                only(&a.2, &b.2),
                only(&b.2, &a.2)
            )
        })
        .collect();
    assert!(
        differ.is_empty(),
        "the clause matrix of one run:\n{}",
        differ.join("\n")
    );
    let names = |r: &Value| -> Vec<String> {
        r["trials"]
            .as_array()
            .expect("trials")
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    assert_eq!(names(&merged), names(&whole), "each trial once");
    let junit = std::fs::read_to_string(&junit).expect("JUnit written");
    assert_eq!(
        junit.matches("<testcase ").count(),
        whole["totals"]["total"].as_u64().unwrap_or_default() as usize
    );
    assert!(
        std::fs::read_to_string(&html)
            .expect("HTML written")
            .contains("passed")
    );

    // A part left out: incomplete, the part named, exit 1.
    let out = merge(&[&parts[0], &parts[2]]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let last = stdout
        .trim_end()
        .lines()
        .last()
        .unwrap_or_default()
        .to_string();
    assert!(
        last.starts_with("verdict: incomplete") && last.contains("part 2/3 missing"),
        "{stdout}"
    );

    // A part given twice, a whole run, another selection, a file that is not a result: exit 2.
    let out = merge(&[&parts[0], &parts[1], &parts[0]]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("part 1/3 is given twice"), "{stderr}");
    let out = merge(&[&dir.join("whole.json")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("whole.json: the result of a whole run"),
        "{stderr}"
    );
    let other = dir.join("contacts-2.json");
    certify(
        &served,
        &["--area", "contacts", "--partition", "2/3"],
        &other,
    );
    let out = merge(&[&parts[0], &other]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("contacts-2.json is not a part of the same run")
            && stderr.contains("the catalog and selection"),
        "{stderr}"
    );
    let junk = dir.join("junk.json");
    std::fs::write(&junk, "<html>not json</html>").expect("write");
    let out = merge(&[&junk]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("junk.json: not a JSON result"), "{stderr}");
}
