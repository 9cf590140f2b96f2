//! `--help` in the suite's own words: a snapshot holds it, and no text of libtest's internals
//! (its option texts, its value docs, its no-op flags) may come back into it.

const BIN: &str = env!("CARGO_BIN_EXE_workspace-conformance");

fn help(args: &[&str]) -> String {
    let out = std::process::Command::new(BIN)
        .args(args)
        .output()
        .expect("the binary runs");
    assert!(out.status.success(), "{args:?} exits 0");
    String::from_utf8(out.stdout).expect("help is UTF-8")
}

#[test]
fn help_is_the_suites_own() {
    let text = help(&["--help"]);
    // Phrases of libtest-mimic's own `--help` (its option texts and value docs).
    for libtest in [
        "Usefull",
        "If this is set",
        "benchmarks",
        "tests and benchmarks",
        "Run ignored tests",
        "libtest-mimic",
        "no-capture",
        "--nocapture",
        "--show-output",
        "--include-ignored",
        "--logfile",
        "--bench",
        "-Z ",
        "--color",
        "all tests are run in the main thread",
    ] {
        assert!(
            !text.contains(libtest),
            "--help shows libtest's {libtest:?}:\n{text}"
        );
    }
    for kept in [
        "[FILTER]",
        "--exact",
        "--skip",
        "--list",
        "--test-threads",
        "--quiet",
        "--format",
    ] {
        assert!(text.contains(kept), "--help lost {kept}");
    }
    // Exit codes, environment and examples come last, in that order.
    let at = |s: &str| text.find(s).unwrap_or_else(|| panic!("--help lacks {s:?}"));
    assert!(at("Trials:") < at("Exit codes:"));
    assert!(at("Exit codes:") < at("Environment:"));
    assert!(at("Environment:") < at("Examples:"));
    insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("help", text);
    });
}

#[test]
fn hidden_libtest_flags_are_still_accepted() {
    // A command line written for a libtest binary keeps working: listing with libtest's no-ops.
    let out = std::process::Command::new(BIN)
        .args([
            "--list",
            "--nocapture",
            "--show-output",
            "--test",
            "v1.contacts",
        ])
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("v1.contacts"));
}
