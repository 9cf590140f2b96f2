//! The curl rendering of an exchange: the reproduction every failure shows.

use super::{Exchange, Redactor};

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

impl Exchange {
    /// A curl command that reproduces the request; credentials stay placeholders.
    pub fn curl(&self, redactor: &Redactor) -> String {
        let mut cmd = format!("curl -sS -i -X {} {}", self.method, shell_quote(&self.url));
        for (k, v) in &self.request_headers {
            cmd.push_str(&format!(" -H {}", shell_quote(&format!("{k}: {v}"))));
        }
        if let Some(b) = &self.request_body {
            cmd.push_str(&format!(" --data-raw {}", shell_quote(b)));
        }
        redactor.redact(&cmd)
    }
}
