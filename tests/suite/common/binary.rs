//! The binary as the tests run it: plain runs, temp directories, and a `serve` process.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdout, Command, Output, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_workspace-conformance");

/// GNU time, which measures the peak memory of a run. Outside CI a machine without it skips the
/// measurement (and says so); under CI (`CI` set, as `.ci/run` runs, which installs it) its
/// absence fails the test: a memory bound that is never measured proves nothing.
pub fn gnu_time() -> Option<&'static std::path::Path> {
    let timer = std::path::Path::new("/usr/bin/time");
    if timer.exists() {
        return Some(timer);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "GNU time (/usr/bin/time) is missing under CI: the peak memory of the run cannot be measured (install the Debian package `time`; .ci/run does)"
    );
    eprintln!("/usr/bin/time is absent: the peak memory is not measured (CI requires it)");
    None
}

/// Runs the binary with no API key in the environment.
pub fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_remove("WORKSPACE_API_KEY")
        .output()
        .expect("the binary runs")
}

/// A fresh directory of this test binary, named after `name`.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "wc-{}-{name}-{}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// A `serve` process on a free loopback port; killed on drop.
pub struct Served {
    pub child: Child,
    /// Kept open: the server prints more lines after the first.
    _out: BufReader<ChildStdout>,
    pub url: String,
    pub profile: PathBuf,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `serve` with `extra` arguments; its profile is written under `temp_dir(name)`.
pub fn serve(name: &str, extra: &[&str]) -> Served {
    serve_on(name, "127.0.0.1:0", extra)
}

/// Starts `serve` on `listen` with `extra` arguments; its profile is written under
/// `temp_dir(name)`.
pub fn serve_on(name: &str, listen: &str, extra: &[&str]) -> Served {
    let profile = temp_dir(name).join("profile.json");
    let mut child = Command::new(BIN)
        .args(["serve", "--listen", listen, "--profile-out"])
        .arg(&profile)
        .args(extra)
        .stdout(Stdio::piped())
        .spawn()
        .expect("serve starts");
    let mut line = String::new();
    let mut out = BufReader::new(child.stdout.take().expect("stdout"));
    out.read_line(&mut line).expect("first line");
    let url = line.trim().rsplit(' ').next().expect("address").to_string();
    assert!(
        url.starts_with("http://127.0.0.1:"),
        "unexpected first line: {line}"
    );
    Served {
        child,
        _out: out,
        url,
        profile,
    }
}
